#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"

namespace test_error {

inline std::string message_of(void (*check)()) {
  try {
    check();
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "no portasim::Error thrown";
  return {};
}

TEST(TEST_CATEGORY, error_checks_name_the_parameter_and_value) {
  using namespace portasim;
  EXPECT_EQ(message_of([] { require_positive("--dt-ms", -0.5); }), "--dt-ms must be > 0, got -0.5");
  EXPECT_EQ(message_of([] { require_positive("--neurons", 0); }), "--neurons must be > 0, got 0");
  EXPECT_EQ(message_of([] { require_finite("--amplitude", std::nan("")); }),
            "--amplitude must be a finite number, got nan");
  EXPECT_EQ(message_of([] { require_non_negative("--steps", -1); }),
            "--steps must be >= 0, got -1");
  EXPECT_EQ(message_of([] { require_in_range("--density", 1.5, 0, 1); }),
            "--density must be in [0, 1], got 1.5");
  EXPECT_NO_THROW(require_positive("x", 1e-300));
  EXPECT_NO_THROW(require_non_negative("x", 0.0));
  EXPECT_NO_THROW(require_in_range("x", 1.0, 0, 1));
  EXPECT_THROW(require_positive("x", std::numeric_limits<double>::infinity()), Error);
}

TEST(TEST_CATEGORY, error_kind_survives_throw) {
  using namespace portasim;
  try {
    require(false, "cannot open 'x.h5'", ErrorKind::io);
    FAIL() << "require(false) did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_STREQ(e.what(), "cannot open 'x.h5'");
    EXPECT_STREQ(to_string(e.kind()), "I/O error");
  }
}

// Allocation failures as Kokkos 3.x and 4.x report them, whichever is built against, are
// told apart from other failures.
TEST(TEST_CATEGORY, allocation_failures_of_every_kokkos_release_are_recognised) {
  using portasim::compat::is_allocation_failure;
  EXPECT_TRUE(is_allocation_failure(std::bad_alloc()));
  EXPECT_TRUE(
      is_allocation_failure(std::runtime_error("Kokkos ERROR: Host memory space failed to allocate "
                                               "4 TiB (label=\"portasim::life::chunk\").")));
  EXPECT_TRUE(is_allocation_failure(
      std::runtime_error("Kokkos failed to allocate memory for label \"x\".  Allocation using "
                         "MemorySpace named \"Host\" failed")));
  EXPECT_TRUE(is_allocation_failure(std::runtime_error("Kokkos::Cuda: allocation failure")));
  EXPECT_FALSE(is_allocation_failure(std::runtime_error("Kokkos ERROR: a kernel failed")));
  EXPECT_FALSE(is_allocation_failure(std::logic_error("bad index")));
  // A real failed allocation of the Kokkos in use.
  try {
    Kokkos::View<char*, Kokkos::HostSpace> absurd("absurd", std::size_t(1) << 60);
    ADD_FAILURE() << "a 1 EiB host allocation succeeded";
  } catch (const std::exception& e) {
    EXPECT_TRUE(is_allocation_failure(e)) << e.what();
  }
}

}  // namespace test_error
