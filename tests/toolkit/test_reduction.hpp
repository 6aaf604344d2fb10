#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/reduction.hpp"
#include "toolkit/elementwise_test_support.hpp"

namespace test_reduction {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

// map of a user ReductionKernel: 1 for elements above a threshold (an int accumulator over
// float data).
struct Above {
  float threshold;
  template <class A>
  KOKKOS_INLINE_FUNCTION int operator()(A a) const {
    return a > threshold ? 1 : 0;
  }
};

template <class View>
double read(const View& v) {
  return to_host(v)[0];
}

// Whole-array reductions of 10^6 floats against double host sums. Tolerances: accumulating
// in float, the serial per-thread sums of the host backends round ~10^6 times at a partial
// sum near 5e5 (ulp 2^-5): a random walk of ~10 units, 2e-5 relative; 2e-4 leaves a margin
// of 10. Accumulating in double: 1e-12.
template <class Exec>
void whole_array_reductions_match_double_host_sums() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::size_t n = 1000000;
  Kokkos::View<float*, Mem> x("x", n), y("y", n);
  const auto hx = fill_random(x, 0.0, 1.0, 11);
  const auto hy = fill_random(y, -1.0, 1.0, 12);
  double sum = 0, dot = 0, squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += hx[i];
    dot += hx[i] * hy[i];
    squares += hx[i] * hx[i];
  }
  const double lo = *std::min_element(hx.begin(), hx.end());
  const double hi = *std::max_element(hy.begin(), hy.end());
  int above = 0;
  for (double v : hx) above += v > 0.75f;

  Kokkos::View<float, Mem> rf("rf");
  Kokkos::View<double, Mem> rd("rd");
  Kokkos::View<int, Mem> ri("ri");
  // A backend may allocate its reduction scratch on its first reduction in the process
  // (Kokkos Serial does); that is once per process, not per call, so warm up first: a test
  // run on its own (as CTest runs them) would otherwise count it.
  tk::sum(exec, rf, x);
  exec.fence();
  Kokkos::fence();
  auto& counter = LaunchCounter::get();

  counter.start();
  tk::sum(exec, rf, x);
  counter.stop();
  EXPECT_EQ(counter.kernels, 1);
  EXPECT_EQ(counter.allocations, 0) << "a reduction into a device View allocated"
                                    << ": " << counter.allocations_made();
  exec.fence();
  EXPECT_NEAR(read(rf), sum, 2e-4 * sum);
  tk::sum(exec, rd, x);
  exec.fence();
  EXPECT_NEAR(read(rd), sum, 1e-12 * sum);

  tk::dot(exec, rf, x, y);
  exec.fence();
  const double dot_scale = std::sqrt(static_cast<double>(n)) * 0.5;  // |dot| is a random walk
  EXPECT_NEAR(read(rf), dot, 2e-4 * (std::fabs(dot) + dot_scale));
  tk::dot(exec, rd, x, y);
  exec.fence();
  EXPECT_NEAR(read(rd), dot, 1e-12 * (std::fabs(dot) + dot_scale));

  counter.start();
  tk::l2_norm(exec, rf, x);
  counter.stop();
  EXPECT_EQ(counter.kernels, 1) << "l2 norm: the post-map is part of the reduction kernel";
  EXPECT_EQ(counter.allocations, 0) << counter.allocations_made();
  exec.fence();
  EXPECT_NEAR(read(rf), std::sqrt(squares), 2e-4 * std::sqrt(squares));

  tk::min(exec, rf, x);
  exec.fence();
  EXPECT_EQ(read(rf), lo);
  tk::max(exec, rf, y);
  exec.fence();
  EXPECT_EQ(read(rf), hi);

  // a user ReductionKernel with an int accumulator, and the synchronous form
  const auto count = tk::make_reduction(Above{0.75f}, tk::fn::Plus{}, 0);
  count(exec, ri, x);
  exec.fence();
  EXPECT_EQ(read(ri), above);
  EXPECT_EQ(count.value(exec, x), above);
  EXPECT_NEAR(tk::l2_norm_reduction<double>().value(exec, x), std::sqrt(squares),
              1e-12 * std::sqrt(squares));
  // an empty input reduces to the identity (post-mapped)
  Kokkos::View<float*, Mem> empty("empty", 0);
  EXPECT_EQ(tk::sum_reduction<double>().value(exec, empty), 0.0);
  EXPECT_EQ(tk::max_reduction<float>().value(exec, empty),
            Kokkos::reduction_identity<float>::max());
}

