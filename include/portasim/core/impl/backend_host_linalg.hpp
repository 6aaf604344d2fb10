#pragma once
// Compat layer, host side of the vendor linear algebra: LAPACKE for the SVD, and no stream
// to point a BLAS at (host instances run their work in order anyway).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"

#if defined(PORTASIM_HAS_LAPACKE)
#include <lapacke.h>
#endif

namespace portasim::impl {

// Points the vendor BLAS that Kokkos Kernels calls at the instance for the scope's life.
template <class ExecutionSpace>
class BlasStreamScope {
 public:
  explicit BlasStreamScope(const ExecutionSpace& /*exec*/) {}
};

#if defined(PORTASIM_HAS_LAPACKE)
inline lapack_int lapacke_gesdd(int m, int n, double* a, double* s, double* u, double* vt) {
  return LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', m, n, a, m, s, u, m, vt, std::min(m, n));
}
inline lapack_int lapacke_gesdd(int m, int n, float* a, float* s, float* u, float* vt) {
  return LAPACKE_sgesdd(LAPACK_COL_MAJOR, 'S', m, n, a, m, s, u, m, vt, std::min(m, n));
}
#endif

// Economy SVD of a column-major m x n matrix with m >= n: a (leading dimension m) is
// destroyed; s gets n values in descending order, u the m x n left vectors (leading
// dimension m), vt the n x n right vectors transposed (leading dimension n). Pointers into
// the instance's memory space; the call returns when the results are there.
template <class ExecutionSpace>
struct DenseSvd {
  template <class Scalar>
  static void tall(const ExecutionSpace& exec, int m, int n, Scalar* a, Scalar* s, Scalar* u,
                   Scalar* vt) {
#if defined(PORTASIM_HAS_LAPACKE)
    exec.fence();  // the kernels that filled a
    const lapack_int info = lapacke_gesdd(m, n, a, s, u, vt);
    if (info > 0)
      throw_error(ErrorKind::backend,
                  "LAPACKE gesdd: the SVD did not converge (info " + std::to_string(info) + ")");
    if (info < 0)
      throw_error(ErrorKind::internal,
                  "LAPACKE gesdd: argument " + std::to_string(-info) + " had an illegal value");
#else
    (void)exec, (void)m, (void)n, (void)a, (void)s, (void)u, (void)vt;
    throw_error(ErrorKind::backend,
                "svd on a host backend needs LAPACKE; this build was configured without it "
                "(PORTASIM_ENABLE_LAPACKE=OFF or liblapacke not found)");
#endif
  }
};

}  // namespace portasim::impl
