#pragma once
// Compat layer entry for warp-level matrix multiply-accumulate (the GPU's FP64 tensor
// cores): the portable side, which has none, plus the specializations of every backend
// Kokkos was built with. Kernels ask WarpMmaF64<Exec>::available (a constant) and call
// WarpMmaF64<Exec>::mma only where it is true; the fragment layout and a host reference
// of the instruction are here so that the index arithmetic of a kernel can be tested on
// any machine.

#include <Kokkos_Core.hpp>

namespace portasim::impl {

// D (8 x 8) += A (8 x 4) * B (4 x 8) over the 32 lanes of a warp, every lane holding one
// element of A, one of B and two of D (PTX ISA, mma.m8n8k4 with .f64: A row-major, B
// column-major; the layout CUTLASS names SM80_8x8x4_F64F64F64F64_TN).
struct WarpMmaF64Layout {
  static constexpr int warp_size = 32, m = 8, n = 8, k = 4;
  KOKKOS_INLINE_FUNCTION static constexpr int a_row(int lane) { return lane >> 2; }
  KOKKOS_INLINE_FUNCTION static constexpr int a_col(int lane) { return lane & 3; }
  KOKKOS_INLINE_FUNCTION static constexpr int b_row(int lane) { return lane & 3; }
  KOKKOS_INLINE_FUNCTION static constexpr int b_col(int lane) { return lane >> 2; }
  // Element i (0 or 1) of a lane's D fragment.
  KOKKOS_INLINE_FUNCTION static constexpr int d_row(int lane) { return lane >> 2; }
  KOKKOS_INLINE_FUNCTION static constexpr int d_col(int lane, int i) { return 2 * (lane & 3) + i; }
};

// What one warp-wide mma computes, lane by lane, on the host (tests only): a[l], b[l] and
// d[l][0..1] are lane l's fragments.
inline void warp_mma_f64_reference(const double (&a)[32], const double (&b)[32],
                                   double (&d)[32][2]) {
  using L = WarpMmaF64Layout;
  double a_tile[L::m][L::k] = {}, b_tile[L::k][L::n] = {};
  for (int lane = 0; lane < L::warp_size; ++lane) {
    a_tile[L::a_row(lane)][L::a_col(lane)] = a[lane];
    b_tile[L::b_row(lane)][L::b_col(lane)] = b[lane];
  }
  for (int lane = 0; lane < L::warp_size; ++lane)
    for (int i = 0; i < 2; ++i)
      for (int p = 0; p < L::k; ++p)
        d[lane][i] += a_tile[L::d_row(lane)][p] * b_tile[p][L::d_col(lane, i)];
}

// No warp MMA: kernels must take another path (available is false); mma aborts.
template <class Exec>
struct WarpMmaF64 {
  static constexpr bool available = false;
  KOKKOS_INLINE_FUNCTION static void mma(double& /*d0*/, double& /*d1*/, double /*a*/,
                                         double /*b*/) {
    Kokkos::abort("portasim: WarpMmaF64::mma called on a backend without FP64 warp MMA");
  }
};

}  // namespace portasim::impl

#if defined(KOKKOS_ENABLE_CUDA)
#include "portasim/core/impl/backend_cuda_mma.hpp"
#endif
