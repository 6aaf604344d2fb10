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

}  // namespace portasim::impl
