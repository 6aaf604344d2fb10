// `portasim toolkit`: the seed examples of the GPU toolkit (shared/specs/toolkit.md) on one
// backend, each checked against a host reference and timed with the benchmark helper, with
// every array taken from the caching memory pool. Results, timings and pool statistics go
// to one HDF5 file (scripts/plot_toolkit.py draws it).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "portasim/config.hpp"
#include "portasim/core/benchmark.hpp"
#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/toolkit/toolkit.hpp"
#include "progress.hpp"

namespace portasim::cli {

// A named namespace, not an anonymous one: nvcc refuses device code (the functors below) in
// anonymous namespaces of a file compiled as CUDA.
namespace toolkit_cli {

namespace tk = portasim::toolkit;

struct ToolkitOptions {
  std::int64_t n = 1 << 20;  // elements of the 1-D examples
  std::int64_t rows = 512;   // the 2-D array of the L2 norms along an axis
  std::int64_t cols = 512;
  std::int64_t matrix_n = 256;  // matmul n x n x n and the trace
  std::int64_t svd_n = 128;     // the SVD's n x n matrix (0: no SVD)
  std::int64_t softplus_points = 2001;
  double softplus_range =
      1000;  // softplus over [-R, R]; the naive formula overflows from 88.7 (float)
  std::string precision = "f32";
  int repeat = 20;
  int warmup = 3;
  double max_seconds = 2;  // per benchmark
  std::uint32_t seed = 1;
  std::string output = "toolkit.h5";
  std::string backend = "default";
  bool quiet = false;
  bool progress = false;
};

// How many elements of each large input/output array go into the file: enough to plot and
// to check by hand, bounded for n = 1e8 runs.
constexpr std::size_t stored_elements = 4096;

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
  Kokkos::parallel_for("portasim::cli::toolkit::fill",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, static_cast<std::int64_t>(view.size())),
                       HashFill<View>{view, seed, cols});
}

// x(i) = -range + 2 range i / (points - 1)
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
  auto host = Kokkos::create_mirror_view(view);
  Kokkos::deep_copy(exec, host, view);
  exec.fence();
  return host;
}

template <class HostView>
std::vector<double> head_of(const HostView& view, std::size_t count = stored_elements) {
  std::vector<double> values(std::min<std::size_t>(count, view.extent(0)));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(view(i));
  return values;
}

struct Check {
  std::string what;
  double value;
  double bound;
  bool ok() const { return value <= bound; }  // false for NaN
};

struct Timing {
  BenchmarkResult result;
  double work = 0;        // bytes or flops per call
  std::string rate_unit;  // "GB/s", "TFLOP/s" or empty
  double rate() const {
    const double ms = result.device().mean_ms;
    if (rate_unit.empty() || ms <= 0) return 0;
    return rate_unit == "TFLOP/s" ? work / (ms * 1e-3) * 1e-12 : work / (ms * 1e-3) * 1e-9;
  }
};

