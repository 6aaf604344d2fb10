#pragma once
// Definition of life::run and life::fill_random; instantiated in src/life/simulation.cpp.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "portasim/core/counter_rng.hpp"
#include "portasim/core/profiling_region.hpp"
#include "portasim/core/streaming_pipeline.hpp"
#include "portasim/life/engines.hpp"
#include "portasim/life/impl/background_writer.hpp"
#include "portasim/life/impl/engine_state.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

template <class ExecutionSpace>
void fill_random(const ExecutionSpace& exec,
                 const ByteGrid<typename ExecutionSpace::memory_space>& grid, double density,
                 std::uint64_t seed, std::int64_t first_row) {
  require_in_range("density", density, 0.0, 1.0);
  require_non_negative("first row", first_row);
  const std::int64_t width = static_cast<std::int64_t>(grid.extent(1));
  const std::uint64_t offset = static_cast<std::uint64_t>(first_row * width);
  Kokkos::parallel_for(
      "portasim::life::fill_random",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, std::int64_t(grid.extent(0)) * width),
      KOKKOS_LAMBDA(const std::int64_t i) {
        // The draw of the same cell in the whole grid: keyed by its global flat index.
        grid(i / width, i % width) =
            counter_uniform(seed, 0, offset + static_cast<std::uint64_t>(i)) < density;
      });
}

namespace impl {

// Where the recorded chunks of this rank go. On one rank, to the sink on the calling thread:
// the host is free while the device computes the next chunk. Over several ranks the host
// drives the halo exchange of every generation, so chunks are gathered to the root (or,
// per rank, copied out of pinned memory) on the calling thread, the only one that calls
// MPI, and written by a BackgroundWriter while the next chunk is computed.
class ChunkDelivery {
 public:
  ChunkDelivery(const mpi::Communicator& comm, const Config& config, ChunkSink* sink,
                RankOutput output)
      : m_comm(comm), m_config(config),
        m_gathered(comm.size() > 1 && output == RankOutput::gathered),
        m_bytes_per_rank(bytes_of_rank_rows(comm, config.height, row_bytes(config))) {
    m_sink = (m_gathered && !comm.is_root()) ? nullptr : sink;
    m_records = comm.max(std::int64_t(m_sink != nullptr)) > 0;
    if (comm.size() > 1 && m_sink) m_writer = std::make_unique<BackgroundWriter>(*m_sink);
  }

  // True when some rank writes: then every rank records and takes part in the gathers.
  bool records() const noexcept { return m_records; }

  // `local`: this rank's rows of the chunk's generations, in pinned host memory.
  void deliver(const Chunk& local) {
    const auto began = std::chrono::steady_clock::now();
    if (!m_writer && !m_gathered) {  // one rank: the sink writes here
      if (m_sink) m_sink->write(local);
      m_write_seconds += seconds_since(began);
      return;
    }
    const std::size_t local_bytes = static_cast<std::size_t>(local.height * local.row_bytes);
    Chunk chunk = local;
    std::uint8_t* buffer = nullptr;
    if (m_gathered) {
      chunk.height = m_config.height;
      const std::size_t grid_bytes = static_cast<std::size_t>(chunk.height * chunk.row_bytes);
      if (m_writer)
        buffer = m_writer->next_buffer(grid_bytes * static_cast<std::size_t>(chunk.count));
      for (std::int64_t i = 0; i < chunk.count; ++i)
        m_comm.gatherv(local.data + static_cast<std::size_t>(i) * local_bytes, local_bytes,
                       buffer ? buffer + static_cast<std::size_t>(i) * grid_bytes : nullptr,
                       m_bytes_per_rank);
    } else if (m_writer) {
      const std::size_t bytes = local_bytes * static_cast<std::size_t>(chunk.count);
      buffer = m_writer->next_buffer(bytes);
      std::memcpy(buffer, local.data, bytes);
    }
    if (m_writer)
      m_writer->post(chunk,
                     std::vector<std::int64_t>(local.generations, local.generations + local.count));
    m_gather_seconds += seconds_since(began);
  }

  void finish() {
    if (m_writer) m_writer->finish();
  }
  double gather_seconds() const noexcept { return m_gather_seconds; }
  double write_seconds() const { return m_writer ? m_writer->write_seconds() : m_write_seconds; }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point began) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  }

  mpi::Communicator m_comm;
  Config m_config;
  bool m_gathered;
  ChunkSink* m_sink = nullptr;
  bool m_records = false;
  std::vector<std::size_t> m_bytes_per_rank;
  std::unique_ptr<BackgroundWriter> m_writer;
  double m_gather_seconds = 0, m_write_seconds = 0;
};

