#pragma once
// Compat layer, CUDA side of the vendor linear algebra: cuBLAS (through Kokkos Kernels) on
// the instance's stream, and the SVD by cuSOLVER. Included only when Kokkos has CUDA.
//
// Kokkos Kernels 3.4's KokkosBlas::gemm takes no execution-space instance: with the cuBLAS
// TPL it calls cuBLAS on the handle of KokkosBlas::Impl::CudaBlasSingleton, whose stream is
// the legacy default stream unless someone sets it. BlasStreamScope sets it to the
// instance's stream for the duration of a call and restores it after. Kokkos Kernels 4.x
// takes the instance itself (gemm_on_instance in backend_linalg.hpp).

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <mutex>
#include <string>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend_cuda.hpp"
#include "portasim/core/impl/backend_host_linalg.hpp"

#if defined(PORTASIM_ENABLE_KERNELS)
#include <KokkosKernels_config.h>
#endif
#if defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
#include <KokkosBlas_tpl_spec.hpp>
#include <cublas_v2.h>
#endif

namespace portasim::impl {

// cuBLAS handle and cuSOLVER handle are process-wide: one caller at a time may point them
// at its stream.
inline std::mutex& vendor_handle_mutex() {
  static std::mutex mutex;
  return mutex;
}

#if defined(KOKKOSKERNELS_ENABLE_TPL_CUBLAS)
inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_error(ErrorKind::backend, std::string(what) + " failed: cuBLAS status " +
                                        std::to_string(static_cast<int>(status)));
}

template <>
class BlasStreamScope<Kokkos::Cuda> {
 public:
  explicit BlasStreamScope(const Kokkos::Cuda& exec)
      : m_lock(vendor_handle_mutex()),
        m_handle(KokkosBlas::Impl::CudaBlasSingleton::singleton().handle) {
    check_cublas(cublasGetStream(m_handle, &m_previous), "cublasGetStream");
    check_cublas(cublasSetStream(m_handle, exec.cuda_stream()), "cublasSetStream");
  }
  ~BlasStreamScope() { cublasSetStream(m_handle, m_previous); }
  BlasStreamScope(const BlasStreamScope&) = delete;
  BlasStreamScope& operator=(const BlasStreamScope&) = delete;

 private:
  std::lock_guard<std::mutex> m_lock;
  cublasHandle_t m_handle;
  cudaStream_t m_previous = nullptr;
};
#endif

inline void check_cusolver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw_error(ErrorKind::backend, std::string(what) + " failed: cuSOLVER status " +
                                        std::to_string(static_cast<int>(status)));
}

// Created on first use and never destroyed: destroying it at exit could run after the
// CUDA context is gone.
inline cusolverDnHandle_t cusolver_handle() {
  static cusolverDnHandle_t handle = [] {
    cusolverDnHandle_t h = nullptr;
    check_cusolver(cusolverDnCreate(&h), "cusolverDnCreate");
    return h;
  }();
  return handle;
}

inline cusolverStatus_t cusolver_gesvd_buffer(cusolverDnHandle_t h, int m, int n, double*,
                                              int* lwork) {
  return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
}
inline cusolverStatus_t cusolver_gesvd_buffer(cusolverDnHandle_t h, int m, int n, float*,
                                              int* lwork) {
  return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
}
inline cusolverStatus_t cusolver_gesvd(cusolverDnHandle_t h, int m, int n, double* a, double* s,
                                       double* u, double* vt, double* work, int lwork, int* info) {
  return cusolverDnDgesvd(h, 'S', 'S', m, n, a, m, s, u, m, vt, n, work, lwork, nullptr, info);
}
inline cusolverStatus_t cusolver_gesvd(cusolverDnHandle_t h, int m, int n, float* a, float* s,
                                       float* u, float* vt, float* work, int lwork, int* info) {
  return cusolverDnSgesvd(h, 'S', 'S', m, n, a, m, s, u, m, vt, n, work, lwork, nullptr, info);
}

// cuSOLVER's gesvd (the routine CuPy's svd calls), which handles m >= n only: hence the
// "tall" contract that the portable layer meets by transposing wide matrices.
template <>
struct DenseSvd<Kokkos::Cuda> {
  template <class Scalar>
  static void tall(const Kokkos::Cuda& exec, int m, int n, Scalar* a, Scalar* s, Scalar* u,
                   Scalar* vt) {
    // gesvd always writes info and never reads it: no zero fill (which would run on
    // Kokkos' default stream).
    Kokkos::View<int, Kokkos::CudaSpace> info(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::svd::info")));
    Kokkos::View<Scalar*, Kokkos::CudaSpace> work;
    {
      std::lock_guard<std::mutex> lock(vendor_handle_mutex());
      const cusolverDnHandle_t handle = cusolver_handle();
      check_cusolver(cusolverDnSetStream(handle, exec.cuda_stream()), "cusolverDnSetStream");
      int lwork = 0;
      check_cusolver(cusolver_gesvd_buffer(handle, m, n, a, &lwork), "cusolverDn gesvd_bufferSize");
      work = Kokkos::View<Scalar*, Kokkos::CudaSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::svd::work")),
          lwork > 0 ? lwork : 1);
      check_cusolver(cusolver_gesvd(handle, m, n, a, s, u, vt, work.data(), lwork, info.data()),
                     "cusolverDn gesvd");
    }
    int host_info = 0;
    check_cuda(cudaMemcpyAsync(&host_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost,
                               exec.cuda_stream()),
               "cudaMemcpyAsync (svd info)");
    exec.fence();
    if (host_info > 0)
      throw_error(ErrorKind::backend, "cuSOLVER gesvd: the SVD did not converge (" +
                                          std::to_string(host_info) + " superdiagonals)");
    if (host_info < 0)
      throw_error(ErrorKind::internal, "cuSOLVER gesvd: argument " + std::to_string(-host_info) +
                                           " had an illegal value");
  }
};

}  // namespace portasim::impl
