// Backends, precisions, stimulus forms, record modes and chunking against each other.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "hh/hh_test_support.hpp"
#include "portasim/hh/simulation.hpp"

namespace test_hh_integration {

using portasim::hh::Config;
using portasim::hh::Integrator;
using portasim::hh::Trace;
using portasim::testing::run_hh;

template <class Scalar, class Exec>
using StimulusOn = portasim::hh::Stimulus<Scalar, typename Exec::memory_space>;

// An f-I sweep over 64 neurons, 0..20 uA/cm^2 switched on at 5 ms, with a little noise.
inline Config sweep_config(std::int64_t neurons = 64) {
  Config config;
  config.neurons = neurons;
  config.t_ms = 50.0;
  config.dt_ms = 0.01;
  return config;
}
inline portasim::hh::GeneratedStimulus sweep_stimulus(double noise_sd = 0.0) {
  portasim::hh::GeneratedStimulus g;
  g.amplitude_first = 0.0;
  g.amplitude_last = 20.0;
  g.step_on_ms = 5.0;
  g.noise_sd = noise_sd;
  g.seed = 1234;
  return g;
}

// Tolerances: host backends run the same code and agree bit for bit; CUDA contracts
// multiply-adds into FMAs and has its own exp/expm1, so V differs by rounding, amplified
// near the steep upstroke of a spike.
template <class Exec>
constexpr bool is_host_backend() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}
template <class Scalar, class Exec>
double v_tolerance_mv() {
  if (is_host_backend<Exec>()) return 0.0;
  return std::is_same_v<Scalar, float> ? 0.05 : 1e-6;
}

// Spike times: float rounding differences grow over 50 ms to ~3e-4 ms (seen on a GPU).
template <class Scalar, class Exec>
double spike_time_tolerance_ms() {
  if (is_host_backend<Exec>()) return 0.0;
  return std::is_same_v<Scalar, float> ? 2e-3 : 1e-6;
}

template <class Scalar, class Exec>
void backend_agrees_with_serial(Integrator integrator, double noise_sd) {
  Config config = sweep_config();
  config.integrator = integrator;
  const auto stimulus = sweep_stimulus(noise_sd);
  const auto reference = run_hh<Scalar, Kokkos::Serial>(
      config, StimulusOn<Scalar, Kokkos::Serial>::generate(stimulus));
  const auto result = run_hh<Scalar, Exec>(config, StimulusOn<Scalar, Exec>::generate(stimulus));
  const double tolerance = v_tolerance_mv<Scalar, Exec>();
  const double time_tolerance = spike_time_tolerance_ms<Scalar, Exec>();
  int spiking = 0;
  for (std::size_t k = 0; k < reference.v.size(); ++k) {
    ASSERT_EQ(result.spike_count[k], reference.spike_count[k]) << "neuron " << k;
    spiking += reference.spike_count[k] > 0;
    EXPECT_LE(std::fabs(double(result.v[k]) - double(reference.v[k])), tolerance) << "neuron " << k;
    const auto a = result.spikes_of(k), b = reference.spikes_of(k);
    for (std::size_t j = 0; j < a.size(); ++j) EXPECT_NEAR(a[j], b[j], time_tolerance);
  }
  EXPECT_GT(spiking, 32) << "the sweep should make most neurons fire";
}

TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_rk4_float) {
  backend_agrees_with_serial<float, TEST_EXECSPACE>(Integrator::rk4, 0.0);
}
TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_rk4_double) {
  backend_agrees_with_serial<double, TEST_EXECSPACE>(Integrator::rk4, 0.0);
}
TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_noise_double) {
  backend_agrees_with_serial<double, TEST_EXECSPACE>(Integrator::rk4, 1.0);
}
TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_euler_double) {
  backend_agrees_with_serial<double, TEST_EXECSPACE>(Integrator::euler, 0.0);
}
TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_rush_larsen_double) {
  backend_agrees_with_serial<double, TEST_EXECSPACE>(Integrator::rush_larsen, 0.0);
}
TEST(TEST_CATEGORY, hh_backend_agrees_with_serial_rk45_double) {
  backend_agrees_with_serial<double, TEST_EXECSPACE>(Integrator::rk45, 0.0);
}