std::string format_bytes(double bytes) {
  char buffer[64];
  if (bytes >= 1 << 30) std::snprintf(buffer, sizeof buffer, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20) std::snprintf(buffer, sizeof buffer, "%.2f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10) std::snprintf(buffer, sizeof buffer, "%.2f KiB", bytes / (1 << 10));
  else std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
  return buffer;
}

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

template <class Scalar, class ExecutionSpace>
int run_toolkit(const ToolkitOptions& o) {
  using memory_space = typename ExecutionSpace::memory_space;
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  constexpr double tiny = std::numeric_limits<Scalar>::min();
  const char* precision_name = std::is_same<Scalar, float>::value ? "float32" : "float64";
  require(mpi::world_size() <= 1, "portasim toolkit runs in one process: start it without mpirun");

  // Every size is checked before the output is opened or anything is allocated.
  const std::int64_t elem = sizeof(Scalar);
  checked_product("--n", {o.n, 4, elem});
  checked_product("--rows x --cols", {o.rows, o.cols, elem});
  checked_product("--matrix-n", {o.matrix_n, o.matrix_n * 5, elem});
  checked_product("--svd-n", {o.svd_n, o.svd_n * 3 + 1, elem});
  checked_product("--softplus-points", {o.softplus_points, 3, elem});

  io::AtomicOutput output(o.output);  // fails now (exit 3) when the folder is not writable
  const RemoveOnInterrupt remove_if_interrupted(output.temporary_path());

  // A non-default instance: up to Kokkos 3.7 the default CUDA instance is the legacy stream.
  InstancePool<ExecutionSpace> instances(1);
  const ExecutionSpace& exec = instances[0];
  DeviceMemoryPool<ExecutionSpace> pool;  // limit from PORTASIM_POOL_LIMIT, if set
  BenchmarkOptions bench;
  bench.n_repeat = o.repeat;
  bench.n_warmup = o.warmup;
  bench.max_duration_s = o.max_seconds;

  // Pool views whose out-of-memory error names the option that asked for the memory.
  const auto vector_for = [&](const std::string& option, std::size_t count) {
    try {
      return pool.template view<Scalar*>(exec, count);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::out_of_memory) throw;
      throw_error(ErrorKind::out_of_memory,
                  option + " = " + std::to_string(count) + ": " + e.what());
    }
  };
  const auto matrix_for = [&](const std::string& option, std::size_t rows, std::size_t cols) {
    try {
      return pool.template view<Scalar**>(exec, rows, cols);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::out_of_memory) throw;
      throw_error(ErrorKind::out_of_memory, option + " (" + std::to_string(rows) + " x " +
                                                std::to_string(cols) + "): " + e.what());
    }
  };

  std::vector<Timing> timings;
  std::vector<Check> checks;
  std::vector<std::string> notes;
  // --progress: the fraction of the benchmarks done (elementwise 2, norms 4, softplus 2, the
  // matmul kinds, trace, SVD unless --svd-n 0, pool 1).
  const std::size_t planned = 8 + (blas_available() ? 3 : 2) + 1 + (o.svd_n > 0 ? 1 : 0) + 1;
  const auto report = o.progress ? progress_printer("toolkit") : std::function<void(double)>();
  const auto time = [&](const std::string& name, double work, const std::string& unit,
                        auto&& call) {
    Timing t;
    t.result = benchmark(name, exec, call, bench);
    t.work = work;
    t.rate_unit = unit;
    timings.push_back(std::move(t));
    if (report)
      report(std::min(1.0, static_cast<double>(timings.size()) / static_cast<double>(planned)));
  };

  // HDF5 finishes a file only when its last handle closes: closed (reset) before the commit.
  std::optional<io::H5File> open_file(io::H5File::create(output.temporary_path()));
  io::H5File& file = *open_file;
  const auto n = static_cast<std::size_t>(o.n);

  // --- Elementwise: squared difference and y = x1 * x2 + B ----------------------------------
  const Scalar B = Scalar(2);
  {
    auto x1 = vector_for("--n", n);
    auto x2 = vector_for("--n", n);
    auto sq = vector_for("--n", n);
    auto y = vector_for("--n", n);
    hash_fill(exec, x1.view(), o.seed);
    hash_fill(exec, x2.view(), o.seed + 1);
    const auto x1v = x1.view(), x2v = x2.view(), sqv = sq.view(), yv = y.view();
    time("squared_difference", 3.0 * n * elem, "GB/s",
         [&] { tk::elementwise(exec, tk::fn::SquaredDifference{}, sqv, x1v, x2v); });
    time("multiply_add", 3.0 * n * elem, "GB/s",
         [&] { tk::elementwise(exec, tk::fn::MultiplyAdd{}, yv, x1v, x2v, B); });
    const auto hx1 = to_host(exec, x1v), hx2 = to_host(exec, x2v), hsq = to_host(exec, sqv),
               hy = to_host(exec, yv);
    double sq_error = 0, y_error = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double a = hx1(i), b = hx2(i), d = a - b;
      const double sq_ref = d * d, y_ref = a * b + static_cast<double>(B);
      sq_error = std::max(sq_error, std::fabs(hsq(i) - sq_ref) / std::max(std::fabs(sq_ref), tiny));
      y_error = std::max(y_error, std::fabs(hy(i) - y_ref) / std::max(std::fabs(y_ref), tiny));
    }
    // (a - b)^2 and a * b + B in Scalar: a few roundings each (less with a fused multiply-add).
    checks.push_back({"squared difference max relative error", sq_error, 4 * eps});
    checks.push_back({"x1 * x2 + B max relative error", y_error, 4 * eps});
    file.write("/elementwise/x1", head_of(hx1));
    file.write("/elementwise/x2", head_of(hx2));
    file.write("/elementwise/squared_difference", head_of(hsq));
    file.write("/elementwise/multiply_add", head_of(hy));
    file.write_attribute("/elementwise", "n", static_cast<std::int64_t>(n));
    file.write_attribute("/elementwise", "B", static_cast<double>(B));
    file.write_attribute("/elementwise", "squared_difference_max_relative_error", sq_error);
    file.write_attribute("/elementwise", "multiply_add_max_relative_error", y_error);

    // --- Reductions over the whole array: the L2 norm, in Scalar (as CuPy's ReductionKernel
    // with T) and accumulated in double.
    Kokkos::View<Scalar, memory_space> norm(std::string("portasim::cli::toolkit::norm"));
    Kokkos::View<double, memory_space> norm_double(
        std::string("portasim::cli::toolkit::norm_double"));
    time("l2_norm", 1.0 * n * elem, "GB/s", [&] { tk::l2_norm(exec, norm, x1v); });
    const auto l2_double = tk::l2_norm_reduction<double>();
    time("l2_norm_double", 1.0 * n * elem, "GB/s", [&] { l2_double(exec, norm_double, x1v); });
    double sum_sq = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum_sq += static_cast<double>(hx1(i)) * static_cast<double>(hx1(i));
    const double reference = std::sqrt(sum_sq);
    const double value = to_host(exec, norm)(), value_double = to_host(exec, norm_double)();
    const double error = std::fabs(value - reference) / reference;
    const double error_double = std::fabs(value_double - reference) / reference;
    // Worst-case bounds of a sum of n positive terms in any order, halved by the square root
    // (and the host reference's own rounding for the double accumulation).
    checks.push_back({"L2 norm (Scalar accumulation) relative error", error,
                      (static_cast<double>(n) + 4) * eps});
    checks.push_back({"L2 norm (double accumulation) relative error", error_double,
                      2 * (static_cast<double>(n) + 4) * std::numeric_limits<double>::epsilon()});
    file.create_group("/reduction");
    file.write_attribute("/reduction", "l2_norm", value);
    file.write_attribute("/reduction", "l2_norm_double", value_double);
    file.write_attribute("/reduction", "l2_norm_reference", reference);
    file.write_attribute("/reduction", "l2_norm_relative_error", error);
    file.write_attribute("/reduction", "l2_norm_double_relative_error", error_double);
  }

  // --- Reductions along an axis: row and column L2 norms of a rows x cols array ------------
  {
    const auto rows = static_cast<std::size_t>(o.rows), cols = static_cast<std::size_t>(o.cols);
    auto m = matrix_for("--rows x --cols", rows, cols);
    auto row_norms = vector_for("--rows", rows);
    auto col_norms = vector_for("--cols", cols);
    const auto mv = m.view();
    const auto rv = row_norms.view(), cv = col_norms.view();
    hash_fill(exec, mv, o.seed + 2);
    time("l2_norm_rows", 1.0 * rows * cols * elem, "GB/s",
         [&] { tk::l2_norm_along(exec, 1, rv, mv); });
    time("l2_norm_cols", 1.0 * rows * cols * elem, "GB/s",
         [&] { tk::l2_norm_along(exec, 0, cv, mv); });
    const auto hm = to_host(exec, mv);
    const auto hr = to_host(exec, rv), hc = to_host(exec, cv);
    std::vector<double> row_ref(rows, 0.0), col_ref(cols, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        const double v = hm(i, j);
        row_ref[i] += v * v;
        col_ref[j] += v * v;
      }
    double row_error = 0, col_error = 0;
    for (std::size_t i = 0; i < rows; ++i)
      row_error = std::max(row_error, std::fabs(hr(i) - std::sqrt(row_ref[i])) /
                                          std::max(std::sqrt(row_ref[i]), tiny));
    for (std::size_t j = 0; j < cols; ++j)
      col_error = std::max(col_error, std::fabs(hc(j) - std::sqrt(col_ref[j])) /
                                          std::max(std::sqrt(col_ref[j]), tiny));
    checks.push_back({"L2 norms along axis 1 max relative error", row_error,
                      (static_cast<double>(cols) + 4) * eps});
    checks.push_back({"L2 norms along axis 0 max relative error", col_error,
                      (static_cast<double>(rows) + 4) * eps});
    file.write("/reduction/row_norms", head_of(hr, rows));
    file.write("/reduction/col_norms", head_of(hc, cols));
    file.write_attribute("/reduction", "rows", static_cast<std::int64_t>(rows));
    file.write_attribute("/reduction", "cols", static_cast<std::int64_t>(cols));
    file.write_attribute("/reduction", "row_norms_max_relative_error", row_error);
    file.write_attribute("/reduction", "col_norms_max_relative_error", col_error);
  }

  // --- Stable softplus against the naive log(1 + e^x) ---------------------------------------
  std::size_t naive_non_finite = 0;
  double softplus_error = 0;
  {
    const auto points = static_cast<std::size_t>(o.softplus_points);
    auto x = vector_for("--softplus-points", points);
    auto y = vector_for("--softplus-points", points);
    auto naive = vector_for("--softplus-points", points);
    const auto xv = x.view(), yv = y.view(), nv = naive.view();
    const double step = points > 1 ? 2 * o.softplus_range / static_cast<double>(points - 1) : 0;
    Kokkos::parallel_for("portasim::cli::toolkit::linspace",
                         Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                             exec, 0, static_cast<std::int64_t>(points)),
                         Linspace<decltype(xv)>{xv, points > 1 ? -o.softplus_range : 0.0, step});
    time("softplus", 2.0 * points * elem, "GB/s",
         [&] { tk::evaluate(exec, yv, tk::softplus(tk::arg(xv))); });
    time("softplus_naive", 2.0 * points * elem, "GB/s",
         [&] { tk::evaluate(exec, nv, tk::log(Scalar(1) + tk::exp(tk::arg(xv)))); });
    const auto hx = to_host(exec, xv), hy = to_host(exec, yv), hn = to_host(exec, nv);
    std::vector<double> reference(points);
    for (std::size_t i = 0; i < points; ++i) {
      // long double keeps e^x finite up to |x| ~ 11356: the reference for any float or
      // double x of the default range, rounded to Scalar as the best a Scalar result can be.
      const long double xl = static_cast<long double>(hx(i));
      const auto ref = static_cast<double>(static_cast<Scalar>(std::log1p(std::exp(xl))));
      reference[i] = ref;
      softplus_error =
          std::max(softplus_error, std::fabs(hy(i) - ref) / std::max(std::fabs(ref), tiny));
      if (!std::isfinite(static_cast<double>(hn(i)))) ++naive_non_finite;
    }
    // A few roundings in exp, log1p and the sum; values below the normal range lose digits.
    checks.push_back({"softplus max relative error", softplus_error, 8 * eps});
    std::size_t stable_non_finite = 0;
    for (std::size_t i = 0; i < points; ++i)
      stable_non_finite += !std::isfinite(static_cast<double>(hy(i)));
    checks.push_back({"softplus non-finite values", static_cast<double>(stable_non_finite), 0.0});
    file.write("/softplus/x", head_of(hx, points));
    file.write("/softplus/y", head_of(hy, points));
    file.write("/softplus/naive", head_of(hn, points));
    file.write("/softplus/reference", reference);
    file.write_attribute("/softplus", "max_relative_error", softplus_error);
    file.write_attribute("/softplus", "naive_non_finite",
                         static_cast<std::int64_t>(naive_non_finite));
    file.write_attribute("/softplus", "naive_overflow_threshold",
                         std::log(static_cast<double>(std::numeric_limits<Scalar>::max())));
  }

  // --- Matmul three ways and the trace --------------------------------------------------------
  std::vector<std::string> algorithms;
  {
    const auto mn = static_cast<std::size_t>(o.matrix_n);
    auto a = matrix_for("--matrix-n", mn, mn);
    auto b = matrix_for("--matrix-n", mn, mn);
    const auto av = a.view(), bv = b.view();
    hash_fill(exec, av, o.seed + 3);
    hash_fill(exec, bv, o.seed + 4);
    const double flops =
        2.0 * static_cast<double>(mn) * static_cast<double>(mn) * static_cast<double>(mn);
    std::vector<tk::MatmulAlgorithm> kinds{tk::MatmulAlgorithm::naive, tk::MatmulAlgorithm::tiled};
    if (blas_available()) kinds.push_back(tk::MatmulAlgorithm::blas);
    else
      notes.push_back(
          "matmul blas skipped: built without Kokkos Kernels (PORTASIM_ENABLE_KERNELS=OFF)");
    // Every result allocated before the first multiplication: a size that does not fit fails
    // at once, not after minutes of work.
    std::vector<decltype(a)> c_views;
    for (std::size_t p = 0; p < kinds.size(); ++p)
      c_views.push_back(matrix_for("--matrix-n", mn, mn));
    for (std::size_t p = 0; p < kinds.size(); ++p) {
      const auto kind = kinds[p];
      const auto cv = c_views[p].view();
      time(std::string("matmul_") + tk::to_string(kind), flops, "TFLOP/s",
           [&] { tk::matmul(exec, av, bv, cv, kind); });
      algorithms.push_back(tk::to_string(kind));
    }
    const auto ha = to_host(exec, av), hb = to_host(exec, bv);
    std::vector<decltype(to_host(exec, av))> hc;
    for (const auto& c : c_views) hc.push_back(to_host(exec, c.view()));
    const std::size_t k = kinds.size();
    std::vector<double> differences(k * k, 0.0);
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t q = 0; q < k; ++q)
        for (std::size_t i = 0; i < mn; ++i)
          for (std::size_t j = 0; j < mn; ++j)
            differences[p * k + q] = std::max(
                differences[p * k + q], std::fabs(static_cast<double>(hc[p](i, j)) - hc[q](i, j)));
    double max_a = 0, max_b = 0;
    for (std::size_t i = 0; i < mn; ++i)
      for (std::size_t j = 0; j < mn; ++j) {
        max_a = std::max(max_a, std::fabs(static_cast<double>(ha(i, j))));
        max_b = std::max(max_b, std::fabs(static_cast<double>(hb(i, j))));
      }
    // |c - c_exact| <= (K + 2) eps sum_k |a_ik b_kj| for any summation order.
    const double bound =
        (static_cast<double>(mn) + 2) * eps * static_cast<double>(mn) * max_a * max_b;
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t q = p + 1; q < k; ++q)
        checks.push_back({"matmul " + algorithms[p] + " vs " + algorithms[q] + " max difference",
                          differences[p * k + q], 2 * bound});
    // A host reference in double where it takes well under a second (n^3 <= 2^30).
    std::vector<double> reference_errors;
    if (mn <= 1024) {
      std::vector<double> row(mn);
      reference_errors.assign(k, 0.0);
      for (std::size_t i = 0; i < mn; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (std::size_t l = 0; l < mn; ++l) {
          const double ail = ha(i, l);
          for (std::size_t j = 0; j < mn; ++j) row[j] += ail * static_cast<double>(hb(l, j));
        }
        for (std::size_t p = 0; p < k; ++p)
          for (std::size_t j = 0; j < mn; ++j)
            reference_errors[p] = std::max(reference_errors[p], std::fabs(hc[p](i, j) - row[j]));
      }
      for (std::size_t p = 0; p < k; ++p)
        checks.push_back({"matmul " + algorithms[p] + " vs host reference max difference",
                          reference_errors[p], bound});
    } else {
      notes.push_back("matmul: no host reference above n = 1024 (the three results are checked "
                      "against each other)");
    }
    file.write("/matmul/max_abs_difference", differences.data(), {k, k});
    std::string names;
    for (const auto& name : algorithms) names += (names.empty() ? "" : ",") + name;
    file.write_attribute("/matmul", "algorithms", names);
    file.write_attribute("/matmul", "n", static_cast<std::int64_t>(mn));
    file.write_attribute("/matmul", "error_bound", bound);
    if (!reference_errors.empty()) file.write("/matmul/max_abs_error_vs_host", reference_errors);

    Kokkos::View<Scalar, memory_space> trace(std::string("portasim::cli::toolkit::trace"));
    time("trace", 1.0 * mn * elem, "GB/s", [&] { tk::trace(exec, av, trace); });
    double trace_ref = 0, trace_abs = 0;
    for (std::size_t i = 0; i < mn; ++i) {
      trace_ref += ha(i, i);
      trace_abs += std::fabs(static_cast<double>(ha(i, i)));
    }
    const double trace_value = to_host(exec, trace)();
    checks.push_back({"trace difference from host", std::fabs(trace_value - trace_ref),
                      (static_cast<double>(mn) + 2) * eps * trace_abs});
    file.write_attribute("/matmul", "trace", trace_value);
    file.write_attribute("/matmul", "trace_reference", trace_ref);
  }

  // --- SVD ---------------------------------------------------------------------------------------
  file.create_group("/svd");
  if (o.svd_n == 0) {
    notes.push_back("svd skipped (--svd-n 0)");
    file.write_attribute("/svd", "skipped", "--svd-n 0");
  } else if (!svd_available<ExecutionSpace>()) {
    const std::string why = "svd skipped: this build has no LAPACKE for host backends "
                            "(PORTASIM_ENABLE_LAPACKE=OFF or liblapacke not found)";
    notes.push_back(why);
    file.write_attribute("/svd", "skipped", why);
  } else {
    const auto sn = static_cast<std::size_t>(o.svd_n);
    auto a = matrix_for("--svd-n", sn, sn);
    auto u = matrix_for("--svd-n", sn, sn);
    auto vt = matrix_for("--svd-n", sn, sn);
    auto s = vector_for("--svd-n", sn);
    const auto av = a.view(), uv = u.view(), vtv = vt.view();
    const auto sv = s.view();
    hash_fill(exec, av, o.seed + 5);
    time("svd", 0, "", [&] { tk::svd(exec, av, uv, sv, vtv); });
    const auto ha = to_host(exec, av), hu = to_host(exec, uv), hvt = to_host(exec, vtv);
    const auto hs = to_host(exec, sv);
    double frobenius_sq = 0, sum_s_sq = 0, residual_sq = 0;
    bool ordered = true;
    for (std::size_t i = 0; i < sn; ++i) {
      sum_s_sq += static_cast<double>(hs(i)) * hs(i);
      if (hs(i) < 0 || (i > 0 && hs(i) > hs(i - 1))) ordered = false;
    }
    // ||A - U diag(S) Vt||_F on the host where it is cheap (n^3 <= 2^33).
    const bool reconstruct = sn <= 2048;
    for (std::size_t i = 0; i < sn; ++i)
      for (std::size_t j = 0; j < sn; ++j) {
        const double aij = ha(i, j);
        frobenius_sq += aij * aij;
        if (reconstruct) {
          double usv = 0;
          for (std::size_t l = 0; l < sn; ++l)
            usv += static_cast<double>(hu(i, l)) * hs(l) * hvt(l, j);
          residual_sq += (aij - usv) * (aij - usv);
        }
      }
    const double energy_error = std::fabs(sum_s_sq - frobenius_sq) / frobenius_sq;
    const double residual = std::sqrt(residual_sq / frobenius_sq);
    // Backward-stable SVDs: errors of a small multiple of n eps relative to ||A||.
    const double bound = 10 * static_cast<double>(sn) * eps;
    checks.push_back({"svd singular values ordered and >= 0", ordered ? 0.0 : 1.0, 0.0});
    checks.push_back({"svd |sum s^2 - ||A||_F^2| / ||A||_F^2", energy_error, bound});
    if (reconstruct) checks.push_back({"svd ||A - U S Vt||_F / ||A||_F", residual, bound});
    file.write("/svd/singular_values", head_of(hs, sn));
    if (sn <= 256) {
      std::vector<double> matrix(sn * sn);
      for (std::size_t i = 0; i < sn; ++i)
        for (std::size_t j = 0; j < sn; ++j) matrix[i * sn + j] = ha(i, j);
      file.write("/svd/matrix", matrix.data(), {sn, sn});
    }
    file.write_attribute("/svd", "n", static_cast<std::int64_t>(sn));
    file.write_attribute("/svd", "frobenius_energy_relative_error", energy_error);
    if (reconstruct) file.write_attribute("/svd", "reconstruction_relative_error", residual);
  }

  // --- The pool: allocate + free of an n-element temporary, served from the cache ------------
  {
    time("pool_allocate_free", 0, "", [&] {
      auto temporary = vector_for("--n", n);
      temporary.reset();
    });
  }
  const PoolStatistics stats = pool.statistics();
  file.create_group("/pool");
  file.write_attribute("/pool", "used_bytes", static_cast<std::uint64_t>(stats.used_bytes));
  file.write_attribute("/pool", "total_bytes", static_cast<std::uint64_t>(stats.total_bytes));
  file.write_attribute("/pool", "used_blocks", static_cast<std::uint64_t>(stats.used_blocks));
  file.write_attribute("/pool", "free_blocks", static_cast<std::uint64_t>(stats.free_blocks));
  file.write_attribute("/pool", "hits", static_cast<std::uint64_t>(stats.hits));
  file.write_attribute("/pool", "misses", static_cast<std::uint64_t>(stats.misses));
  file.write_attribute("/pool", "limit_bytes", static_cast<std::uint64_t>(stats.limit_bytes));

  // --- Timings: one group per benchmark, samples as datasets, statistics as attributes -------
  for (std::size_t i = 0; i < timings.size(); ++i) {
    const Timing& t = timings[i];
    const std::string group = "/timings/" + t.result.name;
    file.write(group + "/device_ms", t.result.device_ms);
    file.write(group + "/host_ms", t.result.host_ms);
    const TimingStats d = t.result.device(), h = t.result.host();
    file.write_attribute(group, "index", static_cast<std::int64_t>(i));
    file.write_attribute(group, "count", static_cast<std::int64_t>(d.count));
    file.write_attribute(group, "device_mean_ms", d.mean_ms);
    file.write_attribute(group, "device_std_ms", d.std_ms);
    file.write_attribute(group, "device_min_ms", d.min_ms);
    file.write_attribute(group, "device_max_ms", d.max_ms);
    file.write_attribute(group, "host_mean_ms", h.mean_ms);
    file.write_attribute(group, "host_std_ms", h.std_ms);
    file.write_attribute(group, "host_min_ms", h.min_ms);
    file.write_attribute(group, "host_max_ms", h.max_ms);
    file.write_attribute(group, "rate", t.rate());
    file.write_attribute(group, "rate_unit", t.rate_unit);
  }

  std::size_t failed = 0;
  for (const Check& c : checks) failed += !c.ok();
  file.write_attribute("/", "generator", "portasim toolkit");
  file.write_attribute("/", "backend", std::string(ExecutionSpace::name()));
  file.write_attribute("/", "precision", precision_name);
  file.write_attribute("/", "checks", static_cast<std::int64_t>(checks.size()));
  file.write_attribute("/", "checks_failed", static_cast<std::int64_t>(failed));
  file.write_attribute("/", "repeat", static_cast<std::int64_t>(o.repeat));
  file.write_attribute("/", "warmup", static_cast<std::int64_t>(o.warmup));
  file.write_attribute("/", "seed", static_cast<std::int64_t>(o.seed));
  file.flush();
  open_file.reset();
  output.commit();

  if (!o.quiet) {
    std::printf("portasim toolkit: %s on %s (n = %lld, %lld x %lld, matmul %lld^3, svd %lld^2, "
                "%lld softplus points)\n",
                precision_name, ExecutionSpace::name(), static_cast<long long>(o.n),
                static_cast<long long>(o.rows), static_cast<long long>(o.cols),
                static_cast<long long>(o.matrix_n), static_cast<long long>(o.svd_n),
                static_cast<long long>(o.softplus_points));
    std::printf("  %-22s %12s %12s %12s %14s\n", "benchmark (device)", "mean ms", "min ms",
                "std ms", "rate");
    for (const Timing& t : timings) {
      const TimingStats d = t.result.device();
      char rate[32] = "";
      if (!t.rate_unit.empty())
        std::snprintf(rate, sizeof rate, "%.4g %s", t.rate(), t.rate_unit.c_str());
      std::printf("  %-22s %12.4f %12.4f %12.4f %14s\n", t.result.name.c_str(), d.mean_ms, d.min_ms,
                  d.std_ms, rate);
    }
    std::printf("  softplus over [-%g, %g]: max relative error %.3g; naive log(1 + e^x): %zu of "
                "%lld values not finite\n",
                o.softplus_range, o.softplus_range, softplus_error, naive_non_finite,
                static_cast<long long>(o.softplus_points));
    for (const Check& c : checks)
      std::printf("  %-4s %-52s %.3g (bound %.3g)\n", c.ok() ? "ok" : "FAIL", c.what.c_str(),
                  c.value, c.bound);
    for (const auto& note : notes) std::printf("  note: %s\n", note.c_str());
    std::printf(
        "  pool: %s in %zu blocks in use, %s held, %zu cached blocks, %zu hits, %zu misses\n",
        format_bytes(static_cast<double>(stats.used_bytes)).c_str(), stats.used_blocks,
        format_bytes(static_cast<double>(stats.total_bytes)).c_str(), stats.free_blocks, stats.hits,
        stats.misses);
    std::printf("  wrote %s\n", o.output.c_str());
    std::fflush(stdout);
  }
  if (failed > 0) {
    for (const Check& c : checks)
      if (!c.ok())
        std::cerr << "portasim: check failed: " << c.what << " = " << c.value << " > " << c.bound
                  << "\n";
    throw_error(ErrorKind::internal, std::to_string(failed) + " of " +
                                         std::to_string(checks.size()) + " checks failed on " +
                                         ExecutionSpace::name() + " (results kept in " + o.output +
                                         ")");
  }
  return 0;
}

}  // namespace toolkit_cli

