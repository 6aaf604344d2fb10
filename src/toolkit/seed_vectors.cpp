// The toolkit job's examples over vectors and a 2-D array (seed_examples.hpp): elementwise
// kernels, L2 norms of the whole array and along each axis, and the stable softplus beside
// the naive formula. Each result is checked against a host reference in double (long double
// for softplus) within a worst-case rounding bound.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "portasim/toolkit/toolkit.hpp"
#include "seed_examples.hpp"

namespace portasim::toolkit::seed {

namespace {

// max |value - reference| / max(|reference|, tiny) over i, for host views or vectors.
template <class Values, class Reference>
double max_relative_error(const Values& values, const Reference& reference, std::size_t count,
                          double tiny) {
  double error = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double ref = reference(i);
    error = std::max(
        error, std::fabs(static_cast<double>(values(i)) - ref) / std::max(std::fabs(ref), tiny));
  }
  return error;
}

}  // namespace

// Reductions over the whole array: the L2 norm, in Scalar (as CuPy's ReductionKernel with T)
// and accumulated in double.
template <class Scalar, class ExecutionSpace, class DeviceView, class HostView>
void run_whole_norms(SeedRun<Scalar, ExecutionSpace>& run, const DeviceView& x,
                     const HostView& hx) {
  using memory_space = typename ExecutionSpace::memory_space;
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  const auto& exec = run.exec;
  const std::size_t n = x.extent(0);
  const double bytes = static_cast<double>(n) * sizeof(Scalar);
  Kokkos::View<Scalar, memory_space> norm(std::string("portasim::toolkit::seed::norm"));
  Kokkos::View<double, memory_space> norm_double(
      std::string("portasim::toolkit::seed::norm_double"));
  run.time("l2_norm", bytes, "GB/s", [&] { toolkit::l2_norm(exec, norm, x); });
  const auto l2_double = toolkit::l2_norm_reduction<double>();
  run.time("l2_norm_double", bytes, "GB/s", [&] { l2_double(exec, norm_double, x); });
  double sum_sq = 0;
  for (std::size_t i = 0; i < n; ++i)
    sum_sq += static_cast<double>(hx(i)) * static_cast<double>(hx(i));
  const double reference = std::sqrt(sum_sq);
  const double value = to_host(exec, norm)(), value_double = to_host(exec, norm_double)();
  const double error = std::fabs(value - reference) / reference;
  const double error_double = std::fabs(value_double - reference) / reference;
  // Worst-case bounds of a sum of n positive terms in any order, halved by the square root
  // (and the host reference's own rounding for the double accumulation).
  run.check("L2 norm (Scalar accumulation) relative error", error,
            (static_cast<double>(n) + 4) * eps);
  run.check("L2 norm (double accumulation) relative error", error_double,
            2 * (static_cast<double>(n) + 4) * std::numeric_limits<double>::epsilon());
  if (io::H5File* file = run.file) {
    file->create_group("/reduction");
    file->write_attribute("/reduction", "l2_norm", value);
    file->write_attribute("/reduction", "l2_norm_double", value_double);
    file->write_attribute("/reduction", "l2_norm_reference", reference);
    file->write_attribute("/reduction", "l2_norm_relative_error", error);
    file->write_attribute("/reduction", "l2_norm_double_relative_error", error_double);
  }
}

