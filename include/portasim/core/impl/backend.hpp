#pragma once
// Compat layer entry: the generic (host) implementation plus the specializations of every
// backend Kokkos was built with. The only place outside compat.hpp with backend #ifdefs.

#include <Kokkos_Core.hpp>

#include <vector>

#include "portasim/core/build_info.hpp"
#include "portasim/core/impl/backend_host.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "portasim/core/impl/backend_cuda.hpp"
#endif

namespace portasim::impl {

inline std::vector<DeviceProperties> query_devices() {
#if defined(KOKKOS_ENABLE_CUDA)
  return query_cuda_devices();
#else
  return {};
#endif
}

// GPUs visible to this process; callable before Kokkos is initialized.
inline int device_count() {
#if defined(KOKKOS_ENABLE_CUDA)
  return cuda_device_count();
#else
  return 0;
#endif
}

// The GPU Kokkos runs on; -1 without a GPU backend. Needs an initialized Kokkos.
inline int active_device_id() {
#if defined(KOKKOS_ENABLE_CUDA)
  return Kokkos::Cuda().cuda_device();
#else
  return -1;
#endif
}

}  // namespace portasim::impl
