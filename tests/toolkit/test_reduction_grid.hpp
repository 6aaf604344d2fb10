#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "harness/busy_kernel.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/reduction.hpp"
#include "toolkit/elementwise_test_support.hpp"

// The whole-array reduction kernel at the edges of its grid: sizes around the team width,
// the chunk one team takes per step (team * per_thread) and the full grid; every reduction
// kind against double host references; the identity of a reduction that is not 0; grid
// shapes other than the default; results left on the device until value().
namespace test_reduction_grid {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

template <class View>
double read(const View& v) {
  return to_host(v)[0];
}

// map for counting: every element contributes exactly 1
struct One {
  template <class A>
  KOKKOS_INLINE_FUNCTION long long operator()(A) const {
    return 1;
  }
};
struct Times {
  template <class A, class B>
  KOKKOS_INLINE_FUNCTION auto operator()(A a, B b) const -> decltype(a * b) {
    return a * b;
  }
};

// The sizes that sit on the kernel's boundaries for the default grid of this instance.
template <class Exec>
std::vector<std::size_t> boundary_sizes(const Exec& exec) {
  const std::size_t team = tk::impl::default_reduce_team;
  const std::size_t chunk = team * tk::impl::default_reduce_per_thread;
  const std::size_t grid_teams = std::max<std::size_t>(
      1, static_cast<std::size_t>(tk::impl::default_reduce_waves) *
             tk::impl::half_wave(static_cast<std::size_t>(exec.concurrency())) / team);
  const std::size_t grid = grid_teams * chunk;      // one chunk for every team of the grid
  const std::size_t warp_shares = grid_teams * 32;  // every team a share of exactly 32
  std::vector<std::size_t> sizes = {1,        2,         team - 1,  team,
                                    team + 1, chunk - 1, chunk + 1, 3 * chunk + 7};
  for (std::size_t s : {warp_shares - 1, warp_shares, warp_shares + 1, grid - 1, grid, grid + 1,
                        2 * grid + team + 3})
    sizes.push_back(s);
  sizes.push_back(3000001);  // large and odd: several chunks per share and a ragged end
  return sizes;
}

template <class Exec>
void every_kind_at_grid_boundaries() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  Kokkos::View<float, Mem> rf("rf");
  Kokkos::View<double, Mem> rd("rd");
  Kokkos::View<long long, Mem> rc("rc");
  for (std::size_t n : boundary_sizes(exec)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Kokkos::View<float*, Mem> x("x", n), y("y", n);
    // values in [-1, 1) with the extremes at the two ends: a kernel that misses the first or
    // the last element gets min or max wrong
    std::vector<double> hx = fill_random(x, -1.0, 1.0, static_cast<unsigned>(n));
    const std::vector<double> hy = fill_random(y, -1.0, 1.0, static_cast<unsigned>(n) + 1);
    hx.front() = -2.0;
    hx.back() = n > 1 ? 2.0 : -2.0;
    fill(x, [&](std::size_t i, std::size_t, std::size_t) { return hx[i]; });
    double sum = 0, dot = 0, squares = 0, abs_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sum += hx[i];
      abs_sum += std::fabs(hx[i]);
      dot += hx[i] * hy[i];
      squares += hx[i] * hx[i];
    }
    const double lo = *std::min_element(hx.begin(), hx.end());
    const double hi = *std::max_element(hx.begin(), hx.end());
    // float accumulation in per-thread partials and trees: a few float ulps of the sum of
    // magnitudes (a single running sum over 3e6 elements is off by ~1e-3 relative in the
    // L2 norm: the host path's old form failed this)
    // (host backends sum blocks of 1024 and then the block sums in a running sum per
    // thread: looser there)
    const bool device = tk::impl::is_device_space<Exec>();
    const double ftol = (device ? 1e-6 : 1e-5) * abs_sum + 1e-6;
    const double l2tol = (device ? 2e-6 : 2e-5) * std::sqrt(squares);

