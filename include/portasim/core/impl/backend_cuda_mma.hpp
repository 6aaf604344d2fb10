#pragma once
// Compat layer, CUDA side of the FP64 warp MMA: mma.sync m8n8k4 f64 (DMMA, sm_80 and
// later). Included from backend_mma.hpp only when Kokkos has CUDA enabled.

#include <Kokkos_Core.hpp>

#include "portasim/core/impl/backend_mma.hpp"

namespace portasim::impl {

// Available for the data-centre architectures whose FP64 tensor cores run at twice the FP64
// SIMT rate (sm_80, sm_90, sm_100). sm_86/89 would accept the instruction but run it slowly
// (docs/design/matmul.md).
// Kokkos' architecture macros, not __CUDA_ARCH__, decide it, so that the host pass sees the
// same constant as the device pass.
#if defined(KOKKOS_ARCH_AMPERE80) || defined(KOKKOS_ARCH_HOPPER90) || \
    defined(KOKKOS_ARCH_BLACKWELL100)
#define PORTASIM_IMPL_CUDA_WARP_MMA_F64 1
#else
#define PORTASIM_IMPL_CUDA_WARP_MMA_F64 0
#endif

template <>
struct WarpMmaF64<Kokkos::Cuda> {
  static constexpr bool available = PORTASIM_IMPL_CUDA_WARP_MMA_F64 != 0;
  // Every lane of the warp must call it together (no divergence), with the fragments of
  // WarpMmaF64Layout; d0, d1 are accumulated in place.
  KOKKOS_INLINE_FUNCTION static void mma(double& d0, double& d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
#else
    (void)d0;
    (void)d1;
    (void)a;
    (void)b;
    Kokkos::abort("portasim: FP64 warp MMA needs sm_80 or later");
#endif
  }
};

}  // namespace portasim::impl
