// SVD of A = Q1 diag(s) Q2^T with known s and random orthogonal Q1, Q2: the singular values
// found against s, U diag(S) Vt against A, and the orthonormality of U's columns and Vt's
// rows; tall, wide and square, both layouts, float and double; shape errors.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/svd.hpp"
#include "toolkit/linalg_test_support.hpp"

namespace test_toolkit_svd {

using portasim::testing::HostMatrix;

template <class Exec>
bool svd_available() {
#if defined(PORTASIM_HAS_LAPACKE)
  return true;
#else
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
#endif
}

template <class Exec, class Scalar, class Layout>
void known_singular_values(int m, int n) {
  using memory = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  const int k = std::min(m, n);
  // Well separated: 10, 10 - 9/k, ... > 1, so the tolerances below need no gap analysis.
  std::vector<double> s(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) s[static_cast<std::size_t>(i)] = 10.0 - 9.0 * i / k;
  const HostMatrix q1 = portasim::testing::random_orthogonal(m, 5u + m);
  const HostMatrix q2 = portasim::testing::random_orthogonal(n, 9u + n);
  HostMatrix scaled(m, n);  // Q1[:, :k] diag(s)
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) scaled(i, j) = q1(i, j) * s[static_cast<std::size_t>(j)];
  HostMatrix a = portasim::testing::multiply(scaled, portasim::testing::transpose(q2));
  for (double& x : a.v) x = static_cast<double>(static_cast<Scalar>(x));  // what the device sees

  const auto a_d = portasim::testing::to_device<Scalar, Layout, memory>(a, "A");
  const auto result = portasim::toolkit::svd(exec, a_d);
  ASSERT_EQ(result.u.extent(0), static_cast<std::size_t>(m));
  ASSERT_EQ(result.u.extent(1), static_cast<std::size_t>(k));
  ASSERT_EQ(result.s.extent(0), static_cast<std::size_t>(k));
  ASSERT_EQ(result.vt.extent(0), static_cast<std::size_t>(k));
  ASSERT_EQ(result.vt.extent(1), static_cast<std::size_t>(n));
  const HostMatrix u = portasim::testing::to_host(exec, result.u);
  const HostMatrix vt = portasim::testing::to_host(exec, result.vt);
  auto s_h = Kokkos::create_mirror(result.s);
  Kokkos::deep_copy(exec, s_h, result.s);
  exec.fence();

  // Backward-stable SVDs: errors of a few eps * max(m, n) * s_max.
  const double tolerance = 50.0 * std::max(m, n) * portasim::testing::epsilon<Scalar>();
  for (int i = 0; i < k; ++i)
    EXPECT_NEAR(s_h(i), s[static_cast<std::size_t>(i)], tolerance * 10.0) << "singular value " << i;
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += u(i, p) * static_cast<double>(s_h(p)) * vt(p, j);
      worst = std::max(worst, std::abs(sum - a(i, j)));
    }
  EXPECT_LE(worst, tolerance * 10.0) << "U diag(S) Vt does not reconstruct A";
  const HostMatrix utu = portasim::testing::multiply(portasim::testing::transpose(u), u);
  const HostMatrix vvt = portasim::testing::multiply(vt, portasim::testing::transpose(vt));
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      EXPECT_NEAR(utu(i, j), i == j ? 1.0 : 0.0, tolerance) << "U^T U (" << i << "," << j << ")";
      EXPECT_NEAR(vvt(i, j), i == j ? 1.0 : 0.0, tolerance) << "Vt Vt^T (" << i << "," << j << ")";
    }
}

template <class Exec, class Scalar, class Layout>
void all_shapes() {
  if (!svd_available<Exec>()) GTEST_SKIP() << "built without LAPACKE";
  const int shapes[][2] = {{1, 1}, {40, 25}, {25, 40}, {64, 64}, {3, 1}};
  for (const auto& sh : shapes) {
    SCOPED_TRACE(std::to_string(sh[0]) + "x" + std::to_string(sh[1]));
    known_singular_values<Exec, Scalar, Layout>(sh[0], sh[1]);
  }
}
TEST(TEST_CATEGORY, toolkit_svd_double_right) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutRight>();
}
TEST(TEST_CATEGORY, toolkit_svd_double_left) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutLeft>();
}
TEST(TEST_CATEGORY, toolkit_svd_float_right) {
  all_shapes<TEST_EXECSPACE, float, Kokkos::LayoutRight>();
}

template <class Exec>
void shape_errors() {
  using memory = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<double**, memory> a("A", 6, 4), u("U", 6, 4), u_bad("U bad", 6, 6), vt("Vt", 4, 4),
      empty("empty", 0, 3);
  Kokkos::View<double*, memory> s("S", 4), s_bad("S bad", 6);
  const auto message = [&](auto&& call) {
    try {
      call();
    } catch (const portasim::Error& e) {
      EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              portasim::toolkit::svd(exec, a, u_bad, s, vt);
            }).find("U is 6x6 but A (6x4) needs 6x4"),
            std::string::npos);
  EXPECT_NE(message([&] {
              portasim::toolkit::svd(exec, a, u, s_bad, vt);
            }).find("S has 6 values but A (6x4) has 4"),
            std::string::npos);
  EXPECT_NE(
      message([&] { portasim::toolkit::svd(exec, empty); }).find("at least one row and one column"),
      std::string::npos);
}
TEST(TEST_CATEGORY, toolkit_svd_shape_errors) { shape_errors<TEST_EXECSPACE>(); }

}  // namespace test_toolkit_svd
