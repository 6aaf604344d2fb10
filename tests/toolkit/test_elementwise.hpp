#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "toolkit/elementwise_test_support.hpp"

namespace test_elementwise {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

// A user functor of three operands, as an ElementwiseKernel body would be.
struct Blend {
  float weight;
  template <class A, class B, class C>
  KOKKOS_INLINE_FUNCTION double operator()(A a, B b, C c) const {
    return weight * a + (1 - weight) * b + c;
  }
};

template <class T>
long double softplus_reference(long double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

template <class Exec, class T>
void seed_examples_match_long_double() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const std::size_t n = 10007;
  Kokkos::View<T*, Mem> a("a", n), b("b", n), y("y", n);
  const auto ha = fill_random(a, -3.0, 3.0, 1);
  const auto hb = fill_random(b, -3.0, 3.0, 2);
  const T eps = std::numeric_limits<T>::epsilon();

  // squared difference
  tk::elementwise(pool[0], tk::fn::SquaredDifference{}, y, a, b);
  pool[0].fence();
  auto hy = to_host(y);
  for (std::size_t i = 0; i < n; ++i) {
    const long double d = static_cast<long double>(ha[i]) - hb[i];
    ASSERT_NEAR(hy[i], static_cast<double>(d * d), 4 * eps * static_cast<double>(d * d) + 1e-300)
        << i;
  }
  // y = x1 * x2 + B, B a scalar (contracting to an FMA changes the last bit: tolerance)
  const T B = T(2.5);
  tk::elementwise(pool[0], tk::fn::MultiplyAdd{}, y, a, b, B);
  pool[0].fence();
  hy = to_host(y);
  for (std::size_t i = 0; i < n; ++i) {
    const long double ref = static_cast<long double>(ha[i]) * hb[i] + B;
    const double scale = std::fabs(ha[i] * hb[i]) + std::fabs(double(B));
    ASSERT_NEAR(hy[i], static_cast<double>(ref), 2 * eps * scale) << i;
  }
}

template <class Exec, class T>
void softplus_is_stable_for_large_arguments() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const std::vector<double> xs = {-1e4,  -1000,  -200, -100,  -88,  -40, -20, -5, -1,
                                  -1e-3, -1e-20, 0,    1e-20, 1e-3, 1,   5,   20, 40,
                                  88,    89,     100,  200,   1000, 1e4, 3e38};
  // The naive log(1 + e^x) overflows at these sizes in this precision: the test data reach
  // the region where stability matters.
  EXPECT_TRUE(std::isinf(std::log(T(1) + std::exp(T(1000)))));
  Kokkos::View<T*, Mem> x("x", xs.size()), y("y", xs.size());
  fill(x, [&](std::size_t i, std::size_t, std::size_t) { return xs[i]; });
  const auto hx = to_host(x);
  tk::elementwise(pool[0], tk::fn::Softplus{}, y, x);
  pool[0].fence();
  const auto hy = to_host(y);
  const double eps = std::numeric_limits<T>::epsilon();
  const double tiny = std::numeric_limits<T>::min();  // below it, denormals lose digits
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const long double ref = softplus_reference<T>(hx[i]);
    EXPECT_TRUE(std::isfinite(hy[i])) << "x = " << hx[i];
    EXPECT_NEAR(hy[i], static_cast<double>(ref), 4 * eps * static_cast<double>(ref) + tiny)
        << "x = " << hx[i];
  }
}

