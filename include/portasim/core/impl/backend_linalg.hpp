#pragma once
// Compat layer entry for the vendor linear algebra (gemm on an instance, SVD): the host
// implementation plus the specializations of every backend Kokkos was built with.
// Included only by compiled sources (src/toolkit), which link LAPACKE and cuSOLVER.

#include <Kokkos_Core.hpp>

#include "portasim/core/impl/backend_host_linalg.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "portasim/core/impl/backend_cuda_linalg.hpp"
#endif

#if defined(PORTASIM_ENABLE_KERNELS)
#include <KokkosBlas3_gemm.hpp>
#include <KokkosKernels_config.h>

namespace portasim::impl {

// C = A B on `exec`'s stream. Kokkos Kernels 4.x takes the instance, and its gemm without
// one sets the cuBLAS stream to the default instance's, overriding a stream set on the
// handle beforehand. 3.x takes none: BlasStreamScope points the vendor BLAS at the instance
// for the call. Drop the 3.x branch with Kokkos Kernels 3.x support.
template <class ExecutionSpace, class AView, class BView, class CView>
void gemm_on_instance(const ExecutionSpace& exec, const AView& a, const BView& b, const CView& c) {
  using Scalar = typename CView::non_const_value_type;
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40000
  KokkosBlas::gemm(exec, "N", "N", Scalar(1), a, b, Scalar(0), c);
#else
  BlasStreamScope<ExecutionSpace> on_instance(exec);
  KokkosBlas::gemm("N", "N", Scalar(1), a, b, Scalar(0), c);
#endif
}

}  // namespace portasim::impl
#endif
