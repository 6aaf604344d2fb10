// What an allocate + free pair costs: a Kokkos View (cudaMalloc/cudaFree on CUDA, which
// synchronize the device; cudaHostAlloc for pinned memory, far slower), the caching
// MemoryPool after warm-up (a cache hit), and the stream-ordered pool (cudaMallocAsync /
// cudaFreeAsync; the space's allocator on host backends). Host time of the calls, without
// a fence (the pool calls return without waiting; Kokkos' free waits by itself); each
// iteration fences outside the timed part so that queues start empty.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <string>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/stream_ordered_pool.hpp"

namespace portasim_bench_memory_pool {

using Exec = Kokkos::DefaultExecutionSpace;
using clock_type = std::chrono::steady_clock;

template <class Allocate>
void time_pairs(benchmark::State& state, const Exec& exec, Allocate&& allocate_and_free) {
  allocate_and_free();  // warm-up: fills the pools' caches
  exec.fence();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    allocate_and_free();
    const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    exec.fence();
    total += seconds;
    state.SetIterationTime(seconds);
  }
  state.counters["us_per_pair"] = 1e6 * total / static_cast<double>(state.iterations());
  state.counters["bytes"] = static_cast<double>(state.range(0));
}

template <class Space>
void BM_alloc_kokkos_view(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> instances(1);
  time_pairs(state, instances[0], [&] {
    Kokkos::View<char*, Space> view(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("v")), bytes);
    benchmark::DoNotOptimize(view.data());
  });
}

template <class Space>
void BM_alloc_memory_pool(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> instances(1);
  portasim::MemoryPool<Space> pool(portasim::PoolLimit::none());
  const Exec& exec = instances[0];
  time_pairs(state, exec, [&] {
    auto view = pool.template view<char*>(exec, bytes);
    benchmark::DoNotOptimize(view.view().data());
  });
  state.counters["hits"] = static_cast<double>(pool.statistics().hits);
}

void BM_alloc_stream_ordered(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> instances(1);
  portasim::StreamOrderedPoolOptions options;
  options.limit = portasim::PoolLimit::none();
  portasim::StreamOrderedPool<Exec> pool(options);
  const Exec& exec = instances[0];
  time_pairs(state, exec, [&] {
    auto view = pool.view<char*>(exec, bytes);
    benchmark::DoNotOptimize(view.view().data());
  });
  state.SetLabel(portasim::StreamOrderedPool<Exec>::native ? "cudaMallocAsync" : "fallback");
}

using Device = Exec::memory_space;
using Pinned = portasim::PinnedHostSpace<Exec>;

}  // namespace portasim_bench_memory_pool

using namespace portasim_bench_memory_pool;

#define PORTASIM_ALLOC_SIZES(b) \
  b->RangeMultiplier(16)        \
      ->Range(1 << 10, 1 << 28) \
      ->ArgName("bytes")        \
      ->UseManualTime()         \
      ->Unit(benchmark::kMicrosecond)

PORTASIM_ALLOC_SIZES(
    BENCHMARK_TEMPLATE(BM_alloc_kokkos_view, Device)->Name("alloc_device_kokkos_view"));
PORTASIM_ALLOC_SIZES(
    BENCHMARK_TEMPLATE(BM_alloc_memory_pool, Device)->Name("alloc_device_memory_pool"));
PORTASIM_ALLOC_SIZES(BENCHMARK(BM_alloc_stream_ordered)->Name("alloc_device_stream_ordered"));
PORTASIM_ALLOC_SIZES(
    BENCHMARK_TEMPLATE(BM_alloc_kokkos_view, Pinned)->Name("alloc_pinned_kokkos_view"));
PORTASIM_ALLOC_SIZES(
    BENCHMARK_TEMPLATE(BM_alloc_memory_pool, Pinned)->Name("alloc_pinned_memory_pool"));
