#include "portasim/core/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "portasim/core/build_info.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/nvtx_connector.hpp"

namespace portasim {

namespace {
bool nvtx_requested_by_environment() {
  const char* value = std::getenv("PORTASIM_NVTX");
  return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
}


// One rank per GPU: local rank modulo the visible GPUs, unless the user chose a device.
int device_for_this_rank(int argc, char* argv[]) {
  if (!mpi::active()) return -1;
  return mpi::default_device(argc, argv, static_cast<int>(device_properties().size()));
}
}  // namespace

Runtime::Runtime(int& argc, char* argv[]) : m_mpi(std::make_unique<mpi::Environment>(&argc, &argv)) {
  if (!Kokkos::is_initialized()) {
    const int device = device_for_this_rank(argc, argv);
    if (device < 0) {
      Kokkos::initialize(argc, argv);
    } else {
      // Kokkos takes its flags out of the array it is given; what it leaves goes back to argv.
      std::string flag = "--kokkos-device-id=" + std::to_string(device);
      std::vector<char*> arguments(argv, argv + argc);
      arguments.push_back(flag.data());
      int count = static_cast<int>(arguments.size());
      arguments.push_back(nullptr);
      Kokkos::initialize(count, arguments.data());
      int kept = 0;  // never more than argc: the added flag never reaches the caller's array
      for (int i = 0; i < count; ++i)
        if (arguments[static_cast<std::size_t>(i)] != flag.data()) argv[kept++] = arguments[static_cast<std::size_t>(i)];
      argv[kept] = nullptr;
      argc = kept;
    }
    m_owns = true;
  }
  enable_tools(false);
}

Runtime::Runtime(const RuntimeOptions& options) : m_mpi(std::make_unique<mpi::Environment>(nullptr, nullptr)) {
  if (!Kokkos::is_initialized()) {
    int device = options.device_id;
    if (device < 0 && mpi::active()) device = mpi::default_device(0, nullptr, static_cast<int>(device_properties().size()));
    compat::initialize(options.num_threads, device);
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
