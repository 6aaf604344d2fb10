#pragma once
// The one place that knows which Kokkos release it is built against. Module code calls the
// names here; when a Kokkos release drops out of support, the shim for it goes.

#include <Kokkos_Core.hpp>

#include <exception>
#include <new>
#include <string>
#include <string_view>

#if KOKKOS_VERSION < 30401
#error "portasim needs Kokkos 3.4.01 or newer"
#endif

namespace portasim::compat {

// Math: Kokkos 3.4 keeps exp/expm1/log1p/... in Kokkos::Experimental; 3.7 moved them to
// Kokkos:: and 4.0 removed the old names. Drop the 3.4 branch with Kokkos 3.x support.
namespace math {
#if KOKKOS_VERSION >= 30700
using Kokkos::cbrt;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::expm1;
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::fmax;
using Kokkos::fmin;
using Kokkos::isfinite;
using Kokkos::isnan;
using Kokkos::log;
using Kokkos::log1p;
using Kokkos::pow;
using Kokkos::sin;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::cbrt;
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::expm1;
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::fmax;
using Kokkos::Experimental::fmin;
using Kokkos::Experimental::isfinite;
using Kokkos::Experimental::isnan;
using Kokkos::Experimental::log;
using Kokkos::Experimental::log1p;
using Kokkos::Experimental::pow;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
#endif
}  // namespace math

// Initialization: Kokkos::InitArguments (3.4) became Kokkos::InitializationSettings (3.7,
// the only form in 4.x). Drop the 3.4 branch with Kokkos 3.x support.
inline void initialize(int num_threads, int device_id) {
#if KOKKOS_VERSION >= 30700
  Kokkos::InitializationSettings settings;
  if (num_threads > 0) settings.set_num_threads(num_threads);
  if (device_id >= 0) settings.set_device_id(device_id);
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments arguments;
  arguments.num_threads = num_threads;
  arguments.device_id = device_id;
  Kokkos::initialize(arguments);
#endif
}

// a * b rounded on its own, never contracted with a following add into an FMA (which changes
// the last bit): for reproducing NumPy's arithmetic exactly. nvcc contracts across a volatile
// local, so the device takes the round-to-nearest intrinsic; host compilers honour volatile.
KOKKOS_INLINE_FUNCTION double multiply_unfused(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  volatile double product = a * b;
  return product;
#endif
}

// Whether `e` is a failed allocation, by type where Kokkos gives one and by message otherwise.
//   Kokkos 3.x: MemorySpace::allocate throws RawMemoryAllocationFailure, a std::bad_alloc;
//     a View's allocation wraps it in std::runtime_error "Kokkos failed to allocate memory
//     for label ..." (CUDA's also names "allocation failure").
//   Kokkos 4.x: both throw std::runtime_error "Kokkos ERROR: <space> memory space failed to
//     allocate <size> (label=...)".
// Drop the 3.x forms with Kokkos 3.x support.
inline bool is_allocation_failure(const std::exception& e) noexcept {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return true;
  const std::string_view message = e.what();
  for (const std::string_view form :
       {"memory space failed to allocate", "Kokkos failed to allocate", "allocation failure"})
    if (message.find(form) != std::string_view::npos) return true;
  return false;
}

inline std::string kokkos_version_string() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

}  // namespace portasim::compat

// Full unrolling of a constant-trip loop, which keeps small per-thread arrays in registers
// on the GPU. nvcc's `#pragma unroll`; host compilers vectorize such loops on their own and
// would only warn about a pragma they do not know.
#if defined(__CUDA_ARCH__)
#define PORTASIM_UNROLL _Pragma("unroll")
#else
#define PORTASIM_UNROLL
#endif

// A loop kept rolled on the GPU, where unrolling it would hold more values in registers than
// the kernel's occupancy allows.
#if defined(__CUDA_ARCH__)
#define PORTASIM_NO_UNROLL _Pragma("unroll 1")
#else
#define PORTASIM_NO_UNROLL
#endif
