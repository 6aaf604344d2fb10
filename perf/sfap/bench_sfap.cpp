// SFAP throughput (fibers/s) on the default execution space:
//   bench_200x25   the reference bench case (200 fibers x 25 electrodes, 60 mm, dz = 0.1),
//                  inputs from shared/reference/sfap/bench_200f_25e_dz0p1.h5 (MyoGen NumPy:
//                  0.60-0.65 s on the 2-core build VM, 0.76 s on the spec's 16-core host; CuPy 0.98
//                  s),
//   dz_sweep       the first 50 fibers of that file x 25 electrodes, dz = 0.5 .. 0.01 mm,
//   whole_muscle   ~50,000 fibers x 4 electrodes at dz = 0.01, inputs generated deterministically
//                  here; PORTASIM_BENCH_MAX_FIBERS caps the fibers (default 50,000 on GPUs,
//                  2,000 on CPUs).
// Pre-shift SFAPs only (the timed part of MyoGen's calc_sfaps without shift_sfaps) unless the
// name says "+delays".
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "portasim/core/hdf5_file.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/hdf5_io.hpp"

#ifndef PORTASIM_SFAP_REFERENCE_DIR
#define PORTASIM_SFAP_REFERENCE_DIR ""
#endif

namespace portasim_bench_sfap {

using Exec = Kokkos::DefaultExecutionSpace;
namespace ps = portasim::sfap;
constexpr bool on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;

// PORTASIM_SFAP_REFERENCE_DIR in the environment overrides the folder compiled in (for runs
// on another machine).
std::string reference_dir() {
  const char* dir = std::getenv("PORTASIM_SFAP_REFERENCE_DIR");
  return dir && *dir ? dir : PORTASIM_SFAP_REFERENCE_DIR;
}
const std::string bench_file = reference_dir() + "/bench_200f_25e_dz0p1.h5";

ps::HostInputs bench_inputs(std::size_t max_fibers) {
  const auto file = portasim::io::H5File::open_read(bench_file);
  auto h = ps::read_inputs(file, "/inputs", true);
  if (max_fibers < h.n_fibers) {
    h.n_fibers = max_fibers;
    h.fiber_centers.resize(2 * max_fibers);
    h.endplate_z.resize(max_fibers);
    h.conduction_velocity.resize(max_fibers);
    h.diameter.resize(max_fibers);
    h.nerve_paths.resize(2 * max_fibers);
  }
  return h;
}

// A whole muscle: fibers uniformly in a 10 mm disc (golden-angle spiral), end-plates around the
// middle of 60 mm fibers, v in 3000..5000 mm/s, d in 40..60 um, nerve paths 0..5 mm; 4
// electrodes on a line through the muscle. Deterministic (no RNG state), the same on every backend.
ps::HostInputs whole_muscle_inputs(std::size_t n) {
  ps::HostInputs h;
  h.n_fibers = n;
  h.n_electrodes = 4;
  h.left_mm = 0;
  h.right_mm = 60;
  const double golden = 2.399963229728653;
  for (std::size_t f = 0; f < n; ++f) {
    const double u = (f + 0.5) / static_cast<double>(n);
    const double r = 5.0 * std::sqrt(u), a = golden * static_cast<double>(f);
    const double s1 = std::fmod(0.6180339887498949 * (f + 1), 1.0),
                 s2 = std::fmod(0.7548776662466927 * (f + 1), 1.0),
                 s3 = std::fmod(0.5698402909980532 * (f + 1), 1.0);
    h.fiber_centers.push_back(r * std::cos(a));
    h.fiber_centers.push_back(r * std::sin(a));
    h.endplate_z.push_back(30.0 + 4.0 * (s1 - 0.5));
    h.conduction_velocity.push_back(3000.0 + 2000.0 * s2);
    h.diameter.push_back(0.04 + 0.02 * s3);
    h.nerve_paths.push_back(5.0 * s2);
    h.nerve_paths.push_back(5.0 * s1);
  }
  for (int e = 0; e < 4; ++e) {
    h.electrode_positions.push_back(-1.5 + 1.0 * e);
    h.electrode_positions.push_back(0.0);
    h.electrode_positions.push_back(28.5 + 1.0 * e);
  }
  return h;
}

std::size_t max_fibers_from_env() {
  if (const char* env = std::getenv("PORTASIM_BENCH_MAX_FIBERS")) {
    const long v = std::atol(env);
    if (v > 0) return static_cast<std::size_t>(v);
  }
  return on_host ? 2000 : 50000;
}

void run(benchmark::State& state, const ps::HostInputs& host, ps::Options o) {
  Exec exec;
  const auto inputs = ps::upload(exec, host);
  double checksum = 0;
  std::int64_t nz_max = 0, nt = 0;
  for (auto _ : state) {
    exec.fence();
    const auto start = std::chrono::steady_clock::now();
    const auto r = ps::compute(exec, inputs, o);
    exec.fence();
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    nz_max = r.n_z_max;
    nt = r.nt;
    auto s = r.sfaps_pre_shift;
    double sum = 0;
    Kokkos::parallel_reduce(
        "bench_sfap_checksum", Kokkos::RangePolicy<Exec>(exec, 0, s.span()),
        KOKKOS_LAMBDA(const std::size_t i, double& acc) { acc += s.data()[i] * s.data()[i]; }, sum);
    checksum = std::sqrt(sum);
  }
  const double fibers = static_cast<double>(host.n_fibers);
  state.counters["fibers_per_s"] =
      benchmark::Counter(fibers, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["fiber_electrodes_per_s"] =
      benchmark::Counter(fibers * static_cast<double>(host.n_electrodes),
                         benchmark::Counter::kIsIterationInvariantRate);
  // multiply-adds of the projection (N_z x Nt x Ne per fiber)
  state.counters["projection_GFLOP_per_s"] =
      benchmark::Counter(2e-9 * fibers * static_cast<double>(nz_max) * static_cast<double>(nt) *
                             static_cast<double>(host.n_electrodes),
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["fibers"] = fibers;
  state.counters["electrodes"] = static_cast<double>(host.n_electrodes);
  state.counters["dz_mm"] = o.dz_mm;
  state.counters["n_z_max"] = static_cast<double>(nz_max);
  state.counters["nt"] = static_cast<double>(nt);
  state.counters["frobenius"] = checksum;
}

void BM_bench_200x25(benchmark::State& state, bool delays) {
  if (!std::filesystem::exists(bench_file)) {
    state.SkipWithError(("missing reference file " + bench_file).c_str());
    return;
  }
  const auto host = bench_inputs(200);
  ps::Options o = ps::options_from(host, ps::Options{});
  o.apply_delays = delays;
  run(state, host, o);
}

void BM_dz_sweep(benchmark::State& state) {
  if (!std::filesystem::exists(bench_file)) {
    state.SkipWithError(("missing reference file " + bench_file).c_str());
    return;
  }
  const auto host = bench_inputs(50);
  ps::Options o = ps::options_from(host, ps::Options{});
  o.apply_delays = false;
  o.dz_mm = static_cast<double>(state.range(0)) / 1000.0;  // micrometres -> mm
  run(state, host, o);
}

void BM_whole_muscle(benchmark::State& state) {
  const auto host = whole_muscle_inputs(max_fibers_from_env());
  ps::Options o;
  o.apply_delays = false;
  o.dz_mm = 0.01;
  run(state, host, o);
}

BENCHMARK_CAPTURE(BM_bench_200x25, preshift, false)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK_CAPTURE(BM_bench_200x25, with_delays, true)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_dz_sweep)
    ->ArgName("dz_um")
    ->Arg(500)
    ->Arg(200)
    ->Arg(100)
    ->Arg(50)
    ->Arg(20)
    ->Arg(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_whole_muscle)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace portasim_bench_sfap
