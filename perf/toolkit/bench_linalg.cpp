// The toolkit's linear algebra against CuPy's figures (shared/peers/blas_cupy.py):
// matmul naive / tiled / KokkosBlas::gemm (cuBLAS), float and double, n x n x n, in
// TFLOP/s = 2 n^3 / t; on GPUs also the tiled kernel's variants (tensor cores, SIMT) in
// double; trace (us_per_call); SVD of a 1000 x 1000 matrix (seconds). Names and counters
// follow perf/toolkit/plot_bench_toolkit.py's conventions, which overlays CuPy. Every call on one
// non-default instance, timed from a fenced start to the instance's fence.
// PORTASIM_BENCH_MAX_MATMUL_N caps the matmul sizes (host backends default to 1024).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/linalg.hpp"

namespace portasim_bench_linalg {

using Exec = Kokkos::DefaultExecutionSpace;
using memory = Exec::memory_space;
using clock_type = std::chrono::steady_clock;
using portasim::toolkit::MatmulAlgorithm;
constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory>::accessible;

// Values in [-0.5, 0.5) from a hash of (i, j): no structure a kernel could exploit, and no
// host-side generation for 8192^2 matrices.
template <class View>
void fill(const Exec& exec, const View& a, std::uint32_t seed) {
  const auto cols = static_cast<std::int64_t>(a.extent(1));
  Kokkos::parallel_for(
      "bench_linalg_fill",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
          exec, 0, static_cast<std::int64_t>(a.extent(0)) * cols),
      KOKKOS_LAMBDA(const std::int64_t e) {
        std::uint32_t h = static_cast<std::uint32_t>(e) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        a(e / cols, e % cols) =
            static_cast<typename View::value_type>(h >> 8) * (1.0f / 16777216.0f) - 0.5f;
      });
}

template <class Scalar>
void BM_matmul(benchmark::State& state, MatmulAlgorithm algorithm) {
  const int n = static_cast<int>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<Scalar**, Kokkos::LayoutRight, memory> a("A", n, n), b("B", n, n), c("C", n, n);
  fill(exec, a, 1u);
  fill(exec, b, 2u);
  portasim::toolkit::matmul(exec, a, b, c, algorithm);  // warm-up: first cuBLAS call sets up
  exec.fence();
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    portasim::toolkit::matmul(exec, a, b, c, algorithm);
    exec.fence();
    state.SetIterationTime(std::chrono::duration<double>(clock_type::now() - t0).count());
  }
  state.counters["TFLOP_per_s"] = benchmark::Counter(2.0 * n * n * static_cast<double>(n) * 1e-12,
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.counters["n"] = n;
}

// The tiled kernel's GPU variants side by side (toolkit/matmul.hpp, matmul_tiled_variant):
// FP64 tensor cores and SIMT, two tile shapes each; which one should be the default.
void BM_matmul_tiled_variant(benchmark::State& state, int variant) {
  const int n = static_cast<int>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<double**, Kokkos::LayoutRight, memory> a("A", n, n), b("B", n, n), c("C", n, n);
  fill(exec, a, 1u);
  fill(exec, b, 2u);
  portasim::toolkit::impl::matmul_tiled_variant<Exec>(exec, variant, a, b, c);
  exec.fence();
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    portasim::toolkit::impl::matmul_tiled_variant<Exec>(exec, variant, a, b, c);
    exec.fence();
    state.SetIterationTime(std::chrono::duration<double>(clock_type::now() - t0).count());
  }
  state.counters["TFLOP_per_s"] = benchmark::Counter(2.0 * n * n * static_cast<double>(n) * 1e-12,
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.counters["n"] = n;
}

