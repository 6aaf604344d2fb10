#pragma once
// Hodgkin-Huxley neurons over MPI ranks: rank r simulates a contiguous block of the neurons
// (mpi::block_of), with the stimulus of that slice (GeneratedStimulus::first_neuron /
// total_neurons, or the columns of a per-neuron trace). Neurons are independent, so every
// neuron's trajectory, spikes and statistics are bit for bit those of a single-rank run.
// Traces and results are gathered to the root in neuron order; the totals are reduced.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/mpi/partition.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/hh/simulation.hpp"

namespace portasim::distributed {

inline mpi::Block hh_neurons(const mpi::Communicator& comm, std::int64_t neurons) {
  return mpi::block_of(neurons, comm.rank(), comm.size());
}

// This rank's part of a run of `global.neurons` neurons: its neuron count, and a trace chunk
// size that gives every rank the same samples per chunk (so that chunks can be gathered).
inline hh::Config hh_local_config(const mpi::Communicator& comm, const hh::Config& global,
                                  std::size_t element_bytes) {
  require(global.neurons >= comm.size(), "hh: " + std::to_string(global.neurons) +
                                             " neurons cannot be split over " +
                                             std::to_string(comm.size()) + " MPI ranks");
  hh::Config local = global;
  local.neurons = hh_neurons(comm, global.neurons).size();
  if (global.trace != hh::Trace::none) {
    const std::int64_t variables = global.trace == hh::Trace::all ? 4 : 1;
    const std::int64_t widest = mpi::block_of(global.neurons, 0, comm.size()).size();
    const std::int64_t rows = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(global.trace_chunk_bytes) /
            (variables * widest * static_cast<std::int64_t>(element_bytes)),
        1, hh::sample_count(global));
    local.trace_chunk_bytes =
        static_cast<std::size_t>(rows * variables * local.neurons) * element_bytes;
  }
  if (!comm.is_root()) local.progress = nullptr;
  return local;
}

// Gathers every rank's trace chunks into whole-population chunks for `root_sink` (on the
// root; null elsewhere). Every rank's sink sees the same sample ranges (hh_local_config).
template <class Scalar>
class GatheredTraceSink : public hh::TraceSink<Scalar> {
 public:
  GatheredTraceSink(const mpi::Communicator& comm, std::int64_t neurons,
                    hh::TraceSink<Scalar>* root_sink)
      : m_comm(comm), m_neurons(neurons), m_sink(root_sink) {}

  void consume(const hh::TraceChunk<Scalar>& chunk) override {
    const Scalar* parts[] = {chunk.v, chunk.m, chunk.h, chunk.n};
    const int size = m_comm.size();
    std::vector<std::size_t> bytes(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r)
      bytes[static_cast<std::size_t>(r)] =
          static_cast<std::size_t>(chunk.samples * mpi::block_of(m_neurons, r, size).size()) *
          sizeof(Scalar);
    const std::size_t total = static_cast<std::size_t>(chunk.samples * m_neurons);
    for (int i = 0; i < 4; ++i) {
      if (!parts[i]) continue;
      m_blocks.resize(m_comm.is_root() ? total : 0);
      m_comm.gatherv(parts[i],
                     static_cast<std::size_t>(chunk.samples * chunk.neurons) * sizeof(Scalar),
                     m_blocks.data(), bytes);
      if (!m_comm.is_root()) continue;
      // Rank-major blocks (samples x its neurons) -> sample-major rows of all neurons.
      m_whole[i].resize(total);
      const Scalar* from = m_blocks.data();
      for (int r = 0; r < size; ++r) {
        const mpi::Block b = mpi::block_of(m_neurons, r, size);
        for (std::int64_t j = 0; j < chunk.samples; ++j)
          std::memcpy(m_whole[i].data() + j * m_neurons + b.begin, from + j * b.size(),
                      static_cast<std::size_t>(b.size()) * sizeof(Scalar));
        from += chunk.samples * b.size();
      }
    }
    if (!m_comm.is_root() || !m_sink) return;
    hh::TraceChunk<Scalar> whole{
        chunk.first_sample, chunk.samples, m_neurons, nullptr, nullptr, nullptr, nullptr};
    const Scalar** targets[] = {&whole.v, &whole.m, &whole.h, &whole.n};
    for (int i = 0; i < 4; ++i)
      if (parts[i]) *targets[i] = m_whole[i].data();
    m_sink->consume(whole);
  }

