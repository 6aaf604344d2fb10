#pragma once
// Definition of hh::simulate. Included by src/hh/simulate.cpp, which instantiates it for
// float and double on every enabled execution space; include it yourself only for others.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/profiling_region.hpp"
#include "portasim/core/streaming_pipeline.hpp"
#include "portasim/hh/impl/advance_neurons.hpp"
#include "portasim/hh/simulation.hpp"

namespace portasim::hh::impl {

template <class Scalar, class MemorySpace>
StimulusEvaluator<Scalar, MemorySpace> make_evaluator(const Stimulus<Scalar, MemorySpace>& stimulus,
                                                      const Config& config) {
  const std::int64_t steps = step_count(config);
  StimulusEvaluator<Scalar, MemorySpace> e{};
  e.kind = stimulus.kind;
  e.shared = stimulus.shared;
  e.per_neuron = stimulus.per_neuron;
  auto trace_length_ok = [steps](std::size_t length) {
    return static_cast<std::int64_t>(length) == steps ||
           static_cast<std::int64_t>(length) == steps + 1;
  };
  switch (stimulus.kind) {
    case StimulusKind::none: break;
    case StimulusKind::shared_trace:
      require(trace_length_ok(stimulus.shared.extent(0)),
              "shared stimulus trace has " + std::to_string(stimulus.shared.extent(0)) +
                  " samples, expected n_steps = " + std::to_string(steps) + " or n_steps + 1");
      break;
    case StimulusKind::per_neuron_trace:
      require(trace_length_ok(stimulus.per_neuron.extent(0)) &&
                  static_cast<std::int64_t>(stimulus.per_neuron.extent(1)) == config.neurons,
              "per-neuron stimulus has shape (" + std::to_string(stimulus.per_neuron.extent(0)) +
                  ", " + std::to_string(stimulus.per_neuron.extent(1)) + "), expected (" +
                  std::to_string(steps) + " or " + std::to_string(steps + 1) + ", " +
                  std::to_string(config.neurons) + ")");
      break;
    case StimulusKind::generated: {
      const GeneratedStimulus& g = stimulus.generated;
      for (double value : {g.amplitude_first, g.amplitude_last, g.step_on_ms, g.pulse_period_ms,
                           g.pulse_width_ms, g.ramp_per_ms, g.noise_sd})
        require_finite("stimulus parameter", value);
      require(!std::isnan(g.step_off_ms), "stimulus step-off time must not be NaN");
      require(g.step_off_ms > g.step_on_ms,
              "stimulus step-off time must be after its step-on time");
      require_non_negative("stimulus noise sd", g.noise_sd);
      require_non_negative("stimulus pulse period", g.pulse_period_ms);
      require(
          g.pulse_period_ms == 0 || (g.pulse_width_ms > 0 && g.pulse_width_ms <= g.pulse_period_ms),
          "stimulus pulse width must be in (0, pulse period]");
      // Times to whole samples: sample i is inside when on <= i*dt < off (decimal times such
      // as 5 ms at dt 0.01 ms land exactly on their sample despite binary rounding).
      auto to_sample = [&](double t_ms) {
        if (t_ms == std::numeric_limits<double>::infinity())
          return std::numeric_limits<std::int64_t>::max();
        return static_cast<std::int64_t>(std::ceil(t_ms / config.dt_ms - 1e-9));
      };
      e.on_sample = std::max<std::int64_t>(0, to_sample(g.step_on_ms));
      e.off_sample = to_sample(g.step_off_ms);
      e.period_samples =
          g.pulse_period_ms > 0
              ? std::max<std::int64_t>(1, std::llround(g.pulse_period_ms / config.dt_ms))
              : 0;
      e.width_samples =
          g.pulse_period_ms > 0
              ? std::max<std::int64_t>(1, std::llround(g.pulse_width_ms / config.dt_ms))
              : 0;
      const std::int64_t total = g.total_neurons > 0 ? g.total_neurons : config.neurons;
      require(g.first_neuron >= 0 && g.first_neuron + config.neurons <= total,
              "stimulus slice: neurons " + std::to_string(g.first_neuron) + ".." +
                  std::to_string(g.first_neuron + config.neurons - 1) + " are outside the " +
                  std::to_string(total) + " of the population");
      require(stimulus.amplitudes.extent(0) == 0 ||
                  static_cast<std::int64_t>(stimulus.amplitudes.extent(0)) == config.neurons,
              "per-neuron amplitudes: " + std::to_string(stimulus.amplitudes.extent(0)) +
                  " values for " + std::to_string(config.neurons) + " neurons");
      e.amplitudes = stimulus.amplitudes;
      e.first_neuron = g.first_neuron;
      e.amplitude_first = g.amplitude_first;
      e.amplitude_step =
          total > 1 ? (g.amplitude_last - g.amplitude_first) / static_cast<double>(total - 1) : 0.0;
      e.ramp_per_sample = g.ramp_per_ms * config.dt_ms;
      e.noise_sd = g.noise_sd;
      e.seed = g.seed;
      break;
    }
  }
  return e;
}

// Compacts the per-neuron spike slots into CSR form and computes per-neuron statistics,
// all on `exec`. A free function: device lambdas may not live in private members.
template <class Scalar, class ExecutionSpace, class MemorySpace>
void pack_spikes(const ExecutionSpace& exec, double duration_s, Result<Scalar, MemorySpace>& r,
                 const Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace>& slots) {
  using memory_space = MemorySpace;
  const std::int64_t neurons = static_cast<std::int64_t>(r.v.extent(0));
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  auto alloc = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::hh::") + label);
  };
  r.spike_offsets = Kokkos::View<std::int64_t*, memory_space>(alloc("spike_offsets"), neurons + 1);
  r.firing_rate_hz = Kokkos::View<double*, memory_space>(alloc("firing_rate_hz"), neurons);
  r.mean_isi_ms = Kokkos::View<double*, memory_space>(alloc("mean_isi_ms"), neurons);
  r.isi_cv = Kokkos::View<double*, memory_space>(alloc("isi_cv"), neurons);
  const std::int32_t capacity = static_cast<std::int32_t>(slots.extent(1));
  auto count = r.spike_count;
  auto offsets = r.spike_offsets;
  std::int64_t stored = 0;
  Kokkos::parallel_scan(
      "portasim::hh::spike_offsets", policy(exec, 0, neurons + 1),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& running, const bool final) {
        if (final) offsets(k) = running;
        if (k < neurons) running += count(k) < capacity ? count(k) : capacity;
      },
      stored);
  exec.fence();
  std::int64_t total_crossings = 0;
  Kokkos::parallel_reduce(
      "portasim::hh::spike_total", policy(exec, 0, neurons),
      KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& sum) { sum += count(k); }, total_crossings);
  exec.fence();
  r.spikes_dropped = total_crossings - stored;

  r.spike_times = Kokkos::View<double*, memory_space>(alloc("spike_times"), stored);
  auto times = r.spike_times;
  auto rate = r.firing_rate_hz;
  auto mean_isi = r.mean_isi_ms;
  auto cv = r.isi_cv;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::parallel_for(
      "portasim::hh::spike_statistics", policy(exec, 0, neurons),
      KOKKOS_LAMBDA(const std::int64_t k) {
        const std::int64_t first = offsets(k);
        const std::int64_t n = offsets(k + 1) - first;
        for (std::int64_t j = 0; j < n; ++j) times(first + j) = slots(k, j);
        rate(k) = duration_s > 0 ? count(k) / duration_s : nan;
        if (n < 2) {
          mean_isi(k) = nan;
          cv(k) = nan;
          return;
        }
        const double mean = (slots(k, n - 1) - slots(k, 0)) / static_cast<double>(n - 1);
        double squares = 0;
        for (std::int64_t j = 1; j < n; ++j) {
          const double d = slots(k, j) - slots(k, j - 1) - mean;
          squares += d * d;
        }
        mean_isi(k) = mean;
        cv(k) = n >= 3 ? portasim::compat::math::sqrt(squares / static_cast<double>(n - 1)) / mean
                       : nan;
      });
  exec.fence();
}

