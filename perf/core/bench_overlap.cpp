// Does a kernel on one instance overlap a device-to-host copy into pinned memory on another?
// Per iteration: the kernel alone (K), the copy alone (C), then both launched together (T).
// overlap_ratio = (K + C) / T: 1 means serialized, 2 means perfect overlap of equal parts.
// The kernel is compute-bound (little memory traffic) and calibrated to last about as long
// as the copy, the case where overlap matters most.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/profiling_region.hpp"

namespace portasim_bench_overlap {

using Exec = Kokkos::DefaultExecutionSpace;
using clock_type = std::chrono::steady_clock;

template <class View>
void compute_bound_kernel(const Exec& exec, const View& out, int rounds) {
  Kokkos::parallel_for(
      "overlap_compute", Kokkos::RangePolicy<Exec>(exec, 0, out.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        float x = static_cast<float>(i % 1024) * 1e-3f;
        for (int r = 0; r < rounds; ++r) x = x * 0.999f + 0.001f;
        out(i) = x;
      });
}

template <class Work>
double seconds_of(Work&& work) {
  const auto t0 = clock_type::now();
  work();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void BM_kernel_copy_overlap(benchmark::State& state) {
  const std::size_t copy_bytes = static_cast<std::size_t>(state.range(0)) << 20;
  portasim::InstancePool<Exec> pool(2);
  const Exec& compute = pool[0];
  const Exec& copy = pool[1];
  Kokkos::View<float*, Exec::memory_space> kernel_out("kernel_out", 1 << 20);
  Kokkos::View<char*, Exec::memory_space> device_buffer("device_buffer", copy_bytes);
  Kokkos::View<char*, portasim::PinnedHostSpace<Exec>> host_buffer("host_buffer", copy_bytes);
  Kokkos::fence();

  auto kernel = [&](int rounds) { compute_bound_kernel(compute, kernel_out, rounds); };
  auto transfer = [&] { Kokkos::deep_copy(copy, host_buffer, device_buffer); };

  // Calibrate the kernel to the copy's duration.
  transfer();
  copy.fence();
  const double copy_s = seconds_of([&] {
    transfer();
    copy.fence();
  });
  // Short probes are dominated by launch latency: grow the kernel until it lasts a good
  // fraction of the copy, then scale linearly.
  int rounds = 128;
  double probe_s = 0;
  do {
    rounds *= 2;
    kernel(rounds);
    compute.fence();
    probe_s = seconds_of([&] {
      kernel(rounds);
      compute.fence();
    });
  } while (probe_s < 0.25 * copy_s && rounds < (1 << 26));
  rounds = std::max(1, static_cast<int>(rounds * copy_s / probe_s));

  double kernel_total = 0, copy_total = 0, both_total = 0;
  for (auto _ : state) {
    const double k = seconds_of([&] {
      kernel(rounds);
      compute.fence();
    });
    const double c = seconds_of([&] {
      transfer();
      copy.fence();
    });
    const double t = seconds_of([&] {
      portasim::ProfilingRegion region("kernel + D2H");
      kernel(rounds);
      transfer();
      compute.fence();
      copy.fence();
    });
    kernel_total += k;
    copy_total += c;
    both_total += t;
    state.SetIterationTime(t);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["kernel_ms"] = 1e3 * kernel_total / n;
  state.counters["copy_ms"] = 1e3 * copy_total / n;
  state.counters["overlapped_ms"] = 1e3 * both_total / n;
  state.counters["overlap_ratio"] = (kernel_total + copy_total) / both_total;
  state.counters["copy_GB_per_s"] = static_cast<double>(copy_bytes) * n / copy_total / 1e9;
  state.counters["kernel_rounds"] = rounds;
}

}  // namespace portasim_bench_overlap

using portasim_bench_overlap::BM_kernel_copy_overlap;

BENCHMARK(BM_kernel_copy_overlap)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->ArgName("copy_MiB")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);
