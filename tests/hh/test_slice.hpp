// A slice of the population (GeneratedStimulus::first_neuron / total_neurons, what one MPI
// rank simulates) gives exactly the whole run's neurons: amplitude sweep and noise included.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <vector>

#include "hh/hh_test_support.hpp"
#include "portasim/core/mpi/partition.hpp"
#include "portasim/hh/simulation.hpp"

namespace hh_slice_test {

namespace hh = portasim::hh;

using portasim::testing::to_host_vector;

template <class Exec>
void slices_equal_whole() {
  using memory_space = typename Exec::memory_space;
  Exec exec;
  hh::Config config;
  config.neurons = 13;
  config.t_ms = 30;
  config.dt_ms = 0.01;
  hh::GeneratedStimulus g;
  g.amplitude_first = 0;
  g.amplitude_last = 20;
  g.step_on_ms = 2;
  g.noise_sd = 1.5;
  g.seed = 11;
  const auto whole =
      hh::simulate<double>(exec, config, hh::Stimulus<double, memory_space>::generate(g));
  const auto v = to_host_vector<double>(whole.v), n = to_host_vector<double>(whole.n);
  const auto count = to_host_vector<std::int32_t>(whole.spike_count);
  std::int64_t fired = 0;
  for (auto c : count) fired += c > 0;
  ASSERT_GT(fired, 3);  // the sweep crosses the firing threshold: the slices see different currents
  for (int ranks : {2, 3, 5}) {
    for (int r = 0; r < ranks; ++r) {
      const portasim::mpi::Block b = portasim::mpi::block_of(config.neurons, r, ranks);
      hh::Config local = config;
      local.neurons = b.size();
      hh::GeneratedStimulus s = g;
      s.first_neuron = b.begin;
      s.total_neurons = config.neurons;
      const auto part =
          hh::simulate<double>(exec, local, hh::Stimulus<double, memory_space>::generate(s));
      const auto pv = to_host_vector<double>(part.v), pn = to_host_vector<double>(part.n);
      const auto pc = to_host_vector<std::int32_t>(part.spike_count);
      for (std::int64_t k = 0; k < b.size(); ++k) {
        const auto K = static_cast<std::size_t>(b.begin + k), kk = static_cast<std::size_t>(k);
        EXPECT_EQ(pv[kk], v[K]) << "ranks " << ranks << " neuron " << K;
        EXPECT_EQ(pn[kk], n[K]) << "ranks " << ranks << " neuron " << K;
        EXPECT_EQ(pc[kk], count[K]) << "ranks " << ranks << " neuron " << K;
      }
    }
  }
  // A slice beyond the population is refused.
  hh::Config local = config;
  local.neurons = 5;
  hh::GeneratedStimulus s = g;
  s.first_neuron = 10;
  s.total_neurons = config.neurons;
  EXPECT_THROW(hh::simulate<double>(exec, local, hh::Stimulus<double, memory_space>::generate(s)),
               portasim::Error);
}

}  // namespace hh_slice_test

TEST(TEST_CATEGORY, hh_population_slices_equal_the_whole_run) {
  hh_slice_test::slices_equal_whole<TEST_EXECSPACE>();
}
