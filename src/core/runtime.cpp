#include "portasim/core/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "portasim/core/compat.hpp"
#include "portasim/core/impl/backend.hpp"
#include "portasim/core/nvtx_connector.hpp"

namespace portasim {

namespace {
DeviceChoice g_device_choice;

bool nvtx_requested_by_environment() {
  const char* value = std::getenv("PORTASIM_NVTX");
  return value != nullptr && std::strcmp(value, "") != 0 && std::strcmp(value, "0") != 0;
}
// Device flags of Kokkos 3.4 and 4.x; when one is given, Kokkos decides.
bool kokkos_device_flag_given(int argc, char* argv[]) {
  static const char* flags[] = {"--kokkos-device-id", "--kokkos-device", "--kokkos-num-devices",
                                "--kokkos-ndevices", "--device-id", "--num-devices", "--ndevices"};
  for (int i = 1; i < argc; ++i)
    for (const char* flag : flags)
      if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) return true;
  return std::getenv("KOKKOS_DEVICE_ID") != nullptr || std::getenv("KOKKOS_NUM_DEVICES") != nullptr;
}

}  // namespace

Runtime::Runtime(int& argc, char* argv[]) {
  if (!Kokkos::is_initialized()) {
    const int devices = impl::device_count();
    if (devices > 0 && !kokkos_device_flag_given(argc, argv)) {
      m_device = choose_device(devices);
      // Kokkos takes the device from its flags only: hand it ours, then give the caller
      // back what Kokkos left of argv (its own flags removed, ours included).
      std::string flag = "--kokkos-device-id=" + std::to_string(m_device.device_id);
      std::vector<char*> arguments(argv, argv + argc);
      arguments.push_back(flag.data());
      arguments.push_back(nullptr);
      int count = argc + 1;
      Kokkos::initialize(count, arguments.data());
      if (count > argc) count = argc;  // a Kokkos that kept its flags: ours is the last one
      for (int i = 0; i < count; ++i) argv[i] = arguments[static_cast<std::size_t>(i)];
      argv[count] = nullptr;
      argc = count;
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

Runtime::Runtime(const RuntimeOptions& options) {
  if (!Kokkos::is_initialized()) {
    const int devices = impl::device_count();
    int device_id = options.device_id;
    if (devices > 0) {
      m_device = choose_device(devices, options.device_id);
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