// host reference of a reduction along `axis` of a row-major (d0, d1, d2) array
template <class Combine>
std::vector<double> host_along(const std::vector<double>& v, std::size_t d0, std::size_t d1,
                               std::size_t d2, int axis, double identity, Combine combine) {
  const std::size_t dims[3] = {d0, d1, d2};
  std::vector<double> out;
  for (std::size_t i = 0; i < (axis == 0 ? 1 : d0); ++i)
    for (std::size_t j = 0; j < (axis == 1 ? 1 : d1); ++j)
      for (std::size_t k = 0; k < (axis == 2 ? 1 : d2); ++k) {
        double acc = identity;
        for (std::size_t r = 0; r < dims[axis]; ++r) {
          const std::size_t a = axis == 0 ? r : i, b = axis == 1 ? r : j, c = axis == 2 ? r : k;
          acc = combine(acc, v[(a * d1 + b) * d2 + c]);
        }
        out.push_back(acc);
      }
  return out;
}

template <class Exec>
void axis_reductions_match_host() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const auto plus = [](double a, double b) { return a + b; };
  const auto maxf = [](double a, double b) { return std::max(a, b); };

  // 2-D (37, 1001) floats, summed in double along each axis
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> m("m", 37, 1001);
  const auto hm = fill_random(m, -1.0, 1.0, 21);
  Kokkos::View<double*, Mem> rows("rows", 37), cols("cols", 1001);
  tk::sum_along(exec, 1, rows, m);
  tk::sum_along(exec, 0, cols, m);
  exec.fence();
  auto got = to_host(rows);
  auto want = host_along(hm, 1, 37, 1001, 2, 0.0, plus);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12 * 1001) << i;
  got = to_host(cols);
  want = host_along(hm, 1, 37, 1001, 1, 0.0, plus);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12 * 37) << i;

  // L2 norm of each row in float (the post-map inside the axis kernel)
  Kokkos::View<float*, Mem> norms("norms", 37);
  tk::l2_norm_along(exec, 1, norms, m);
  exec.fence();
  got = to_host(norms);
  want = host_along(hm, 1, 37, 1001, 2, 0.0, [](double a, double b) { return a + b * b; });
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], std::sqrt(want[i]), 1e-5 * std::sqrt(want[i])) << i;

  // 3-D (5, 6, 7) along each axis: max exactly, sum in double; one output LayoutLeft
  Kokkos::View<double***, Mem> c("c", 5, 6, 7);
  auto hc = fill_random(c, -5.0, 5.0, 22);
  // to_host gives logical order whatever the layout
  const std::size_t d[3] = {5, 6, 7};
  for (int axis = 0; axis < 3; ++axis) {
    const std::size_t a = axis == 0 ? d[1] : d[0], b = axis == 2 ? d[1] : d[2];
    Kokkos::View<double**, Mem> mx("mx", a, b);
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> sm("sm", a, b);
    tk::max_along(exec, axis, mx, c);
    tk::sum_along(exec, axis, sm, c);
    exec.fence();
    const auto gmax = to_host(mx), gsum = to_host(sm);
    const auto wmax = host_along(hc, 5, 6, 7, axis, -1e300, maxf);
    const auto wsum = host_along(hc, 5, 6, 7, axis, 0.0, plus);
    ASSERT_EQ(gmax.size(), wmax.size());
    for (std::size_t i = 0; i < wmax.size(); ++i) {
      EXPECT_EQ(gmax[i], wmax[i]) << "axis " << axis << " element " << i;
      EXPECT_NEAR(gsum[i], wsum[i], 1e-12 * 10) << "axis " << axis << " element " << i;
    }
  }

  // a broadcast input: (4, 1) * (3,) summed along axis 0 -> (3,)
  Kokkos::View<double**, Mem> col("col", 4, 1);
  Kokkos::View<double*, Mem> row("row", 3), out3("out3", 3);
  fill(col, [](std::size_t i, std::size_t, std::size_t) { return 1.0 + i; });
  fill(row, [](std::size_t j, std::size_t, std::size_t) { return 10.0 * (j + 1); });
  tk::make_reduction(tk::fn::Multiplies{}, tk::fn::Plus{}, 0.0).along(exec, 0, out3, col, row);
  exec.fence();
  const auto h3 = to_host(out3);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(h3[j], 10.0 * (j + 1) * (1 + 2 + 3 + 4));

  // refused: axis out of range, an output of the wrong shape, a 1-D input
  EXPECT_THROW(tk::sum_along(exec, 2, rows, m), portasim::Error);
  EXPECT_THROW(tk::sum_along(exec, 0, rows, m), portasim::Error);
  Kokkos::View<double, Mem> scalar_out("scalar_out");
  EXPECT_THROW(tk::sum_along(exec, 0, scalar_out, row), portasim::Error);
  try {
    tk::sum_along(exec, 1, cols, m);
    ADD_FAILURE() << "a (1001,) output for a (37,) result was accepted";
  } catch (const portasim::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("(1001,)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(37,)"), std::string::npos) << msg;
  }
}

TEST(TEST_CATEGORY, reduction_whole_array) {
  whole_array_reductions_match_double_host_sums<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, reduction_along_axis) { axis_reductions_match_host<TEST_EXECSPACE>(); }

}  // namespace test_reduction
