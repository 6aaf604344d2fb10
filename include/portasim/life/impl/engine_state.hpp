#pragma once
// The engine's state on one rank: two grids of bytes or of words, swapped after every pass.
// On one rank the grids are the whole grid, the kernels wrap a torus themselves and a pass
// may step two generations (life::advance_bits, advance_bytes). Over
// several ranks they hold this rank's rows with a ghost row above and below: each generation
// steps the rows that read no ghost row while the halo travels, then the two edge rows.
// Ghost rows are never written by a step, so a dead border's stay zero.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "portasim/core/mpi/communicator.hpp"
#include "portasim/life/engines.hpp"
#include "portasim/life/impl/halo_exchange.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life::impl {

template <class ExecutionSpace>
class EngineState {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using byte_slice = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using word_slice = Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  // `rows` x config.width cells of `initial` are this rank's rows.
  EngineState(const ExecutionSpace& exec, const mpi::Communicator& comm, const Config& config,
              const ByteGrid<memory_space>& initial, bool device_aware_mpi)
      : m_exec(exec), m_config(config), m_rows(static_cast<std::int64_t>(initial.extent(0))),
        m_ghost(comm.size() > 1 ? 1 : 0) {
    const std::int64_t height = m_rows + 2 * m_ghost, words = config.width / cells_per_word;
    // Ghost rows start (and a dead border's stay) zero; without them nothing is read before
    // it is written.
    if (bits()) {
      for (auto& w : m_words)
        w = allocate<WordGrid<memory_space>>("portasim::life::words", height, words);
      pack_bits(exec, initial, interior(m_words[0]));
    } else {
      for (auto& b : m_bytes)
        b = allocate<ByteGrid<memory_space>>("portasim::life::cells", height, config.width);
      Kokkos::deep_copy(exec, interior(m_bytes[0]), initial);
    }
    if (m_ghost) {
      const bool torus = config.boundary == Boundary::torus;
      const int rank = comm.rank(), size = comm.size();
      const int up = rank > 0 ? rank - 1 : (torus ? size - 1 : -1);
      const int down = rank < size - 1 ? rank + 1 : (torus ? 0 : -1);
      if (bits()) m_word_halo.emplace(comm, m_rows, words, up, down, device_aware_mpi);
      else m_byte_halo.emplace(comm, m_rows, config.width, up, down, device_aware_mpi);
    }
  }

  std::int64_t rows() const noexcept { return m_rows; }

  // `generations` generations. On one rank the whole grid advances as advance_bits and
  // advance_bytes choose (two generations per pass where that pays); over several ranks each
  // generation needs its halo, so they go one by one.
  void advance(std::int64_t generations) {
    if (m_ghost) {
      for (; generations > 0; --generations) step_around_halo();
    } else if (bits()) {
      advance_bits(m_exec, m_config.boundary, m_words[m_current], m_words[1 - m_current],
                   generations);
    } else {
      advance_bytes(m_exec, m_config.boundary, m_bytes[m_current], m_bytes[1 - m_current],
                    generations);
    }
  }

  // Writes this rank's rows of the current generation into `target` (rows x row_bytes
  // bytes in device memory), as cells or packed 8 per byte.
  void emit(std::uint8_t* target) const {
    const std::int64_t w = m_config.width;
    if (!m_config.packed_output) {
      byte_slice out(target, m_rows, w);
      if (bits()) unpack_bits(m_exec, interior(m_words[m_current]), out);
      else Kokkos::deep_copy(m_exec, out, interior(m_bytes[m_current]));
    } else {
      // Words of 64 cells, bit j = column 64k + j, are numpy.packbits(bitorder='little')
      // bytes on a little-endian host.
      word_slice out(reinterpret_cast<std::uint64_t*>(target), m_rows, w / cells_per_word);
      if (bits()) Kokkos::deep_copy(m_exec, out, interior(m_words[m_current]));
      else pack_bits(m_exec, interior(m_bytes[m_current]), out);
    }
  }

  void copy_to(const ByteGrid<memory_space>& grid) const {
    if (bits()) unpack_bits(m_exec, interior(m_words[m_current]), grid);
    else Kokkos::deep_copy(m_exec, grid, interior(m_bytes[m_current]));
  }

  // Live cells of this rank's rows.
  std::int64_t population() const {
    return bits() ? population_of_words(m_exec, interior(m_words[m_current]))
                  : population_of_bytes(m_exec, interior(m_bytes[m_current]));
  }

 private:
  bool bits() const noexcept { return m_config.engine == Engine::bits; }

  template <class Grid>
  Grid allocate(const char* label, std::int64_t height, std::int64_t width) const {
    Grid grid(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), height, width);
    if (m_ghost) Kokkos::deep_copy(m_exec, grid, typename Grid::value_type(0));
    return grid;
  }

  // This rank's rows of a grid, without the ghost rows.
  template <class Grid>
  auto interior(const Grid& grid) const {
    return Kokkos::subview(grid, Kokkos::make_pair(m_ghost, m_ghost + m_rows), Kokkos::ALL);
  }

  // One generation over several ranks: rows 2 .. rows - 1 read no ghost row and step while
  // the halo travels; rows 1 and `rows` wait for it.
  void step_around_halo() {
    const int next = 1 - m_current;
    const RowRange inner{2, std::max<std::int64_t>(2, m_rows)}, top{1, 2},
        bottom{m_rows, m_rows + 1};
    begin_halo();
    step_rows(next, inner);
    finish_halo();
    step_rows(next, top);
    if (m_rows >= 2) step_rows(next, bottom);
    m_current = next;
  }

  void step_rows(int next, RowRange range) {
    if (bits()) step_bits(m_exec, m_config.boundary, m_words[m_current], m_words[next], range);
    else step_bytes(m_exec, m_config.boundary, m_bytes[m_current], m_bytes[next], range);
  }
  void begin_halo() {
    if (bits()) m_word_halo->begin(m_exec, m_words[m_current].data());
    else m_byte_halo->begin(m_exec, m_bytes[m_current].data());
  }
  void finish_halo() {
    if (bits()) m_word_halo->finish(m_exec, m_words[m_current].data());
    else m_byte_halo->finish(m_exec, m_bytes[m_current].data());
  }

  ExecutionSpace m_exec;
  Config m_config;
  std::int64_t m_rows;
  std::int64_t m_ghost;  // ghost rows above and below: 1 over several ranks, else 0
  ByteGrid<memory_space> m_bytes[2];
  WordGrid<memory_space> m_words[2];
  std::optional<HaloExchange<ExecutionSpace, std::uint8_t>> m_byte_halo;
  std::optional<HaloExchange<ExecutionSpace, std::uint64_t>> m_word_halo;
  int m_current = 0;
};

}  // namespace portasim::life::impl
