#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#define TEST_EXECSPACE Kokkos::Cuda
#define TEST_CATEGORY cuda
