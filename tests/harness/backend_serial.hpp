#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#define TEST_EXECSPACE Kokkos::Serial
#define TEST_CATEGORY serial