template <class Exec>
void broadcasting_over_ranks() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  // (4, 1) + (3,) -> (4, 3)
  Kokkos::View<double**, Mem> col("col", 4, 1);
  Kokkos::View<double*, Mem> row("row", 3);
  Kokkos::View<double**, Mem> sum("sum", 4, 3);
  fill(col, [](std::size_t i, std::size_t, std::size_t) { return 10.0 * i; });
  fill(row, [](std::size_t j, std::size_t, std::size_t) { return 1.0 * j; });
  tk::elementwise(exec, tk::fn::Plus{}, sum, col, row);
  exec.fence();
  auto h = to_host(sum);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(h[i * 3 + j], 10.0 * i + j);

  // (2, 1, 4) * (3, 1) + rank-0 View -> (2, 3, 4), into a LayoutLeft output
  Kokkos::View<float***, Mem> a("a", 2, 1, 4);
  Kokkos::View<float**, Mem> b("b", 3, 1);
  Kokkos::View<float, Mem> c("c");
  Kokkos::View<double***, Kokkos::LayoutLeft, Mem> out("out", 2, 3, 4);
  fill(a, [](std::size_t i, std::size_t, std::size_t k) { return 1.0 + i + 0.25 * k; });
  fill(b, [](std::size_t j, std::size_t, std::size_t) { return 2.0 + j; });
  fill(c, [](std::size_t, std::size_t, std::size_t) { return 0.5; });
  tk::elementwise(exec, Blend{0.75f}, out, a, b, c);
  exec.fence();
  h = to_host(out);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k) {
        const double av = 1.0 + i + 0.25 * k, bv = 2.0 + j;
        EXPECT_NEAR(h[(i * 3 + j) * 4 + k], 0.75 * av + 0.25 * bv + 0.5, 1e-6) << i << j << k;
      }

  // A LayoutRight 3-D output from a LayoutLeft (3, 1, 5) and a (2, 1) input.
  Kokkos::View<double***, Kokkos::LayoutLeft, Mem> left("left", 3, 1, 5);
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> middle("middle", 2, 1);
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> right("right", 3, 2, 5);
  fill(left, [](std::size_t i, std::size_t, std::size_t k) { return 100.0 * i + k; });
  fill(middle, [](std::size_t j, std::size_t, std::size_t) { return 1000.0 * j; });
  tk::elementwise(exec, tk::fn::Minus{}, right, middle, left);
  exec.fence();
  h = to_host(right);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < 5; ++k)
        EXPECT_EQ(h[(i * 2 + j) * 5 + k], 1000.0 * j - (100.0 * i + k));
}

template <class Exec>
void bad_shapes_are_refused_and_leave_the_output_alone() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  Kokkos::View<float*, Mem> a("a", 3), b("b", 4), y("y", 3);
  Kokkos::View<float**, Mem> y2("y2", 2, 3);
  Kokkos::deep_copy(y, 7.0f);
  Kokkos::deep_copy(y2, 7.0f);
  try {
    tk::elementwise(pool[0], tk::fn::Plus{}, y, a, b);
    ADD_FAILURE() << "(3,) + (4,) was accepted";
  } catch (const portasim::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(3,)"), std::string::npos) << m;
    EXPECT_NE(m.find("(4,)"), std::string::npos) << m;
    EXPECT_NE(m.find("dimension 0"), std::string::npos) << m;
  }
  // NumPy does not broadcast into an output: (3,) + scalar into (2, 3) is refused.
  try {
    tk::elementwise(pool[0], tk::fn::Plus{}, y2, a, 1.0f);
    ADD_FAILURE() << "a (3,) result was written into a (2, 3) output";
  } catch (const portasim::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("(2, 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("(3,)"), std::string::npos) << m;
    EXPECT_NE(m.find("'y2'"), std::string::npos) << m;
  }
  pool[0].fence();
  for (double v : to_host(y)) EXPECT_EQ(v, 7.0);
  for (double v : to_host(y2)) EXPECT_EQ(v, 7.0);
}

// A KOKKOS_LAMBDA as the elementwise body, capturing a value, on a 2-D broadcast.
template <class Exec>
void lambda_bodies() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  Kokkos::View<float**, Mem> a("a", 5, 7), y("y", 5, 7);
  Kokkos::View<int*, Mem> b("b", 7);
  fill(a, [](std::size_t i, std::size_t j, std::size_t) { return 0.5 * i + j; });
  fill(b, [](std::size_t j, std::size_t, std::size_t) { return static_cast<double>(j % 3); });
  const float w = 3.0f;
  tk::elementwise(
      pool[0], KOKKOS_LAMBDA(const float x, const int k) { return w * x - static_cast<float>(k); },
      y, a, b);
  pool[0].fence();
  const auto h = to_host(y);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 7; ++j)
      EXPECT_EQ(h[i * 7 + j], 3.0 * (0.5 * i + j) - double(j % 3));
}

TEST(TEST_CATEGORY, elementwise_lambda_body) { lambda_bodies<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, elementwise_seed_examples_float) {
  seed_examples_match_long_double<TEST_EXECSPACE, float>();
}
TEST(TEST_CATEGORY, elementwise_seed_examples_double) {
  seed_examples_match_long_double<TEST_EXECSPACE, double>();
}
TEST(TEST_CATEGORY, elementwise_softplus_stable_float) {
  softplus_is_stable_for_large_arguments<TEST_EXECSPACE, float>();
}
TEST(TEST_CATEGORY, elementwise_softplus_stable_double) {
  softplus_is_stable_for_large_arguments<TEST_EXECSPACE, double>();
}
TEST(TEST_CATEGORY, elementwise_broadcasting) { broadcasting_over_ranks<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, elementwise_bad_shapes) {
  bad_shapes_are_refused_and_leave_the_output_alone<TEST_EXECSPACE>();
}

}  // namespace test_elementwise
