#pragma once
// The injected current I_ext (uA/cm^2). Sample i drives the step t_i -> t_{i+1}
// (zero-order hold). Four forms: none, one trace shared by all neurons, one trace per neuron,
// or generated on the device from a few numbers (no host array).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "portasim/core/counter_rng.hpp"

namespace portasim::hh {

enum class StimulusKind { none, shared_trace, per_neuron_trace, generated };

// A generated current for neuron k at sample i (time t_i = i dt):
//   amplitude_k * gate(t_i) + ramp_per_ms * (t_i - step_on_ms) * window(t_i) + noise_sd * N(0,1)
// amplitude_k: given per neuron (Stimulus::amplitudes), or
//   linspace(amplitude_first, amplitude_last) over the neurons (NumPy's linspace,
//   endpoint included), so one run can sweep an f-I curve;
// window(t): step_on_ms <= t < step_off_ms;
// gate(t): window(t), and with pulse_period_ms > 0 only the first pulse_width_ms of each
//   period counted from step_on_ms (a pulse train);
// N(0,1): a counter-based normal draw keyed by (seed, neuron, sample), identical on every
//   backend and independent of chunking.
struct GeneratedStimulus {
  double amplitude_first = 0.0;
  double amplitude_last = 0.0;
  double step_on_ms = 0.0;
  double step_off_ms = std::numeric_limits<double>::infinity();
  double pulse_period_ms = 0.0;
  double pulse_width_ms = 0.0;
  double ramp_per_ms = 0.0;
  double noise_sd = 0.0;
  std::uint64_t seed = 0;
  // A run of a slice of a larger population (one MPI rank's block): its neuron k is neuron
  // first_neuron + k of total_neurons (0: the run's own count) for the amplitude linspace and
  // the noise key, so every slice draws exactly what the whole run would.
  std::int64_t first_neuron = 0;
  std::int64_t total_neurons = 0;
};

template <class Scalar, class MemorySpace>
struct Stimulus {
  StimulusKind kind = StimulusKind::none;
  // shared_trace: length n_steps or n_steps + 1 (the last sample is then unused).
  Kokkos::View<const Scalar*, MemorySpace> shared;
  // per_neuron_trace: shape (n_steps or n_steps + 1, neurons), neurons fastest.
  Kokkos::View<const Scalar**, Kokkos::LayoutRight, MemorySpace> per_neuron;
  GeneratedStimulus generated;
  // generated: the amplitude of each of this run's neurons (uA/cm^2) in place of the
  // linspace; empty for the linspace.
  Kokkos::View<const double*, MemorySpace> amplitudes;

  static Stimulus none() { return {}; }
  static Stimulus shared_trace(Kokkos::View<const Scalar*, MemorySpace> trace) {
    Stimulus s;
    s.kind = StimulusKind::shared_trace;
    s.shared = trace;
    return s;
  }
  static Stimulus per_neuron_trace(
      Kokkos::View<const Scalar**, Kokkos::LayoutRight, MemorySpace> traces) {
    Stimulus s;
    s.kind = StimulusKind::per_neuron_trace;
    s.per_neuron = traces;
    return s;
  }
  static Stimulus generate(const GeneratedStimulus& g) {
    Stimulus s;
    s.kind = StimulusKind::generated;
    s.generated = g;
    return s;
  }
};

std::string describe(StimulusKind kind);

namespace impl {

// What the kernel needs of a stimulus: times converted to whole samples once on the host,
// so every backend switches the current on at exactly the same sample.
template <class Scalar, class MemorySpace>
struct StimulusEvaluator {
  StimulusKind kind;
  Kokkos::View<const Scalar*, MemorySpace> shared;
  Kokkos::View<const Scalar**, Kokkos::LayoutRight, MemorySpace> per_neuron;
  double amplitude_first, amplitude_step;               // amplitude_k = first + k * step
  Kokkos::View<const double*, MemorySpace> amplitudes;  // or amplitudes(k) where given
  std::int64_t on_sample, off_sample;                   // window: on <= i < off
  std::int64_t period_samples, width_samples;           // pulse train when period > 0
  double ramp_per_sample;
  double noise_sd;
  std::uint64_t seed;
  std::int64_t first_neuron;  // global index of neuron 0 (generated stimuli)

  // The per-neuron part, evaluated once per neuron outside the time loop.
  struct ForNeuron {
    const StimulusEvaluator* source;
    std::int64_t neuron;  // in this run (per-neuron traces)
    std::int64_t global;  // in the whole population (noise key)
    double amplitude;

    KOKKOS_INLINE_FUNCTION Scalar current(std::int64_t sample) const {
      const StimulusEvaluator& s = *source;
      switch (s.kind) {
        case StimulusKind::none: return Scalar(0);
        case StimulusKind::shared_trace: return s.shared(sample);
        case StimulusKind::per_neuron_trace: return s.per_neuron(sample, neuron);
        default: break;
      }
      double value = 0.0;
      if (sample >= s.on_sample && sample < s.off_sample) {
        const std::int64_t since_on = sample - s.on_sample;
        const bool pulse_on =
            s.period_samples <= 0 || since_on % s.period_samples < s.width_samples;
        if (pulse_on) value = amplitude;
        if (s.ramp_per_sample != 0.0) value += s.ramp_per_sample * static_cast<double>(since_on);
      }
      if (s.noise_sd != 0.0)
        value += s.noise_sd * counter_normal(s.seed, static_cast<std::uint64_t>(global),
                                             static_cast<std::uint64_t>(sample));
      return static_cast<Scalar>(value);
    }
  };

  KOKKOS_INLINE_FUNCTION ForNeuron for_neuron(std::int64_t neuron) const {
    const std::int64_t global = first_neuron + neuron;
    return ForNeuron{this, neuron, global,
                     amplitudes.extent(0) > 0
                         ? amplitudes(neuron)
                         : amplitude_first + amplitude_step * static_cast<double>(global)};
  }
};

}  // namespace impl
}  // namespace portasim::hh
