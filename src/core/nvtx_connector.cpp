#include "portasim/core/nvtx_connector.hpp"

#include <Kokkos_Core.hpp>

#include "portasim/config.hpp"

#if defined(PORTASIM_ENABLE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace portasim {

#if defined(PORTASIM_ENABLE_NVTX)
namespace {
void push_range(const char* name) { nvtxRangePushA(name); }
void pop_range() { nvtxRangePop(); }
void begin_kernel(const char* name, uint32_t, uint64_t*) { nvtxRangePushA(name); }
void end_kernel(uint64_t) { nvtxRangePop(); }
}  // namespace

bool nvtx_connector_available() noexcept { return true; }

bool enable_nvtx_connector() {
  if (Kokkos::Profiling::profileLibraryLoaded()) return false;
  namespace tools = Kokkos::Tools::Experimental;
  tools::set_push_region_callback(push_range);
  tools::set_pop_region_callback(pop_range);
  tools::set_begin_parallel_for_callback(begin_kernel);
  tools::set_end_parallel_for_callback(end_kernel);
  tools::set_begin_parallel_reduce_callback(begin_kernel);
  tools::set_end_parallel_reduce_callback(end_kernel);
  tools::set_begin_parallel_scan_callback(begin_kernel);
  tools::set_end_parallel_scan_callback(end_kernel);
  return true;
}
#else
bool nvtx_connector_available() noexcept { return false; }
bool enable_nvtx_connector() { return false; }
#endif

}  // namespace portasim
