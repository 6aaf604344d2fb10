// Elementwise kernels, reductions and launch shapes of portasim::toolkit against the copy
// bandwidth of the same device, in the workloads of the CuPy peer (shared/peers/blas_cupy.py):
//   elementwise/<variant>/n:N     y = x1 * x2 + B in float; GB_per_s = 3 * 4 * n / t
//   copy/deep_copy_float/n:N      the measured copy bandwidth; GB_per_s = 2 * 4 * n / t
//   reduction/<variant>/n:N       L2 norm / sum of n floats into a device View; GB_per_s = 4 n / t
//   reduction_axis/<variant>/n:N  sum of an (n / 1024, 1024) float array along one axis, or of
//                                 (16, n / 16) along axis 1 / (n / 16, 16) along axis 0 (few
//                                 outputs: the reduced axis split in segments); GB_per_s = 4 n / t
//   launch_shape/<shape>/n:N      y = x1 * x2 + B under chosen RangePolicy / TeamPolicy shapes
//   elementwise_spread/per_thread:P/waves:W/n:N   (GPU only) y = x1 * x2 + B under
//                                 LaunchShape::spread(P, W): P elements per thread, one pass
//                                 (W = 0) or grid-stride over W * concurrency threads
//   reduction_grid/team:T/per_thread:P/waves:W/n:N (GPU only) L2 norm of n floats with the
//                                 device kernel's grid chosen: T threads per team, P
//                                 accumulators per thread, at most W * concurrency / 2 / T
//                                 teams (W waves of its 64-register kernel)
//   reduction_axis_split/<case>/segments:S|waves:W/n:N (GPU only) the few-output cases with
//                                 the split forced (S = 1: one pass) or aimed at W waves
//   host_overhead/<call>/n:16     one call on 16 elements on the Serial backend: the host-side
//                                 cost of the toolkit's layers against a raw Kokkos launch
// Each timed iteration enqueues `batch` calls on one instance and fences once (CuPy's peer
// times 20 calls between two events), so small sizes show the per-call launch cost rather
// than a fence; nothing is allocated and nothing is read back inside the loop.
// PORTASIM_BENCH_MAX_N caps n (default 10^8 on GPUs, 10^6 on CPUs).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/reduction.hpp"

namespace portasim_bench_toolkit {

namespace tk = portasim::toolkit;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
// Inputs come from the caching pool, as the toolkit job's arrays do: on host backends its
// large blocks use huge pages, as NumPy's arrays do (portasim/core/huge_pages.hpp).
using Vector = portasim::PooledView<float*, Mem>::view_type;
constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
constexpr int batch = 20;

std::int64_t max_n() {
  if (const char* cap = std::getenv("PORTASIM_BENCH_MAX_N")) return std::atoll(cap);
  return on_host ? 1000000 : 100000000;
}

// Runs work() `batch` times per iteration on exec, fenced; reports the time per call and
// bytes_per_call / time as GB/s.
template <class Space, class Work>
void time_calls(benchmark::State& state, const Space& exec, double bytes_per_call, Work&& work) {
  work();  // warm-up: first-touch, kernel loading
  exec.fence();
  double total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int b = 0; b < batch; ++b) work();
    exec.fence();
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / batch;
    state.SetIterationTime(t);
    total += t;
  }
  const double per_call = total / static_cast<double>(state.iterations());
  state.counters["us_per_call"] = 1e6 * per_call;
  state.counters["GB_per_s"] = bytes_per_call / per_call / 1e9;
  state.counters["n"] = static_cast<double>(state.range(0));
}

struct Inputs {
  explicit Inputs(const Exec& exec, std::size_t n)
      : x1_block(pool.view<float*>(exec, n)), x2_block(pool.view<float*>(exec, n)),
        y_block(pool.view<float*>(exec, n)), x1(x1_block.view()), x2(x2_block.view()),
        y(y_block.view()) {
    Kokkos::deep_copy(exec, x1, 1.5f);
    Kokkos::deep_copy(exec, x2, 0.5f);
    Kokkos::deep_copy(exec, y, 0.0f);
    exec.fence();
  }
  portasim::DeviceMemoryPool<Exec> pool{portasim::PoolLimit::none()};
  portasim::PooledView<float*, Mem> x1_block, x2_block, y_block;
  Vector x1, x2, y;
};

