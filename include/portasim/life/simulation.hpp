#pragma once
// The streaming Game of Life: generations are computed in chunks on one instance while the
// streaming pipeline (core/streaming_pipeline.hpp) moves finished chunks to pinned host
// memory and hands the chunk before to a sink (files), so compute, transfer and output
// overlap. Device and host memory hold the generations of two chunks, whatever the number
// of steps.
//
// One run function serves one rank and many. Over MPI ranks the grid is split into row
// blocks (rank r owns a contiguous block of rows, the first height % size ranks one row
// more) with a ghost row above and below, exchanged every generation while the rows that
// need no ghost row are stepped; results are byte for byte those of a single rank, for torus
// and dead borders alike (a dead border is a ghost row of zeros at the first and last rank).
// Ghost rows travel through pinned host buffers unless the MPI is CUDA-aware.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/mpi/partition.hpp"
#include "portasim/life/grid.hpp"

namespace portasim::life {

struct Config {
  std::int64_t width = 100;
  std::int64_t height = 100;
  std::int64_t steps = 100;      // generations after generation 0
  std::int64_t chunk_size = 10;  // generations per chunk
  Boundary boundary = Boundary::torus;
  Engine engine = Engine::bytes;
  std::int64_t every = 1;      // hand over every k-th generation only
  bool packed_output = false;  // hand over 8 cells per byte (numpy.packbits, bitorder 'little')
};

// Throws portasim::Error (invalid_argument) naming the option as the command line spells it
// (--width, --every, ...), the names a Life job's messages use too.
void validate(const Config& config);

// Bytes of one recorded row: the width, or width / 8 when packed.
inline std::int64_t row_bytes(const Config& config) {
  return config.packed_output ? config.width / 8 : config.width;
}
// Recorded generations a chunk holds at most: a chunk spans at most chunk_size consecutive
// generations, of which every every-th is recorded, so ceil(chunk_size / every).
inline std::int64_t recorded_per_chunk(const Config& config) {
  return config.chunk_size / config.every + (config.chunk_size % config.every != 0);
}

// A run of recorded generations in pinned host memory: `count` grids of height x row_bytes
// bytes (row_bytes = width, or width / 8 when packed), generations[i] numbering each.
struct Chunk {
  std::int64_t first_generation = 0;  // first and last generation the chunk covers
  std::int64_t last_generation = 0;
  std::int64_t count = 0;
  const std::int64_t* generations = nullptr;
  const std::uint8_t* data = nullptr;
  std::int64_t height = 0;
  std::int64_t row_bytes = 0;
  bool packed = false;
};

class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  virtual void write(const Chunk& chunk) = 0;
};

// Hands every chunk to a function: the sink for a caller that consumes generations itself
// (counts, images, its own files) without deriving from ChunkSink. The chunk's memory is
// valid during the call only.
class ChunkCallback : public ChunkSink {
 public:
  explicit ChunkCallback(std::function<void(const Chunk&)> receive)
      : m_receive(std::move(receive)) {}
  void write(const Chunk& chunk) override { m_receive(chunk); }

 private:
  std::function<void(const Chunk&)> m_receive;
};

// Keeps every recorded generation on the host: `data` holds `generations.size()` grids of
// height x row_bytes bytes, in the order they were recorded (the in-memory sink, as
// hh::TraceInMemory is for traces).
class GenerationsInMemory : public ChunkSink {
 public:
  void write(const Chunk& chunk) override {
    generations.insert(generations.end(), chunk.generations, chunk.generations + chunk.count);
    data.insert(data.end(), chunk.data, chunk.data + chunk.count * chunk.height * chunk.row_bytes);
    height = chunk.height;
    row_bytes = chunk.row_bytes;
    packed = chunk.packed;
    ++chunks;
  }
  std::vector<std::int64_t> generations;
  std::vector<std::uint8_t> data;
  std::int64_t height = 0, row_bytes = 0;
  bool packed = false;
  int chunks = 0;
};