template <class ExecutionSpace>
void check_run_arguments(const mpi::Communicator& comm, const Config& config,
                         const ByteGrid<typename ExecutionSpace::memory_space>& local_initial,
                         std::int64_t start_generation) {
  validate(config);
  require(config.height >= comm.size(),
          "life: " + std::to_string(comm.size()) + " ranks need a grid of at least " +
              std::to_string(comm.size()) + " rows, got " + std::to_string(config.height));
  const std::int64_t rows = rows_of_rank(comm, config.height).size();
  if (static_cast<std::int64_t>(local_initial.extent(0)) != rows ||
      static_cast<std::int64_t>(local_initial.extent(1)) != config.width)
    require(false,
            (comm.size() > 1 ? "rank " + std::to_string(comm.rank()) + ": " : std::string()) +
                "initial grid is " + std::to_string(local_initial.extent(0)) + " x " +
                std::to_string(local_initial.extent(1)) + ", expected " + std::to_string(rows) +
                " x " + std::to_string(config.width));
  require(start_generation >= 0 && start_generation <= config.steps,
          "start generation " + std::to_string(start_generation) + " is outside 0.." +
              std::to_string(config.steps));
}

}  // namespace impl

template <class ExecutionSpace>
RunStats run(const ExecutionSpace& exec, const mpi::Communicator& comm, const Config& config,
             const ByteGrid<typename ExecutionSpace::memory_space>& local_initial,
             std::int64_t start_generation, ChunkSink* sink, const RankOptions& options,
             const ByteGrid<typename ExecutionSpace::memory_space>* final_rows) {
  using memory_space = typename ExecutionSpace::memory_space;
  using clock = std::chrono::steady_clock;
  impl::check_run_arguments<ExecutionSpace>(comm, config, local_initial, start_generation);
  const auto setup_began = clock::now();

  RunStats stats;
  stats.first_generation = start_generation;
  stats.last_generation = config.steps;
  stats.cells = config.width * config.height;
  impl::ChunkDelivery delivery(comm, config, sink, options.output);
  impl::EngineState<ExecutionSpace> state(exec, comm, config, local_initial,
                                          options.device_aware_mpi);
  const std::int64_t rows = state.rows(), local_bytes = rows * row_bytes(config);
  // Slots for the generations a chunk records (at least the one grid of generation 0), not
  // for every generation it spans: those would only cost memory. Nothing is recorded where
  // no rank writes.
  const std::int64_t capacity = delivery.records() ? recorded_per_chunk(config) : 0;
  using slot_view = Kokkos::View<std::uint8_t*, memory_space>;
  std::vector<slot_view> slots;
  for (int s = 0; s < 2; ++s)
    slots.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "portasim::life::chunk"),
                       capacity * local_bytes);
  StreamingPipeline<slot_view, ExecutionSpace> pipeline(exec, std::move(slots),
                                                        "portasim::life::chunk");
  // Ends the open chunk of the pipeline: `numbers` are the generations emitted into it.
  const auto end_chunk = [&](std::int64_t first, std::int64_t last,
                             std::vector<std::int64_t> numbers) {
    const std::int64_t count = static_cast<std::int64_t>(numbers.size());
    pipeline.end_chunk(static_cast<std::size_t>(count * local_bytes),
                       [&delivery, &config, first, last, count, rows, numbers = std::move(numbers)](
                           const std::uint8_t* data, std::size_t) {
                         delivery.deliver(Chunk{first, last, count, numbers.data(), data, rows,
                                                row_bytes(config), config.packed_output});
                       });
  };

  exec.fence();
  comm.barrier();
  stats.setup_seconds = std::chrono::duration<double>(clock::now() - setup_began).count();
  const auto began = clock::now();
  if (start_generation == 0 && delivery.records()) {
    // Generation 0 as a chunk of its own (the Python tool's {base}_000000.npy).
    state.emit(pipeline.begin_chunk().data());
    end_chunk(0, 0, {0});
  }
  for (std::int64_t generation = start_generation; generation < config.steps;) {
    // Chunks are aligned to multiples of chunk_size, so a resumed run continues the same files.
    const std::int64_t first = generation + 1;
    const std::int64_t last =
        std::min(config.steps, (generation / config.chunk_size + 1) * config.chunk_size);
    std::uint8_t* slot = pipeline.begin_chunk().data();
    std::vector<std::int64_t> numbers;
    {
      ProfilingRegion region("kernel " + std::to_string(first) + "-" + std::to_string(last));
      // Advance straight to each recorded generation, so that the engine can step the
      // generations between in pairs.
      for (std::int64_t g = first - 1; g < last;) {
        const std::int64_t to =
            delivery.records() ? std::min(last, (g / config.every + 1) * config.every) : last;
        state.advance(to - g);
        g = to;
        if (delivery.records() && g % config.every == 0) {
          state.emit(slot + static_cast<std::int64_t>(numbers.size()) * local_bytes);
          numbers.push_back(g);
        }
      }
    }
    end_chunk(first, last, std::move(numbers));
    ++stats.chunks;
    generation = last;
  }
  pipeline.finish();
  delivery.finish();
  stats.final_population = comm.sum(state.population());
  if (final_rows) {
    state.copy_to(*final_rows);
    exec.fence();
  }
  stats.seconds = comm.max(std::chrono::duration<double>(clock::now() - began).count());
  const auto& timings = pipeline.timings();
  stats.compute_seconds = comm.max(timings.compute_seconds);
  stats.copy_seconds = comm.max(timings.copy_seconds + delivery.gather_seconds());
  stats.write_seconds = comm.max(delivery.write_seconds());
  return stats;
}

}  // namespace portasim::life
