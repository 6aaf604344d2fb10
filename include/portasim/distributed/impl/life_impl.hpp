#pragma once
// Definition of distributed::run_life; instantiated in src/distributed/life.cpp.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "portasim/core/counter_rng.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/profiling_region.hpp"
#include "portasim/distributed/life.hpp"
#include "portasim/life/engines.hpp"

namespace portasim::distributed {

template <class ExecutionSpace>
void fill_random_rows(const ExecutionSpace& exec,
                      const life::ByteGrid<typename ExecutionSpace::memory_space>& grid,
                      std::int64_t first_row, double density, std::uint64_t seed) {
  require_in_range("density", density, 0.0, 1.0);
  const std::int64_t width = static_cast<std::int64_t>(grid.extent(1));
  const std::int64_t offset = first_row * width;
  Kokkos::parallel_for(
      "portasim::distributed::life_fill_random",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, std::int64_t(grid.extent(0)) * width),
      KOKKOS_LAMBDA(const std::int64_t i) {
        // The draw of the same cell in the whole grid: keyed by its global flat index.
        grid(i / width, i % width) =
            counter_uniform(seed, 0, static_cast<std::uint64_t>(offset + i)) < density;
      });
}

namespace impl {

// Fills the two ghost rows of a (rows + 2) x row_length grid of T in MemorySpace from the
// neighbours (up: rank above, down: rank below; < 0: none, the ghost row stays as it is, zero
// for a dead border). In two halves around the work that needs no halo: begin() takes the
// rows to send (after the work enqueued so far), finish() exchanges them and fills the ghost
// rows, ordered before the work enqueued after it.
template <class ExecutionSpace, class T>
class HaloExchange {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using row_view = Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Page-locked: a pageable row costs a staged, synchronous copy every generation.
  using host_row = Kokkos::View<T*, PinnedHostSpace<ExecutionSpace>>;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  HaloExchange(const mpi::Communicator& comm, std::int64_t rows, std::int64_t row_length, int up,
               int down, bool device_aware)
      : m_comm(comm), m_rows(rows), m_length(row_length), m_up(up), m_down(down),
        m_direct(host_memory || device_aware), m_rows_ready(/*timing=*/false) {
    if (!m_direct)
      for (auto& b : m_host)
        b = host_row(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::halo")),
                     row_length);
  }

  void begin(const ExecutionSpace& exec, T* grid) {
    if (!m_direct) {
      Kokkos::deep_copy(exec, m_host[0], row_view(first_row(grid), m_length));
      Kokkos::deep_copy(exec, m_host[1], row_view(last_row(grid), m_length));
    }
    m_rows_ready.record(exec);
  }

  void finish(const ExecutionSpace& exec, T* grid) {
    const std::size_t bytes = static_cast<std::size_t>(m_length) * sizeof(T);
    T* top_ghost = grid;
    T* bottom_ghost = grid + (m_rows + 1) * m_length;
    m_rows_ready.synchronize();  // not the work enqueued since begin(): it overlaps the exchange
    if (m_direct) {
      m_comm.sendrecv(first_row(grid), bytes, m_up, bottom_ghost, bytes, m_down, 1);
      m_comm.sendrecv(last_row(grid), bytes, m_down, top_ghost, bytes, m_up, 2);
    } else {
      m_comm.sendrecv(m_host[0].data(), bytes, m_up, m_host[2].data(), bytes, m_down, 1);
      m_comm.sendrecv(m_host[1].data(), bytes, m_down, m_host[3].data(), bytes, m_up, 2);
      if (m_down >= 0) Kokkos::deep_copy(exec, row_view(bottom_ghost, m_length), m_host[2]);
      if (m_up >= 0) Kokkos::deep_copy(exec, row_view(top_ghost, m_length), m_host[3]);
    }
  }

 private:
  T* first_row(T* grid) const { return grid + m_length; }
  T* last_row(T* grid) const { return grid + m_rows * m_length; }

  mpi::Communicator m_comm;
  std::int64_t m_rows, m_length;
  int m_up, m_down;
  bool m_direct;
  Event<ExecutionSpace> m_rows_ready;
  host_row m_host[4];  // send first, send last, receive bottom ghost, receive top ghost
};

}  // namespace impl