// The given per-neuron fields of the initial state over the run-wide fill; a gate that is
// NaN (run-wide or per neuron) starts at its steady state at the neuron's V0, in double.
// A free function: device lambdas may not live in private members.
template <class Scalar, class ExecutionSpace, class MemorySpace>
void set_initial_state(const ExecutionSpace& exec, const InitialState& initial,
                       const NeuronValues<MemorySpace>& given, Result<Scalar, MemorySpace>& r) {
  const auto v = r.v, m = r.m, h = r.h, n = r.n;
  Kokkos::parallel_for(
      "portasim::hh::initial_state",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, static_cast<std::int64_t>(r.v.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t k) {
        auto value = [&](NeuronField field, double run_wide) {
          const auto& per = given[field];
          return per.extent(0) > 0 ? per(k) : run_wide;
        };
        const double v0 = value(NeuronField::v0, initial.v0);
        const NeuronState<double> rest = resting_gates(v0);
        auto gate = [&](NeuronField field, double run_wide, double steady) {
          const double x = value(field, run_wide);
          return x != x ? steady : x;  // NaN: the steady state
        };
        v(k) = static_cast<Scalar>(v0);
        m(k) = static_cast<Scalar>(gate(NeuronField::m0, initial.m0, rest.m));
        h(k) = static_cast<Scalar>(gate(NeuronField::h0, initial.h0, rest.h));
        n(k) = static_cast<Scalar>(gate(NeuronField::n0, initial.n0, rest.n));
      });
}

