// GoogleTest main for every backend executable: Kokkos is up for the whole run.
#include <gtest/gtest.h>

#include <cstdlib>

#include "portasim/core/runtime.hpp"

int main(int argc, char* argv[]) {
  // Unbound threads (the OpenMP default) without Kokkos 3.4's warning, which would otherwise
  // land in the test list that CTest discovers.
  setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  portasim::Runtime runtime(argc, argv);
  return RUN_ALL_TESTS();
}