struct RunStats {
  std::int64_t first_generation = 0;  // generation of the initial grid
  std::int64_t last_generation = 0;
  std::int64_t final_population = 0;
  std::int64_t chunks = 0;
  double setup_seconds = 0;    // allocating buffers (pinned host memory is slow to get)
  double seconds = 0;          // wall time of the pipeline once set up
  double compute_seconds = 0;  // device time of the generation kernels (events)
  double copy_seconds = 0;     // device time of the device-to-host copies (events)
  double write_seconds = 0;    // host time in the sink
  double cells_per_second() const;
  // (compute + copy + write) / wall: 1 = nothing overlapped; up to 3 when all three do.
  double overlap_ratio() const {
    return seconds > 0 ? (compute_seconds + copy_seconds + write_seconds) / seconds : 0.0;
  }
  std::int64_t cells = 0;  // width x height
};

// Where a run over several ranks hands recorded generations: gathered, whole grids to the
// root's sink (files identical to a single-rank run); per_rank, every rank's own block
// (height = its rows) to its own sink.
enum class RankOutput { gathered, per_rank };

struct RankOptions {
  RankOutput output = RankOutput::gathered;
  bool device_aware_mpi = false;  // hand device pointers to a CUDA-aware MPI
};

// This rank's rows of a height-row grid.
inline mpi::Block rows_of_rank(const mpi::Communicator& comm, std::int64_t height) {
  return mpi::block_of(height, comm.rank(), comm.size());
}

// The bytes of every rank's rows, `row_bytes` each, in rank order: the counts of a gather.
inline std::vector<std::size_t> bytes_of_rank_rows(const mpi::Communicator& comm,
                                                   std::int64_t height, std::int64_t row_bytes) {
  std::vector<std::size_t> bytes;
  for (int r = 0; r < comm.size(); ++r)
    bytes.push_back(
        static_cast<std::size_t>(mpi::block_of(height, r, comm.size()).size() * row_bytes));
  return bytes;
}

// Generation `start_generation` is `local_initial`, this rank's rows (rows_of_rank; the whole
// grid on one rank). The run computes up to config.steps and hands recorded generations to
// `sink` (may be null): the root's in gathered mode (ignored on other ranks), each rank's own
// in per_rank mode; a run records only when the root (gathered) or any rank (per_rank) has a
// sink. Generation 0 itself is handed over as a chunk of its own when start_generation == 0.
// The final rows are copied to `final_rows` if given (the shape of `local_initial`).
// Statistics are global: population summed, times the slowest rank's. Collective: every
// rank of `comm` calls it.
template <class ExecutionSpace>
RunStats run(const ExecutionSpace& exec, const mpi::Communicator& comm, const Config& config,
             const ByteGrid<typename ExecutionSpace::memory_space>& local_initial,
             std::int64_t start_generation, ChunkSink* sink, const RankOptions& options = {},
             const ByteGrid<typename ExecutionSpace::memory_space>* final_rows = nullptr);

// The run on one rank: the same function over the single-rank communicator.
template <class ExecutionSpace>
RunStats run(const ExecutionSpace& exec, const Config& config,
             const ByteGrid<typename ExecutionSpace::memory_space>& initial,
             std::int64_t start_generation, ChunkSink* sink,
             const ByteGrid<typename ExecutionSpace::memory_space>* final_grid = nullptr) {
  return run(exec, mpi::Communicator(), config, initial, start_generation, sink, RankOptions{},
             final_grid);
}

// A random grid, or rows first_row.. of one: cell (y, x) is alive when a counter-based
// uniform draw keyed by (seed, y * width + x) is below `density`, identical on every backend
// and for any split into rows.
template <class ExecutionSpace>
void fill_random(const ExecutionSpace& exec,
                 const ByteGrid<typename ExecutionSpace::memory_space>& grid, double density,
                 std::uint64_t seed, std::int64_t first_row = 0);

#define PORTASIM_LIFE_DECLARE(SPACE)                                                               \
  extern template RunStats run<SPACE>(                                                             \
      const SPACE&, const mpi::Communicator&, const Config&, const ByteGrid<SPACE::memory_space>&, \
      std::int64_t, ChunkSink*, const RankOptions&, const ByteGrid<SPACE::memory_space>*);         \
  extern template void fill_random<SPACE>(const SPACE&, const ByteGrid<SPACE::memory_space>&,      \
                                          double, std::uint64_t, std::int64_t);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_LIFE_DECLARE)

}  // namespace portasim::life
