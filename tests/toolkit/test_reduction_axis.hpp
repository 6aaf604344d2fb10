#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/reduction.hpp"
#include "toolkit/elementwise_test_support.hpp"

// Reductions along an axis with the axis split in segments (impl/axis_reduction.hpp): the
// split of a few-output reduction on a device of 132 SMs, and every reduction kind along
// every axis of row-major and LayoutLeft data with forced segment counts (dividing the axis
// or not, more segments than elements, axis length 0 and 1, no outputs) against double host
// references and against the one-pass form.
namespace test_reduction_axis {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

// host reference along `axis` of a row-major (d0, d1, d2) array (rank-2 data: d0 = 1)
template <class Combine>
std::vector<double> host_along(const std::vector<double>& v, const std::size_t (&d)[3], int axis,
                               double identity, Combine combine) {
  std::vector<double> out;
  for (std::size_t i = 0; i < (axis == 0 ? 1 : d[0]); ++i)
    for (std::size_t j = 0; j < (axis == 1 ? 1 : d[1]); ++j)
      for (std::size_t k = 0; k < (axis == 2 ? 1 : d[2]); ++k) {
        double acc = identity;
        for (std::size_t r = 0; r < d[axis]; ++r) {
          const std::size_t a = axis == 0 ? r : i, b = axis == 1 ? r : j, c = axis == 2 ? r : k;
          acc = combine(acc, v[(a * d[1] + b) * d[2] + c]);
        }
        out.push_back(acc);
      }
  return out;
}

// the plan on a device of 132 SMs x 2048 threads and on a 2-thread host
TEST(TEST_CATEGORY, reduction_axis_split_plan) {
  const std::size_t h200 = 132 * 2048;
  const tk::impl::AxisReduceShape defaults;
  // (97656, 1024) floats along axis 0: 1024 outputs would run 1024 threads
  auto plan = tk::impl::plan_axis_split(1024, 97656, false, true, h200, sizeof(float), defaults);
  EXPECT_GT(plan.segments, 1u);
  // pass 1 fills one wave of its kernels (8 loads at up to 64 registers: half the threads)
  EXPECT_LE(1024 * plan.segments, tk::impl::half_wave(h200)) << "pass 1 fits in one wave";
  EXPECT_GT(1024 * (plan.segments + 1), tk::impl::half_wave(h200)) << "and fills it";
  // rounded down: 1000 outputs in 135 segments, not 136 (which would leave 832 threads to a
  // second wave)
  plan = tk::impl::plan_axis_split(1000, 97656, false, true, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, tk::impl::half_wave(h200) / 1000);
  plan = tk::impl::plan_axis_split(1024, 97656, false, true, h200, sizeof(float), defaults);
  EXPECT_LE(plan.segments * 1024 * sizeof(float), tk::impl::axis_partials_max_bytes);
  EXPECT_GE(97656 / plan.segments, tk::impl::axis_min_elements_per_thread);
  EXPECT_EQ(plan.team, 1);
  EXPECT_LE((plan.segments + plan.combine_team - 1) / plan.combine_team, 32u)
      << "pass 2 stays short per thread";
  // (16, 6.25e6) along the last axis: 16 teams without the split
  plan = tk::impl::plan_axis_split(16, 6250000, true, true, h200, sizeof(float), defaults);
  EXPECT_GT(plan.segments, 1u);
  EXPECT_EQ(plan.team, tk::impl::axis_split_rows_team);
  EXPECT_LE(16 * plan.segments * static_cast<std::size_t>(plan.team), tk::impl::half_wave(h200));
  EXPECT_GT(16 * (plan.segments + 1) * static_cast<std::size_t>(plan.team),
            tk::impl::half_wave(h200));
  // many outputs fill the device alone: one pass, as before the split
  plan = tk::impl::plan_axis_split(97656, 1024, true, true, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 1u);
  plan = tk::impl::plan_axis_split(1 << 20, 100, false, true, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 1u);
  // short axes are not split below axis_min_elements_per_thread per thread
  plan = tk::impl::plan_axis_split(16, 40, false, true, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 1u);
  // the partials bound caps a forced split and large accumulators
  tk::impl::AxisReduceShape forced;
  forced.segments = 1 << 20;
  plan = tk::impl::plan_axis_split(1000, 1 << 24, false, true, h200, sizeof(double), forced);
  EXPECT_EQ(plan.segments, tk::impl::axis_partials_max_bytes / (1000 * sizeof(double)));
  forced.segments = 5;
  plan = tk::impl::plan_axis_split(7, 3, true, false, 2, sizeof(float), forced);
  EXPECT_EQ(plan.segments, 5u) << "a forced split is kept, even beyond the axis length";
  EXPECT_EQ(plan.team, 1) << "host teams are one thread";
  // a chosen team for the rows form: kept on devices, with or without a split; hosts keep 1
  tk::impl::AxisReduceShape team128;
  team128.team = 128;
  EXPECT_EQ(tk::impl::plan_axis_split(97656, 1024, true, true, h200, sizeof(float), team128).team,
            128);
  EXPECT_EQ(tk::impl::plan_axis_split(16, 6250000, true, true, h200, sizeof(float), team128).team,
            128);
  EXPECT_EQ(tk::impl::plan_axis_split(16, 6250000, true, false, 2, sizeof(float), team128).team, 1);
  // a host: 1024 outputs keep every thread busy
  plan = tk::impl::plan_axis_split(1024, 97656, false, false, 2, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 1u);
  // one output: a segment per thread of the waves the split aims at
  plan = tk::impl::plan_axis_split(1, 97656, false, false, 2, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 2u * static_cast<std::size_t>(tk::impl::axis_default_waves));
}

// A thread's strided range (impl::accumulate_strided, every reduction kernel's loop) takes
// every element exactly once, for every start, stride and length (so every length of the last
// partial chunk), with the guarded and the predicated tail, at compile-time and run-time load
// counts. Element k is k + 1 (sums exact in double), 1000 - k for the minimum, 1 to count.
// (functors, not lambdas: accumulate_strided is a host and device function)
struct Plus {
  KOKKOS_INLINE_FUNCTION double operator()(double a, double b) const { return a + b; }
};
struct Smaller {
  KOKKOS_INLINE_FUNCTION double operator()(double a, double b) const { return b < a ? b : a; }
};
struct Value {
  KOKKOS_INLINE_FUNCTION double operator()(std::size_t k) const {
    return static_cast<double>(k + 1);
  }
};
struct Falling {
  KOKKOS_INLINE_FUNCTION double operator()(std::size_t k) const {
    return 1000.0 - static_cast<double>(k);
  }
};
struct One {
  KOKKOS_INLINE_FUNCTION double operator()(std::size_t) const { return 1.0; }
};

template <class Accumulate>
void check_every_tail(const std::string& form, const Accumulate& accumulate) {
  const Plus plus;
  const Smaller smaller;
  const Value value;
  const Falling falling;
  const One one;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t first = 0; first < 4; ++first)
    for (std::size_t stride = 1; stride <= 3; ++stride)
      for (std::size_t end = 0; end <= first + 70 * stride; ++end) {
        double want_sum = 0, want_min = inf, want_count = 0;
        for (std::size_t k = first; k < end; k += stride) {
          want_sum += value(k);
          want_min = std::min(want_min, falling(k));
          want_count += 1;
        }
        const std::string where = form + ", first " + std::to_string(first) + ", stride " +
                                  std::to_string(stride) + ", end " + std::to_string(end);
        ASSERT_EQ(accumulate(value, plus, 0.0, first, end, stride), want_sum) << where;
        ASSERT_EQ(accumulate(falling, smaller, inf, first, end, stride), want_min) << where;
        ASSERT_EQ(accumulate(one, plus, 0.0, first, end, stride), want_count) << where;
      }
}

