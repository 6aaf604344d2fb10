#pragma once
// Compat layer entry for the vendor linear algebra (BLAS stream, SVD): the host
// implementation plus the specializations of every backend Kokkos was built with.
// Included only by compiled sources (src/toolkit), which link LAPACKE and cuSOLVER.

#include <Kokkos_Core.hpp>

#include "portasim/core/impl/backend_host_linalg.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "portasim/core/impl/backend_cuda_linalg.hpp"
#endif