// Two runs of the same neurons: equal spike counts, and each spike time within `tolerance` ms.
// `what` names the comparison in failure messages.
template <class RunA, class RunB>
void expect_same_spikes(const RunA& a, const RunB& b, double tolerance,
                        const std::string& what = "") {
  for (std::size_t k = 0; k < b.v.size(); ++k) {
    ASSERT_EQ(a.spike_count[k], b.spike_count[k]) << what << " neuron " << k;
    const auto times_a = a.spikes_of(k), times_b = b.spikes_of(k);
    for (std::size_t j = 0; j < times_a.size(); ++j)
      EXPECT_NEAR(times_a[j], times_b[j], tolerance) << what << " neuron " << k << " spike " << j;
  }
}

// float vs double: same spike counts on the standard sweep, spike times within 0.01 ms.
template <class Exec>
void float_matches_double() {
  const Config config = sweep_config();
  const auto f = run_hh<float, Exec>(config, StimulusOn<float, Exec>::generate(sweep_stimulus()));
  const auto d = run_hh<double, Exec>(config, StimulusOn<double, Exec>::generate(sweep_stimulus()));
  expect_same_spikes(f, d, 0.01);
}
TEST(TEST_CATEGORY, hh_float_matches_double) { float_matches_double<TEST_EXECSPACE>(); }

// The accuracy the benchmarks run at: float RK4 at dt = 0.01 ms against float64 RK4 at
// dt = 0.001 ms, 10 uA/cm^2 for 100 ms, every spike within 0.01 ms. A faster rate or
// exponential on any backend must keep this.
template <class Exec>
void float_rk4_matches_a_fine_double_run() {
  Config config;
  config.neurons = 4;
  config.t_ms = 100.0;
  config.dt_ms = 0.01;
  const auto dc = portasim::testing::dc(10.0);
  const auto coarse = run_hh<float, Exec>(config, StimulusOn<float, Exec>::generate(dc));
  Config fine = config;
  fine.dt_ms = 0.001;
  const auto reference = run_hh<double, Exec>(fine, StimulusOn<double, Exec>::generate(dc));
  for (std::size_t k = 0; k < reference.v.size(); ++k)
    ASSERT_GE(reference.spike_count[k], 5) << "neuron " << k << ": a regular train at 10 uA/cm^2";
  expect_same_spikes(coarse, reference, 0.01);
}
TEST(TEST_CATEGORY, hh_float_rk4_matches_a_fine_double_run) {
  float_rk4_matches_a_fine_double_run<TEST_EXECSPACE>();
}

// The integrators converge to the same answer: spike times of Euler, Rush-Larsen and RK45
// at dt = 0.001 against RK4.
template <class Exec>
void integrators_agree_at_small_dt() {
  Config config = sweep_config(8);
  config.t_ms = 30;
  config.dt_ms = 0.001;
  const auto stimulus = StimulusOn<double, Exec>::generate(sweep_stimulus());
  const auto rk4 = run_hh<double, Exec>(config, stimulus);
  for (Integrator other : {Integrator::euler, Integrator::rush_larsen, Integrator::rk45}) {
    config.integrator = other;
    expect_same_spikes(run_hh<double, Exec>(config, stimulus), rk4, 0.05,
                       portasim::hh::to_string(other));
  }
}
TEST(TEST_CATEGORY, hh_integrators_agree_at_small_dt) {
  integrators_agree_at_small_dt<TEST_EXECSPACE>();
}

// RK45 on a coarse output grid (dt = 0.1 ms, where fixed-step RK4 drifts) stays close to a
// fine RK4 reference: the substeps adapt inside each output step.
template <class Exec>
void rk45_adapts_on_a_coarse_grid() {
  Config fine = sweep_config(8);
  fine.t_ms = 40;
  fine.dt_ms = 0.001;
  const auto stimulus = StimulusOn<double, Exec>::generate(sweep_stimulus());
  const auto reference = run_hh<double, Exec>(fine, stimulus);
  Config coarse = fine;
  coarse.dt_ms = 0.1;
  coarse.integrator = Integrator::rk45;
  coarse.relative_tolerance = coarse.absolute_tolerance = 1e-8;
  const auto adaptive = run_hh<double, Exec>(coarse, stimulus);
  // Spike times interpolate linearly between 0.1 ms samples: that, not the integration,
  // bounds their agreement.
  expect_same_spikes(adaptive, reference, 0.02);
  for (std::size_t k = 0; k < reference.v.size(); ++k)
    EXPECT_NEAR(adaptive.v[k], reference.v[k], 1e-3) << "neuron " << k;
}
TEST(TEST_CATEGORY, hh_rk45_adapts_on_a_coarse_grid) {
  rk45_adapts_on_a_coarse_grid<TEST_EXECSPACE>();
}

