#pragma once
// RAII guard that brings the Kokkos runtime up for an application and takes it down at
// scope exit, unless the application had already initialized Kokkos itself (then it is
// left alone in both directions). Optionally turns on the NVTX connector. In MPI builds it
// also brings MPI up first and takes it down last (again unless the application did).
// On GPU backends it picks the device by the rule of device_selection.hpp (explicit id,
// PORTASIM_DEVICE, node-local MPI rank modulo the devices, else 0).

#include <Kokkos_Core.hpp>

#include <memory>

#include "portasim/core/device_selection.hpp"

namespace portasim {

namespace mpi {
class Environment;
}

struct RuntimeOptions {
  int num_threads = -1;  // host threads; -1: Kokkos' default (OMP_NUM_THREADS)
  int device_id = -1;    // GPU; -1: PORTASIM_DEVICE, else local rank modulo devices, else 0
  // NVTX ranges for regions and kernels; also switched on by PORTASIM_NVTX=1.
  bool nvtx = false;
};

class Runtime {
 public:
  // Takes Kokkos' own command-line flags (--kokkos-threads, --kokkos-device, ...) out of argv.
  Runtime(int& argc, char* argv[]);
  explicit Runtime(const RuntimeOptions& options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  bool owns_kokkos() const noexcept { return m_owns; }
  bool nvtx_enabled() const noexcept { return m_nvtx; }
  // The device picked and why; reason "chosen by the Kokkos flags/environment" when the
  // command line or KOKKOS_DEVICE_ID decided, "not initialized here" when Kokkos was up.
  const DeviceChoice& device_choice() const noexcept { return m_device; }

 private:
  void enable_tools(bool nvtx_requested);
  // Declared first: MPI comes up before Kokkos and goes down after it.
  std::unique_ptr<mpi::Environment> m_mpi;
  bool m_owns = false;
  bool m_nvtx = false;
  DeviceChoice m_device;
};

// What the Runtime that initialized Kokkos chose (reason empty when none did).
const DeviceChoice& runtime_device_choice() noexcept;

}  // namespace portasim
