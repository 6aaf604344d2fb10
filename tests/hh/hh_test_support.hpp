#pragma once
// Runs hh::simulate on a backend and brings everything back to the host for comparison.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include "portasim/hh/simulation.hpp"

namespace portasim::testing {

template <class Scalar>
struct HostHHResult {
  std::vector<Scalar> v, m, h, n;
  std::vector<std::int32_t> spike_count;
  std::vector<std::int64_t> spike_offsets;
  std::vector<double> spike_times, firing_rate_hz, mean_isi_ms, isi_cv;
  std::int64_t steps = 0, spikes_dropped = 0;

  std::vector<double> spikes_of(std::size_t k) const {
    return {spike_times.begin() + spike_offsets[k], spike_times.begin() + spike_offsets[k + 1]};
  }
};

template <class T, class View>
std::vector<T> to_host_vector(const View& view) {
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  return std::vector<T>(mirror.data(), mirror.data() + mirror.span());
}

template <class Scalar, class Exec>
HostHHResult<Scalar> run_hh(const hh::Config& config,
                            const hh::Stimulus<Scalar, typename Exec::memory_space>& stimulus = {},
                            hh::TraceSink<Scalar>* sink = nullptr) {
  Exec exec;
  const auto r = hh::simulate<Scalar>(exec, config, stimulus, sink);
  HostHHResult<Scalar> out;
  out.v = to_host_vector<Scalar>(r.v);
  out.m = to_host_vector<Scalar>(r.m);
  out.h = to_host_vector<Scalar>(r.h);
  out.n = to_host_vector<Scalar>(r.n);
  out.spike_count = to_host_vector<std::int32_t>(r.spike_count);
  out.spike_offsets = to_host_vector<std::int64_t>(r.spike_offsets);
  out.spike_times = to_host_vector<double>(r.spike_times);
  out.firing_rate_hz = to_host_vector<double>(r.firing_rate_hz);
  out.mean_isi_ms = to_host_vector<double>(r.mean_isi_ms);
  out.isi_cv = to_host_vector<double>(r.isi_cv);
  out.steps = r.steps;
  out.spikes_dropped = r.spikes_dropped;
  return out;
}

template <class Scalar, class MemorySpace>
Kokkos::View<const Scalar*, MemorySpace> device_trace(const std::vector<Scalar>& values) {
  Kokkos::View<Scalar*, MemorySpace> trace("trace", values.size());
  auto host = Kokkos::create_mirror_view(trace);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(trace, host);
  return trace;
}

// A DC step of `amplitude` for every neuron from t = 0.
inline hh::GeneratedStimulus dc(double amplitude) {
  hh::GeneratedStimulus g;
  g.amplitude_first = g.amplitude_last = amplitude;
  return g;
}

}  // namespace portasim::testing