template <class Scalar, class ExecutionSpace>
class Simulation {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using result_type = Result<Scalar, memory_space>;

  Simulation(const ExecutionSpace& exec, const Config& config,
             const Stimulus<Scalar, memory_space>& stimulus,
             const NeuronValues<memory_space>& per_neuron)
      : m_exec(exec), m_config(config), m_per_neuron(per_neuron) {
    validate(config);
    validate(exec, per_neuron, config.neurons);
    m_steps = step_count(config);
    m_samples = sample_count(config);
    m_evaluator = make_evaluator(stimulus, config);
  }

  result_type run(TraceSink<Scalar>* sink) {
    const std::int64_t neurons = m_config.neurons;
    result_type r;
    r.steps = m_steps;
    r.samples = m_config.trace == Trace::none ? 0 : m_samples;
    auto alloc = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::hh::") + label);
    };
    r.v = Kokkos::View<Scalar*, memory_space>(alloc("v"), neurons);
    r.m = Kokkos::View<Scalar*, memory_space>(alloc("m"), neurons);
    r.h = Kokkos::View<Scalar*, memory_space>(alloc("h"), neurons);
    r.n = Kokkos::View<Scalar*, memory_space>(alloc("n"), neurons);
    const NeuronState<double> rest = resting_gates(m_config.initial.v0);
    auto pick = [](double given, double fallback) { return std::isnan(given) ? fallback : given; };
    Kokkos::deep_copy(m_exec, r.v, static_cast<Scalar>(m_config.initial.v0));
    Kokkos::deep_copy(m_exec, r.m, static_cast<Scalar>(pick(m_config.initial.m0, rest.m)));
    Kokkos::deep_copy(m_exec, r.h, static_cast<Scalar>(pick(m_config.initial.h0, rest.h)));
    Kokkos::deep_copy(m_exec, r.n, static_cast<Scalar>(pick(m_config.initial.n0, rest.n)));
    if (m_per_neuron.has_initial_state())
      set_initial_state(m_exec, m_config.initial, m_per_neuron, r);

    const int capacity = m_config.detect_spikes ? spike_capacity(m_config) : 0;
    r.spike_count = Kokkos::View<std::int32_t*, memory_space>(alloc("spike_count"), neurons);
    Kokkos::deep_copy(m_exec, r.spike_count, 0);
    Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> slots(alloc("spike_slots"), neurons,
                                                                   capacity);

