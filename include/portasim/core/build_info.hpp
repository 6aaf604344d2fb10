#pragma once
// What this build of portasim is and what it runs on: versions, enabled backends and
// options, and the properties of the visible devices (what `portasim info` prints).

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "portasim/core/cpu_features.hpp"

namespace portasim {

struct DeviceProperties {
  int id = 0;
  std::string name;
  std::size_t total_memory_bytes = 0;
  int multiprocessors = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::size_t free_memory_bytes = 0;  // 0: not queried (only the device in use is)
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  double memory_bandwidth_gb_per_s = 0;  // theoretical peak from clock and bus width
};

struct HostProperties {
  std::string cpu_model;  // empty when the OS does not say
  int hardware_threads = 0;
  std::size_t total_memory_bytes = 0;
  std::size_t available_memory_bytes = 0;
};

struct BuildInfo {
  std::string portasim_version;
  std::string kokkos_version;
  std::string kokkos_kernels_version;  // empty when built without Kokkos Kernels
  std::string hdf5_version;            // empty when built without HDF5
  std::string compiler;
  std::string build_type;
  std::string kokkos_arch;
  // The library Kokkos Kernels' gemm calls on host spaces (the file holding dgemm_ in this
  // process); empty when it uses its own kernels there.
  std::string host_blas;
  CpuFeatures cpu;                    // the host instruction set the build uses (PORTASIM_CPU_ARCH)
  std::vector<std::string> backends;  // enabled Kokkos execution spaces, e.g. {"Serial", "OpenMP"}
  std::string default_backend;
  int host_concurrency = 0;      // threads of Kokkos' default host execution space
  int active_device = -1;        // the GPU Kokkos runs on; -1 without a GPU backend
  std::string device_selection;  // why that GPU (device_selection.hpp); empty without one
  HostProperties host;
  bool mpi = false;
  bool nvtx = false;
};

// Needs an initialized Kokkos runtime (for concurrency).
BuildInfo build_info();
HostProperties host_properties();
// Visible GPUs; empty in builds without a GPU backend or on machines without a GPU.
std::vector<DeviceProperties> device_properties();

void print_info(std::ostream& out, const BuildInfo& build,
                const std::vector<DeviceProperties>& devices);
void print_info_json(std::ostream& out, const BuildInfo& build,
                     const std::vector<DeviceProperties>& devices);

}  // namespace portasim