template <int Count, bool Predicated>
void check_every_tail() {
  check_every_tail(
      "count " + std::to_string(Count) + (Predicated ? ", predicated tail" : ", guarded tail"),
      [](const auto& load, const auto& combine, double identity, std::size_t first, std::size_t end,
         std::size_t stride) {
        return tk::impl::accumulate_strided<Count, Predicated>(load, combine, identity, first, end,
                                                               stride);
      });
}

TEST(TEST_CATEGORY, reduction_strided_accumulation_every_tail) {
  check_every_tail<1, false>();
  check_every_tail<4, false>();
  check_every_tail<8, false>();
  check_every_tail<1, true>();
  check_every_tail<4, true>();
  check_every_tail<8, true>();
  for (int count : {1, 2, 4, 8, 3})  // 3: the run-time count's one-load-at-a-time form
    check_every_tail("run-time count " + std::to_string(count),
                     [count](const auto& load, const auto& combine, double identity,
                             std::size_t first, std::size_t end, std::size_t stride) {
                       return tk::impl::accumulate_strided(count, load, combine, identity, first,
                                                           end, stride);
                     });
}

// The combine gives each thread at most axis_combine_loads_in_flight partials, issued
// together: the combine kernel's team (combine_team) for the flat and columns forms, and the
// rows form's own team, whose last team combines (a one-wave grid on a device).
TEST(TEST_CATEGORY, reduction_axis_combine_reads_once) {
  const std::size_t h200 = 132 * 2048;
  const tk::impl::AxisReduceShape defaults;
  const auto loads_per_thread = [](const tk::impl::AxisPlan& plan, int team) {
    return (plan.segments + static_cast<std::size_t>(team) - 1) / static_cast<std::size_t>(team);
  };
  const std::size_t most = static_cast<std::size_t>(tk::impl::axis_combine_loads_in_flight);
  const tk::impl::AxisPlan kernel_plans[] = {
      tk::impl::plan_axis_split(1024, 9765, false, true, h200, sizeof(float),
                                defaults),                                     // 1e7, axis 0 (flat)
      tk::impl::plan_axis_columns(16, 625000, h200, sizeof(float), defaults),  // 1e7, 16 columns
      tk::impl::plan_axis_columns(16, 6250000, h200, sizeof(float), defaults),  // 1e8, 16 columns
      tk::impl::plan_axis_split(1024, 97656, false, true, h200, sizeof(float),
                                defaults),                                     // 1e8, axis 0 (flat)
      tk::impl::plan_axis_columns(1024, 9765, h200, sizeof(float), defaults),  // 1e7, axis 0
      tk::impl::plan_axis_columns(1024, 97656, h200, sizeof(float), defaults)};  // 1e8, axis 0
  EXPECT_FALSE(tk::impl::rows_split_folds(16, 1024, 64, true, h200))
      << "four waves: the combine kernel";
  EXPECT_TRUE(tk::impl::rows_split_folds(16, 1024, 64, false, 2)) << "host backends always fold";
  EXPECT_FALSE(tk::impl::rows_split_folds(16, 1, 64, false, 2))
      << "nothing to fold without a split";
  for (const auto& plan : kernel_plans) {
    EXPECT_GT(plan.segments, 1u);
    EXPECT_LE(loads_per_thread(plan, plan.combine_team), most)
        << plan.segments << " segments, combine team " << plan.combine_team;
  }
  for (std::size_t length : {625000u, 6250000u}) {  // 16 rows at 1e7 and 1e8
    const auto plan =
        tk::impl::plan_axis_split(16, length, true, true, h200, sizeof(float), defaults);
    EXPECT_GT(plan.segments, 1u);
    EXPECT_TRUE(tk::impl::rows_split_folds(16, plan.segments, plan.team, true, h200));
    EXPECT_LE(loads_per_thread(plan, plan.team), most)
        << plan.segments << " segments, team " << plan.team;
  }
}