// Stimulus forms that describe the same current give the same result.
template <class Exec>
void stimulus_forms_agree() {
  using S = StimulusOn<double, Exec>;
  Config config = sweep_config(4);
  config.t_ms = 20;
  const std::int64_t steps = portasim::hh::step_count(config);
  auto g = sweep_stimulus();
  g.amplitude_first = g.amplitude_last = 8.0;
  const auto generated = run_hh<double, Exec>(config, S::generate(g));

  std::vector<double> shared(static_cast<std::size_t>(steps) + 1, 0.0);
  for (std::int64_t i = 500; i <= steps; ++i) shared[static_cast<std::size_t>(i)] = 8.0;
  const auto from_shared = run_hh<double, Exec>(
      config, S::shared_trace(
                  portasim::testing::device_trace<double, typename Exec::memory_space>(shared)));
  shared.pop_back();  // n_steps samples are accepted too
  const auto from_shorter = run_hh<double, Exec>(
      config, S::shared_trace(
                  portasim::testing::device_trace<double, typename Exec::memory_space>(shared)));

  Kokkos::View<double**, Kokkos::LayoutRight, typename Exec::memory_space> traces("traces", steps,
                                                                                  config.neurons);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec>(0, steps), KOKKOS_LAMBDA(const int i) {
        for (int k = 0; k < 4; ++k) traces(i, k) = i >= 500 ? 8.0 : 0.0;
      });
  const auto from_traces = run_hh<double, Exec>(config, S::per_neuron_trace(traces));
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(from_shared.v[k], generated.v[k]);
    EXPECT_EQ(from_shorter.v[k], generated.v[k]);
    EXPECT_EQ(from_traces.v[k], generated.v[k]);
    EXPECT_GT(generated.spike_count[k], 0);
  }
  const auto silent = run_hh<double, Exec>(config, S::none());
  EXPECT_EQ(silent.spike_count[0], 0);

  std::vector<double> wrong_length(10, 0.0);
  const auto wrong = S::shared_trace(
      portasim::testing::device_trace<double, typename Exec::memory_space>(wrong_length));
  EXPECT_THROW((run_hh<double, Exec>(config, wrong)), portasim::Error);
}
TEST(TEST_CATEGORY, hh_stimulus_forms_agree) { stimulus_forms_agree<TEST_EXECSPACE>(); }

// A generated ramp equals the same ramp given as a trace: slope 0.5 uA/cm^2 per ms from
// 2 ms on, on top of a 1 uA/cm^2 step.
template <class Exec>
void ramp_equals_its_trace() {
  using S = StimulusOn<double, Exec>;
  Config config = sweep_config(1);
  config.t_ms = 40;
  portasim::hh::GeneratedStimulus g;
  g.amplitude_first = g.amplitude_last = 1.0;
  g.step_on_ms = 2.0;
  g.ramp_per_ms = 0.5;
  const auto generated = run_hh<double, Exec>(config, S::generate(g));
  const std::int64_t steps = portasim::hh::step_count(config);
  std::vector<double> trace(static_cast<std::size_t>(steps), 0.0);
  for (std::int64_t i = 200; i < steps; ++i)
    trace[static_cast<std::size_t>(i)] = 1.0 + 0.5 * config.dt_ms * static_cast<double>(i - 200);
  const auto traced = run_hh<double, Exec>(
      config,
      S::shared_trace(portasim::testing::device_trace<double, typename Exec::memory_space>(trace)));
  EXPECT_NEAR(generated.v[0], traced.v[0], 1e-9);
  EXPECT_EQ(generated.spike_count[0], traced.spike_count[0]);
  EXPECT_GT(generated.spike_count[0], 0) << "a ramp to 20 uA/cm^2 fires";
}
TEST(TEST_CATEGORY, hh_ramp_equals_its_trace) { ramp_equals_its_trace<TEST_EXECSPACE>(); }

