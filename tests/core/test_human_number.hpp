#include <gtest/gtest.h>

#include <limits>

#include "portasim/core/human_number.hpp"

namespace test_human_number {

TEST(TEST_CATEGORY, human_number_reads_as_people_write_figures) {
  using portasim::human_number;
  EXPECT_EQ(human_number(6.8e7), "6.8e7");
  EXPECT_EQ(human_number(67891234.0), "6.79e7");
  EXPECT_EQ(human_number(-2.5e-6), "-2.5e-6");
  EXPECT_EQ(human_number(1.5e-4), "1.5e-4");
  EXPECT_EQ(human_number(1e5), "1e5");
  EXPECT_EQ(human_number(0.5), "0.5");
  EXPECT_EQ(human_number(0.001), "0.001");
  EXPECT_EQ(human_number(123.456), "123");
  EXPECT_EQ(human_number(12.3456), "12.3");
  EXPECT_EQ(human_number(99999.0), "99999");
  EXPECT_EQ(human_number(-65.0), "-65");
  EXPECT_EQ(human_number(0.0), "0");
  EXPECT_EQ(human_number(3.14159, 2), "3.1");
  EXPECT_EQ(human_number(std::numeric_limits<double>::quiet_NaN()), "none");
  EXPECT_EQ(human_number(std::numeric_limits<double>::infinity()), "inf");
}

}  // namespace test_human_number
