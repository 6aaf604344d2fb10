#pragma once
// Batched Hodgkin-Huxley simulation: many independent single-compartment neurons, one per
// GPU thread (one per loop iteration on the CPU), each advanced through a whole block of
// time steps inside one kernel with its state in registers.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/hh/integrators.hpp"
#include "portasim/hh/neuron_values.hpp"
#include "portasim/hh/parameters.hpp"
#include "portasim/hh/stimulus.hpp"

namespace portasim::hh {

enum class Trace { none, v, all };  // what is recorded over time besides spikes

const char* to_string(Trace trace) noexcept;

struct Config {
  std::int64_t neurons = 1;
  double t_ms = 50.0;
  double dt_ms = 0.01;  // n_steps = round(T / dt)
  Integrator integrator = Integrator::rk4;
  // rk45 only: per-component error tolerances (V in mV, gates dimensionless); float runs
  // use at least 1e-5 relative, about a hundred times float's rounding.
  double relative_tolerance = 1e-6;
  double absolute_tolerance = 1e-6;
  Parameters parameters;
  InitialState initial;
  Trace trace = Trace::none;
  int every = 1;              // record every k-th step (samples t = j * every * dt)
  bool detect_spikes = true;  // upward threshold crossings, detected in the kernel
  double threshold_mv = 0.0;
  int max_spikes_per_neuron = 0;  // stored times per neuron; 0: enough for 400 Hz over T
  // Device memory for traces in flight; longer recordings stream out in chunks of this size.
  std::size_t trace_chunk_bytes = std::size_t(256) << 20;
  // Called on the host with the fraction of steps done (forces a fence per block).
  std::function<void(double)> progress;
};

// Steps a run may take: round(T / dt) beyond this is refused by validate().
inline constexpr std::int64_t max_step_count = std::int64_t(1) << 40;

// Throws portasim::Error naming the offending field; sizes that cannot be represented
// (steps, spike buffers, recorded bytes) are refused here, before anything is allocated.
void validate(const Config& config);
// What --record NAME asks for ("none", "spikes", "v", "all"): the trace, and spike detection
// for every name but "none". Throws invalid_argument for another name.
void set_record(Config& config, const std::string& name);
std::int64_t step_count(const Config& config);    // round(T / dt)
std::int64_t sample_count(const Config& config);  // recorded samples: step_count / every + 1
int spike_capacity(const Config& config);

// A block of recorded samples on the host, sample-major: value(j, k) = data[j * neurons + k]
// for samples first_sample .. first_sample + samples - 1. m, h, n are null for Trace::v.
template <class Scalar>
struct TraceChunk {
  std::int64_t first_sample = 0;
  std::int64_t samples = 0;
  std::int64_t neurons = 0;
  const Scalar* v = nullptr;
  const Scalar* m = nullptr;
  const Scalar* h = nullptr;
  const Scalar* n = nullptr;
};

// Receives recorded samples in order while the next chunk computes.
template <class Scalar>
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void consume(const TraceChunk<Scalar>& chunk) = 0;
};

// Keeps the whole recording in host memory (samples x neurons, row-major).
template <class Scalar>
class TraceInMemory : public TraceSink<Scalar> {
 public:
  void consume(const TraceChunk<Scalar>& chunk) override {
    auto append = [&](std::vector<Scalar>& to, const Scalar* from) {
      if (from) to.insert(to.end(), from, from + chunk.samples * chunk.neurons);
    };
    append(v, chunk.v);
    append(m, chunk.m);
    append(h, chunk.h);
    append(n, chunk.n);
    samples += chunk.samples;
    neurons = chunk.neurons;
    ++chunks;
  }
  std::vector<Scalar> v, m, h, n;
  std::int64_t samples = 0;
  std::int64_t neurons = 0;
  int chunks = 0;
};

// Hands every block of samples to a function (for example to reduce or plot it on the fly);
// the chunk's memory is valid during the call only.
template <class Scalar>
class TraceCallback : public TraceSink<Scalar> {
 public:
  explicit TraceCallback(std::function<void(const TraceChunk<Scalar>&)> receive)
      : m_receive(std::move(receive)) {}
  void consume(const TraceChunk<Scalar>& chunk) override { m_receive(chunk); }

 private:
  std::function<void(const TraceChunk<Scalar>&)> m_receive;
};

template <class Scalar, class MemorySpace>
struct Result {
  Kokkos::View<Scalar*, MemorySpace> v, m, h, n;  // final state
  // Spikes: counts include crossings beyond the stored capacity; times (ms, linearly
  // interpolated at the threshold) are in CSR form: neuron k's are
  // spike_times(spike_offsets(k) .. spike_offsets(k+1) - 1).
  Kokkos::View<std::int32_t*, MemorySpace> spike_count;
  Kokkos::View<std::int64_t*, MemorySpace> spike_offsets;
  Kokkos::View<double*, MemorySpace> spike_times;
  // Per-neuron statistics from the stored times (NaN where undefined).
  Kokkos::View<double*, MemorySpace> firing_rate_hz;
  Kokkos::View<double*, MemorySpace> mean_isi_ms;
  Kokkos::View<double*, MemorySpace> isi_cv;
  std::int64_t steps = 0;
  std::int64_t samples = 0;
  std::int64_t spikes_dropped = 0;  // crossings whose times did not fit the capacity
  double seconds = 0;               // wall time of the integration (fenced)

  double neuron_steps_per_second() const {
    return seconds > 0 ? static_cast<double>(steps) * static_cast<double>(v.extent(0)) / seconds
                       : 0.0;
  }
};

// All work runs on `exec` (trace copies on a second, internal instance ordered after it).
// The stimulus and the per-neuron values must live in exec's memory space; a field of
// `per_neuron` that is given replaces the Config's run-wide value for every neuron.
template <class Scalar, class ExecutionSpace>
Result<Scalar, typename ExecutionSpace::memory_space> simulate(
    const ExecutionSpace& exec, const Config& config,
    const Stimulus<Scalar, typename ExecutionSpace::memory_space>& stimulus = {},
    TraceSink<Scalar>* sink = nullptr,
    const NeuronValues<typename ExecutionSpace::memory_space>& per_neuron = {});

#define PORTASIM_HH_DECLARE_SIMULATE(SCALAR, SPACE)                              \
  extern template Result<SCALAR, SPACE::memory_space> simulate<SCALAR, SPACE>(   \
      const SPACE&, const Config&, const Stimulus<SCALAR, SPACE::memory_space>&, \
      TraceSink<SCALAR>*, const NeuronValues<SPACE::memory_space>&);
#define PORTASIM_HH_DECLARE_SIMULATE_BOTH(SPACE) \
  PORTASIM_HH_DECLARE_SIMULATE(float, SPACE) PORTASIM_HH_DECLARE_SIMULATE(double, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_HH_DECLARE_SIMULATE_BOTH)

}  // namespace portasim::hh