    m_exec.fence();
    const auto started = std::chrono::steady_clock::now();
    switch (m_config.integrator) {
      case Integrator::euler: integrate<Integrator::euler>(r, slots, sink); break;
      case Integrator::rk4: integrate<Integrator::rk4>(r, slots, sink); break;
      case Integrator::rush_larsen: integrate<Integrator::rush_larsen>(r, slots, sink); break;
      case Integrator::rk45: integrate<Integrator::rk45>(r, slots, sink); break;
    }
    m_exec.fence();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    pack_spikes(m_exec, static_cast<double>(m_steps) * m_config.dt_ms * 1e-3, r, slots);
    return r;
  }

 private:
  template <Integrator Method>
  AdvanceNeurons<Scalar, memory_space, Method> functor(
      const result_type& r,
      const Kokkos::View<double**, Kokkos::LayoutLeft, memory_space>& slots) const {
    AdvanceNeurons<Scalar, memory_space, Method> f;
    f.v = r.v;
    f.m = r.m;
    f.h = r.h;
    f.n = r.n;
    f.stimulus = m_evaluator;
    f.membrane = Membrane<Scalar>::from(m_config.parameters);
    f.parameters = m_config.parameters;
    f.per_neuron = m_per_neuron;
    f.per_neuron_membrane = m_per_neuron.has_membrane();
    f.dt = static_cast<Scalar>(m_config.dt_ms);
    const double relative_floor = std::is_same_v<Scalar, float> ? 1e-5 : 0.0;
    f.control = {static_cast<Scalar>(std::max(m_config.relative_tolerance, relative_floor)),
                 static_cast<Scalar>(m_config.absolute_tolerance), 10000};
    f.trace_variables = 0;
    f.every = m_config.every;
    f.first_row = 0;
    f.detect_spikes = m_config.detect_spikes;
    f.threshold = static_cast<Scalar>(m_config.threshold_mv);
    f.dt_ms = m_config.dt_ms;
    f.spike_count = r.spike_count;
    f.spike_slots = slots;
    return f;
  }

  void report_progress(std::int64_t steps_done) {
    if (!m_config.progress) return;
    m_exec.fence();
    m_config.progress(m_steps > 0 ? static_cast<double>(steps_done) / static_cast<double>(m_steps)
                                  : 1.0);
  }

  template <Integrator Method>
  void integrate(result_type& r,
                 const Kokkos::View<double**, Kokkos::LayoutLeft, memory_space>& slots,
                 TraceSink<Scalar>* sink) {
    auto f = functor<Method>(r, slots);
    if (m_config.trace == Trace::none) {
      // One launch for all steps, unless progress is wanted (then about 20 blocks).
      const std::int64_t block = m_config.progress ? std::max<std::int64_t>(1, (m_steps + 19) / 20)
                                                   : std::max<std::int64_t>(1, m_steps);
      for (std::int64_t first = 0; first < m_steps; first += block) {
        f.first_step = first;
        f.end_step = std::min(m_steps, first + block);
        advance(m_exec, f);
        report_progress(f.end_step);
      }
      return;
    }
    stream_traces(f, sink);
  }

  // Traces larger than trace_chunk_bytes stream out through the streaming pipeline: chunk c
  // computes into device slot c % 2 on the compute instance while a copy instance moves
  // chunk c-1 to pinned memory and the host hands chunk c-1 to the sink.
  template <Integrator Method>
  void stream_traces(AdvanceNeurons<Scalar, memory_space, Method>& f, TraceSink<Scalar>* sink) {
    const std::int64_t neurons = m_config.neurons;
    const int variables = m_config.trace == Trace::all ? 4 : 1;
    const std::int64_t bytes_per_row =
        variables * neurons * static_cast<std::int64_t>(sizeof(Scalar));
    const std::int64_t rows = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(m_config.trace_chunk_bytes) / bytes_per_row, 1, m_samples);
    const std::int64_t chunks = (m_samples + rows - 1) / rows;

    using slot_view = Kokkos::View<Scalar***, Kokkos::LayoutRight, memory_space>;
    std::vector<slot_view> slots;
    for (int s = 0; s < (chunks > 1 ? 2 : 1); ++s)
      slots.emplace_back(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "portasim::hh::trace_chunk"), variables,
          rows, neurons);
    StreamingPipeline<slot_view, ExecutionSpace> pipeline(m_exec, std::move(slots),
                                                          "portasim::hh::trace");
    // Samples [first, first + count) of every variable, `rows` apart in the slot.
    const auto hand_to_sink = [sink, rows, neurons, variables](std::int64_t first,
                                                               std::int64_t count) {
      return [=](const Scalar* base, std::size_t) {
        if (!sink) return;
        TraceChunk<Scalar> view;
        view.first_sample = first;
        view.samples = count;
        view.neurons = neurons;
        view.v = base;
        if (variables == 4) {
          const std::int64_t stride = rows * neurons;
          view.m = base + stride;
          view.h = base + 2 * stride;
          view.n = base + 3 * stride;
        }
        sink->consume(view);
      };
    };

    f.trace_variables = variables;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t first_row = c * rows;
      const std::int64_t last_row = std::min(m_samples, first_row + rows) - 1;
      f.first_row = first_row;
      f.first_step = c == 0 ? 0 : (first_row - 1) * m_config.every;
      f.end_step = c + 1 == chunks ? m_steps : last_row * m_config.every;
      f.trace = pipeline.begin_chunk();
      {
        ProfilingRegion region("kernel " + std::to_string(f.first_step) + "-" +
                               std::to_string(f.end_step));
        advance(m_exec, f);
      }
      pipeline.end_chunk(f.trace.span(), hand_to_sink(first_row, last_row - first_row + 1));
      report_progress(f.end_step);
    }
    pipeline.finish();
  }

  ExecutionSpace m_exec;
  Config m_config;
  std::int64_t m_steps = 0;
  std::int64_t m_samples = 0;
  StimulusEvaluator<Scalar, memory_space> m_evaluator;
  NeuronValues<memory_space> m_per_neuron;
};

}  // namespace portasim::hh::impl

namespace portasim::hh {

template <class Scalar, class ExecutionSpace>
Result<Scalar, typename ExecutionSpace::memory_space> simulate(
    const ExecutionSpace& exec, const Config& config,
    const Stimulus<Scalar, typename ExecutionSpace::memory_space>& stimulus,
    TraceSink<Scalar>* sink,
    const NeuronValues<typename ExecutionSpace::memory_space>& per_neuron) {
  impl::Simulation<Scalar, ExecutionSpace> simulation(exec, config, stimulus, per_neuron);
  return simulation.run(sink);
}

}  // namespace portasim::hh
