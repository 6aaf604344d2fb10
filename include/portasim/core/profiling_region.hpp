#pragma once
// A named region in the Kokkos profiling interface for the lifetime of a scope
// (cupyx.profiler.time_range). Kokkos tools, and the NVTX connector under Nsight Systems,
// show it.

#include <Kokkos_Core.hpp>

#include <string>

namespace portasim {

class ProfilingRegion {
 public:
  explicit ProfilingRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

}  // namespace portasim