// A hand-written Kokkos kernel of the same arithmetic: what the toolkit's layers must match.
template <class V = Vector>
struct RawMultiplyAdd {
  V y, x1, x2;
  float b;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const { y(i) = x1(i) * x2(i) + b; }
};

template <class V = Vector>
struct RawSum {
  V x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, float& acc) const { acc += x(i); }
};

enum class Axpb { functor, expression, raw };

void BM_axpb(benchmark::State& state, Axpb how) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Inputs in(exec, n);
  const float B = 2.0f;
  auto x1 = in.x1, x2 = in.x2, y = in.y;
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(n);
  if (how == Axpb::functor) {
    time_calls(state, exec, bytes,
               [&] { tk::elementwise(exec, tk::fn::MultiplyAdd{}, y, x1, x2, B); });
  } else if (how == Axpb::expression) {
    time_calls(state, exec, bytes, [&] { tk::evaluate(exec, y, tk::arg(x1) * tk::arg(x2) + B); });
  } else {
    time_calls(state, exec, bytes, [&] {
      Kokkos::parallel_for("raw_axpb", Kokkos::RangePolicy<Exec>(exec, 0, n),
                           RawMultiplyAdd<>{y, x1, x2, B});
    });
  }
}

void BM_copy(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Inputs in(exec, n);
  time_calls(state, exec, 2.0 * sizeof(float) * static_cast<double>(n),
             [&] { Kokkos::deep_copy(exec, in.y, in.x1); });
}

enum class Reduce { l2_norm, sum, kokkos_sum };

void BM_reduce(benchmark::State& state, Reduce what) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Inputs in(exec, n);
  Kokkos::View<float, Mem> result("result");
  auto x = in.x1;
  const double bytes = sizeof(float) * static_cast<double>(n);
  if (what == Reduce::l2_norm) {
    const auto l2 = tk::l2_norm_reduction<float>();
    time_calls(state, exec, bytes, [&] { l2(exec, result, x); });
  } else if (what == Reduce::sum) {
    const auto sum = tk::sum_reduction<float>();
    time_calls(state, exec, bytes, [&] { sum(exec, result, x); });
  } else {
    time_calls(state, exec, bytes, [&] {
      Kokkos::parallel_reduce("raw_sum", Kokkos::RangePolicy<Exec>(exec, 0, n), RawSum<>{x},
                              Kokkos::Sum<float, Mem>(result));
    });
  }
}

void BM_reduce_grid(benchmark::State& state, tk::impl::DeviceReduceShape shape) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<float*, Mem> x(Kokkos::view_alloc(std::string("x"), Kokkos::WithoutInitializing), n);
  Kokkos::deep_copy(exec, x, 1.5f);
  Kokkos::View<float, Mem> result("result");
  const auto l2 = tk::l2_norm_reduction<float>();
  try {
    l2(exec, shape, result, x);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());  // e.g. a team larger than this kernel may have here
    return;
  }
  time_calls(state, exec, sizeof(float) * static_cast<double>(n),
             [&] { l2(exec, shape, result, x); });
  float host = 0;
  Kokkos::deep_copy(host, result);
  // every variant must still compute the norm (sqrt(n) * 1.5)
  const double want = 1.5 * std::sqrt(static_cast<double>(n));
  if (std::abs(host - want) > 1e-4 * want) state.SkipWithError("wrong L2 norm");
  state.counters["team"] = shape.team;
  state.counters["per_thread"] = shape.per_thread;
  state.counters["waves"] = shape.waves;
}

// A (rows, cols) float array of 0.25 summed along `axis`: cols = 1024 by default (1024 outputs
// along axis 0), or `few` rows (along axis 1) / `few` columns (along axis 0), the few-output
// cases that split the reduced axis in segments; `split` forces the split (zeros: default).
struct AxisCase {
  int axis = 0;
  std::size_t few = 0;
  tk::impl::AxisReduceShape split{};
};

