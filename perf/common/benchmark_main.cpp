// Google Benchmark main shared by every perf/ program: brings Kokkos up and records the
// configuration (versions, backends, threads, device, git hash) as benchmark context, so
// every JSON result says what it was measured with.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "common/kernel_profile.hpp"
#include "portasim/core/build_info.hpp"
#include "portasim/core/runtime.hpp"

#include "portasim_git_hash.hpp"  // generated at build time: PORTASIM_GIT_HASH

int main(int argc, char* argv[]) {
  // Unbound threads, the OpenMP default, stated so that Kokkos 3.4 does not warn about it;
  // an OMP_PROC_BIND the user set wins.
  setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
  portasim::Runtime runtime(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  const auto info = portasim::build_info();
  std::string backends;
  for (const auto& b : info.backends) backends += (backends.empty() ? "" : ",") + b;
  benchmark::AddCustomContext("portasim_version", info.portasim_version);
  benchmark::AddCustomContext("git_hash", PORTASIM_GIT_HASH);
  benchmark::AddCustomContext("kokkos_version", info.kokkos_version);
  benchmark::AddCustomContext("kokkos_kernels_version", info.kokkos_kernels_version);
  benchmark::AddCustomContext("backends", backends);
  benchmark::AddCustomContext("default_backend", info.default_backend);
  benchmark::AddCustomContext("host_concurrency", std::to_string(info.host_concurrency));
  const char* omp_threads = std::getenv("OMP_NUM_THREADS");
  benchmark::AddCustomContext("OMP_NUM_THREADS", omp_threads ? omp_threads : "(unset)");
  benchmark::AddCustomContext("compiler", info.compiler);
  for (const auto& device : portasim::device_properties())
    benchmark::AddCustomContext("device_" + std::to_string(device.id), device.name);

  const char* profile = std::getenv("PORTASIM_KERNEL_PROFILE");
  const bool profiling = profile && *profile && std::string(profile) != "0";
  if (profiling) portasim_bench::KernelProfile::enable();
  benchmark::RunSpecifiedBenchmarks();
  if (profiling) portasim_bench::KernelProfile::report();
  benchmark::Shutdown();
  return 0;
}
