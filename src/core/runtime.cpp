#include "portasim/core/runtime.hpp"

#include <cstdlib>
#include <cstring>

#include "portasim/core/compat.hpp"
#include "portasim/core/nvtx_connector.hpp"

namespace portasim {

namespace {
bool nvtx_requested_by_environment() {
  const char* value = std::getenv("PORTASIM_NVTX");
  return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
}
}  // namespace

Runtime::Runtime(int& argc, char* argv[]) {
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize(argc, argv);
    m_owns = true;
  }
  enable_tools(false);
}

Runtime::Runtime(const RuntimeOptions& options) {
  if (!Kokkos::is_initialized()) {
    compat::initialize(options.num_threads, options.device_id);
    m_owns = true;
  }
  enable_tools(options.nvtx);
}

void Runtime::enable_tools(bool nvtx_requested) {
  if (nvtx_requested || nvtx_requested_by_environment()) m_nvtx = enable_nvtx_connector();
}

Runtime::~Runtime() {
  if (m_owns && Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace portasim
