// Host <-> device copies on an instance, pageable vs pinned host memory, 1 MiB .. 1 GiB
// (the spec's table: CuPy reaches 55 / 55 GB/s pinned H2D / D2H, 6 / 10 GB/s
// pageable). Each iteration: portasim::copy on the instance, then a fence; manual time.
// On host backends both kinds are HostSpace and a copy is a memcpy.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/transfers.hpp"

namespace portasim_bench_transfers {

using Exec = Kokkos::DefaultExecutionSpace;
using clock_type = std::chrono::steady_clock;

enum class Direction { host_to_device, device_to_host };

template <class HostSpace, Direction direction>
void BM_copy(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  portasim::InstancePool<Exec> instances(1);
  const Exec& exec = instances[0];
  // Initialized (touched) on both sides, so page faults are not timed.
  Kokkos::View<char*, Exec::memory_space> device("device", bytes);
  Kokkos::View<char*, HostSpace> host("host", bytes);
  Kokkos::fence();
  auto copy = [&] {
    if constexpr (direction == Direction::host_to_device) portasim::copy(exec, device, host);
    else portasim::copy(exec, host, device);
  };
  copy();  // warm-up
  exec.fence();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    copy();
    exec.fence();
    const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    total += seconds;
    state.SetIterationTime(seconds);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["GB_per_s"] = static_cast<double>(bytes) * n / total / 1e9;
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(HostSpace::name()) +
                 (direction == Direction::host_to_device ? " H2D" : " D2H"));
}

using Pinned = portasim::PinnedHostSpace<Exec>;
using Pageable = Kokkos::HostSpace;

}  // namespace portasim_bench_transfers

using namespace portasim_bench_transfers;

#define PORTASIM_TRANSFER_BENCH(name, space, direction) \
  BENCHMARK_TEMPLATE(BM_copy, space, direction)         \
      ->Name(name)                                      \
      ->RangeMultiplier(4)                              \
      ->Range(1, 1024)                                  \
      ->ArgName("MiB")                                  \
      ->UseManualTime()                                 \
      ->Unit(benchmark::kMillisecond)

PORTASIM_TRANSFER_BENCH("copy_h2d_pinned", Pinned, Direction::host_to_device);
PORTASIM_TRANSFER_BENCH("copy_d2h_pinned", Pinned, Direction::device_to_host);
PORTASIM_TRANSFER_BENCH("copy_h2d_pageable", Pageable, Direction::host_to_device);
PORTASIM_TRANSFER_BENCH("copy_d2h_pageable", Pageable, Direction::device_to_host);