// the columns form: few outputs along the first axis of row-major data, on devices only
TEST(TEST_CATEGORY, reduction_axis_columns_plan) {
  const std::size_t h200 = 132 * 2048;
  const tk::impl::AxisReduceShape defaults;
  const auto columns = [&](int axis, bool first_index_fastest, std::size_t outputs,
                           std::size_t length, bool device, std::size_t concurrency) {
    return tk::impl::use_columns_form(axis, first_index_fastest, outputs, length, device,
                                      concurrency, sizeof(float), defaults);
  };
  EXPECT_TRUE(columns(0, false, 16, 625000, true, h200));
  EXPECT_TRUE(columns(0, false, 16, 5, true, h200)) << "up to 128 outputs, whatever the length";
  EXPECT_FALSE(columns(0, false, 16, 625000, false, 2)) << "host backends keep the flat form";
  EXPECT_FALSE(columns(1, false, 16, 625000, true, h200)) << "only the first axis";
  EXPECT_FALSE(columns(0, true, 16, 625000, true, h200)) << "only row-major outputs";
  EXPECT_FALSE(columns(0, false, 0, 625000, true, h200)) << "no outputs";
  // more outputs: groups of columns where the flat form would split the axis
  EXPECT_TRUE(columns(0, false, tk::impl::axis_max_column_outputs + 1, 100000, true, h200));
  EXPECT_TRUE(columns(0, false, 1024, 9765, true, h200));
  EXPECT_TRUE(columns(0, false, 32768, 305, true, h200))
      << "(305, 32768): the flat form splits in 4";
  EXPECT_FALSE(columns(0, false, 32768, 30, true, h200))
      << "(30, 32768): the flat form runs in one pass";
  EXPECT_FALSE(columns(0, false, tk::impl::half_wave(h200), 1000, true, h200))
      << "outputs enough for a wave of the flat form";
  EXPECT_FALSE(columns(0, false, 1024, 9765, false, 2));
  tk::impl::AxisReduceShape one_pass;
  one_pass.segments = 1;
  EXPECT_FALSE(
      tk::impl::use_columns_form(0, false, 1024, 9765, true, h200, sizeof(float), one_pass))
      << "a forced one-pass call of many outputs keeps the flat form";
  // (6.25e6, 16) floats: teams of 256 (16 lanes per column) over axis_column_waves waves of
  // its kernel (half the device's threads)
  const std::size_t wave = tk::impl::half_wave(h200);
  auto plan = tk::impl::plan_axis_columns(16, 6250000, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.team, 256);
  EXPECT_EQ(plan.segments, static_cast<std::size_t>(tk::impl::axis_column_waves) * wave / 256);
  EXPECT_GE(plan.combine_team, 32);
  // (6.25e5, 16): no more segments than leave each lane axis_min_elements_per_thread rows
  plan = tk::impl::plan_axis_columns(16, 625000, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments,
            std::min<std::size_t>(tk::impl::axis_column_waves * wave / 256, 625000 / (16 * 32)));
  // segments of whole 128-byte lines: 16 float columns, 2 rows a step; 3 columns, 32 rows
  EXPECT_EQ(tk::impl::column_segment_length(6250000, 1056, 16), 5920u);
  EXPECT_EQ(tk::impl::column_segment_length(6250000, 2112, 16), 2960u);
  EXPECT_EQ(tk::impl::column_segment_length(1000, 7, 3), 160u);
  EXPECT_EQ(tk::impl::column_segment_length(1000, 1, 3), 1000u);
  EXPECT_EQ(tk::impl::column_segment_length(1000, 7, 64), 143u);
  // a chosen wave count is kept
  tk::impl::AxisReduceShape four_waves;
  four_waves.waves = 4;
  EXPECT_EQ(tk::impl::plan_axis_columns(16, 6250000, h200, sizeof(float), four_waves).segments,
            4 * wave / 256);
  // 67 outputs: the team is the largest multiple of 67 up to 256, 3 lanes per column
  plan = tk::impl::plan_axis_columns(67, 301, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.team, 201);
  EXPECT_EQ(plan.segments, 3u)
      << "at least axis_min_elements_per_thread rows per lane: 301 / (3 * 32)";
  // short axes: one team, no second pass
  plan = tk::impl::plan_axis_columns(3, 9, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.segments, 1u);
  EXPECT_FALSE(tk::impl::columns_split_folds(3, plan, h200)) << "nothing to fold without a split";
  // (9765, 1024) floats (1e7): groups of 32 columns, 8 lanes each; 32 groups share the wave
  plan = tk::impl::plan_axis_columns(1024, 9765, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.columns, tk::impl::axis_column_group);
  EXPECT_EQ(plan.team, 256);
  EXPECT_EQ(plan.segments, wave / (32 * 256))
      << "rounded down: 17 segments would overfill the wave";
  EXPECT_TRUE(tk::impl::columns_split_folds(1024, plan, h200))
      << "one wave, a few partials per thread";
  // (6.25e6, 16): 16 lanes, 528 segments: 33 partials a thread would be too many to fold
  plan = tk::impl::plan_axis_columns(16, 6250000, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.columns, 16u);
  EXPECT_FALSE(tk::impl::columns_split_folds(16, plan, h200));
  // 1000 outputs: the last of 32 groups holds 8
  plan = tk::impl::plan_axis_columns(1000, 100000, h200, sizeof(float), defaults);
  EXPECT_EQ(plan.columns, tk::impl::axis_column_group);
  EXPECT_EQ(plan.segments, wave / (32 * 256));
  // beyond one wave the combine kernel takes over
  tk::impl::AxisReduceShape two_waves;
  two_waves.waves = 2;
  EXPECT_FALSE(tk::impl::columns_split_folds(
      1024, tk::impl::plan_axis_columns(1024, 97656, h200, sizeof(float), two_waves), h200));
  // a forced split is kept; the partials bound caps it
  tk::impl::AxisReduceShape forced;
  forced.segments = 7;
  EXPECT_EQ(tk::impl::plan_axis_columns(16, 100, h200, sizeof(float), forced).segments, 7u);
  forced.segments = 1 << 30;
  EXPECT_EQ(tk::impl::plan_axis_columns(100, 1 << 24, h200, sizeof(double), forced).segments,
            tk::impl::axis_partials_max_bytes / (100 * sizeof(double)));
}