template <class ExecutionSpace>
life::RunStats run_life(const ExecutionSpace& exec, const mpi::Communicator& comm,
                        const life::Config& config,
                        const life::ByteGrid<typename ExecutionSpace::memory_space>& local_initial,
                        std::int64_t start_generation, life::ChunkSink* sink,
                        const LifeOptions& options) {
  using memory_space = typename ExecutionSpace::memory_space;
  using clock = std::chrono::steady_clock;
  life::validate(config);
  const int rank = comm.rank(), size = comm.size();
  require(config.height >= size, "life: " + std::to_string(size) +
                                     " ranks need a grid of at least " + std::to_string(size) +
                                     " rows, got " + std::to_string(config.height));
  const mpi::Block block = life_rows(comm, config.height);
  const std::int64_t rows = block.size(), width = config.width;
  require(static_cast<std::int64_t>(local_initial.extent(0)) == rows &&
              static_cast<std::int64_t>(local_initial.extent(1)) == width,
          "life: rank " + std::to_string(rank) + " got an initial block of " +
              std::to_string(local_initial.extent(0)) + " x " +
              std::to_string(local_initial.extent(1)) + ", expected " + std::to_string(rows) +
              " x " + std::to_string(width));
  require(start_generation >= 0 && start_generation <= config.steps,
          "start generation " + std::to_string(start_generation) + " is outside 0.." +
              std::to_string(config.steps));
  const auto setup_began = clock::now();
  const bool torus = config.boundary == life::Boundary::torus;
  const int up = rank > 0 ? rank - 1 : (torus ? size - 1 : -1);
  const int down = rank < size - 1 ? rank + 1 : (torus ? 0 : -1);
  const bool gathered = options.output == LifeOutput::gathered;
  const bool record = comm.max(std::int64_t(sink != nullptr && (!gathered || comm.is_root()))) > 0;
  life::ChunkSink* my_sink = (gathered && !comm.is_root()) ? nullptr : sink;

  // This rank's rows with a ghost row above and below, as bytes and (bits engine) words.
  const bool bits = config.engine == life::Engine::bits;
  const std::int64_t words = width / life::cells_per_word;
  // The grids start zeroed: a dead border's ghost rows stay zero, as steps never write ghost rows.
  const auto alloc = [](const char* label) { return Kokkos::view_alloc(std::string(label)); };
  const auto alloc_uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  life::ByteGrid<memory_space> cells[2] = {
      life::ByteGrid<memory_space>(alloc("portasim::distributed::cells"), rows + 2, width),
      life::ByteGrid<memory_space>()};
  life::WordGrid<memory_space> packed[2];
  Kokkos::deep_copy(
      exec, Kokkos::subview(cells[0], Kokkos::make_pair(std::int64_t(1), rows + 1), Kokkos::ALL),
      local_initial);
  if (bits) {
    for (auto& w : packed)
      w = life::WordGrid<memory_space>(alloc("portasim::distributed::words"), rows + 2, words);
    life::pack_bits(exec, cells[0], packed[0]);
  } else {
    cells[1] = life::ByteGrid<memory_space>(alloc("portasim::distributed::cells"), rows + 2, width);
  }
  impl::HaloExchange<ExecutionSpace, std::uint8_t> byte_halo(comm, rows, width, up, down,
                                                             options.device_aware_mpi);
  impl::HaloExchange<ExecutionSpace, std::uint64_t> word_halo(comm, rows, bits ? words : 1, up,
                                                              down, options.device_aware_mpi);
  int current = 0;

  // Output: this rank's rows as they go to the sink (row_bytes per row, packed on the device
  // when asked), gathered into whole grids on the root.
  const std::int64_t out_height = gathered ? config.height : rows;
  const std::int64_t row_bytes = config.packed_output ? width / 8 : width;
  const std::int64_t local_bytes = rows * row_bytes;
  Kokkos::View<std::uint8_t*, PinnedHostSpace<ExecutionSpace>> local_host(
      alloc_uninitialized("portasim::distributed::local_host"), record ? local_bytes : 0);
  life::WordGrid<memory_space> packed_output;  // the byte engine's generation, packed for the sink
  if (record && config.packed_output && !bits)
    packed_output = life::WordGrid<memory_space>(
        alloc_uninitialized("portasim::distributed::packed_output"), rows, words);
  std::vector<std::uint8_t> full(
      record && my_sink && gathered ? static_cast<std::size_t>(config.height * row_bytes) : 0);
  std::vector<std::uint8_t> chunk_data;
  std::vector<std::int64_t> numbers;
  std::vector<std::size_t> bytes_per_rank(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    bytes_per_rank[static_cast<std::size_t>(r)] =
        static_cast<std::size_t>(mpi::block_of(config.height, r, size).size() * row_bytes);

  life::RunStats stats;
  stats.first_generation = start_generation;
  stats.last_generation = config.steps;
  stats.cells = config.width * config.height;

  // The current generation appended to chunk_data.
  auto collect = [&](std::int64_t generation) {
    const auto t0 = clock::now();
    const auto interior = Kokkos::make_pair(std::int64_t(1), rows + 1);
    if (config.packed_output) {
      // Words of 64 cells, bit j = column 64k + j, are numpy.packbits(bitorder='little')
      // bytes on a little-endian host.
      Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, PinnedHostSpace<ExecutionSpace>,
                   Kokkos::MemoryUnmanaged>
          host_words(reinterpret_cast<std::uint64_t*>(local_host.data()), rows, words);
      if (bits) {
        Kokkos::deep_copy(exec, host_words,
                          Kokkos::subview(packed[current], interior, Kokkos::ALL));
      } else {
        life::pack_bits(exec, Kokkos::subview(cells[current], interior, Kokkos::ALL),
                        packed_output);
        Kokkos::deep_copy(exec, host_words, packed_output);
      }
    } else {
      // The bits engine unpacks into its one byte grid; the byte engine reads its current one.
      const auto& grid_cells = cells[bits ? 0 : current];
      if (bits) life::unpack_bits(exec, packed[current], grid_cells);
      Kokkos::deep_copy(
          exec,
          Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, PinnedHostSpace<ExecutionSpace>,
                       Kokkos::MemoryUnmanaged>(local_host.data(), rows, width),
          Kokkos::subview(grid_cells, interior, Kokkos::ALL));
    }
    exec.fence();
    const std::uint8_t* grid = local_host.data();
    if (gathered) {
      comm.gatherv(local_host.data(), static_cast<std::size_t>(local_bytes), full.data(),
                   bytes_per_rank);
      grid = full.data();
    }
    stats.copy_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    if (!my_sink) return;
    const std::size_t at = chunk_data.size();
    chunk_data.resize(at + static_cast<std::size_t>(out_height * row_bytes));
    std::memcpy(chunk_data.data() + at, grid, static_cast<std::size_t>(out_height * row_bytes));
    numbers.push_back(generation);
  };
  auto hand_over = [&](std::int64_t first, std::int64_t last) {
    if (my_sink && !numbers.empty()) {
      const auto t0 = clock::now();
      life::Chunk chunk{first,
                        last,
                        static_cast<std::int64_t>(numbers.size()),
                        numbers.data(),
                        chunk_data.data(),
                        out_height,
                        row_bytes,
                        config.packed_output};
      my_sink->write(chunk);
      stats.write_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    }
    numbers.clear();
    chunk_data.clear();
    // Ranks wait here for the writers, so that a rank's compute time never holds the root's
    // (or a slower rank's) writing through the next halo exchange; the wait counts as output.
    if (record) {
      const auto t0 = clock::now();
      comm.barrier();
      stats.write_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    }
  };

  exec.fence();
  comm.barrier();
  stats.setup_seconds = std::chrono::duration<double>(clock::now() - setup_began).count();
  const auto began = clock::now();
  if (start_generation == 0 && record) {
    collect(0);
    hand_over(0, 0);
  }
  std::int64_t generation = start_generation;
  while (generation < config.steps) {
    // Chunks aligned to multiples of chunk_size, as in life::run.
    const std::int64_t first = generation + 1;
    const std::int64_t last =
        std::min(config.steps, (generation / config.chunk_size + 1) * config.chunk_size);
    ProfilingRegion region("distributed life " + std::to_string(first) + "-" +
                           std::to_string(last));
    auto computing_since = clock::now();
    const auto stop_clock = [&] {
      exec.fence();
      stats.compute_seconds +=
          std::chrono::duration<double>(clock::now() - computing_since).count();
    };
    for (std::int64_t g = first; g <= last; ++g) {
      const int next = 1 - current;
      // Rows 2 .. rows - 1 read no ghost row: they are stepped while the halo travels; then
      // rows 1 and `rows`. Ghost rows are never written by a step (dead borders stay zero).
      const life::RowRange inner{2, std::max<std::int64_t>(2, rows)}, top{1, 2},
          bottom{rows, rows + 1};
      if (bits) {
        word_halo.begin(exec, packed[current].data());
        life::step_bits(exec, config.boundary, packed[current], packed[next], inner);
        word_halo.finish(exec, packed[current].data());
        life::step_bits(exec, config.boundary, packed[current], packed[next], top);
        if (rows >= 2)
          life::step_bits(exec, config.boundary, packed[current], packed[next], bottom);
      } else {
        byte_halo.begin(exec, cells[current].data());
        life::step_bytes(exec, config.boundary, cells[current], cells[next], inner);
        byte_halo.finish(exec, cells[current].data());
        life::step_bytes(exec, config.boundary, cells[current], cells[next], top);
        if (rows >= 2) life::step_bytes(exec, config.boundary, cells[current], cells[next], bottom);
      }
      current = next;
      if (record && g % config.every == 0) {
        stop_clock();
        collect(g);
        computing_since = clock::now();
      }
    }
    stop_clock();
    hand_over(first, last);
    ++stats.chunks;
    generation = last;
  }
  const std::int64_t local_population =
      bits ? life::population_of_words(
                 exec, Kokkos::subview(packed[current],
                                       Kokkos::make_pair(std::int64_t(1), rows + 1), Kokkos::ALL))
           : life::population_of_bytes(
                 exec, Kokkos::subview(cells[current], Kokkos::make_pair(std::int64_t(1), rows + 1),
                                       Kokkos::ALL));
  stats.final_population = comm.sum(local_population);
  stats.seconds = comm.max(std::chrono::duration<double>(clock::now() - began).count());
  stats.compute_seconds = comm.max(stats.compute_seconds);
  return stats;
}

}  // namespace portasim::distributed