// Squared difference and y = x1 * x2 + B, then the whole-array norms of x1.
template <class Scalar, class ExecutionSpace>
void run_elementwise(SeedRun<Scalar, ExecutionSpace>& run) {
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  constexpr double tiny = std::numeric_limits<Scalar>::min();
  const auto& exec = run.exec;
  const auto n = static_cast<std::size_t>(run.spec.n);
  const double bytes = 3.0 * static_cast<double>(n) * sizeof(Scalar);
  const Scalar B = Scalar(2);
  auto x1 = run.vector("--n", n);
  auto x2 = run.vector("--n", n);
  auto sq = run.vector("--n", n);
  auto y = run.vector("--n", n);
  hash_fill(exec, x1.view(), run.spec.seed);
  hash_fill(exec, x2.view(), run.spec.seed + 1);
  const auto x1v = x1.view(), x2v = x2.view(), sqv = sq.view(), yv = y.view();
  run.time("squared_difference", bytes, "GB/s",
           [&] { toolkit::elementwise(exec, fn::SquaredDifference{}, sqv, x1v, x2v); });
  run.time("multiply_add", bytes, "GB/s",
           [&] { toolkit::elementwise(exec, fn::MultiplyAdd{}, yv, x1v, x2v, B); });
  const auto hx1 = to_host(exec, x1v), hx2 = to_host(exec, x2v), hsq = to_host(exec, sqv),
             hy = to_host(exec, yv);
  const auto sq_ref = [&](std::size_t i) {
    const double d = static_cast<double>(hx1(i)) - static_cast<double>(hx2(i));
    return d * d;
  };
  const auto y_ref = [&](std::size_t i) {
    return static_cast<double>(hx1(i)) * static_cast<double>(hx2(i)) + static_cast<double>(B);
  };
  const double sq_error = max_relative_error(hsq, sq_ref, n, tiny);
  const double y_error = max_relative_error(hy, y_ref, n, tiny);
  // (a - b)^2 and a * b + B in Scalar: a few roundings each (less with a fused multiply-add).
  run.check("squared difference max relative error", sq_error, 4 * eps);
  run.check("x1 * x2 + B max relative error", y_error, 4 * eps);
  if (io::H5File* file = run.file) {
    file->write("/elementwise/x1", head_of(hx1));
    file->write("/elementwise/x2", head_of(hx2));
    file->write("/elementwise/squared_difference", head_of(hsq));
    file->write("/elementwise/multiply_add", head_of(hy));
    file->write_attribute("/elementwise", "n", static_cast<std::int64_t>(n));
    file->write_attribute("/elementwise", "B", static_cast<double>(B));
    file->write_attribute("/elementwise", "squared_difference_max_relative_error", sq_error);
    file->write_attribute("/elementwise", "multiply_add_max_relative_error", y_error);
  }
  run_whole_norms(run, x1v, hx1);
}

// Row and column L2 norms of a rows x cols array.
template <class Scalar, class ExecutionSpace>
void run_axis_norms(SeedRun<Scalar, ExecutionSpace>& run) {
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  constexpr double tiny = std::numeric_limits<Scalar>::min();
  const auto& exec = run.exec;
  const auto rows = static_cast<std::size_t>(run.spec.rows);
  const auto cols = static_cast<std::size_t>(run.spec.cols);
  const double bytes = static_cast<double>(rows) * static_cast<double>(cols) * sizeof(Scalar);
  auto m = run.matrix("--rows x --cols", rows, cols);
  auto row_norms = run.vector("--rows", rows);
  auto col_norms = run.vector("--cols", cols);
  const auto mv = m.view();
  const auto rv = row_norms.view(), cv = col_norms.view();
  hash_fill(exec, mv, run.spec.seed + 2);
  run.time("l2_norm_rows", bytes, "GB/s", [&] { toolkit::l2_norm_along(exec, 1, rv, mv); });
  run.time("l2_norm_cols", bytes, "GB/s", [&] { toolkit::l2_norm_along(exec, 0, cv, mv); });
  const auto hm = to_host(exec, mv);
  const auto hr = to_host(exec, rv), hc = to_host(exec, cv);
  std::vector<double> row_ref(rows, 0.0), col_ref(cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = hm(i, j);
      row_ref[i] += v * v;
      col_ref[j] += v * v;
    }
  const auto row_norm = [&](std::size_t i) { return std::sqrt(row_ref[i]); };
  const auto col_norm = [&](std::size_t j) { return std::sqrt(col_ref[j]); };
  const double row_error = max_relative_error(hr, row_norm, rows, tiny);
  const double col_error = max_relative_error(hc, col_norm, cols, tiny);
  run.check("L2 norms along axis 1 max relative error", row_error,
            (static_cast<double>(cols) + 4) * eps);
  run.check("L2 norms along axis 0 max relative error", col_error,
            (static_cast<double>(rows) + 4) * eps);
  if (io::H5File* file = run.file) {
    file->write("/reduction/row_norms", head_of(hr, rows));
    file->write("/reduction/col_norms", head_of(hc, cols));
    file->write_attribute("/reduction", "rows", static_cast<std::int64_t>(rows));
    file->write_attribute("/reduction", "cols", static_cast<std::int64_t>(cols));
    file->write_attribute("/reduction", "row_norms_max_relative_error", row_error);
    file->write_attribute("/reduction", "col_norms_max_relative_error", col_error);
  }
}