void BM_reduce_axis(benchmark::State& state, AxisCase c) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  std::size_t cols = 1024, rows = n / cols;
  if (c.few > 0) {
    rows = c.axis == 1 ? c.few : n / c.few;
    cols = c.axis == 1 ? n / c.few : c.few;
  }
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> m(
      Kokkos::view_alloc(std::string("m"), Kokkos::WithoutInitializing), rows, cols);
  // filled as one flat range: the 2-D fill (a Kokkos 3.4 MDRange) of the (16, 6.25e6) array
  // left sums wrong on the GPU where the same kernels on host-filled data were right
  Kokkos::deep_copy(exec, Kokkos::View<float*, Mem, Kokkos::MemoryUnmanaged>(m.data(), m.span()),
                    0.25f);
  Kokkos::View<float*, Mem> out("out", c.axis == 0 ? cols : rows);
  exec.fence();
  const auto sum = tk::sum_reduction<float>();
  const auto split = c.split;
  time_calls(state, exec, sizeof(float) * static_cast<double>(rows * cols),
             [&] { sum.along(exec, split, c.axis, out, m); });
  // every variant must still compute the sums (0.25 per element: exact in float up to 2^24 per
  // output)
  float first = 0, last = 0;
  Kokkos::deep_copy(first, Kokkos::subview(out, 0));
  Kokkos::deep_copy(last, Kokkos::subview(out, out.extent(0) - 1));
  const double want = 0.25 * static_cast<double>(c.axis == 0 ? rows : cols);
  if (std::abs(first - want) > 1e-5 * want || std::abs(last - want) > 1e-5 * want)
    state.SkipWithError("wrong sums");
  const std::size_t length = c.axis == 0 ? rows : cols,
                    concurrency = static_cast<std::size_t>(exec.concurrency());
  const bool columns = tk::impl::use_columns_form(c.axis, false, out.extent(0), length, !on_host,
                                                  concurrency, sizeof(float), split);
  const auto plan = tk::impl::plan_axis(out.extent(0), length, c.axis == 1, columns, !on_host,
                                        concurrency, sizeof(float), split);
  state.counters["outputs"] = static_cast<double>(out.extent(0));
  state.counters["segments"] = static_cast<double>(plan.segments);
  state.counters["team"] = plan.team;
}

void BM_launch_shape(benchmark::State& state, tk::LaunchShape shape) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  Inputs in(exec, n);
  auto x1 = in.x1, x2 = in.x2, y = in.y;
  try {
    tk::elementwise(exec, shape, tk::fn::MultiplyAdd{}, y, x1, x2, 2.0f);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());  // a shape this backend cannot run
    return;
  }
  time_calls(state, exec, 3.0 * sizeof(float) * static_cast<double>(n),
             [&] { tk::elementwise(exec, shape, tk::fn::MultiplyAdd{}, y, x1, x2, 2.0f); });
  float first = 0, last = 0;  // a shape that missed elements would leave y's initial 0
  Kokkos::deep_copy(first, Kokkos::subview(y, 0));
  Kokkos::deep_copy(last, Kokkos::subview(y, n - 1));
  if (first != 2.75f || last != 2.75f) state.SkipWithError("wrong result");
  state.counters["chunk"] = shape.chunk;
  state.counters["per_thread"] = shape.per_thread;
  state.counters["waves"] = shape.waves;
  state.counters["league"] = shape.league;
  state.counters["team"] = shape.team;
  state.counters["vector"] = shape.vector;
}

// The toolkit's host-side work per call (argument checks, labels, policy set-up) on 16
// elements with the Serial backend, where the kernel itself costs next to nothing.
enum class Overhead { raw_for, elementwise, expression, raw_reduce, sum, l2_norm, sum_along };