 private:
  mpi::Communicator m_comm;
  std::int64_t m_neurons;
  hh::TraceSink<Scalar>* m_sink;
  std::vector<Scalar> m_blocks, m_whole[4];
};

namespace impl {
// A view's values on the host, copied on `exec` (never a fence of the whole device).
template <class T, class ExecutionSpace, class View>
std::vector<T> to_vector(const ExecutionSpace& exec, const View& view) {
  const auto mirror = host_mirror_and_copy(exec, view);
  return std::vector<T>(mirror.data(), mirror.data() + mirror.span());
}

// Every rank's values in rank order on the root (empty elsewhere).
template <class T>
std::vector<T> gather_values(const mpi::Communicator& comm, const std::vector<T>& local) {
  const auto counts = comm.allgather(static_cast<std::int64_t>(local.size()));
  std::vector<std::size_t> bytes;
  std::int64_t total = 0;
  for (auto c : counts) {
    bytes.push_back(static_cast<std::size_t>(c) * sizeof(T));
    total += c;
  }
  std::vector<T> all(comm.is_root() ? static_cast<std::size_t>(total) : 0);
  comm.gatherv(local.data(), local.size() * sizeof(T), all.data(), bytes);
  return all;
}

template <class T>
Kokkos::View<T*, Kokkos::HostSpace> host_view(const std::vector<T>& values, const char* label) {
  Kokkos::View<T*, Kokkos::HostSpace> view(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
  if (!values.empty()) std::memcpy(view.data(), values.data(), values.size() * sizeof(T));
  return view;
}
}  // namespace impl

// The whole population's result on the root (host views, CSR offsets renumbered; times the
// slowest rank's, dropped spikes summed); an empty result elsewhere. Collective. The
// copies to the host run on `exec`, the instance that computed `local`.
template <class Scalar, class ExecutionSpace>
hh::Result<Scalar, Kokkos::HostSpace> gather_result(
    const ExecutionSpace& exec, const mpi::Communicator& comm,
    const hh::Result<Scalar, typename ExecutionSpace::memory_space>& local) {
  using impl::gather_values;
  using impl::host_view;
  using impl::to_vector;
  hh::Result<Scalar, Kokkos::HostSpace> whole;
  whole.v = host_view(gather_values(comm, to_vector<Scalar>(exec, local.v)), "hh_v");
  whole.m = host_view(gather_values(comm, to_vector<Scalar>(exec, local.m)), "hh_m");
  whole.h = host_view(gather_values(comm, to_vector<Scalar>(exec, local.h)), "hh_h");
  whole.n = host_view(gather_values(comm, to_vector<Scalar>(exec, local.n)), "hh_n");
  if (local.spike_count.extent(0) > 0) {
    whole.spike_count = host_view(
        gather_values(comm, to_vector<std::int32_t>(exec, local.spike_count)), "hh_spike_count");
    whole.spike_times = host_view(gather_values(comm, to_vector<double>(exec, local.spike_times)),
                                  "hh_spike_times");
    whole.firing_rate_hz =
        host_view(gather_values(comm, to_vector<double>(exec, local.firing_rate_hz)), "hh_rate");
    whole.mean_isi_ms =
        host_view(gather_values(comm, to_vector<double>(exec, local.mean_isi_ms)), "hh_isi");
    whole.isi_cv = host_view(gather_values(comm, to_vector<double>(exec, local.isi_cv)), "hh_cv");
    // Offsets: each rank's without its trailing total, shifted by the spikes of the ranks before.
    std::vector<std::int64_t> offsets = to_vector<std::int64_t>(exec, local.spike_offsets);
    const std::int64_t stored = offsets.back();
    offsets.pop_back();
    const auto stored_per_rank = comm.allgather(stored);
    std::int64_t before = 0;
    for (int r = 0; r < comm.rank(); ++r) before += stored_per_rank[static_cast<std::size_t>(r)];
    for (auto& o : offsets) o += before;
    std::vector<std::int64_t> all = gather_values(comm, offsets);
    if (comm.is_root()) {
      std::int64_t total = 0;
      for (auto s : stored_per_rank) total += s;
      all.push_back(total);
    }
    whole.spike_offsets = host_view(all, "hh_spike_offsets");
  }
  whole.steps = local.steps;
  whole.samples = local.samples;
  whole.spikes_dropped = comm.sum(local.spikes_dropped);
  whole.seconds = comm.max(local.seconds);
  return whole;
}

}  // namespace portasim::distributed
