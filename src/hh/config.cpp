#include <cmath>
#include <limits>
#include <string>

#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"
#include "portasim/hh/simulation.hpp"

namespace portasim::hh {

const char* to_string(Integrator integrator) noexcept {
  switch (integrator) {
    case Integrator::euler: return "euler";
    case Integrator::rk4: return "rk4";
    case Integrator::rush_larsen: return "rush-larsen";
    case Integrator::rk45: return "rk45";
  }
  return "unknown";
}

Integrator integrator_named(const std::string& name) {
  for (Integrator i :
       {Integrator::euler, Integrator::rk4, Integrator::rush_larsen, Integrator::rk45})
    if (name == to_string(i)) return i;
  throw_error(ErrorKind::invalid_argument,
              "--integrator must be euler, rk4, rush-larsen or rk45, got '" + name + "'");
}

void set_record(Config& config, const std::string& name) {
  require(name == "none" || name == "spikes" || name == "v" || name == "all",
          "--record must be none, spikes, v or all, got '" + name + "'");
  config.trace = name == "v" ? Trace::v : name == "all" ? Trace::all : Trace::none;
  config.detect_spikes = name != "none";
}

const char* to_string(Trace trace) noexcept {
  switch (trace) {
    case Trace::none: return "none";
    case Trace::v: return "v";
    case Trace::all: return "all";
  }
  return "unknown";
}

std::string describe(StimulusKind kind) {
  switch (kind) {
    case StimulusKind::none: return "none";
    case StimulusKind::shared_trace: return "shared trace";
    case StimulusKind::per_neuron_trace: return "per-neuron traces";
    case StimulusKind::generated: return "generated";
  }
  return "unknown";
}

void validate(const Config& config) {
  require(config.neurons > 0,
          "number of neurons must be > 0, got " + std::to_string(config.neurons));
  require_positive("dt (ms)", config.dt_ms);
  require_positive("T (ms)", config.t_ms);
  require(config.t_ms >= config.dt_ms, "T (ms) must be >= dt (ms): at least one step");
  const std::int64_t steps =
      checked_step_count("T / dt", config.t_ms, config.dt_ms, max_step_count);
  require(config.every >= 1,
          "record interval 'every' must be >= 1, got " + std::to_string(config.every));
  require_finite("spike threshold (mV)", config.threshold_mv);
  require(config.max_spikes_per_neuron >= 0, "max spikes per neuron must be >= 0");
  // Default spike capacity: 400 Hz over T, as an int per neuron.
  require(
      config.max_spikes_per_neuron > 0 || config.t_ms * 0.4 < std::numeric_limits<int>::max() - 2,
      "T (ms) is too long for the default spike capacity (400 Hz over T): give max spikes per "
      "neuron");
  checked_product("neurons x spike times per neuron x 8 bytes",
                  {config.neurons, std::int64_t(spike_capacity(config)), 8});
  const std::int64_t traces = config.trace == Trace::all ? 4 : config.trace == Trace::v ? 1 : 0;
  checked_product("recorded samples x neurons x traces x 8 bytes",
                  {steps / config.every + 1, config.neurons, traces, 8});
  require_positive("rk45 relative tolerance", config.relative_tolerance);
  require_positive("rk45 absolute tolerance", config.absolute_tolerance);
  require(config.trace_chunk_bytes > 0, "trace chunk size must be > 0 bytes");
  const Parameters& p = config.parameters;
  require_positive("membrane capacitance", p.capacitance);
  for (double g : {p.g_na, p.g_k, p.g_leak}) require_non_negative("conductance", g);
  for (double e : {p.e_na, p.e_k, p.e_leak}) require_finite("reversal potential", e);
  require_finite("initial V (mV)", config.initial.v0);
  for (double gate : {config.initial.m0, config.initial.h0, config.initial.n0})
    if (!std::isnan(gate)) require_in_range("initial gate value", gate, 0.0, 1.0);
}

std::int64_t step_count(const Config& config) {
  return checked_step_count("T / dt", config.t_ms, config.dt_ms, max_step_count);
}

std::int64_t sample_count(const Config& config) { return step_count(config) / config.every + 1; }

int spike_capacity(const Config& config) {
  if (config.max_spikes_per_neuron > 0) return config.max_spikes_per_neuron;
  // 400 Hz sustained is beyond what the HH model fires at any physiological current.
  return static_cast<int>(std::ceil(config.t_ms * 0.4)) + 2;
}

}  // namespace portasim::hh
