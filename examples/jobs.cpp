// portasim from C++: an HH run recorded into memory, and a Life run whose recorded
// generations go to a callback. Copy it as the start of your own program; it builds against
// the build tree (examples/CMakeLists.txt) or an installed portasim (find_package).
//
// It checks what it prints, so that CTest fails when the library stops doing what the
// example says: the silent neuron stays silent, the driven ones fire, every recorded sample
// arrives, and the callback's last live-cell count is the run's final population.
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
  hh::Config config;
  config.neurons = 8;
  config.t_ms = 100.0;
  config.dt_ms = 0.01;
  config.trace = hh::Trace::v;
  config.every = 10;
  hh::GeneratedStimulus sweep;
  sweep.amplitude_first = 0.0;
  sweep.amplitude_last = 20.0;
  sweep.step_on_ms = 10.0;
  hh::TraceInMemory<float> traces;  // the in-memory sink: samples x neurons, row-major
  const auto result =
      hh::simulate<float>(exec, config, hh::Stimulus<float, Memory>::generate(sweep), &traces);
  const auto spikes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result.spike_count);

  std::printf("hh: %lld neurons, %lld steps, %lld samples of V in memory\n",
              static_cast<long long>(config.neurons), static_cast<long long>(result.steps),
              static_cast<long long>(traces.samples));
  for (std::int64_t k = 0; k < config.neurons; ++k)
    std::printf("  neuron %lld: I = %5.2f uA/cm^2, %d spikes\n", static_cast<long long>(k),
                20.0 * static_cast<double>(k) / 7.0, spikes(k));
  bool ok = traces.samples == hh::sample_count(config) &&
            traces.v.size() == static_cast<std::size_t>(traces.samples * config.neurons);
  ok = ok && spikes(0) == 0 && spikes(config.neurons - 1) > 0;
  if (!ok) std::printf("hh: unexpected samples or spike counts\n");
  return ok;
}

// A 128 x 128 torus, random at density 0.3, 200 generations in chunks of 50, every 10th
// generation handed to a callback that counts its live cells.
bool run_life(const Exec& exec) {
  namespace life = portasim::life;
  life::Config config;
  config.width = 128;
  config.height = 128;
  config.steps = 200;
  config.chunk_size = 50;
  config.every = 10;
  life::ByteGrid<Memory> grid("initial grid", config.height, config.width);
  life::fill_random(exec, grid, 0.3, 42);

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
  const life::RunStats stats = life::run(exec, config, grid, 0, &count_live);

  std::printf("life: %lld x %lld torus, %lld generations, %.3g cells/s\n",
              static_cast<long long>(config.width), static_cast<long long>(config.height),
              static_cast<long long>(config.steps), stats.cells_per_second());
  for (std::size_t i = 0; i < generations.size(); ++i)
    std::printf("  generation %3lld: %lld live cells\n", static_cast<long long>(generations[i]),
                static_cast<long long>(live_cells[i]));
  const bool ok = generations.size() == 21 && generations.back() == config.steps &&
                  live_cells.back() == stats.final_population;
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
