#pragma once
// Internals of the toolkit job (portasim/toolkit/job.hpp): the state its seed examples share,
// input generators and host copies, and one function per example. Each example runs on the
// job's instance with arrays from the job's pool, times its calls, appends its checks to the
// report and writes its group of the HDF5 file when there is one. The examples are defined
// in seed_vectors.cpp and seed_linalg.cpp and instantiated there for float and double on
// every enabled space, so that each file compiles on its own.
//
// A named namespace, not an anonymous one: nvcc refuses device code (the functors below) in
// anonymous namespaces of a file compiled as CUDA.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "portasim/config.hpp"
#include "portasim/core/benchmark.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/job.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/toolkit/job.hpp"

namespace portasim::toolkit::seed {

// How many elements of each large input/output array go into the file: enough to plot and
// to check by hand, bounded for n = 1e8 runs.
constexpr std::size_t stored_elements = 4096;

template <class Exec>
constexpr bool svd_available() {
#if defined(PORTASIM_HAS_LAPACKE)
  return true;
#else
  // cuSOLVER on device backends; host backends need LAPACKE.
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
#endif
}

constexpr bool blas_available() {
#if defined(PORTASIM_ENABLE_KERNELS)
  return true;
#else
  return false;
#endif
}

// Values in [-0.5, 0.5) from a hash of (flat index, seed), made on the device: no host-side
// generation for large n, and nothing a kernel could exploit.
template <class View>
struct HashFill {
  View view;
  std::uint32_t seed;
  std::int64_t cols;  // of a rank-2 view (LayoutRight); 1 for rank 1

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t e) const {
    std::uint32_t h = static_cast<std::uint32_t>(e) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    using T = typename View::non_const_value_type;
    const T value = static_cast<T>(static_cast<double>(h >> 8) * (1.0 / 16777216.0) - 0.5);
    if constexpr (View::rank == 1) {
      view(e) = value;
    } else {
      view(e / cols, e % cols) = value;
    }
  }
};

template <class Exec, class View>
void hash_fill(const Exec& exec, const View& view, std::uint32_t seed) {
  const std::int64_t cols =
      View::rank == 1 ? 1 : static_cast<std::int64_t>(view.extent(View::rank - 1));
  Kokkos::parallel_for("portasim::toolkit::seed::fill",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, static_cast<std::int64_t>(view.size())),
                       HashFill<View>{view, seed, cols});
}

// x(i) = first + step i
template <class View>
struct Linspace {
  View x;
  double first, step;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    x(i) = static_cast<typename View::non_const_value_type>(first + step * static_cast<double>(i));
  }
};

// A host copy of a device view (the same view where the host can read it), after the work
// enqueued on exec.
template <class Exec, class View>
auto to_host(const Exec& exec, const View& view) {
  return host_mirror_and_copy(exec, view);  // no mirror initialised on the default instance
}

template <class HostView>
std::vector<double> head_of(const HostView& view, std::size_t count = stored_elements) {
  std::vector<double> values(std::min<std::size_t>(count, view.extent(0)));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(view(i));
  return values;
}

// How many benchmarks a job times: elementwise 2, norms 4, softplus 2, the matmul kinds,
// trace, the SVD where it runs, pool 1. Progress is the fraction of them done.
template <class Exec>
std::size_t planned_benchmarks(const JobSpec& spec) {
  const bool svd = spec.svd_n > 0 && svd_available<Exec>();
  return 8 + (blas_available() ? 3 : 2) + 1 + (svd ? 1 : 0) + 1;
}

// What the examples of one job share. `file` is null when the job writes no file.
template <class Scalar, class ExecutionSpace>
struct SeedRun {
  using memory_space = typename ExecutionSpace::memory_space;

  const ExecutionSpace& exec;
  const JobSpec& spec;
  const JobContext& context;
  io::H5File* file;
  JobReport& report;
  DeviceMemoryPool<ExecutionSpace> pool;  // limit from PORTASIM_POOL_LIMIT, if set
  BenchmarkOptions bench;
  std::size_t planned;

  SeedRun(const ExecutionSpace& exec_, const JobSpec& spec_, const JobContext& context_,
          io::H5File* file_, JobReport& report_)
      : exec(exec_), spec(spec_), context(context_), file(file_), report(report_),
        planned(planned_benchmarks<ExecutionSpace>(spec_)) {
    bench.n_repeat = spec.repeat;
    bench.n_warmup = spec.warmup;
    bench.max_duration_s = spec.max_seconds;
  }

  // Pool views whose out-of-memory error names the option that asked for the memory.
  auto vector(const std::string& option, std::size_t count) {
    try {
      return pool.template view<Scalar*>(exec, count);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::out_of_memory) throw;
      throw_error(ErrorKind::out_of_memory,
                  option + " = " + std::to_string(count) + ": " + e.what());
    }
  }
  auto matrix(const std::string& option, std::size_t rows, std::size_t cols) {
    try {
      return pool.template view<Scalar**>(exec, rows, cols);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::out_of_memory) throw;
      throw_error(ErrorKind::out_of_memory, option + " (" + std::to_string(rows) + " x " +
                                                std::to_string(cols) + "): " + e.what());
    }
  }

  // Times `call` on the instance and reports progress; `work` is bytes or flops per call.
  template <class Work>
  void time(const std::string& name, double work, const std::string& unit, Work&& call) {
    Timing t;
    t.result = benchmark(name, exec, std::forward<Work>(call), bench);
    t.work = work;
    t.rate_unit = unit;
    report.timings.push_back(std::move(t));
    context.report_progress(
        std::min(1.0, static_cast<double>(report.timings.size()) / static_cast<double>(planned)));
  }

  void check(std::string what, double value, double bound) {
    report.checks.push_back({std::move(what), value, bound});
  }
  void note(std::string text) { report.summary.warnings.push_back(std::move(text)); }
};

// The examples, in the order the job runs them.
template <class Scalar, class ExecutionSpace>
void run_elementwise(SeedRun<Scalar, ExecutionSpace>& run);  // and the whole-array L2 norm
template <class Scalar, class ExecutionSpace>
void run_axis_norms(SeedRun<Scalar, ExecutionSpace>& run);
template <class Scalar, class ExecutionSpace>
void run_softplus(SeedRun<Scalar, ExecutionSpace>& run);
template <class Scalar, class ExecutionSpace>
void run_matmul(SeedRun<Scalar, ExecutionSpace>& run);  // three ways, and the trace
template <class Scalar, class ExecutionSpace>
void run_svd(SeedRun<Scalar, ExecutionSpace>& run);

#define PORTASIM_TOOLKIT_SEED_INSTANTIATE(FUNCTION, SPACE)           \
  template void FUNCTION<float, SPACE>(SeedRun<float, SPACE> & run); \
  template void FUNCTION<double, SPACE>(SeedRun<double, SPACE> & run);

}  // namespace portasim::toolkit::seed