void add_toolkit_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<toolkit_cli::ToolkitOptions>();
  auto* c = app.add_subcommand(
      "toolkit",
      "GPU-toolkit examples (elementwise, softplus, L2 norms, matmul three ways, trace, SVD), "
      "checked and timed");
  c->add_option("--n", o->n, "Elements of the 1-D examples (squared difference, x1*x2+B, L2 norm)")
      ->capture_default_str();
  c->add_option("--rows", o->rows, "Rows of the 2-D array of the L2 norms along an axis")
      ->capture_default_str();
  c->add_option("--cols", o->cols, "Columns of that array")->capture_default_str();
  c->add_option("--matrix-n", o->matrix_n,
                "Matmul size n (n x n times n x n) and the trace's matrix")
      ->capture_default_str();
  c->add_option("--svd-n", o->svd_n, "SVD of an n x n matrix (0: skip)")->capture_default_str();
  c->add_option("--softplus-points", o->softplus_points, "Points of the softplus example")
      ->capture_default_str();
  c->add_option("--softplus-range", o->softplus_range, "Softplus over [-R, R]")
      ->capture_default_str();
  c->add_option("--precision", o->precision, "Floating-point precision")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  c->add_option("--repeat", o->repeat, "Timed runs per benchmark")->capture_default_str();
  c->add_option("--warmup", o->warmup, "Untimed runs before them")->capture_default_str();
  c->add_option("--max-seconds", o->max_seconds, "Stop repeating a benchmark after this long")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the input values")->capture_default_str();
  c->add_option("--output", o->output, "HDF5 output file")->capture_default_str();
  c->add_option("--backend", o->backend,
                "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  c->add_flag("--progress", o->progress, "Show progress on stderr (after each benchmark)");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o] {
    action = [o] {
      require(o->n > 0, "--n must be > 0, got " + std::to_string(o->n));
      require(o->rows > 0, "--rows must be > 0, got " + std::to_string(o->rows));
      require(o->cols > 0, "--cols must be > 0, got " + std::to_string(o->cols));
      require(o->matrix_n > 0, "--matrix-n must be > 0, got " + std::to_string(o->matrix_n));
      require(o->svd_n >= 0, "--svd-n must be >= 0, got " + std::to_string(o->svd_n));
      require(o->matrix_n <= (std::int64_t(1) << 31) - 1 && o->svd_n <= (std::int64_t(1) << 31) - 1,
              "--matrix-n and --svd-n must be < 2^31 (the BLAS and LAPACK index type)");
      require(o->softplus_points > 0,
              "--softplus-points must be > 0, got " + std::to_string(o->softplus_points));
      require_finite("--softplus-range", o->softplus_range);
      require_non_negative("--softplus-range", o->softplus_range);
      require(o->repeat > 0, "--repeat must be > 0, got " + std::to_string(o->repeat));
      require(o->warmup >= 0, "--warmup must be >= 0, got " + std::to_string(o->warmup));
      require(!std::isnan(o->max_seconds) && o->max_seconds > 0, "--max-seconds must be > 0");
      return dispatch_backend(o->backend, [&](const auto& exec) {
        using Exec = std::decay_t<decltype(exec)>;
        return o->precision == "f64" ? toolkit_cli::run_toolkit<double, Exec>(*o)
                                     : toolkit_cli::run_toolkit<float, Exec>(*o);
      });
    };
  });
}

}  // namespace portasim::cli