    tk::sum(exec, rf, x);
    exec.fence();
    EXPECT_NEAR(read(rf), sum, ftol) << "float sum";
    tk::sum(exec, rd, x);
    exec.fence();
    EXPECT_NEAR(read(rd), sum, 1e-12 * abs_sum) << "double sum";
    tk::dot(exec, rd, x, y);
    exec.fence();
    EXPECT_NEAR(read(rd), dot, 1e-12 * abs_sum) << "dot";
    tk::l2_norm(exec, rf, x);
    exec.fence();
    EXPECT_NEAR(read(rf), std::sqrt(squares), l2tol) << "l2 norm (post-map)";
    tk::min(exec, rf, x);
    exec.fence();
    EXPECT_EQ(read(rf), lo) << "min";
    tk::max(exec, rf, x);
    exec.fence();
    EXPECT_EQ(read(rf), hi) << "max";
    // every element counted exactly once
    tk::make_reduction(One{}, tk::fn::Plus{}, 0LL)(exec, rc, x);
    exec.fence();
    EXPECT_EQ(read(rc), static_cast<long long>(n)) << "count";
  }
}

// Identities other than 0: a product (identity 1), a max over negative values and a min over
// positive ones (a reduction that used 0 or a default-constructed value in place of the
// identity, in a padding accumulator or an idle thread, gives 0 for all three), and the
// empty input, which reduces to post(identity).
template <class Exec>
void identities_other_than_zero() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  Kokkos::View<double, Mem> rd("rd");
  for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(257), std::size_t(100003)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Kokkos::View<double*, Mem> x("x", n);
    const auto hx = fill_random(x, 0.999, 1.001, 5);
    double product = 1;
    for (double v : hx) product *= v;
    const auto prod = tk::make_reduction(tk::fn::Identity{}, Times{}, 1.0);
    prod(exec, rd, x);
    exec.fence();
    EXPECT_NEAR(read(rd), product, 1e-12 * n) << "product";
    EXPECT_NEAR(prod.value(exec, x), product, 1e-12 * n) << "product, value()";

    const auto negate = tk::make_reduction(tk::fn::Negate{}, tk::fn::Maximum{},
                                           -std::numeric_limits<double>::infinity());
    EXPECT_EQ(negate.value(exec, x), -*std::min_element(hx.begin(), hx.end()))
        << "max of negative values";
    EXPECT_EQ(tk::min_reduction<double>().value(exec, x), *std::min_element(hx.begin(), hx.end()));
  }
  Kokkos::View<double*, Mem> empty("empty", 0);
  EXPECT_EQ(tk::make_reduction(tk::fn::Identity{}, Times{}, 1.0).value(exec, empty), 1.0);
  EXPECT_EQ(tk::make_reduction(tk::fn::Identity{}, tk::fn::Plus{}, 3.0, tk::fn::Sqrt{})
                .value(exec, empty),
            std::sqrt(3.0));
  EXPECT_EQ(tk::min_reduction<double>().value(exec, empty),
            Kokkos::reduction_identity<double>::min());
  tk::sum(exec, rd, empty);  // the asynchronous form writes the identity too
  exec.fence();
  EXPECT_EQ(read(rd), 0.0);
}

// Grids other than the default (the benchmark's variants) give the same results; shapes the
// kernel cannot run are refused.
template <class Exec>
void other_grid_shapes() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::size_t n = 100003;
  Kokkos::View<float*, Mem> x("x", n);
  const auto hx = fill_random(x, 0.0, 1.0, 9);
  double sum = 0;
  for (double v : hx) sum += v;
  Kokkos::View<double, Mem> rd("rd");
  const auto total = tk::sum_reduction<double>();
  for (int team : {32, 128, 256, 1024})  // (the kernel is bounded to 32 registers: any team fits)
    for (int per_thread : {1, 2, 3, 4, 8})
      for (int waves : {1, 4}) {
        tk::impl::DeviceReduceShape shape;
        shape.team = team;
        shape.per_thread = per_thread;
        shape.waves = waves;
        Kokkos::deep_copy(exec, rd, -1.0);
        total(exec, shape, rd, x);
        exec.fence();
        EXPECT_NEAR(read(rd), sum, 1e-12 * sum) << team << " " << per_thread << " " << waves;
      }
  tk::impl::DeviceReduceShape bad;
  bad.per_thread = tk::impl::max_elements_in_flight + 1;
  EXPECT_THROW(total(exec, bad, rd, x), portasim::Error);
  bad.per_thread = 0;
  bad.team = -1;
  EXPECT_THROW(total(exec, bad, rd, x), portasim::Error);
}

