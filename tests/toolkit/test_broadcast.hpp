#include <gtest/gtest.h>

#include <string>

#include "portasim/core/error.hpp"
#include "portasim/toolkit/broadcast.hpp"

namespace test_broadcast {

using portasim::toolkit::broadcast_shapes;
using portasim::toolkit::Shape;

// The message of the portasim::Error that f throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const portasim::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TEST_CATEGORY, broadcast_follows_numpy_rules) {
  EXPECT_EQ(broadcast_shapes(Shape{3, 1}, Shape{4}), (Shape{3, 4}));
  EXPECT_EQ(broadcast_shapes(Shape{2, 3, 1}, Shape{3, 4}), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes(Shape{}, Shape{5}), (Shape{5}));
  EXPECT_EQ(broadcast_shapes(Shape{1}, Shape{}), (Shape{1}));
  EXPECT_EQ(broadcast_shapes(Shape{1, 1, 7}, Shape{6, 1}), (Shape{1, 6, 7}));
  EXPECT_EQ(broadcast_shapes(Shape{5, 0}, Shape{1}), (Shape{5, 0}));
  EXPECT_EQ(Shape({2, 3, 4}).without(1), (Shape{2, 4}));
  EXPECT_EQ(Shape({2, 3, 4}).size(), 24u);
  EXPECT_EQ(Shape({7}).to_string(), "(7,)");
  EXPECT_EQ(Shape({2, 3}).to_string(), "(2, 3)");
}

TEST(TEST_CATEGORY, broadcast_errors_name_both_shapes_and_the_dimension) {
  const std::string a = error_of([] { broadcast_shapes(Shape{3}, Shape{4}); });
  EXPECT_NE(a.find("(3,)"), std::string::npos) << a;
  EXPECT_NE(a.find("(4,)"), std::string::npos) << a;
  EXPECT_NE(a.find("dimension 0"), std::string::npos) << a;
  const std::string b = error_of([] { broadcast_shapes(Shape{2, 3, 4}, Shape{5, 1}); });
  EXPECT_NE(b.find("(2, 3, 4)"), std::string::npos) << b;
  EXPECT_NE(b.find("(5, 1)"), std::string::npos) << b;
  EXPECT_NE(b.find("dimension 1"), std::string::npos) << b;
  const std::string c = error_of([] {
    portasim::toolkit::require_output_shape(Shape{4, 2}, Shape{4, 3}, "output View 'y'");
  });
  EXPECT_NE(c.find("(4, 2)"), std::string::npos) << c;
  EXPECT_NE(c.find("(4, 3)"), std::string::npos) << c;
  EXPECT_NE(c.find("dimension 1"), std::string::npos) << c;
  EXPECT_NE(c.find("'y'"), std::string::npos) << c;
  EXPECT_NE(error_of([] { Shape({1, 2, 3, 4}); }), "");
  EXPECT_NE(error_of([] { Shape({2, 3}).without(2); }), "");
}

}  // namespace test_broadcast
