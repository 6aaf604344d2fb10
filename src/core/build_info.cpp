#include "portasim/core/build_info.hpp"

#include <Kokkos_Core.hpp>

#include <sstream>

#include "portasim/config.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/impl/backend.hpp"

#if defined(PORTASIM_ENABLE_HDF5)
#include <H5public.h>
#endif

namespace portasim {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_string(items[i]);
  return out + "]";
}

}  // namespace

BuildInfo build_info() {
  BuildInfo info;
  info.portasim_version = PORTASIM_VERSION_STRING;
  info.kokkos_version = compat::kokkos_version_string();
#if defined(PORTASIM_ENABLE_KERNELS)
  info.kokkos_kernels_version = PORTASIM_KOKKOS_KERNELS_VERSION_STRING;
#endif
#if defined(PORTASIM_ENABLE_HDF5)
  info.hdf5_version = std::to_string(H5_VERS_MAJOR) + "." + std::to_string(H5_VERS_MINOR) + "." +
                      std::to_string(H5_VERS_RELEASE);
#endif
#if defined(PORTASIM_ENABLE_MPI)
  info.mpi = true;
#endif
#if defined(PORTASIM_ENABLE_NVTX)
  info.nvtx = true;
#endif
  info.compiler = PORTASIM_CXX_COMPILER_STRING;
  info.build_type = PORTASIM_BUILD_TYPE_STRING;
  info.kokkos_arch = PORTASIM_KOKKOS_ARCH_STRING;
#if defined(KOKKOS_ENABLE_SERIAL)
  info.backends.emplace_back(Kokkos::Serial::name());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  info.backends.emplace_back(Kokkos::OpenMP::name());
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  info.backends.emplace_back(Kokkos::Cuda::name());
#endif
  info.default_backend = Kokkos::DefaultExecutionSpace::name();
  info.host_concurrency = Kokkos::DefaultHostExecutionSpace().concurrency();
  return info;
}

std::vector<DeviceProperties> device_properties() { return impl::query_devices(); }

void print_info(std::ostream& out, const BuildInfo& build,
                const std::vector<DeviceProperties>& devices) {
  auto yes_no = [](bool b) { return b ? "yes" : "no"; };
  out << "portasim " << build.portasim_version << "\n";
  out << "  Kokkos            " << build.kokkos_version << "\n";
  out << "  Kokkos Kernels    " << (build.kokkos_kernels_version.empty() ? "off" : build.kokkos_kernels_version) << "\n";
  out << "  HDF5              " << (build.hdf5_version.empty() ? "off" : build.hdf5_version) << "\n";
  out << "  MPI               " << yes_no(build.mpi) << "\n";
  out << "  NVTX connector    " << yes_no(build.nvtx) << "\n";
  out << "  compiler          " << build.compiler << " (" << build.build_type << ")\n";
  out << "  Kokkos arch       " << (build.kokkos_arch.empty() ? "(host default)" : build.kokkos_arch) << "\n";
  out << "  backends          ";
  for (std::size_t i = 0; i < build.backends.size(); ++i) out << (i ? ", " : "") << build.backends[i];
  out << " (default: " << build.default_backend << ")\n";
  out << "  host threads      " << build.host_concurrency << "\n";
  out << "  devices           " << devices.size() << "\n";
  for (const auto& d : devices) {
    out << "    [" << d.id << "] " << d.name << ", sm_" << d.compute_capability_major
        << d.compute_capability_minor << ", " << d.multiprocessors << " SMs, "
        << d.total_memory_bytes / (1024.0 * 1024.0 * 1024.0) << " GiB, "
        << d.memory_bandwidth_gb_per_s << " GB/s peak\n";
  }
}

void print_info_json(std::ostream& out, const BuildInfo& build,
                     const std::vector<DeviceProperties>& devices) {
  out << "{\"portasim_version\": " << json_string(build.portasim_version)
      << ", \"kokkos_version\": " << json_string(build.kokkos_version)
      << ", \"kokkos_kernels_version\": " << json_string(build.kokkos_kernels_version)
      << ", \"hdf5_version\": " << json_string(build.hdf5_version)
      << ", \"mpi\": " << (build.mpi ? "true" : "false")
      << ", \"nvtx\": " << (build.nvtx ? "true" : "false")
      << ", \"compiler\": " << json_string(build.compiler)
      << ", \"build_type\": " << json_string(build.build_type)
      << ", \"kokkos_arch\": " << json_string(build.kokkos_arch)
      << ", \"backends\": " << json_list(build.backends)
      << ", \"default_backend\": " << json_string(build.default_backend)
      << ", \"host_concurrency\": " << build.host_concurrency << ", \"devices\": [";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    out << (i ? ", " : "") << "{\"id\": " << d.id << ", \"name\": " << json_string(d.name)
        << ", \"compute_capability\": \"" << d.compute_capability_major << "."
        << d.compute_capability_minor << "\", \"multiprocessors\": " << d.multiprocessors
        << ", \"total_memory_bytes\": " << d.total_memory_bytes
        << ", \"memory_bandwidth_gb_per_s\": " << d.memory_bandwidth_gb_per_s << "}";
  }
  out << "]}\n";
}

}  // namespace portasim
