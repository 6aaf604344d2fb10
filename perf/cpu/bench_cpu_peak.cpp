// What the host CPU can do at the threads Kokkos has, for the fraction-of-peak columns of
// docs/performance.md's CPU table (the GPU table's limits come from the data sheet; a CPU's
// depend on its clocks, memory channels and threads, so they are measured in the same run):
//   triad     a(i) = b(i) + s * c(i) over arrays far larger than the caches, STREAM's triad,
//             counted as STREAM counts it (24 bytes per element in double): the limit of
//             kernels that read and write;
//   read      the sum of such an array in 32 lanes, and of one of 40 MB (the reductions'
//             size): the limit of kernels that only read (reductions);
//   fma       independent chains x = x * a + b per thread, as many as the vector registers
//             hold, in float and double: the FMA units' peak at the instruction set of the
//             build (PORTASIM_CPU_ARCH), 2 FLOP per FMA.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "portasim/core/compat.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/vector_math.hpp"

namespace portasim_bench_cpu_peak {

using Exec = Kokkos::DefaultHostExecutionSpace;
using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
// The arrays come from a host memory pool, so they sit on huge pages as NumPy's arrays and the
// toolkit's pooled arrays do (portasim/core/huge_pages.hpp): the limit of the same memory.
using HostPool = portasim::MemoryPool<Kokkos::HostSpace>;

// Each iteration's time: `launch` and the fence that waits for it.
template <class Launch>
void time_iterations(benchmark::State& state, const Exec& exec, Launch&& launch) {
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    exec.fence();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

void BM_triad(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  Exec exec;
  HostPool pool{portasim::PoolLimit::none()};
  const auto a_block = pool.view<double*>(exec, n), b_block = pool.view<double*>(exec, n),
             c_block = pool.view<double*>(exec, n);
  const auto a = a_block.view(), b = b_block.view(), c = c_block.view();
  Kokkos::parallel_for(
      "triad_init", policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        a(i) = 0.0;  // every page written once before the timing
        b(i) = 1.0 + static_cast<double>(i % 7);
        c(i) = 2.0;
      });
  exec.fence();
  const double s = 3.0;
  time_iterations(state, exec, [&] {
    Kokkos::parallel_for(
        "triad", policy(exec, 0, n),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = b(i) + s * c(i); });
  });
  if (a(n - 1) != b(n - 1) + s * c(n - 1)) state.SkipWithError("triad: wrong result");
  state.counters["bytes_per_s"] = benchmark::Counter(24.0 * static_cast<double>(n),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

void BM_read(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const int threads = Exec().concurrency();
  constexpr int lanes = 32;
  Exec exec;
  HostPool pool{portasim::PoolLimit::none()};
  const auto a_block = pool.view<double*>(exec, n);
  const auto a = a_block.view();
  Kokkos::View<double*, Kokkos::HostSpace> out("out", threads);
  Kokkos::parallel_for(
      "read_init", policy(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) { a(i) = 1.0; });
  exec.fence();
  // Thread t sums its contiguous slice in `lanes` independent accumulators.
  const std::int64_t slice = n / threads / lanes * lanes;
  time_iterations(state, exec, [&] {
    Kokkos::parallel_for(
        "read", policy(exec, 0, threads), KOKKOS_LAMBDA(const std::int64_t t) {
          double lane[lanes] = {};
          const double* x = a.data() + t * slice;
          for (std::int64_t i = 0; i < slice; i += lanes) {
            PORTASIM_SIMD
            for (int l = 0; l < lanes; ++l) lane[l] += x[i + l];
          }
          double sum = 0;
          for (int l = 0; l < lanes; ++l) sum += lane[l];
          out(t) = sum;
        });
  });
  if (out(0) != static_cast<double>(slice)) state.SkipWithError("read: wrong sum");
  state.counters["bytes_per_s"] = benchmark::Counter(8.0 * static_cast<double>(slice) * threads,
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

// Chains per thread: enough independent FMAs to cover the FMA latency on every port.
template <class Scalar>
constexpr int fma_chains = 64 / sizeof(Scalar) * 4;  // 8 AVX2 registers of chains

template <class Scalar>
void BM_fma(benchmark::State& state) {
  const int threads = Exec().concurrency();
  const std::int64_t rounds = state.range(0);
  constexpr int chains = fma_chains<Scalar>;
  Kokkos::View<Scalar*, Kokkos::HostSpace> out("out", threads);
  Exec exec;
  time_iterations(state, exec, [&] {
    Kokkos::parallel_for(
        "fma", policy(exec, 0, threads), KOKKOS_LAMBDA(const std::int64_t t) {
          Scalar x[chains];
          for (int l = 0; l < chains; ++l) x[l] = Scalar(l) * Scalar(1e-3) + Scalar(t);
          const Scalar a = Scalar(0.999999), b = Scalar(1e-6);
          for (std::int64_t r = 0; r < rounds; ++r) {
            PORTASIM_SIMD
            for (int l = 0; l < chains; ++l) x[l] = x[l] * a + b;
          }
          Scalar sum = 0;
          for (int l = 0; l < chains; ++l) sum += x[l];
          out(t) = sum;
        });
  });
  benchmark::DoNotOptimize(out(0));
  state.counters["flop_per_s"] =
      benchmark::Counter(2.0 * chains * static_cast<double>(rounds) * threads,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = threads;
}

std::int64_t triad_elements() {
  if (const char* n = std::getenv("PORTASIM_BENCH_TRIAD_ELEMENTS")) return std::atoll(n);
  return std::int64_t(1) << 25;  // 3 arrays of 256 MiB: past any last-level cache
}

// The toolkit reductions' array in the CPU suite, 1e7 floats: read at the size it has, since a
// CPU whose last-level cache holds it reads it faster than memory.
constexpr std::int64_t reduction_elements = 5000000;  // doubles: 40 MB

const bool registered = [] {
  benchmark::RegisterBenchmark("cpu_peak/triad_double", BM_triad)
      ->Arg(triad_elements())
      ->ArgName("n")
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("cpu_peak/read_double", BM_read)
      ->Arg(triad_elements())
      ->Arg(reduction_elements)
      ->ArgName("n")
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("cpu_peak/fma_float", BM_fma<float>)
      ->Arg(1 << 20)
      ->ArgName("rounds")
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("cpu_peak/fma_double", BM_fma<double>)
      ->Arg(1 << 20)
      ->ArgName("rounds")
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace portasim_bench_cpu_peak
