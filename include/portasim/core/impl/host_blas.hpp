#pragma once
// Compat layer: the BLAS that Kokkos Kernels calls on host backends (its BLAS TPL; the
// bootstrap points it at OpenBLAS), for host kernels that run a small gemm per work item
// inside their own parallel loop, where KokkosBlas::gemm, a call that launches work, does
// not belong. OpenBLAS built for OpenMP runs single-threaded inside a parallel region, so
// each call is one thread's and its result does not depend on the thread count.

#include <Kokkos_Core.hpp>

#include <cstddef>

#include "portasim/config.hpp"

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
// in double, on the calling thread: the host BLAS where there is one, else the same product
// in plain loops (each column of C a sum of A's columns, p ascending).
inline void host_gemm(int m, int n, int k, const double* a, int lda, const double* b, int ldb,
                      double* c, int ldc) {
  if constexpr (has_host_blas) {
#if defined(PORTASIM_ENABLE_KERNELS) && defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
    KokkosBlas::Impl::HostBlas<double>::gemm('N', 'N', m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
#endif
  } else {
    for (int j = 0; j < n; ++j) {
      double* cj = c + static_cast<std::ptrdiff_t>(j) * ldc;
      for (int i = 0; i < m; ++i) cj[i] = 0.0;
      for (int p = 0; p < k; ++p) {
        const double bpj = b[p + static_cast<std::ptrdiff_t>(j) * ldb];
        const double* ap = a + static_cast<std::ptrdiff_t>(p) * lda;
        for (int i = 0; i < m; ++i) cj[i] += ap[i] * bpj;
      }
    }
  }
}

}  // namespace portasim::impl