template <class OutView>
OutView make_out(const std::string& label, const std::vector<std::size_t>& e) {
  if constexpr (OutView::rank == 1) {
    return OutView(label, e[0]);
  } else {
    return OutView(label, e[0], e[1]);
  }
}

// Every kind along `axis` of `in` (logical row-major values h, dims d with d[0] = 1 for
// rank 2) for each forced segment count, against host references and the one-pass result.
template <class Exec, class In>
void check_along(const Exec& exec, const In& in, const std::vector<double>& h,
                 const std::size_t (&d)[3], int axis, const std::vector<int>& segment_counts) {
  using Mem = typename In::memory_space;
  using Layout = typename In::array_layout;
  using OutD = std::conditional_t<In::rank == 2, Kokkos::View<double*, Layout, Mem>,
                                  Kokkos::View<double**, Layout, Mem>>;
  using OutF = std::conditional_t<In::rank == 2, Kokkos::View<float*, Layout, Mem>,
                                  Kokkos::View<float**, Layout, Mem>>;
  const int ref_axis = axis + (In::rank == 2 ? 1 : 0);
  std::vector<std::size_t> out_extents;
  for (int a = 0; a < static_cast<int>(In::rank); ++a)
    if (a != axis) out_extents.push_back(in.extent(a));
  const auto plus = [](double a, double b) { return a + b; };
  const auto want_sum = host_along(h, d, ref_axis, 0.0, plus);
  const auto want_abs =
      host_along(h, d, ref_axis, 0.0, [](double a, double b) { return a + std::fabs(b); });
  const auto want_sq =
      host_along(h, d, ref_axis, 0.0, [](double a, double b) { return a + b * b; });
  const auto want_min =
      host_along(h, d, ref_axis, 1e300, [](double a, double b) { return std::min(a, b); });
  const auto want_max =
      host_along(h, d, ref_axis, -1e300, [](double a, double b) { return std::max(a, b); });

  OutD sum_d = make_out<OutD>("sum_d", out_extents);
  OutF sum_f = make_out<OutF>("sum_f", out_extents), min_f = make_out<OutF>("min_f", out_extents),
       max_f = make_out<OutF>("max_f", out_extents), l2_f = make_out<OutF>("l2_f", out_extents);
  const auto sum_double = tk::sum_reduction<double>();
  const auto sum_float = tk::sum_reduction<float>();
  const auto min_float = tk::min_reduction<float>();
  const auto max_float = tk::max_reduction<float>();
  const auto l2_float = tk::l2_norm_reduction<float>();
  std::vector<double> one_pass_min, one_pass_max;
  for (int segments : segment_counts) {
    SCOPED_TRACE("axis " + std::to_string(axis) + ", segments " + std::to_string(segments));
    tk::impl::AxisReduceShape split;
    split.segments = segments;
    sum_double.along(exec, split, axis, sum_d, in);
    sum_float.along(exec, split, axis, sum_f, in);
    min_float.along(exec, split, axis, min_f, in);
    max_float.along(exec, split, axis, max_f, in);
    l2_float.along(exec, split, axis, l2_f, in);
    exec.fence();
    const auto gsd = to_host(sum_d), gsf = to_host(sum_f), gmin = to_host(min_f),
               gmax = to_host(max_f), gl2 = to_host(l2_f);
    ASSERT_EQ(gsd.size(), want_sum.size());
    for (std::size_t i = 0; i < want_sum.size(); ++i) {
      // float data summed in double: only the order of the additions differs
      EXPECT_NEAR(gsd[i], want_sum[i], 1e-13 * want_abs[i] + 1e-300) << "sum<double> " << i;
      // in float: short block sums, then sums of those: far below 1e-5 of sum |x|
      EXPECT_NEAR(gsf[i], want_sum[i], 1e-5 * want_abs[i] + 1e-30) << "sum<float> " << i;
      EXPECT_EQ(gmin[i],
                static_cast<float>(want_min[i] > 1e299 ? Kokkos::reduction_identity<float>::min()
                                                       : want_min[i]))
          << "min " << i;
      EXPECT_EQ(gmax[i],
                static_cast<float>(want_max[i] < -1e299 ? Kokkos::reduction_identity<float>::max()
                                                        : want_max[i]))
          << "max " << i;
      EXPECT_NEAR(gl2[i], std::sqrt(want_sq[i]), 2e-6 * std::sqrt(want_sq[i])) << "l2 " << i;
    }
    if (segments == 1) {
      one_pass_min = gmin;
      one_pass_max = gmax;
    } else if (!one_pass_min.empty()) {
      EXPECT_EQ(gmin, one_pass_min) << "split and one pass differ";
      EXPECT_EQ(gmax, one_pass_max) << "split and one pass differ";
    }
    // the same call again gives the same bits (and writes them)
    Kokkos::deep_copy(sum_f, 12345.0f);
    sum_float.along(exec, split, axis, sum_f, in);
    exec.fence();
    const auto again = to_host(sum_f);
    for (std::size_t i = 0; i < gsf.size(); ++i)
      EXPECT_EQ(std::memcmp(&again[i], &gsf[i], sizeof(double)), 0) << "not deterministic at " << i;
  }
}

