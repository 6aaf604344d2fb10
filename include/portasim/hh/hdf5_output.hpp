#pragma once
// HH results in HDF5, readable with h5py and no extra knowledge:
//   /time (samples)                  sample times in ms, when a trace was recorded
//   /V, /m, /h, /n (samples, neurons) recorded traces (m, h, n with --record all)
//   /spikes/count (neurons), /spikes/offsets (neurons+1), /spikes/times (total) in ms, CSR:
//       neuron k's spike times are times[offsets[k]:offsets[k+1]]
//   /spikes/firing_rate_hz, /spikes/mean_isi_ms, /spikes/isi_cv (neurons; NaN if undefined)
//   /final/V, /final/m, /final/h, /final/n (neurons)
//   root attributes: model parameters, dt_ms, t_ms, n_steps, every, integrator, precision,
//   backend, portasim_version, threshold_mv, plus the caller's (e.g. the stimulus).

#include <Kokkos_Core.hpp>

#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/config.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/hh/simulation.hpp"

namespace portasim::hh {

// Appends recorded samples to /V (and /m, /h, /n) as they stream out of the simulation, and
// flushes per chunk so that a killed run keeps what was written.
template <class Scalar>
class Hdf5TraceSink : public TraceSink<Scalar> {
 public:
  Hdf5TraceSink(io::H5File& file, Trace trace, std::int64_t neurons) : m_file(file) {
    const std::vector<std::size_t> row{static_cast<std::size_t>(neurons)};
    // Chunks of about 1 MiB keep h5py reads of single neurons and single samples both fast.
    const std::size_t chunk =
        std::max<std::size_t>(1, (std::size_t(1) << 20) / (sizeof(Scalar) * row[0]));
    for (const char* name : {"/V", "/m", "/h", "/n"}) {
      if (trace == Trace::v && std::string(name) != "/V") break;
      m_datasets.push_back(std::make_unique<io::ExtendibleDataset<Scalar>>(file, name, row, chunk));
    }
  }

  void consume(const TraceChunk<Scalar>& chunk) override {
    const Scalar* parts[] = {chunk.v, chunk.m, chunk.h, chunk.n};
    for (std::size_t i = 0; i < m_datasets.size(); ++i)
      m_datasets[i]->append(parts[i], static_cast<std::size_t>(chunk.samples));
    m_file.flush();
  }

 private:
  io::H5File& m_file;
  std::vector<std::unique_ptr<io::ExtendibleDataset<Scalar>>> m_datasets;
};

// The values of a result's host view (the job gathers results to the host first); a device
// view is copied with a fence of its whole device.
template <class T, class View>
std::vector<T> host_copy(const View& view) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename View::memory_space>::accessible) {
    return std::vector<T>(view.data(), view.data() + view.span());
  } else {
    auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    return std::vector<T>(mirror.data(), mirror.data() + mirror.span());
  }
}

template <class Scalar, class MemorySpace>
void write_result(io::H5File& file, const Config& config, const Result<Scalar, MemorySpace>& result,
                  const std::map<std::string, std::string>& attributes = {}) {
  if (config.trace != Trace::none) {
    std::vector<double> time(static_cast<std::size_t>(result.samples));
    for (std::size_t j = 0; j < time.size(); ++j)
      time[j] = static_cast<double>(j) * config.every * config.dt_ms;
    file.write("/time", time);
  }
  file.write("/final/V", host_copy<Scalar>(result.v));
  file.write("/final/m", host_copy<Scalar>(result.m));
  file.write("/final/h", host_copy<Scalar>(result.h));
  file.write("/final/n", host_copy<Scalar>(result.n));
  if (config.detect_spikes) {
    file.write("/spikes/count", host_copy<std::int32_t>(result.spike_count));
    file.write("/spikes/offsets", host_copy<std::int64_t>(result.spike_offsets));
    file.write("/spikes/times", host_copy<double>(result.spike_times));
    file.write("/spikes/firing_rate_hz", host_copy<double>(result.firing_rate_hz));
    file.write("/spikes/mean_isi_ms", host_copy<double>(result.mean_isi_ms));
    file.write("/spikes/isi_cv", host_copy<double>(result.isi_cv));
    file.write_attribute("/spikes", "threshold_mv", config.threshold_mv);
    file.write_attribute("/spikes", "dropped", result.spikes_dropped);
  }
  const Parameters& p = config.parameters;
  const std::pair<const char*, double> numbers[] = {{"C_uF_per_cm2", p.capacitance},
                                                    {"g_Na_mS_per_cm2", p.g_na},
                                                    {"g_K_mS_per_cm2", p.g_k},
                                                    {"g_L_mS_per_cm2", p.g_leak},
                                                    {"E_Na_mV", p.e_na},
                                                    {"E_K_mV", p.e_k},
                                                    {"E_L_mV", p.e_leak},
                                                    {"dt_ms", config.dt_ms},
                                                    {"t_ms", config.t_ms},
                                                    {"threshold_mv", config.threshold_mv},
                                                    {"V0_mV", config.initial.v0}};
  for (const auto& [name, value] : numbers) file.write_attribute("/", name, value);
  file.write_attribute("/", "n_steps", result.steps);
  file.write_attribute("/", "neurons", config.neurons);
  file.write_attribute("/", "every", static_cast<std::int64_t>(config.every));
  file.write_attribute("/", "integrator", std::string(to_string(config.integrator)));
  file.write_attribute("/", "record", std::string(to_string(config.trace)));
  file.write_attribute("/", "precision",
                       std::string(std::is_same_v<Scalar, float> ? "float32" : "float64"));
  file.write_attribute("/", "portasim_version", std::string(PORTASIM_VERSION_STRING));
  file.write_attribute("/", "seconds", result.seconds);
  file.write_attribute("/", "neuron_steps_per_s", result.neuron_steps_per_second());
  for (const auto& [name, value] : attributes) file.write_attribute("/", name, value);
}

}  // namespace portasim::hh
