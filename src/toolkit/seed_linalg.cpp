// The toolkit job's linear-algebra examples (seed_examples.hpp): matmul three ways (naive,
// tiled, and BLAS where the build has Kokkos Kernels) checked against each other and a host
// product in double, the trace, and the SVD checked by its energy and its reconstruction.
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

// max |c_p - c_q| over the elements, for every pair (p, q) of results: a k x k table.
template <class HostMatrix>
std::vector<double> pairwise_differences(const std::vector<HostMatrix>& hc, std::size_t mn) {
  const std::size_t k = hc.size();
  std::vector<double> differences(k * k, 0.0);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t q = 0; q < k; ++q)
      for (std::size_t i = 0; i < mn; ++i)
        for (std::size_t j = 0; j < mn; ++j)
          differences[p * k + q] = std::max(
              differences[p * k + q], std::fabs(static_cast<double>(hc[p](i, j)) - hc[q](i, j)));
  return differences;
}

// max |c_p - a b| of each result against the product in double, one row at a time.
template <class HostMatrix>
std::vector<double> host_reference_errors(const HostMatrix& ha, const HostMatrix& hb,
                                          const std::vector<HostMatrix>& hc, std::size_t mn) {
  std::vector<double> row(mn), errors(hc.size(), 0.0);
  for (std::size_t i = 0; i < mn; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::size_t l = 0; l < mn; ++l) {
      const double ail = ha(i, l);
      for (std::size_t j = 0; j < mn; ++j) row[j] += ail * static_cast<double>(hb(l, j));
    }
    for (std::size_t p = 0; p < hc.size(); ++p)
      for (std::size_t j = 0; j < mn; ++j)
        errors[p] = std::max(errors[p], std::fabs(hc[p](i, j) - row[j]));
  }
  return errors;
}

template <class HostMatrix>
double max_abs(const HostMatrix& m) {
  double value = 0;
  for (std::size_t i = 0; i < m.extent(0); ++i)
    for (std::size_t j = 0; j < m.extent(1); ++j)
      value = std::max(value, std::fabs(static_cast<double>(m(i, j))));
  return value;
}

}  // namespace

// The trace of `a` against the host's sum of its diagonal.
template <class Scalar, class ExecutionSpace, class DeviceMatrix, class HostMatrix>
void run_trace(SeedRun<Scalar, ExecutionSpace>& run, const DeviceMatrix& a, const HostMatrix& ha) {
  using memory_space = typename ExecutionSpace::memory_space;
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  const std::size_t mn = a.extent(0);
  Kokkos::View<Scalar, memory_space> result(std::string("portasim::toolkit::seed::trace"));
  run.time("trace", static_cast<double>(mn) * sizeof(Scalar), "GB/s",
           [&] { toolkit::trace(run.exec, a, result); });
  double reference = 0, sum_abs = 0;
  for (std::size_t i = 0; i < mn; ++i) {
    reference += ha(i, i);
    sum_abs += std::fabs(static_cast<double>(ha(i, i)));
  }
  const double value = to_host(run.exec, result)();
  run.check("trace difference from host", std::fabs(value - reference),
            (static_cast<double>(mn) + 2) * eps * sum_abs);
  if (io::H5File* file = run.file) {
    file->write_attribute("/matmul", "trace", value);
    file->write_attribute("/matmul", "trace_reference", reference);
  }
}