// CuPy's trace figure is the mean of 20 back-to-back calls between two events: the same
// here, 20 asynchronous calls into a device scalar, then the fence.
template <class Scalar>
void BM_trace(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  constexpr int calls = 20;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<Scalar**, Kokkos::LayoutRight, memory> a("A", n, n);
  Kokkos::View<Scalar, memory> result("trace");
  fill(exec, a, 3u);
  portasim::toolkit::trace(exec, a, result);
  exec.fence();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    for (int r = 0; r < calls; ++r) portasim::toolkit::trace(exec, a, result);
    exec.fence();
    const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count() / calls;
    total += seconds;
    state.SetIterationTime(seconds);
  }
  state.counters["us_per_call"] = 1e6 * total / static_cast<double>(state.iterations());
  state.counters["n"] = n;
}

template <class Scalar>
void BM_svd(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<Scalar**, Kokkos::LayoutRight, memory> a("A", n, n), u("U", n, n), vt("Vt", n, n);
  Kokkos::View<Scalar*, memory> s("S", n);
  fill(exec, a, 4u);
  portasim::toolkit::svd(exec, a, u, s, vt);  // warm-up: solver handle, workspace
  exec.fence();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = clock_type::now();
    portasim::toolkit::svd(exec, a, u, s, vt);
    exec.fence();
    const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    total += seconds;
    state.SetIterationTime(seconds);
  }
  state.counters["seconds"] = total / static_cast<double>(state.iterations());
  state.counters["n"] = n;
}

std::int64_t max_matmul_n() {
  if (const char* cap = std::getenv("PORTASIM_BENCH_MAX_MATMUL_N")) return std::atoll(cap);
  return on_host ? 1024 : 8192;
}

void register_all() {
  struct Case {
    const char* name;
    void (*run)(benchmark::State&, MatmulAlgorithm);
    MatmulAlgorithm algorithm;
    std::int64_t largest;  // the naive kernel stops at 4096: 8192 would take seconds a call
  };
  const Case cases[] = {{"BM_matmul/naive/float", BM_matmul<float>, MatmulAlgorithm::naive, 4096},
                        {"BM_matmul/naive/double", BM_matmul<double>, MatmulAlgorithm::naive, 4096},
                        {"BM_matmul/tiled/float", BM_matmul<float>, MatmulAlgorithm::tiled, 8192},
                        {"BM_matmul/tiled/double", BM_matmul<double>, MatmulAlgorithm::tiled, 8192},
                        {"BM_matmul/blas/float", BM_matmul<float>, MatmulAlgorithm::blas, 8192},
                        {"BM_matmul/blas/double", BM_matmul<double>, MatmulAlgorithm::blas, 8192}};
  for (const Case& c : cases) {
    auto* b =
        benchmark::RegisterBenchmark(c.name, [c](benchmark::State& s) { c.run(s, c.algorithm); });
    for (std::int64_t n : {256, 1000, 1024, 2048, 4096, 8192})
      if (n <= c.largest && n <= max_matmul_n()) b->Arg(n);
    b->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  if (!on_host) {
    for (int variant = 0; variant < portasim::toolkit::impl::tiled_variants; ++variant) {
      const std::string name = std::string("BM_matmul_tiled_variant/double/") +
                               portasim::toolkit::impl::tiled_variant_name<Exec>(variant);
      auto* b = benchmark::RegisterBenchmark(
          name.c_str(), [variant](benchmark::State& s) { BM_matmul_tiled_variant(s, variant); });
      for (std::int64_t n : {1024, 2048, 4096, 8192})
        if (n <= max_matmul_n()) b->Arg(n);
      b->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
    }
  }
  for (auto* b : {benchmark::RegisterBenchmark("BM_trace/float", BM_trace<float>),
                  benchmark::RegisterBenchmark("BM_trace/double", BM_trace<double>)})
    b->Arg(1000)->Arg(4096)->Arg(8192)->ArgName("n")->UseManualTime()->Unit(
        benchmark::kMicrosecond);
  for (auto* b : {benchmark::RegisterBenchmark("BM_svd/float", BM_svd<float>),
                  benchmark::RegisterBenchmark("BM_svd/double", BM_svd<double>)})
    b->Arg(1000)->ArgName("n")->UseManualTime()->Unit(benchmark::kMillisecond);
}

const bool registered = (register_all(), true);

}  // namespace portasim_bench_linalg
