#pragma once
// The execution spaces this Kokkos build enables, for explicit template instantiation in
// src/: PORTASIM_FOR_EACH_EXECUTION_SPACE(M) expands to M(Kokkos::Serial) M(Kokkos::OpenMP) ...
// for each space that is on. Modules use it instead of testing backends themselves.

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_SERIAL)
#define PORTASIM_IMPL_SERIAL(M) M(Kokkos::Serial)
#else
#define PORTASIM_IMPL_SERIAL(M)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#define PORTASIM_IMPL_OPENMP(M) M(Kokkos::OpenMP)
#else
#define PORTASIM_IMPL_OPENMP(M)
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define PORTASIM_IMPL_CUDA(M) M(Kokkos::Cuda)
#else
#define PORTASIM_IMPL_CUDA(M)
#endif

#define PORTASIM_FOR_EACH_EXECUTION_SPACE(M) \
  PORTASIM_IMPL_SERIAL(M) PORTASIM_IMPL_OPENMP(M) PORTASIM_IMPL_CUDA(M)