void BM_host_overhead(benchmark::State& state, Overhead what) {
  using Host = Kokkos::Serial;
  using HostVector = Kokkos::View<float*, Kokkos::HostSpace>;
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const Host exec;
  HostVector x1("x1", n), x2("x2", n), y("y", n);
  Kokkos::deep_copy(x1, 1.5f);
  Kokkos::deep_copy(x2, 0.5f);
  Kokkos::View<float, Kokkos::HostSpace> result("result");
  Kokkos::View<float**, Kokkos::HostSpace> m("m", 4, n / 4);
  Kokkos::View<float*, Kokkos::HostSpace> rows("rows", 4);
  const float B = 2.0f;
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(n);
  switch (what) {
    case Overhead::raw_for:
      time_calls(state, exec, bytes, [&] {
        Kokkos::parallel_for("raw_axpb", Kokkos::RangePolicy<Host>(exec, 0, n),
                             RawMultiplyAdd<HostVector>{y, x1, x2, B});
      });
      break;
    case Overhead::elementwise:
      time_calls(state, exec, bytes,
                 [&] { tk::elementwise(exec, tk::fn::MultiplyAdd{}, y, x1, x2, B); });
      break;
    case Overhead::expression:
      time_calls(state, exec, bytes, [&] { tk::evaluate(exec, y, tk::arg(x1) * tk::arg(x2) + B); });
      break;
    case Overhead::raw_reduce:
      time_calls(state, exec, bytes, [&] {
        Kokkos::parallel_reduce("raw_sum", Kokkos::RangePolicy<Host>(exec, 0, n),
                                RawSum<HostVector>{x1},
                                Kokkos::Sum<float, Kokkos::HostSpace>(result));
      });
      break;
    case Overhead::sum: {
      const auto sum = tk::sum_reduction<float>();
      time_calls(state, exec, bytes, [&] { sum(exec, result, x1); });
      break;
    }
    case Overhead::l2_norm: {
      time_calls(state, exec, bytes, [&] { tk::l2_norm(exec, result, x1); });
      break;
    }
    case Overhead::sum_along:
      time_calls(state, exec, bytes, [&] { tk::sum_along(exec, 1, rows, m); });
      break;
  }
}

