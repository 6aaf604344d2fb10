#include "portasim/core/build_info.hpp"

#include <Kokkos_Core.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "portasim/config.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/impl/backend.hpp"
#include "portasim/core/pool_limit.hpp"
#include "portasim/core/runtime.hpp"

#if defined(PORTASIM_ENABLE_HDF5)
#include <H5public.h>
#endif
#if defined(PORTASIM_ENABLE_KERNELS)
#include <KokkosKernels_config.h>
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

// The value after "key:" on the first line of a /proc file that starts with key.
std::string proc_field(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

std::size_t proc_kib(const char* file, const std::string& key) {
  const std::string value = proc_field(file, key);
  return value.empty() ? 0 : static_cast<std::size_t>(std::stoull(value)) * 1024;
}

}  // namespace

HostProperties host_properties() {
  HostProperties host;
  host.cpu_model = proc_field("/proc/cpuinfo", "model name");
  host.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  host.total_memory_bytes = impl::MemorySpaceCapacity<Kokkos::HostSpace>::total_bytes();
  host.available_memory_bytes = proc_kib("/proc/meminfo", "MemAvailable");
  if (host.available_memory_bytes == 0)
    host.available_memory_bytes = impl::MemorySpaceCapacity<Kokkos::HostSpace>::free_bytes();
  return host;
}

namespace {

// Where dgemm_ comes from when Kokkos Kernels was built with a host BLAS: the library the
// dynamic linker chose (Debian's alternatives decide which OpenBLAS that is).
std::string host_blas_library() {
#if defined(PORTASIM_ENABLE_KERNELS) && defined(KOKKOSKERNELS_ENABLE_TPL_BLAS)
  Dl_info where{};
  void* symbol = dlsym(RTLD_DEFAULT, "dgemm_");
  // A program that never calls gemm was linked without it (--as-needed): the library Kokkos
  // Kernels names, libblas.so.3, is then the one a gemm would load.
  if (symbol == nullptr)
    if (void* library = dlopen("libblas.so.3", RTLD_LAZY | RTLD_LOCAL); library != nullptr)
      symbol = dlsym(library, "dgemm_");
  if (symbol != nullptr && dladdr(symbol, &where) != 0 && where.dli_fname != nullptr) {
    std::error_code error;  // the file behind the alternatives' links, where it resolves
    const auto file = std::filesystem::canonical(where.dli_fname, error);
    std::string name = error ? std::string(where.dli_fname) : file.string();
    // OpenBLAS picks its kernels for the CPU at load time; one older than the CPU may fall
    // back to generic ones (OPENBLAS_CORETYPE overrides it): say which it picked.
    if (void* library = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD); library != nullptr) {
      using corename_function = const char* (*)();
      if (auto corename =
              reinterpret_cast<corename_function>(dlsym(library, "openblas_get_corename")))
        name += std::string(" (OpenBLAS, ") + corename() + " kernels)";
      dlclose(library);
    }
    return name;
  }
  return "(built with one; libblas.so.3 not found)";
#else
  return {};
#endif
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
  info.host_blas = host_blas_library();
  info.cpu = cpu_features();
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
  info.active_device = impl::active_device_id();
  if (info.active_device >= 0) {
    info.device_selection = runtime_device_choice().reason;
    if (info.device_selection.empty())
      info.device_selection = "Kokkos initialized by the application";
  }
  info.host = host_properties();
  return info;
}

std::vector<DeviceProperties> device_properties() { return impl::query_devices(); }

