// Accuracy against cost of the HH integrators: Euler, RK4, Rush-Larsen and adaptive RK45 at
// output steps dt = 0.01, 0.025 and 0.05 ms, each against a dt = 0.001 ms double RK4
// reference, on the f-I sweep of the throughput benchmark (4096 neurons, T = 50 ms).
// Counters: the largest spike-time error over all matched spikes, the number of neurons
// whose spike count differs from the reference, and neuron-steps (output steps) per second.
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "portasim/hh/simulation.hpp"

namespace portasim_bench_hh_integrators {

using Exec = Kokkos::DefaultExecutionSpace;
using portasim::hh::Integrator;

struct Spikes {
  std::vector<std::int32_t> count;
  std::vector<std::int64_t> offsets;
  std::vector<double> times;
};

template <class View>
auto to_host(const View& view) {
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<typename View::non_const_value_type>(mirror.data(),
                                                          mirror.data() + mirror.span());
}

portasim::hh::Config config_for(Integrator integrator, double dt_ms) {
  portasim::hh::Config config;
  const char* cap = std::getenv("PORTASIM_BENCH_MAX_NEURONS");
  config.neurons = cap ? std::min<std::int64_t>(4096, std::atoll(cap)) : 4096;
  config.t_ms = 50.0;
  config.dt_ms = dt_ms;
  config.integrator = integrator;
  return config;
}

portasim::hh::Stimulus<double, Exec::memory_space> sweep() {
  portasim::hh::GeneratedStimulus g;
  g.amplitude_first = 0.0;
  g.amplitude_last = 20.0;
  g.step_on_ms = 5.0;
  return portasim::hh::Stimulus<double, Exec::memory_space>::generate(g);
}

Spikes run(const portasim::hh::Config& config, double* seconds) {
  const auto r = portasim::hh::simulate<double>(Exec(), config, sweep());
  if (seconds) *seconds = r.seconds;
  return {to_host(r.spike_count), to_host(r.spike_offsets), to_host(r.spike_times)};
}

const Spikes& reference() {
  static const Spikes spikes = run(config_for(Integrator::rk4, 0.001), nullptr);
  return spikes;
}

void BM_integrator(benchmark::State& state, Integrator integrator, double dt_ms) {
  const Spikes& ref = reference();
  Spikes got;
  for (auto _ : state) {
    double seconds = 0;
    got = run(config_for(integrator, dt_ms), &seconds);
    state.SetIterationTime(seconds);
  }
  double worst = 0;
  int mismatches = 0;
  for (std::size_t k = 0; k < ref.count.size(); ++k) {
    if (got.count[k] != ref.count[k]) {
      ++mismatches;
      continue;
    }
    for (std::int64_t j = 0; j < got.offsets[k + 1] - got.offsets[k]; ++j)
      worst =
          std::max(worst, std::fabs(got.times[got.offsets[k] + j] - ref.times[ref.offsets[k] + j]));
  }
  const auto config = config_for(integrator, dt_ms);
  state.counters["max_spike_time_error_ms"] = worst;
  state.counters["count_mismatches"] = mismatches;
  state.counters["neuron_steps_per_s"] = benchmark::Counter(
      static_cast<double>(config.neurons) * static_cast<double>(portasim::hh::step_count(config)),
      benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  for (Integrator integrator :
       {Integrator::euler, Integrator::rk4, Integrator::rush_larsen, Integrator::rk45})
    for (double dt : {0.01, 0.025, 0.05}) {
      const std::string name = std::string("BM_hh_integrator/") +
                               portasim::hh::to_string(integrator) +
                               "/dt_ms:" + std::to_string(dt).substr(0, 5);
      benchmark::RegisterBenchmark(
          name.c_str(), [integrator, dt](benchmark::State& s) { BM_integrator(s, integrator, dt); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(3);
    }
}

const bool registered = (register_all(), true);

}  // namespace portasim_bench_hh_integrators