template <class Exec, class Layout>
void every_axis_every_split() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::vector<int> base_counts = {1, 0, 2, 3, 7, 64};
  // 2-D: many and few outputs along each axis; segment counts that do not divide the axis
  // and more segments than elements
  const std::size_t shapes2[][2] = {{301, 67}, {67, 301}, {4099, 3}, {3, 4099}, {1, 9}, {9, 1}};
  for (const auto& e : shapes2) {
    SCOPED_TRACE("shape (" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ")");
    Kokkos::View<float**, Layout, Mem> m("m", e[0], e[1]);
    const auto h = fill_random(m, -1.0, 1.0, static_cast<unsigned>(e[0] * 7 + e[1]));
    const std::size_t d[3] = {1, e[0], e[1]};
    for (int axis = 0; axis < 2; ++axis) {
      std::vector<int> counts = base_counts;
      counts.push_back(static_cast<int>(e[axis]) + 3);  // more segments than elements
      check_along(exec, m, h, d, axis, counts);
    }
  }
  // 3-D along each axis
  Kokkos::View<float***, Layout, Mem> c("c", 13, 11, 17);
  const auto hc = fill_random(c, -5.0, 5.0, 31);
  const std::size_t d3[3] = {13, 11, 17};
  for (int axis = 0; axis < 3; ++axis) check_along(exec, c, hc, d3, axis, {1, 0, 2, 5, 16, 40});
}

