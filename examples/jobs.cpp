// portasim from C++: an HH job recorded into memory, and a Life job whose recorded
// generations go to a callback. A job is what the command line runs (hh::run_job,
// life::run_job): options validated by their command-line names, outputs to sinks, a report
// returned as data, and under mpirun the same call split over the ranks. Copy it as the start of
// your own program; it builds against the build tree (examples/CMakeLists.txt) or an installed
// portasim (find_package).
//
// It checks what it prints, so that CTest fails when the library stops doing what the
// example says: the silent neuron stays silent, the driven ones fire, every recorded sample
// arrives, and the callback's last live-cell count is the run's final population.
#include <portasim/hh/job.hpp>
#include <portasim/life/job.hpp>
#include <portasim/portasim.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

// Eight neurons driven by 0, 20/7, ..., 20 uA/cm^2 from 10 ms on (an f-I sweep), 100 ms of
// RK4 in float, V recorded every 10 steps into host memory.
bool run_hh(const Exec& exec) {
  namespace hh = portasim::hh;
  hh::JobSpec spec;
  spec.config.neurons = 8;
  spec.config.t_ms = 100.0;
  spec.config.dt_ms = 0.01;
  spec.config.trace = hh::Trace::v;
  spec.config.every = 10;
  spec.generated.amplitude_first = 0.0;
  spec.generated.amplitude_last = 20.0;
  spec.generated.step_on_ms = 10.0;
  spec.keep_result = true;          // no output file: the result comes back in the report
  hh::TraceInMemory<float> traces;  // the in-memory sink: samples x neurons, row-major
  const hh::JobReport<float> report = hh::run_job<float>(exec, spec, {}, &traces);
  const auto& spikes = report.result.spike_count;

  std::printf("hh: %lld neurons, %lld steps, %lld samples of V in memory, %.3g neuron-steps/s\n",
              static_cast<long long>(report.neurons), static_cast<long long>(report.steps),
              static_cast<long long>(traces.samples), report.neuron_steps_per_second);
  for (std::int64_t k = 0; k < report.neurons; ++k)
    std::printf("  neuron %lld: I = %5.2f uA/cm^2, %d spikes\n", static_cast<long long>(k),
                20.0 * static_cast<double>(k) / 7.0, spikes(k));
  bool ok = traces.samples == hh::sample_count(spec.config) &&
            traces.v.size() == static_cast<std::size_t>(traces.samples * report.neurons);
  ok = ok && spikes(0) == 0 && spikes(report.neurons - 1) > 0;
  if (!ok) std::printf("hh: unexpected samples or spike counts\n");
  return ok;
}

// A 128 x 128 torus, random at density 0.3, 200 generations in chunks of 50, every 10th
// generation handed to a callback that counts its live cells.
bool run_life(const Exec& exec) {
  namespace life = portasim::life;
  life::JobSpec spec;
  spec.config.width = 128;
  spec.config.height = 128;
  spec.config.steps = 200;
  spec.config.chunk_size = 50;
  spec.config.every = 10;
  spec.format = "h5";  // --every needs the HDF5 layout; with no output path nothing is written
  spec.output_path.clear();
  spec.density = 0.3;
  spec.seed = 42;

  std::vector<std::int64_t> generations, live_cells;
  life::ChunkCallback count_live([&](const life::Chunk& chunk) {
    const std::int64_t grid_bytes = chunk.height * chunk.row_bytes;
    for (std::int64_t i = 0; i < chunk.count; ++i) {
      std::int64_t live = 0;
      for (std::int64_t b = 0; b < grid_bytes; ++b) live += chunk.data[i * grid_bytes + b];
      generations.push_back(chunk.generations[i]);
      live_cells.push_back(live);
    }
  });
  const life::JobReport report = life::run_job(exec, spec, {}, &count_live);

  std::printf("life: %lld x %lld torus (%s), %lld generations, %.3g cells/s\n",
              static_cast<long long>(spec.config.width), static_cast<long long>(spec.config.height),
              report.initial.c_str(), static_cast<long long>(spec.config.steps),
              report.stats.cells_per_second());
  for (std::size_t i = 0; i < generations.size(); ++i)
    std::printf("  generation %3lld: %lld live cells\n", static_cast<long long>(generations[i]),
                static_cast<long long>(live_cells[i]));
  const bool ok = generations.size() == 21 && generations.back() == spec.config.steps &&
                  live_cells.back() == report.stats.final_population;
  if (!ok) std::printf("life: unexpected generations or counts\n");
  return ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  portasim::Runtime runtime(argc, argv);  // Kokkos up here, down at the end of main
  const Exec exec;
  const bool hh_ok = run_hh(exec);
  const bool life_ok = run_life(exec);
  return hh_ok && life_ok ? 0 : 1;
}
