// Facts from the literature for the default parameters, checked in both precisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "hh/hh_test_support.hpp"
#include "portasim/hh/simulation.hpp"

namespace test_hh_model_facts {

using portasim::testing::dc;
using portasim::testing::run_hh;

template <class Scalar, class Exec>
portasim::testing::HostHHResult<Scalar> run_dc(double amplitude, double t_ms,
                                               portasim::hh::TraceSink<Scalar>* sink = nullptr) {
  portasim::hh::Config config;
  config.neurons = 1;
  config.t_ms = t_ms;
  config.dt_ms = 0.01;
  if (sink) config.trace = portasim::hh::Trace::v;
  return run_hh<Scalar, Exec>(
      config, portasim::hh::Stimulus<Scalar, typename Exec::memory_space>::generate(dc(amplitude)),
      sink);
}

template <class Scalar, class Exec>
void resting_potential_is_minus_64_996() {
  const auto r = run_dc<Scalar, Exec>(0.0, 300.0);
  EXPECT_NEAR(r.v[0], -64.996, 0.001);
  EXPECT_EQ(r.spike_count[0], 0);
}

// One spike needs a DC step just above 2.24 uA/cm^2; below it, none.
template <class Scalar, class Exec>
void single_spike_threshold_near_2_24() {
  EXPECT_EQ((run_dc<Scalar, Exec>(2.20, 200.0).spike_count[0]), 0);
  EXPECT_EQ((run_dc<Scalar, Exec>(2.30, 200.0).spike_count[0]), 1);
}

// Type II: sustained firing starts near 6.26 uA/cm^2 with a jump to ~52 Hz.
template <class Scalar, class Exec>
void repetitive_firing_onset_near_6_26() {
  const auto below = run_dc<Scalar, Exec>(6.20, 500.0);
  const auto below_times = below.spikes_of(0);
  ASSERT_GE(below_times.size(), 1u);
  EXPECT_LT(below_times.back(), 300.0) << "firing at 6.20 should die out";

  const auto above = run_dc<Scalar, Exec>(6.30, 500.0);
  const auto times = above.spikes_of(0);
  ASSERT_GE(times.size(), 10u);
  EXPECT_GT(times.back(), 480.0) << "firing at 6.30 should be sustained";
  const double tail_isi = (times.back() - times[times.size() - 6]) / 5.0;  // last five intervals
  EXPECT_NEAR(1000.0 / tail_isi, 52.0, 5.0);
}

template <class Scalar, class Exec>
void action_potential_peaks_near_plus_40() {
  portasim::hh::TraceInMemory<Scalar> trace;
  const auto r = run_dc<Scalar, Exec>(10.0, 20.0, &trace);
  ASSERT_GE(r.spike_count[0], 1);
  const Scalar peak = *std::max_element(trace.v.begin(), trace.v.end());
  EXPECT_NEAR(peak, 40.0, 5.0);
}

TEST(TEST_CATEGORY, hh_fact_resting_potential_float) {
  resting_potential_is_minus_64_996<float, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_resting_potential_double) {
  resting_potential_is_minus_64_996<double, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_single_spike_threshold_float) {
  single_spike_threshold_near_2_24<float, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_single_spike_threshold_double) {
  single_spike_threshold_near_2_24<double, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_repetitive_firing_onset_float) {
  repetitive_firing_onset_near_6_26<float, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_repetitive_firing_onset_double) {
  repetitive_firing_onset_near_6_26<double, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_action_potential_peak_float) {
  action_potential_peaks_near_plus_40<float, TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, hh_fact_action_potential_peak_double) {
  action_potential_peaks_near_plus_40<double, TEST_EXECSPACE>();
}

}  // namespace test_hh_model_facts