// The stable softplus against the naive log(1 + e^x) over [-range, range].
template <class Scalar, class ExecutionSpace>
void run_softplus(SeedRun<Scalar, ExecutionSpace>& run) {
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  constexpr double tiny = std::numeric_limits<Scalar>::min();
  const auto& exec = run.exec;
  const auto points = static_cast<std::size_t>(run.spec.softplus_points);
  const double range = run.spec.softplus_range;
  const double bytes = 2.0 * static_cast<double>(points) * sizeof(Scalar);
  auto x = run.vector("--softplus-points", points);
  auto y = run.vector("--softplus-points", points);
  auto naive = run.vector("--softplus-points", points);
  const auto xv = x.view(), yv = y.view(), nv = naive.view();
  const double step = points > 1 ? 2 * range / static_cast<double>(points - 1) : 0;
  Kokkos::parallel_for("portasim::toolkit::seed::linspace",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                           exec, 0, static_cast<std::int64_t>(points)),
                       Linspace<decltype(xv)>{xv, points > 1 ? -range : 0.0, step});
  run.time("softplus", bytes, "GB/s",
           [&] { toolkit::evaluate(exec, yv, toolkit::softplus(toolkit::arg(xv))); });
  run.time("softplus_naive", bytes, "GB/s", [&] {
    toolkit::evaluate(exec, nv, toolkit::log(Scalar(1) + toolkit::exp(toolkit::arg(xv))));
  });
  const auto hx = to_host(exec, xv), hy = to_host(exec, yv), hn = to_host(exec, nv);
  std::vector<double> reference(points);
  std::size_t naive_non_finite = 0, stable_non_finite = 0;
  for (std::size_t i = 0; i < points; ++i) {
    // long double keeps e^x finite up to |x| ~ 11356: the reference for any float or double
    // x of the default range, rounded to Scalar as the best a Scalar result can be.
    const long double xl = static_cast<long double>(hx(i));
    reference[i] = static_cast<double>(static_cast<Scalar>(std::log1p(std::exp(xl))));
    naive_non_finite += !std::isfinite(static_cast<double>(hn(i)));
    stable_non_finite += !std::isfinite(static_cast<double>(hy(i)));
  }
  const double error = max_relative_error(
      hy, [&](std::size_t i) { return reference[i]; }, points, tiny);
  // A few roundings in exp, log1p and the sum; values below the normal range lose digits.
  run.check("softplus max relative error", error, 8 * eps);
  run.check("softplus non-finite values", static_cast<double>(stable_non_finite), 0.0);
  run.report.softplus_max_relative_error = error;
  run.report.softplus_naive_non_finite = static_cast<std::int64_t>(naive_non_finite);
  if (io::H5File* file = run.file) {
    file->write("/softplus/x", head_of(hx, points));
    file->write("/softplus/y", head_of(hy, points));
    file->write("/softplus/naive", head_of(hn, points));
    file->write("/softplus/reference", reference);
    file->write_attribute("/softplus", "max_relative_error", error);
    file->write_attribute("/softplus", "naive_non_finite",
                          static_cast<std::int64_t>(naive_non_finite));
    file->write_attribute("/softplus", "naive_overflow_threshold",
                          std::log(static_cast<double>(std::numeric_limits<Scalar>::max())));
  }
}

#define PORTASIM_TOOLKIT_SEED_VECTORS(SPACE)                \
  PORTASIM_TOOLKIT_SEED_INSTANTIATE(run_elementwise, SPACE) \
  PORTASIM_TOOLKIT_SEED_INSTANTIATE(run_axis_norms, SPACE)  \
  PORTASIM_TOOLKIT_SEED_INSTANTIATE(run_softplus, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_SEED_VECTORS)

}  // namespace portasim::toolkit::seed
