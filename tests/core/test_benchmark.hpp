#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>

#include "portasim/core/benchmark.hpp"

namespace test_benchmark {

TEST(TEST_CATEGORY, timing_stats_match_numpy) {
  const auto s = portasim::TimingStats::of({1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.std_ms, std::sqrt(1.25));  // numpy.std: population
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 4.0);
  EXPECT_EQ(portasim::TimingStats::of({}).count, 0u);
}

template <class Exec>
void benchmark_runs_warmup_and_repeats() {
  Exec exec;
  Kokkos::View<double*, typename Exec::memory_space> x("x", 1000);
  int calls = 0;
  portasim::BenchmarkOptions options;
  options.n_repeat = 7;
  options.n_warmup = 3;
  const auto result = portasim::benchmark(
      "axpy", exec,
      [&] {
        ++calls;
        Kokkos::parallel_for(
            "axpy", Kokkos::RangePolicy<Exec>(exec, 0, x.extent(0)),
            KOKKOS_LAMBDA(const int i) { x(i) += 1.0; });
      },
      options);
  EXPECT_EQ(calls, 10);
  ASSERT_EQ(result.host_ms.size(), 7u);
  ASSERT_EQ(result.device_ms.size(), 7u);
  for (double t : result.device_ms) EXPECT_GE(t, 0.0);
  EXPECT_NE(result.summary().find("axpy : host:"), std::string::npos) << result.summary();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  EXPECT_DOUBLE_EQ(host(999), 10.0);

  options.max_duration_s = 0.0;  // one timed run, then stop
  const auto short_result = portasim::benchmark(
      "noop", exec, [] {}, options);
  EXPECT_EQ(short_result.device_ms.size(), 1u);
  options.n_repeat = 0;
  EXPECT_THROW(portasim::benchmark(
                   "bad", exec, [] {}, options),
               portasim::Error);
}

TEST(TEST_CATEGORY, benchmark_runs_warmup_and_repeats) {
  benchmark_runs_warmup_and_repeats<TEST_EXECSPACE>();
}

}  // namespace test_benchmark
