#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "harness/error_message.hpp"
#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"

namespace test_checked_size {

using portasim::testing::error_message;

TEST(TEST_CATEGORY, checked_product_refuses_overflow_by_name) {
  using portasim::checked_product;
  EXPECT_EQ(checked_product("a x b", {3, 5, 7}), 105);
  EXPECT_EQ(checked_product("a x b", {0, INT64_MAX, INT64_MAX}), 0);
  EXPECT_EQ(checked_product("a x b", {INT64_MAX, 1}), INT64_MAX);
  EXPECT_EQ(checked_product("a", {10, 10}, 100), 100);
  EXPECT_EQ(
      error_message([] {
        checked_product("--chunk-size x --height", {std::int64_t(1) << 32, std::int64_t(1) << 31});
      }),
      "--chunk-size x --height is too large: 4294967296 x 2147483648 exceeds 9223372036854775807");
  EXPECT_EQ(error_message([] {
              checked_product("a", {10, 11}, 100);
            }),
            "a is too large: 10 x 11 exceeds 100");
  EXPECT_NE(error_message([] {
              checked_product("--n", {-1, 2});
            }).find("negative"),
            std::string::npos);
}

TEST(TEST_CATEGORY, checked_step_count_refuses_what_int64_cannot_hold) {
  using portasim::checked_step_count;
  EXPECT_EQ(checked_step_count("t / dt", 1.0, 0.1), 10);
  EXPECT_EQ(checked_step_count("t / dt", 50.0, 0.01), 5000);
  EXPECT_EQ(checked_step_count("t / dt", 1e6, 1.0, 1000000 + 1), 1000000);
  // Past int64 std::llround alone is undefined; these are refused, naming the options.
  for (auto operation : {+[] { checked_step_count("--t-ms / --dt-ms", 1e300, 1e-300); },
                         +[] { checked_step_count("--t-ms / --dt-ms", 1e19, 1.0); },
                         +[] { checked_step_count("--t-ms / --dt-ms", 1.0, 0.0); },
                         +[] { checked_step_count("--t-ms / --dt-ms", std::nan(""), 1.0); },
                         +[] { checked_step_count("--t-ms / --dt-ms", 1e6, 1.0, 1000); }})
    EXPECT_EQ(error_message(operation).rfind("--t-ms / --dt-ms gives ", 0), 0u);
}

}  // namespace test_checked_size
