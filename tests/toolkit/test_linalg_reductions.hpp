// trace and norms against double-precision host sums, both layouts, float and double.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/norms.hpp"
#include "portasim/toolkit/trace.hpp"
#include "toolkit/linalg_test_support.hpp"

namespace test_toolkit_reductions {

using portasim::testing::HostMatrix;

template <class Exec, class Scalar, class Layout>
void trace_and_norms(int m, int n) {
  using memory = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  const HostMatrix a = portasim::testing::random_matrix<Scalar>(m, n, 7u * m + n);
  const auto a_d = portasim::testing::to_device<Scalar, Layout, memory>(a, "A");
  const double eps = portasim::testing::epsilon<Scalar>();

  double trace = 0, squares = 0, norm_1 = 0, norm_inf = 0;
  for (int i = 0; i < std::min(m, n); ++i) trace += a(i, i);
  for (int j = 0; j < n; ++j) {
    double column = 0;
    for (int i = 0; i < m; ++i) column += std::abs(a(i, j));
    norm_1 = std::max(norm_1, column);
  }
  for (int i = 0; i < m; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) {
      row += std::abs(a(i, j));
      squares += a(i, j) * a(i, j);
    }
    norm_inf = std::max(norm_inf, row);
  }
  const double frobenius = std::sqrt(squares);

  // Summation error bounds: length * eps * sum of |terms|.
  EXPECT_NEAR(portasim::toolkit::trace(exec, a_d), trace,
              std::min(m, n) * eps * std::min(m, n) + eps);
  Kokkos::View<Scalar, memory> trace_d("trace");
  portasim::toolkit::trace(exec, a_d, trace_d);
  Scalar trace_async = 0;
  Kokkos::deep_copy(exec, trace_async, trace_d);
  exec.fence();
  EXPECT_NEAR(trace_async, trace, std::min(m, n) * eps * std::min(m, n) + eps);
  EXPECT_NEAR(portasim::toolkit::frobenius_norm(exec, a_d), frobenius,
              2.0 * m * n * eps * frobenius);
  EXPECT_NEAR(portasim::toolkit::norm_1(exec, a_d), norm_1, 2.0 * m * eps * norm_1);
  EXPECT_NEAR(portasim::toolkit::norm_inf(exec, a_d), norm_inf, 2.0 * n * eps * norm_inf);

  // The vector 2-norm of A's values laid out flat is A's Frobenius norm.
  Kokkos::View<Scalar*, memory> x("x", static_cast<std::size_t>(m) * n);
  auto x_h = Kokkos::create_mirror_view(x);
  for (std::size_t e = 0; e < a.v.size(); ++e) x_h(e) = static_cast<Scalar>(a.v[e]);
  Kokkos::deep_copy(x, x_h);
  EXPECT_NEAR(portasim::toolkit::norm_2(exec, x), frobenius, 2.0 * m * n * eps * frobenius);
}

template <class Exec, class Scalar, class Layout>
void all_shapes() {
  const int shapes[][2] = {{1, 1}, {37, 53}, {200, 3}, {128, 128}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]));
    trace_and_norms<Exec, Scalar, Layout>(s[0], s[1]);
  }
}
TEST(TEST_CATEGORY, toolkit_trace_norms_double_right) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutRight>();
}
TEST(TEST_CATEGORY, toolkit_trace_norms_double_left) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutLeft>();
}
TEST(TEST_CATEGORY, toolkit_trace_norms_float_right) {
  all_shapes<TEST_EXECSPACE, float, Kokkos::LayoutRight>();
}

// A known case: the n x n identity times 3 has trace 3n, Frobenius norm 3 sqrt(n), 1- and
// inf-norms 3; a matrix with one negative column has its norms from absolute values.
template <class Exec>
void known_values() {
  using memory = typename Exec::memory_space;
  Exec exec;
  HostMatrix h(5, 5);
  for (int i = 0; i < 5; ++i) h(i, i) = 3.0;
  const auto a = portasim::testing::to_device<double, Kokkos::LayoutRight, memory>(h, "A");
  EXPECT_DOUBLE_EQ(portasim::toolkit::trace(exec, a), 15.0);
  EXPECT_DOUBLE_EQ(portasim::toolkit::frobenius_norm(exec, a), 3.0 * std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(portasim::toolkit::norm_1(exec, a), 3.0);
  EXPECT_DOUBLE_EQ(portasim::toolkit::norm_inf(exec, a), 3.0);
  HostMatrix g(2, 3);
  g(0, 0) = -1;
  g(1, 0) = -4;
  g(0, 1) = 2;
  g(1, 1) = 0.5;
  g(0, 2) = 0;
  g(1, 2) = 1;
  const auto b = portasim::testing::to_device<double, Kokkos::LayoutLeft, memory>(g, "B");
  EXPECT_DOUBLE_EQ(portasim::toolkit::norm_1(exec, b), 5.0);
  EXPECT_DOUBLE_EQ(portasim::toolkit::norm_inf(exec, b), 5.5);
  EXPECT_DOUBLE_EQ(portasim::toolkit::trace(exec, b), -0.5);
}
TEST(TEST_CATEGORY, toolkit_trace_norms_known_values) { known_values<TEST_EXECSPACE>(); }

}  // namespace test_toolkit_reductions