void print_info(std::ostream& out, const BuildInfo& build,
                const std::vector<DeviceProperties>& devices) {
  auto yes_no = [](bool b) { return b ? "yes" : "no"; };
  out << "portasim " << build.portasim_version << "\n";
  out << "  Kokkos            " << build.kokkos_version << "\n";
  out << "  Kokkos Kernels    "
      << (build.kokkos_kernels_version.empty() ? "off" : build.kokkos_kernels_version) << "\n";
  out << "  HDF5              " << (build.hdf5_version.empty() ? "off" : build.hdf5_version)
      << "\n";
  out << "  MPI               " << yes_no(build.mpi) << "\n";
  out << "  NVTX connector    " << yes_no(build.nvtx) << "\n";
  out << "  compiler          " << build.compiler << " (" << build.build_type << ")\n";
  out << "  Kokkos arch       "
      << (build.kokkos_arch.empty() ? "(host default)" : build.kokkos_arch) << "\n";
  out << "  CPU level         " << build.cpu.arch;
  if (!build.cpu.required.empty()) {
    out << " (uses";
    for (const std::string& feature : build.cpu.required) out << " " << feature;
    out << ")";
  }
  out << "\n";
  out << "  host BLAS         "
      << (build.host_blas.empty() ? "none (Kokkos Kernels' own gemm)" : build.host_blas) << "\n";
  // OpenBLAS's fallback for a CPU it does not know (newer than the release, or hidden by a
  // hypervisor): SSE3 kernels, several times slower than the CPU allows.
  if (build.host_blas.find("Prescott kernels") != std::string::npos)
    out << "                    OpenBLAS did not recognise this CPU; set OPENBLAS_CORETYPE (e.g. "
           "SkylakeX, Haswell, Zen) for its vector kernels\n";
  out << "  backends          ";
  for (std::size_t i = 0; i < build.backends.size(); ++i)
    out << (i ? ", " : "") << build.backends[i];
  out << " (default: " << build.default_backend << ")\n";
  out << "  host threads      " << build.host_concurrency
      << " (hardware: " << build.host.hardware_threads << ")\n";
  out << "  host CPU          "
      << (build.host.cpu_model.empty() ? "(unknown)" : build.host.cpu_model) << "\n";
  out << "  host memory       " << format_bytes(build.host.total_memory_bytes) << " ("
      << format_bytes(build.host.available_memory_bytes) << " available)\n";
  out << "  devices           " << devices.size();
  if (build.active_device >= 0)
    out << " (using " << build.active_device << ": " << build.device_selection << ")";
  out << "\n";
  for (const auto& d : devices) {
    out << "    [" << d.id << "] " << d.name << (d.id == build.active_device ? " (in use)" : "")
        << ", compute capability " << d.compute_capability_major << "."
        << d.compute_capability_minor << ", " << d.multiprocessors << " SMs, "
        << format_bytes(d.total_memory_bytes);
    if (d.free_memory_bytes > 0) out << " (" << format_bytes(d.free_memory_bytes) << " free)";
    out << ", memory " << d.memory_clock_khz / 1000 << " MHz x " << d.memory_bus_width_bits
        << " bit = " << d.memory_bandwidth_gb_per_s << " GB/s peak\n";
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
      << ", \"host_blas\": " << json_string(build.host_blas)
      << ", \"cpu_arch\": " << json_string(build.cpu.arch)
      << ", \"cpu_required\": " << json_list(build.cpu.required)
      << ", \"backends\": " << json_list(build.backends)
      << ", \"default_backend\": " << json_string(build.default_backend)
      << ", \"host_concurrency\": " << build.host_concurrency
      << ", \"host\": {\"cpu_model\": " << json_string(build.host.cpu_model)
      << ", \"hardware_threads\": " << build.host.hardware_threads
      << ", \"total_memory_bytes\": " << build.host.total_memory_bytes
      << ", \"available_memory_bytes\": " << build.host.available_memory_bytes << "}"
      << ", \"active_device\": " << build.active_device
      << ", \"device_selection\": " << json_string(build.device_selection) << ", \"devices\": [";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    out << (i ? ", " : "") << "{\"id\": " << d.id << ", \"name\": " << json_string(d.name)
        << ", \"compute_capability\": \"" << d.compute_capability_major << "."
        << d.compute_capability_minor << "\", \"multiprocessors\": " << d.multiprocessors
        << ", \"total_memory_bytes\": " << d.total_memory_bytes
        << ", \"free_memory_bytes\": " << d.free_memory_bytes
        << ", \"memory_clock_khz\": " << d.memory_clock_khz
        << ", \"memory_bus_width_bits\": " << d.memory_bus_width_bits
        << ", \"memory_bandwidth_gb_per_s\": " << d.memory_bandwidth_gb_per_s << "}";
  }
  out << "]}\n";
}

}  // namespace portasim