// Generated pulses, ramps, windows and noise behave as documented.
template <class Exec>
void generated_stimulus_shapes() {
  using S = StimulusOn<double, Exec>;
  Config config = sweep_config(3);
  config.t_ms = 100;
  portasim::hh::GeneratedStimulus g;
  g.amplitude_first = 0;
  g.amplitude_last = 30;  // neurons get 0, 15, 30
  g.step_on_ms = 10;
  g.step_off_ms = 60;
  const auto windowed = run_hh<double, Exec>(config, S::generate(g));
  EXPECT_EQ(windowed.spike_count[0], 0);
  for (std::size_t k = 1; k < 3; ++k) {
    const auto t = windowed.spikes_of(k);
    ASSERT_FALSE(t.empty());
    EXPECT_GT(t.front(), 10.0);
    EXPECT_LT(t.back(), 65.0);
  }
  // A pulse train: 1 ms pulses of 40 uA/cm^2 every 20 ms fire one spike per pulse.
  g.amplitude_first = g.amplitude_last = 40;
  g.step_on_ms = 0;
  g.step_off_ms = std::numeric_limits<double>::infinity();
  g.pulse_period_ms = 20;
  g.pulse_width_ms = 1;
  const auto pulses = run_hh<double, Exec>(config, S::generate(g));
  EXPECT_EQ(pulses.spike_count[0], 5);
  // Noise: reproducible from the seed, different for another seed and per neuron.
  portasim::hh::GeneratedStimulus noisy;
  noisy.noise_sd = 3.0;
  noisy.seed = 7;
  const auto a = run_hh<double, Exec>(config, S::generate(noisy));
  const auto b = run_hh<double, Exec>(config, S::generate(noisy));
  noisy.seed = 8;
  const auto c = run_hh<double, Exec>(config, S::generate(noisy));
  EXPECT_EQ(a.v, b.v);
  EXPECT_NE(a.v, c.v);
  EXPECT_NE(a.v[0], a.v[1]);
}
TEST(TEST_CATEGORY, hh_generated_stimulus_shapes) { generated_stimulus_shapes<TEST_EXECSPACE>(); }

// Traces: V equals the V of 'all'; every-k equals every-1 thinned; chunked equals whole;
// the last sample equals the final state; spikes are crossings of the recorded trace.
template <class Scalar, class Exec>
void traces_are_consistent() {
  Config config = sweep_config(16);
  config.t_ms = 30;
  const auto stimulus = StimulusOn<Scalar, Exec>::generate(sweep_stimulus(0.5));
  const std::int64_t steps = portasim::hh::step_count(config);

  config.trace = Trace::all;
  portasim::hh::TraceInMemory<Scalar> all;
  const auto final_state = run_hh<Scalar, Exec>(config, stimulus, &all);
  ASSERT_EQ(all.samples, steps + 1);
  ASSERT_EQ(all.chunks, 1);
  const std::size_t neurons = 16;
  for (std::size_t k = 0; k < neurons; ++k) {
    const std::size_t last = static_cast<std::size_t>(steps) * neurons + k;
    EXPECT_EQ(all.v[last], final_state.v[k]);
    EXPECT_EQ(all.m[last], final_state.m[k]);
    EXPECT_EQ(all.n[last], final_state.n[k]);
    EXPECT_EQ(all.v[k], Scalar(-65.0));  // sample 0 is the initial state
  }

  config.trace = Trace::v;
  portasim::hh::TraceInMemory<Scalar> v_only;
  run_hh<Scalar, Exec>(config, stimulus, &v_only);
  EXPECT_EQ(v_only.v, all.v);
  EXPECT_TRUE(v_only.m.empty());

  config.trace_chunk_bytes = 7 * neurons * sizeof(Scalar) * 4;  // 7 samples of V, m, h, n a chunk
  config.trace = Trace::all;
  portasim::hh::TraceInMemory<Scalar> chunked;
  const auto chunked_final = run_hh<Scalar, Exec>(config, stimulus, &chunked);
  EXPECT_GT(chunked.chunks, 100);
  EXPECT_EQ(chunked.v, all.v);
  EXPECT_EQ(chunked.h, all.h);
  EXPECT_EQ(chunked_final.v, final_state.v);
  EXPECT_EQ(chunked_final.spike_times, final_state.spike_times);

  config.trace = Trace::v;
  config.every = 7;  // 3000 steps: samples 0, 7, ..., 2996, then 4 more steps unrecorded
  portasim::hh::TraceInMemory<Scalar> thinned;
  run_hh<Scalar, Exec>(config, stimulus, &thinned);
  ASSERT_EQ(thinned.samples, steps / 7 + 1);
  for (std::int64_t j = 0; j < thinned.samples; ++j)
    for (std::size_t k = 0; k < neurons; ++k)
      ASSERT_EQ(thinned.v[static_cast<std::size_t>(j) * neurons + k],
                all.v[static_cast<std::size_t>(j * 7) * neurons + k]);

  // Spikes are the upward 0 mV crossings of the every-step trace, interpolated linearly.
  for (std::size_t k = 0; k < neurons; ++k) {
    std::vector<double> expected;
    for (std::int64_t i = 0; i < steps; ++i) {
      const double before = all.v[static_cast<std::size_t>(i) * neurons + k];
      const double after = all.v[static_cast<std::size_t>(i + 1) * neurons + k];
      if (before < 0.0 && after >= 0.0)
        expected.push_back((i + (0.0 - before) / (after - before)) * config.dt_ms);
    }
    const auto got = final_state.spikes_of(k);
    ASSERT_EQ(got.size(), expected.size()) << "neuron " << k;
    for (std::size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], expected[j], 1e-9);
  }
}
TEST(TEST_CATEGORY, hh_traces_are_consistent_float) {
  traces_are_consistent<float, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_traces_are_consistent_double) {
  traces_are_consistent<double, TEST_EXECSPACE>();
}

