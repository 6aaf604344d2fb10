// Per-neuron initial state and membrane parameters (hh::NeuronValues): neuron k of a run with
// per-neuron fields is bit for bit a run whose run-wide values are neuron k's, NaN gates
// start at the steady state of the neuron's V0, slices match the whole run (what an MPI rank
// does), and values out of range are refused naming the field.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "harness/error_message.hpp"
#include "hh/hh_test_support.hpp"
#include "portasim/core/error.hpp"
#include "portasim/hh/neuron_values.hpp"
#include "portasim/hh/simulation.hpp"

namespace hh_neuron_values_test {

namespace hh = portasim::hh;

using portasim::testing::to_host_vector;

template <class Exec>
Kokkos::View<const double*, typename Exec::memory_space> device(const Exec& exec,
                                                                const std::vector<double>& values) {
  Kokkos::View<double*, typename Exec::memory_space> v("per_neuron", values.size());
  Kokkos::deep_copy(exec, v,
                    Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        values.data(), values.size()));
  exec.fence();
  return v;
}

constexpr int neurons = 5;
const std::vector<double> v0 = {-65, -70, -60, -55, -68};
const std::vector<double> m0 = {0.05, 0.1, 0.02, std::numeric_limits<double>::quiet_NaN(), 0.2};
const std::vector<double> g_na = {120, 100, 140, 120, 90};
const std::vector<double> e_leak = {-54.387, -50, -60, -54.387, -49};

hh::Config base_config() {
  hh::Config config;
  config.neurons = neurons;
  config.t_ms = 25;
  config.dt_ms = 0.01;
  return config;
}

template <class Exec>
void each_neuron_is_its_own_run() {
  using memory_space = typename Exec::memory_space;
  using Stimulus = hh::Stimulus<float, memory_space>;
  Exec exec;
  hh::GeneratedStimulus g;
  g.amplitude_first = g.amplitude_last = 10.0;  // the same current for every neuron
  hh::NeuronValues<memory_space> values;
  values[hh::NeuronField::v0] = device(exec, v0);
  values[hh::NeuronField::m0] = device(exec, m0);
  values[hh::NeuronField::g_na] = device(exec, g_na);
  values[hh::NeuronField::e_leak] = device(exec, e_leak);
  const auto all = hh::simulate<float>(exec, base_config(), Stimulus::generate(g), nullptr, values);
  const auto v = to_host_vector<float>(all.v), m = to_host_vector<float>(all.m);
  const auto spikes = to_host_vector<std::int32_t>(all.spike_count);
  int differ = 0;
  for (int k = 0; k < neurons; ++k) {
    hh::Config one = base_config();
    one.neurons = 1;
    one.initial.v0 = v0[k];
    one.initial.m0 = m0[k];
    one.parameters.g_na = g_na[k];
    one.parameters.e_leak = e_leak[k];
    const auto alone = hh::simulate<float>(exec, one, Stimulus::generate(g));
    EXPECT_EQ(to_host_vector<float>(alone.v)[0], v[k]) << "neuron " << k;
    EXPECT_EQ(to_host_vector<float>(alone.m)[0], m[k]) << "neuron " << k;
    EXPECT_EQ(to_host_vector<std::int32_t>(alone.spike_count)[0], spikes[k]) << "neuron " << k;
    differ += v[k] != v[0];
  }
  EXPECT_GT(differ, 0);  // the per-neuron values did change the neurons
}

TEST(TEST_CATEGORY, hh_per_neuron_values_make_each_neuron_its_own_run) {
  each_neuron_is_its_own_run<TEST_EXECSPACE>();
}

template <class Exec>
void initial_state_and_slices() {
  using memory_space = typename Exec::memory_space;
  Exec exec;
  hh::NeuronValues<memory_space> values;
  values[hh::NeuronField::v0] = device(exec, v0);
  values[hh::NeuronField::m0] = device(exec, m0);
  values[hh::NeuronField::g_na] = device(exec, g_na);
  // The initial state itself: a run of 1 step of dt ~ 0 is not the initial state, so compare
  // the steady state computed on the host with a run of one tiny step of zero current.
  hh::Config tiny = base_config();
  tiny.t_ms = 1e-12;
  tiny.dt_ms = 1e-12;
  const auto start = hh::simulate<double>(exec, tiny, {}, nullptr, values);
  const auto v = to_host_vector<double>(start.v), m = to_host_vector<double>(start.m),
             h = to_host_vector<double>(start.h);
  for (int k = 0; k < neurons; ++k) {
    const auto rest = hh::resting_gates(v0[k]);
    EXPECT_NEAR(v[k], v0[k], 1e-6) << k;
    EXPECT_NEAR(m[k], std::isnan(m0[k]) ? rest.m : m0[k], 1e-9) << k;
    EXPECT_NEAR(h[k], rest.h, 1e-9) << k;
  }
  // Slices (one MPI rank's neurons) are the whole run's neurons.
  const auto whole =
      to_host_vector<double>(hh::simulate<double>(exec, base_config(), {}, nullptr, values).v);
  for (auto [begin, end] : {std::pair<int, int>{0, 2}, {2, 5}}) {
    hh::Config part = base_config();
    part.neurons = end - begin;
    const auto v_part = to_host_vector<double>(
        hh::simulate<double>(exec, part, {}, nullptr, values.slice(begin, end)).v);
    for (int k = begin; k < end; ++k) EXPECT_EQ(v_part[k - begin], whole[k]) << k;
  }
}

TEST(TEST_CATEGORY, hh_per_neuron_initial_state_and_slices) {
  initial_state_and_slices<TEST_EXECSPACE>();
}

template <class Exec>
void bad_values_are_refused() {
  using memory_space = typename Exec::memory_space;
  Exec exec;
  auto refused = [&](hh::NeuronField field, std::vector<double> values, const std::string& text) {
    hh::NeuronValues<memory_space> given;
    given[field] = device(exec, values);
    const std::string message = portasim::testing::error_message(
        [&] { hh::simulate<double>(exec, base_config(), {}, nullptr, given); });
    EXPECT_NE(message.find(text), std::string::npos) << message;
  };
  refused(hh::NeuronField::capacitance, {1, 1, 0, 1, 1}, "capacitance has 1 values that are not");
  refused(hh::NeuronField::h0, {0.5, 1.5, 0.5, -0.1, 0.5}, "h0 has 2 values");
  refused(hh::NeuronField::g_k, {36, 36, -1, 36, 36}, "g_k");
  refused(hh::NeuronField::v0, {-65, std::numeric_limits<double>::infinity(), -65, -65, -65}, "v0");
  refused(hh::NeuronField::e_na, {50, 50, 50}, "e_na has 3 values for 5 neurons");
}

TEST(TEST_CATEGORY, hh_per_neuron_values_out_of_range_are_refused) {
  bad_values_are_refused<TEST_EXECSPACE>();
}

}  // namespace hh_neuron_values_test
