#pragma once
// Host vectorization, part of the compat layer: the loop pragma, the vector variants of the
// math functions, and the math helpers whose host and device forms differ. Kernels whose
// host loops should vectorize include it. Why they are shaped as they are:
// docs/design/cpu-vectorization.md.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "portasim/core/compat.hpp"

// glibc's vector math library (libmvec) has AVX2 and AVX-512 variants of exp, expm1, log and cos,
// but <math.h> declares them only under -ffast-math, which portasim must not use (it also
// assumes no NaN, and NaN checks guard the inputs). Declaring the functions `simd` again
// lets GCC call the vector variants from loops it vectorizes, at their documented accuracy
// (within 4 ulp). Host GCC on x86-64 only: nvcc's device pass and Clang do not use these.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__) && \
    defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 22)
extern "C" {
__attribute__((simd("notinbranch"))) float expf(float) noexcept;
__attribute__((simd("notinbranch"))) double exp(double) noexcept;
__attribute__((simd("notinbranch"))) float logf(float) noexcept;
__attribute__((simd("notinbranch"))) double log(double) noexcept;
__attribute__((simd("notinbranch"))) float cosf(float) noexcept;
__attribute__((simd("notinbranch"))) double cos(double) noexcept;
}
#endif
#if __GLIBC_PREREQ(2, 35)
extern "C" {
__attribute__((simd("notinbranch"))) float expm1f(float) noexcept;
__attribute__((simd("notinbranch"))) double expm1(double) noexcept;
}
#endif
#endif

// `#pragma omp simd` for a host loop whose iterations are independent (portasim builds with
// -fopenmp-simd, so Serial-only builds honour it too). Empty in CUDA translation units,
// whose host loops are not the CPU backend.
#if defined(__CUDACC__)
#define PORTASIM_SIMD
#else
#define PORTASIM_SIMD _Pragma("omp simd")
#endif

// A host function compiled twice, for the build's CPU level and for x86-64-v4 (AVX-512), the
// copy chosen once at load time by the CPU it runs on (an ifunc, as NumPy dispatches its
// loops): the kernels whose loops vectorize get twice the lanes on CPUs that have them, and a
// binary for x86-64-v3 still runs everywhere that level does. GCC on x86-64 with glibc only.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__) && \
    defined(__GLIBC__) && !defined(__AVX512F__)
#define PORTASIM_HOST_CLONES __attribute__((target_clones("arch=x86-64-v4", "default")))
#else
#define PORTASIM_HOST_CLONES
#endif

namespace portasim::compat::math {

// exp(x) where `needed`, else a value the caller must not use. Device code skips the call
// when it is not needed. Host code always makes it: AVX2 has no masked vector exp, and a call
// inside a branch stops GCC from vectorizing the loop around it (above).
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar exp_if(bool needed, Scalar x) {
#if defined(__CUDA_ARCH__)
  return needed ? exp(x) : Scalar(0);
#else
  (void)needed;
  return exp(x);
#endif
}

// a / b for a hot path that tolerates a few ulps. On CUDA devices in float, __fdividef: a
// reciprocal and a multiply, within 2 ulp for 2^-126 <= |b| <= 2^126 (a larger |b| gives 0, the
// value to within float's range); the IEEE division it replaces is a longer sequence with a slow
// path. Elsewhere, and in double, the division itself.
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar divide_approx(Scalar a, Scalar b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(Scalar) == sizeof(float)) return __fdividef(a, b);
#endif
  return a / b;
}

// exp(x) for a hot path that tolerates a bounded error. On CUDA devices in float, __expf:
// one special-function instruction on x log2(e), within 2 + floor(1.173 |x|) ulp (CUDA Math
// API), results below 2^-126 flushed to zero. Elsewhere, and in double, exp itself.
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar exp_approx(Scalar x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(Scalar) == sizeof(float)) return __expf(x);
#endif
  return exp(x);
}

}  // namespace portasim::compat::math