template <class Exec>
void split_edges_and_broadcasting() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const auto sum = tk::sum_reduction<double>();
  const auto max = tk::max_reduction<double>();
  tk::impl::AxisReduceShape split;

  // a broadcast product: (N, 1) * (M,) along axis 0 and 1 -> sums of col(i) * row(j)
  const std::size_t n = 1000, m = 5;
  Kokkos::View<double**, Mem> col("col", n, 1);
  Kokkos::View<double*, Mem> row("row", m), along0("along0", m), along1("along1", n);
  fill(col,
       [](std::size_t i, std::size_t, std::size_t) { return 1.0 + static_cast<double>(i % 17); });
  fill(row,
       [](std::size_t j, std::size_t, std::size_t) { return 0.5 * static_cast<double>(j + 1); });
  double col_sum = 0;
  for (std::size_t i = 0; i < n; ++i) col_sum += 1.0 + static_cast<double>(i % 17);
  const auto product = tk::make_reduction(tk::fn::Multiplies{}, tk::fn::Plus{}, 0.0);
  for (int segments : {1, 0, 3, 7, 999, 1000, 1001, 5000}) {
    SCOPED_TRACE("segments " + std::to_string(segments));
    split.segments = segments;
    product.along(exec, split, 0, along0, col, row);
    product.along(exec, split, 1, along1, col, row);
    exec.fence();
    const auto g0 = to_host(along0), g1 = to_host(along1);
    for (std::size_t j = 0; j < m; ++j)
      EXPECT_EQ(g0[j], col_sum * 0.5 * static_cast<double>(j + 1)) << j;
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(g1[i], (1.0 + static_cast<double>(i % 17)) * 7.5) << i;
  }

  // axis length 0: every output is the identity (post-mapped), whatever the split
  Kokkos::View<double**, Mem> empty_axis("empty_axis", 0, 6);
  Kokkos::View<double*, Mem> six("six", 6);
  for (int segments : {1, 0, 4}) {
    split.segments = segments;
    Kokkos::deep_copy(six, 42.0);
    max.along(exec, split, 0, six, empty_axis);
    exec.fence();
    for (double v : to_host(six)) EXPECT_EQ(v, Kokkos::reduction_identity<double>::max());
    sum.along(exec, split, 0, six, empty_axis);
    exec.fence();
    for (double v : to_host(six)) EXPECT_EQ(v, 0.0);
  }
  // no outputs: nothing to do, and nothing goes wrong
  Kokkos::View<double**, Mem> no_outputs("no_outputs", 50, 0);
  Kokkos::View<double*, Mem> none("none", 0);
  for (int segments : {1, 0, 4}) {
    split.segments = segments;
    EXPECT_NO_THROW(sum.along(exec, split, 0, none, no_outputs));
  }
  exec.fence();
  // refused: a negative split
  split.segments = -1;
  EXPECT_THROW(sum.along(exec, split, 0, none, no_outputs), portasim::Error);
  split.segments = 0;
  split.waves = -2;
  EXPECT_THROW(sum.along(exec, split, 0, none, no_outputs), portasim::Error);
  split.waves = 0;
  split.team = -32;
  EXPECT_THROW(sum.along(exec, split, 0, none, no_outputs), portasim::Error);
}

