#pragma once
// Compat layer: the BLAS that Kokkos Kernels calls on host backends (its BLAS TPL; the
// bootstrap points it at OpenBLAS), for host kernels that run a small gemm per work item
// inside their own parallel loop, where KokkosBlas::gemm, a call that launches work, does
// not belong. OpenBLAS built for OpenMP runs single-threaded inside a parallel region, so
// each call is one thread's and its result does not depend on the thread count.

#include <Kokkos_Core.hpp>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"

#if defined(PORTASIM_ENABLE_KERNELS)
#include <KokkosKernels_config.h>
#if defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
#include <KokkosBlas_Host_tpl.hpp>
#endif
#endif

namespace portasim::impl {

#if defined(PORTASIM_ENABLE_KERNELS) && defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
inline constexpr bool has_host_blas = true;
#else
inline constexpr bool has_host_blas = false;
#endif

// C = A B for column-major A (m x k, leading dimension lda), B (k x n, ldb), C (m x n, ldc),
// in double, on the calling thread. Only where has_host_blas.
inline void host_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                      double* c, int ldc) {
#if defined(PORTASIM_ENABLE_KERNELS) && defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
  KokkosBlas::Impl::HostBlas<double>::gemm('N', 'N', m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
#else
  (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)c, (void)ldc;
  throw_error(ErrorKind::internal, "host_gemm: this build has no host BLAS");
#endif
}

}  // namespace portasim::impl
