#include "portasim/core/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "portasim/core/build_info.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/cpu_features.hpp"
#include "portasim/core/impl/backend.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/nvtx_connector.hpp"

namespace portasim {

namespace {
DeviceChoice g_device_choice;

bool nvtx_requested_by_environment() {
  const char* value = std::getenv("PORTASIM_NVTX");
  return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
}
// Device flags of Kokkos 3.4 and 4.x ("--flag=N" or "--flag N", matched whole, so that
// --device-aware-mpi is not --device); when one is given, Kokkos decides.
bool kokkos_device_flag_given(int argc, char* argv[]) {
  static const char* flags[] = {"--kokkos-device-id", "--kokkos-device", "--kokkos-num-devices",
                                "--kokkos-ndevices",  "--device-id",     "--device",
                                "--num-devices",      "--ndevices"};
  for (int i = 1; i < argc; ++i)
    for (const char* flag : flags) {
      const std::size_t n = std::strlen(flag);
      if (argv[i] != nullptr && std::strncmp(argv[i], flag, n) == 0 &&
          (argv[i][n] == '\0' || argv[i][n] == '='))
        return true;
    }
  return std::getenv("KOKKOS_DEVICE_ID") != nullptr || std::getenv("KOKKOS_NUM_DEVICES") != nullptr;
}

// The device rule of device_selection.hpp; in an MPI run whose launcher sets none of the
// local-rank variables, the node-local rank comes from MPI itself.
DeviceChoice choose_device_for_process(int devices, int requested_id) {
  if (!mpi::active()) return choose_device(devices, requested_id);
  static std::string mpi_local_rank;
  mpi_local_rank = std::to_string(mpi::Communicator::world().local_rank());
  return choose_device(
      devices,
      [](const char* name) -> const char* {
        const char* value = std::getenv(name);
        if (value == nullptr && std::strcmp(name, local_rank_variables[0]) == 0) {
          for (const char* other : local_rank_variables)
            if (std::getenv(other) != nullptr) return nullptr;
          return mpi_local_rank.c_str();
        }
        return value;
      },
      requested_id);
}
}  // namespace

Runtime::Runtime(int& argc, char* argv[])
    : m_mpi(std::make_unique<mpi::Environment>(&argc, &argv)) {
  impl::link_cpu_check();
  if (!Kokkos::is_initialized()) {
    const int devices = impl::device_count();
    if (devices > 0 && !kokkos_device_flag_given(argc, argv)) {
      m_device = choose_device_for_process(devices, -1);
      // Kokkos takes the device from its flags only: hand it ours, then give the caller back
      // what Kokkos left of argv, never our flag (the caller's array has no room for it).
      std::string flag = "--kokkos-device-id=" + std::to_string(m_device.device_id);
      std::vector<char*> arguments(argv, argv + argc);
      arguments.push_back(flag.data());
      int count = static_cast<int>(arguments.size());
      arguments.push_back(nullptr);
      Kokkos::initialize(count, arguments.data());
      int kept = 0;
      for (int i = 0; i < count; ++i)
        if (arguments[static_cast<std::size_t>(i)] != flag.data())
          argv[kept++] = arguments[static_cast<std::size_t>(i)];
      argv[kept] = nullptr;
      argc = kept;
    } else {
      Kokkos::initialize(argc, argv);
      if (devices > 0) m_device.reason = "chosen by the Kokkos flags/environment";
    }
    if (devices > 0) m_device.device_id = impl::active_device_id();
    m_owns = true;
    g_device_choice = m_device;
  } else {
    m_device.reason = "not initialized here";
    m_device.device_id = impl::active_device_id();
  }
  enable_tools(false);
}

Runtime::Runtime(const RuntimeOptions& options)
    : m_mpi(std::make_unique<mpi::Environment>(nullptr, nullptr)) {
  if (!Kokkos::is_initialized()) {
    const int devices = impl::device_count();
    int device_id = options.device_id;
    if (devices > 0) {
      m_device = choose_device_for_process(devices, options.device_id);
      device_id = m_device.device_id;
    }
    compat::initialize(options.num_threads, device_id);
    m_owns = true;
    g_device_choice = m_device;
  } else {
    m_device.reason = "not initialized here";
    m_device.device_id = impl::active_device_id();
  }
  enable_tools(options.nvtx);
}

void Runtime::enable_tools(bool nvtx_requested) {
  if (nvtx_requested || nvtx_requested_by_environment()) m_nvtx = enable_nvtx_connector();
}

const DeviceChoice& runtime_device_choice() noexcept { return g_device_choice; }

Runtime::~Runtime() {
  if (m_owns && Kokkos::is_initialized()) Kokkos::finalize();
}

}  // namespace portasim