void register_all() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 10000; n <= max_n(); n *= 10) sizes.push_back(n);
  const std::int64_t sweep_n = max_n();
  auto with_sizes = [&](benchmark::internal::Benchmark* b) {
    for (auto n : sizes) b->Arg(n);
    b->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
  };
  with_sizes(benchmark::RegisterBenchmark("elementwise/axpb_float", BM_axpb, Axpb::functor));
  with_sizes(
      benchmark::RegisterBenchmark("elementwise/axpb_expression_float", BM_axpb, Axpb::expression));
  with_sizes(benchmark::RegisterBenchmark("elementwise/raw_kokkos_float", BM_axpb, Axpb::raw));
  with_sizes(benchmark::RegisterBenchmark("copy/deep_copy_float", BM_copy));
  with_sizes(benchmark::RegisterBenchmark("reduction/l2_norm_float", BM_reduce, Reduce::l2_norm));
  with_sizes(benchmark::RegisterBenchmark("reduction/sum_float", BM_reduce, Reduce::sum));
  with_sizes(benchmark::RegisterBenchmark("reduction/raw_kokkos_sum_float", BM_reduce,
                                          Reduce::kokkos_sum));
  with_sizes(benchmark::RegisterBenchmark("reduction_axis/sum_last_axis_float", BM_reduce_axis,
                                          AxisCase{1}));
  with_sizes(benchmark::RegisterBenchmark("reduction_axis/sum_first_axis_float", BM_reduce_axis,
                                          AxisCase{0}));
  with_sizes(benchmark::RegisterBenchmark("reduction_axis/sum_last_axis_16_rows_float",
                                          BM_reduce_axis, AxisCase{1, 16}));
  with_sizes(benchmark::RegisterBenchmark("reduction_axis/sum_first_axis_16_cols_float",
                                          BM_reduce_axis, AxisCase{0, 16}));

  const std::pair<const char*, Overhead> overheads[] = {
      {"raw_kokkos_for", Overhead::raw_for},  {"elementwise", Overhead::elementwise},
      {"expression", Overhead::expression},   {"raw_kokkos_reduce", Overhead::raw_reduce},
      {"sum_reduction", Overhead::sum},       {"l2_norm", Overhead::l2_norm},
      {"sum_along_axis", Overhead::sum_along}};
  for (const auto& o : overheads)
    benchmark::RegisterBenchmark((std::string("host_overhead/") + o.first + "_serial").c_str(),
                                 BM_host_overhead, o.second)
        ->Arg(16)
        ->ArgName("n")
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);

  if (!on_host) {
    std::vector<std::int64_t> big;
    for (auto n : sizes)
      if (n >= 10000000) big.push_back(n);
    auto with_big = [&](benchmark::internal::Benchmark* b) {
      for (auto n : big) b->Arg(n);
      b->ArgName("n")->UseManualTime()->Unit(benchmark::kMicrosecond);
    };
    for (int per_thread : {1, 2, 4, 8})
      for (int waves : {0, 1, 2, 4}) {
        const std::string name = "elementwise_spread/per_thread:" + std::to_string(per_thread) +
                                 "/waves:" + std::to_string(waves);
        with_big(benchmark::RegisterBenchmark(name.c_str(), BM_launch_shape,
                                              tk::LaunchShape::spread(per_thread, waves)));
      }
    for (int team : {128, 256, 512})
      for (int per_thread : {1, 2, 4, 8})
        for (int waves : {1, 2, 4}) {
          tk::impl::DeviceReduceShape shape;
          shape.team = team;
          shape.per_thread = per_thread;
          shape.waves = waves;
          const std::string name = "reduction_grid/team:" + std::to_string(team) +
                                   "/per_thread:" + std::to_string(per_thread) +
                                   "/waves:" + std::to_string(waves);
          with_big(benchmark::RegisterBenchmark(name.c_str(), BM_reduce_grid, shape));
        }
    // the axis split at the few-output cases: one pass (segments:1, the kernel before the
    // split), forced segment counts, and the automatic choice at 1, 2 and 4 waves
    const std::pair<const char*, AxisCase> axis_cases[] = {
        {"sum_first_axis_float", AxisCase{0}},
        {"sum_last_axis_float", AxisCase{1}},
        {"sum_last_axis_16_rows_float", AxisCase{1, 16}},
        {"sum_first_axis_16_cols_float", AxisCase{0, 16}}};
    for (const auto& a : axis_cases) {
      for (int segments : {1, 64, 256, 1024, 4096, 16384}) {
        AxisCase c = a.second;
        c.split.segments = segments;
        const std::string name = std::string("reduction_axis_split/") + a.first +
                                 "/segments:" + std::to_string(segments);
        with_big(benchmark::RegisterBenchmark(name.c_str(), BM_reduce_axis, c));
      }
      for (int waves : {1, 2, 4}) {
        AxisCase c = a.second;
        c.split.waves = waves;
        const std::string name =
            std::string("reduction_axis_split/") + a.first + "/waves:" + std::to_string(waves);
        with_big(benchmark::RegisterBenchmark(name.c_str(), BM_reduce_axis, c));
      }
      if (a.second.axis == 1)  // the rows form: threads per team (per row piece)
        for (int team : {32, 64, 128, 256, 512}) {
          AxisCase c = a.second;
          c.split.team = team;
          const std::string name =
              std::string("reduction_axis_split/") + a.first + "/team:" + std::to_string(team);
          with_big(benchmark::RegisterBenchmark(name.c_str(), BM_reduce_axis, c));
        }
    }
  }

  std::vector<tk::LaunchShape> shapes;
  for (int chunk : {0, 1, 16, 64, 256, 1024, 8192}) shapes.push_back(tk::LaunchShape::range(chunk));
  // GPU: CUDA block sizes, one block per 32..1024 lanes or 1056 blocks (8 on each of 132
  // SMs) walking the array grid-stride. Host: teams are threads.
  const std::vector<int> teams =
      on_host ? std::vector<int>{0, 1, 2} : std::vector<int>{32, 64, 128, 256, 512, 1024};
  const std::vector<int> vectors = on_host ? std::vector<int>{1, 8} : std::vector<int>{1, 4, 32};
  for (int league : {0, 1056})
    for (int team : teams)
      for (int vector : vectors)
        if (team * vector <= 1024) shapes.push_back(tk::LaunchShape::teams(league, team, vector));
  for (const auto& s : shapes) {
    const std::string name = s.kind == tk::LaunchShape::Kind::range
                                 ? "launch_shape/range_chunk:" + std::to_string(s.chunk)
                                 : "launch_shape/team_league:" + std::to_string(s.league) +
                                       "/team:" + std::to_string(s.team) +
                                       "/vector:" + std::to_string(s.vector);
    benchmark::RegisterBenchmark(name.c_str(), BM_launch_shape, s)
        ->Arg(sweep_n)
        ->ArgName("n")
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

const bool registered = (register_all(), true);

}  // namespace portasim_bench_toolkit
