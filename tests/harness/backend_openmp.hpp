#pragma once
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#define TEST_EXECSPACE Kokkos::OpenMP
#define TEST_CATEGORY openmp