// Statistics, capacity overflow, and n_steps = round(T/dt).
template <class Exec>
void spike_statistics_and_capacity() {
  using S = StimulusOn<double, Exec>;
  Config config = sweep_config(1);
  config.t_ms = 200;
  const auto r = run_hh<double, Exec>(config, S::generate(portasim::testing::dc(10.0)));
  const auto t = r.spikes_of(0);
  ASSERT_GE(t.size(), 5u);
  EXPECT_DOUBLE_EQ(r.firing_rate_hz[0], t.size() / 0.2);
  EXPECT_NEAR(r.mean_isi_ms[0], (t.back() - t.front()) / (t.size() - 1), 1e-12);
  EXPECT_LT(r.isi_cv[0], 0.2);  // regular firing
  EXPECT_EQ(r.spikes_dropped, 0);

  config.max_spikes_per_neuron = 3;
  const auto capped = run_hh<double, Exec>(config, S::generate(portasim::testing::dc(10.0)));
  EXPECT_EQ(capped.spike_count[0], r.spike_count[0]);
  EXPECT_EQ(capped.spikes_of(0).size(), 3u);
  EXPECT_EQ(capped.spikes_dropped, r.spike_count[0] - 3);

  config.max_spikes_per_neuron = 0;
  config.t_ms = 0.015;  // round(1.5) = 2 steps, not truncation's 1
  config.dt_ms = 0.01;
  EXPECT_EQ((run_hh<double, Exec>(config).steps), 2);
}
TEST(TEST_CATEGORY, hh_spike_statistics_and_capacity) {
  spike_statistics_and_capacity<TEST_EXECSPACE>();
}

template <class Exec>
void bad_configs_are_rejected() {
  auto rejects = [](auto change) {
    Config config = sweep_config(4);
    change(config);
    EXPECT_THROW((run_hh<double, Exec>(config)), portasim::Error);
  };
  rejects([](Config& c) { c.neurons = 0; });
  rejects([](Config& c) { c.dt_ms = 0; });
  rejects([](Config& c) { c.dt_ms = -0.01; });
  rejects([](Config& c) { c.t_ms = 0.001; });
  rejects([](Config& c) { c.t_ms = std::nan(""); });
  rejects([](Config& c) { c.every = 0; });
  rejects([](Config& c) { c.initial.m0 = 1.5; });
  rejects([](Config& c) { c.parameters.capacitance = 0; });
  rejects([](Config& c) { c.relative_tolerance = 0; });
}
TEST(TEST_CATEGORY, hh_bad_configs_are_rejected) { bad_configs_are_rejected<TEST_EXECSPACE>(); }

}  // namespace test_hh_integration