// The split's cost per call: two kernels, and no allocation once the instance's partials
// block is large enough; a larger call grows the block and results stay right on both sides.
template <class Exec>
void split_steady_state() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const auto sum = tk::sum_reduction<double>();
  tk::impl::AxisReduceShape split;
  split.segments = 8;
  Kokkos::View<double**, Mem> small("small", 400, 3), large("large", 2000, 3000);
  Kokkos::deep_copy(small, 0.5);
  Kokkos::deep_copy(large, 0.25);
  Kokkos::View<double*, Mem> out_small("out_small", 3), out_large("out_large", 3000);
  sum.along(exec, split, 0, out_small, small);  // warm-up: the block may be allocated here
  exec.fence();
  auto& counter = LaunchCounter::get();
  counter.start();
  sum.along(exec, split, 0, out_small, small);
  counter.stop();
  const bool device = tk::impl::is_device_space<Exec>();
  const std::size_t concurrency = static_cast<std::size_t>(exec.concurrency());
  const bool columns =
      tk::impl::use_columns_form(0, false, 3, 400, device, concurrency, sizeof(double), split);
  const bool folds = tk::impl::axis_split_folds(
      3, tk::impl::plan_axis(3, 400, false, columns, device, concurrency, sizeof(double), split),
      false, columns, device, concurrency);
  EXPECT_EQ(counter.kernels, folds ? 1 : 2)
      << "split: pass 1 and pass 2, unless pass 1's last team combines";
  EXPECT_EQ(counter.allocations, 0) << "a split reduction allocated in steady state"
                                    << ": " << counter.allocations_made();
  split.segments = 1;
  counter.start();
  sum.along(exec, split, 0, out_small, small);
  counter.stop();
  EXPECT_EQ(counter.kernels, 1) << "one pass";
  EXPECT_EQ(counter.allocations, 0) << counter.allocations_made();
  // grow: 3000 outputs x 1000 segments of doubles need 24 MB > the 8 MiB bound: capped, still right
  split.segments = 1000;
  sum.along(exec, split, 0, out_large, large);
  split.segments = 8;
  sum.along(exec, split, 0, out_small, small);
  exec.fence();
  for (double v : to_host(out_large)) EXPECT_EQ(v, 500.0);
  for (double v : to_host(out_small)) EXPECT_EQ(v, 200.0);
  split.segments = 300;
  counter.start();
  sum.along(exec, split, 0, out_large, large);
  counter.stop();
  EXPECT_EQ(counter.allocations, 0) << "the grown block serves a call of the same size"
                                    << ": " << counter.allocations_made();
  exec.fence();
  for (double v : to_host(out_large)) EXPECT_EQ(v, 500.0);
}

TEST(TEST_CATEGORY, reduction_axis_split_row_major) {
  every_axis_every_split<TEST_EXECSPACE, Kokkos::LayoutRight>();
}
TEST(TEST_CATEGORY, reduction_axis_split_layout_left) {
  every_axis_every_split<TEST_EXECSPACE, Kokkos::LayoutLeft>();
}
TEST(TEST_CATEGORY, reduction_axis_split_edges) { split_edges_and_broadcasting<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, reduction_axis_split_steady_state) { split_steady_state<TEST_EXECSPACE>(); }

}  // namespace test_reduction_axis