template <class Scalar, class ExecutionSpace>
void run_matmul(SeedRun<Scalar, ExecutionSpace>& run) {
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  const auto& exec = run.exec;
  const auto mn = static_cast<std::size_t>(run.spec.matrix_n);
  auto a = run.matrix("--matrix-n", mn, mn);
  auto b = run.matrix("--matrix-n", mn, mn);
  const auto av = a.view(), bv = b.view();
  hash_fill(exec, av, run.spec.seed + 3);
  hash_fill(exec, bv, run.spec.seed + 4);
  const double flops = 2.0 * static_cast<double>(mn) * static_cast<double>(mn) * mn;
  std::vector<MatmulAlgorithm> kinds{MatmulAlgorithm::naive, MatmulAlgorithm::tiled};
  if (blas_available()) kinds.push_back(MatmulAlgorithm::blas);
  else run.note("matmul blas skipped: built without Kokkos Kernels (PORTASIM_ENABLE_KERNELS=OFF)");
  // Every result allocated before the first multiplication: a size that does not fit fails
  // at once, not after minutes of work.
  std::vector<decltype(a)> c;
  for (std::size_t p = 0; p < kinds.size(); ++p) c.push_back(run.matrix("--matrix-n", mn, mn));
  std::vector<std::string> algorithms;
  for (std::size_t p = 0; p < kinds.size(); ++p) {
    const auto cv = c[p].view();
    const MatmulAlgorithm kind = kinds[p];
    run.time(std::string("matmul_") + to_string(kind), flops, "TFLOP/s",
             [&] { toolkit::matmul(exec, av, bv, cv, kind); });
    algorithms.push_back(to_string(kind));
  }
  const auto ha = to_host(exec, av), hb = to_host(exec, bv);
  std::vector<decltype(to_host(exec, av))> hc;
  for (const auto& cp : c) hc.push_back(to_host(exec, cp.view()));
  const std::size_t k = kinds.size();
  const std::vector<double> differences = pairwise_differences(hc, mn);
  // |c - c_exact| <= (K + 2) eps sum_k |a_ik b_kj| for any summation order.
  const double bound =
      (static_cast<double>(mn) + 2) * eps * static_cast<double>(mn) * max_abs(ha) * max_abs(hb);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t q = p + 1; q < k; ++q)
      run.check("matmul " + algorithms[p] + " vs " + algorithms[q] + " max difference",
                differences[p * k + q], 2 * bound);
  // A host reference in double where it takes well under a second (n^3 <= 2^30).
  std::vector<double> reference_errors;
  if (mn <= 1024) {
    reference_errors = host_reference_errors(ha, hb, hc, mn);
    for (std::size_t p = 0; p < k; ++p)
      run.check("matmul " + algorithms[p] + " vs host reference max difference",
                reference_errors[p], bound);
  } else {
    run.note("matmul: no host reference above n = 1024 (the three results are checked "
             "against each other)");
  }
  if (io::H5File* file = run.file) {
    file->write("/matmul/max_abs_difference", differences.data(), {k, k});
    std::string names;
    for (const auto& name : algorithms) names += (names.empty() ? "" : ",") + name;
    file->write_attribute("/matmul", "algorithms", names);
    file->write_attribute("/matmul", "n", static_cast<std::int64_t>(mn));
    file->write_attribute("/matmul", "error_bound", bound);
    if (!reference_errors.empty()) file->write("/matmul/max_abs_error_vs_host", reference_errors);
  }
  run_trace(run, av, ha);
}

// The checks of a computed SVD, and what the file keeps of it.
template <class Scalar, class ExecutionSpace, class HostMatrix, class HostVector>
void check_svd(SeedRun<Scalar, ExecutionSpace>& run, const HostMatrix& ha, const HostMatrix& hu,
               const HostVector& hs, const HostMatrix& hvt) {
  constexpr double eps = std::numeric_limits<Scalar>::epsilon();
  const std::size_t sn = ha.extent(0);
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
  run.check("svd singular values ordered and >= 0", ordered ? 0.0 : 1.0, 0.0);
  run.check("svd |sum s^2 - ||A||_F^2| / ||A||_F^2", energy_error, bound);
  if (reconstruct) run.check("svd ||A - U S Vt||_F / ||A||_F", residual, bound);
  if (io::H5File* file = run.file) {
    file->write("/svd/singular_values", head_of(hs, sn));
    if (sn <= 256) {
      std::vector<double> matrix(sn * sn);
      for (std::size_t i = 0; i < sn; ++i)
        for (std::size_t j = 0; j < sn; ++j) matrix[i * sn + j] = ha(i, j);
      file->write("/svd/matrix", matrix.data(), {sn, sn});
    }
    file->write_attribute("/svd", "n", static_cast<std::int64_t>(sn));
    file->write_attribute("/svd", "frobenius_energy_relative_error", energy_error);
    if (reconstruct) file->write_attribute("/svd", "reconstruction_relative_error", residual);
  }
}

template <class Scalar, class ExecutionSpace>
void run_svd(SeedRun<Scalar, ExecutionSpace>& run) {
  if (run.file) run.file->create_group("/svd");
  std::string skipped;
  if (run.spec.svd_n == 0) {
    run.note("svd skipped (--svd-n 0)");
    skipped = "--svd-n 0";
  } else if (!svd_available<ExecutionSpace>()) {
    skipped = "svd skipped: this build has no LAPACKE for host backends "
              "(PORTASIM_ENABLE_LAPACKE=OFF or liblapacke not found)";
    run.note(skipped);
  }
  if (!skipped.empty()) {
    if (run.file) run.file->write_attribute("/svd", "skipped", skipped);
    return;
  }
  const auto& exec = run.exec;
  const auto sn = static_cast<std::size_t>(run.spec.svd_n);
  auto a = run.matrix("--svd-n", sn, sn);
  auto u = run.matrix("--svd-n", sn, sn);
  auto vt = run.matrix("--svd-n", sn, sn);
  auto s = run.vector("--svd-n", sn);
  const auto av = a.view(), uv = u.view(), vtv = vt.view();
  const auto sv = s.view();
  hash_fill(exec, av, run.spec.seed + 5);
  run.time("svd", 0, "", [&] { toolkit::svd(exec, av, uv, sv, vtv); });
  check_svd(run, to_host(exec, av), to_host(exec, uv), to_host(exec, sv), to_host(exec, vtv));
}

#define PORTASIM_TOOLKIT_SEED_LINALG(SPACE)            \
  PORTASIM_TOOLKIT_SEED_INSTANTIATE(run_matmul, SPACE) \
  PORTASIM_TOOLKIT_SEED_INSTANTIATE(run_svd, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_SEED_LINALG)

}  // namespace portasim::toolkit::seed