// The device kernel itself (teams, accumulators, last-team-done, counter reset) on every
// backend: host backends do not use it for Reduction, but it runs there with teams of one
// thread, with real concurrency between teams on OpenMP, so its logic is tested here too.
template <class Exec>
void device_kernel_on_every_backend() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const bool device = tk::impl::is_device_space<Exec>();
  Kokkos::View<double, Mem> rd("rd");
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(64),
                        std::size_t(1001), std::size_t(100003)}) {
    Kokkos::View<double*, Mem> x("x", n);
    const auto hx = fill_random(x, -1.0, 1.0, 3);
    double squares = 0;
    for (double v : hx) squares += v * v;
    const auto expr = tk::apply(tk::fn::Square{}, x);
    const tk::impl::FlatIndex index(expr.shape(), false);
    for (int team : {1, 32})
      for (int per_thread : {1, 2, 3, 4, 8})
        for (int waves : {1, 3}) {
          if (!device && team > 1) continue;  // host teams: one thread is always possible
          tk::impl::DeviceReduceShape shape;
          shape.team = team;
          shape.per_thread = per_thread;
          shape.waves = waves;
          Kokkos::deep_copy(exec, rd, -1.0);
          tk::impl::reduce_whole_on_device(std::string("test"), exec, expr, index, n,
                                           tk::fn::Plus{}, 0.0, tk::fn::Sqrt{}, rd, shape);
          exec.fence();
          EXPECT_NEAR(read(rd), std::sqrt(squares), 1e-12 * (1 + std::sqrt(squares)))
              << "n " << n << " team " << team << " per_thread " << per_thread << " waves "
              << waves;
        }
  }
}

// The asynchronous form returns without waiting for the instance: right after the call the
// long kernel enqueued before it is still running (a fence or a synchronizing copy inside
// the reduction would have waited for it), and the result, read after a fence, includes
// what that kernel wrote (the reduction ran after it on the same instance).
template <class Exec>
void stays_on_the_device_until_value() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::size_t n = std::size_t(1) << (tk::impl::is_device_space<Exec>() ? 20 : 16);
  Kokkos::View<float*, Mem> x("x", n);
  Kokkos::View<std::uint32_t*, Mem> sink("sink", n);
  Kokkos::View<double, Mem> rd("rd");
  const auto total = tk::sum_reduction<double>();
  total(exec, rd, x);  // first use on this instance: the scratch is set up
  exec.fence();
  portasim::Event<Exec> busy_done(false);
  portasim::testing::fill_after_busy_work(exec, x, sink, 0.5f,
                                          portasim::testing::busy_rounds<Exec>(200000));
  busy_done.record(exec);
  total(exec, rd, x);
  if (tk::impl::is_device_space<Exec>())
    EXPECT_FALSE(busy_done.query()) << "the reduction waited for earlier work on the instance";
  EXPECT_EQ(total.value(exec, x), 0.5 * n);
  exec.fence();
  EXPECT_EQ(read(rd), 0.5 * n);
}

TEST(TEST_CATEGORY, reduction_grid_boundaries) { every_kind_at_grid_boundaries<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, reduction_identities) { identities_other_than_zero<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, reduction_grid_shapes) { other_grid_shapes<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, reduction_device_kernel) { device_kernel_on_every_backend<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, reduction_stays_on_device) {
  stays_on_the_device_until_value<TEST_EXECSPACE>();
}

}  // namespace test_reduction_grid
