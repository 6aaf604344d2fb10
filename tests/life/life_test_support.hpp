#pragma once
// A host reference for B3/S23 written the way the Python tool does it (sum of the eight
// np.roll-ed copies on a torus; zero padding for a dead border), and helpers to run the
// device engines on host grids.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include "portasim/core/counter_rng.hpp"
#include "portasim/life/engines.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::testing {

inline life::HostGrid reference_step(const life::HostGrid& g, life::Boundary boundary) {
  life::HostGrid next = g;
  for (std::int64_t y = 0; y < g.height; ++y)
    for (std::int64_t x = 0; x < g.width; ++x) {
      int n = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dy == 0 && dx == 0) continue;
          std::int64_t yy = y + dy, xx = x + dx;
          if (boundary == life::Boundary::torus) {
            yy = ((yy % g.height) + g.height) % g.height;
            xx = ((xx % g.width) + g.width) % g.width;
          } else if (yy < 0 || yy >= g.height || xx < 0 || xx >= g.width) {
            continue;
          }
          n += g.at(yy, xx);
        }
      next.cells[static_cast<std::size_t>(y * g.width + x)] =
          (n == 3 || (g.at(y, x) && n == 2)) ? 1 : 0;
    }
  return next;
}

inline life::HostGrid random_host_grid(std::int64_t height, std::int64_t width, double density,
                                       std::uint64_t seed) {
  life::HostGrid g;
  g.height = height;
  g.width = width;
  g.cells.resize(static_cast<std::size_t>(height * width));
  for (std::size_t i = 0; i < g.cells.size(); ++i)
    g.cells[i] = counter_uniform(seed, 0, i) < density;
  return g;
}

template <class MemorySpace>
life::ByteGrid<MemorySpace> to_device(const life::HostGrid& g) {
  life::ByteGrid<MemorySpace> grid("grid", g.height, g.width);
  auto host = Kokkos::create_mirror_view(grid);
  for (std::int64_t y = 0; y < g.height; ++y)
    for (std::int64_t x = 0; x < g.width; ++x) host(y, x) = g.at(y, x);
  Kokkos::deep_copy(grid, host);
  return grid;
}

template <class View>
life::HostGrid to_host_grid(const View& grid) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grid);
  life::HostGrid g;
  g.height = static_cast<std::int64_t>(grid.extent(0));
  g.width = static_cast<std::int64_t>(grid.extent(1));
  for (std::int64_t y = 0; y < g.height; ++y)
    for (std::int64_t x = 0; x < g.width; ++x) g.cells.push_back(host(y, x));
  return g;
}

// Runs `generations` steps of an engine on the device and returns the final grid; with
// `parts`, every generation is stepped one row range after the other.
template <class Exec>
life::HostGrid run_engine(const life::HostGrid& start, life::Engine engine, life::Boundary boundary,
                          int generations,
                          const std::vector<life::RowRange>& parts = {life::RowRange{}}) {
  using memory = typename Exec::memory_space;
  Exec exec;
  auto a = to_device<memory>(start);
  life::ByteGrid<memory> b("b", start.height, start.width);
  if (engine == life::Engine::bytes) {
    for (int g = 0; g < generations; ++g) {
      for (const auto& rows : parts) life::step_bytes(exec, boundary, a, b, rows);
      std::swap(a, b);
    }
    exec.fence();
    return to_host_grid(a);
  }
  life::WordGrid<memory> wa("wa", start.height, start.width / 64),
      wb("wb", start.height, start.width / 64);
  life::pack_bits(exec, a, wa);
  for (int g = 0; g < generations; ++g) {
    for (const auto& rows : parts) life::step_bits(exec, boundary, wa, wb, rows);
    std::swap(wa, wb);
  }
  life::unpack_bits(exec, wa, b);
  exec.fence();
  return to_host_grid(b);
}

// Advances an engine's grid by `generations` in one call of life::advance_bytes or
// advance_bits, which step pairs of generations in one pass.
template <class Exec>
life::HostGrid advance_engine(const life::HostGrid& start, life::Engine engine,
                              life::Boundary boundary, std::int64_t generations,
                              life::GenerationsPerPass per_pass) {
  using memory = typename Exec::memory_space;
  Exec exec;
  auto a = to_device<memory>(start);
  life::ByteGrid<memory> b("b", start.height, start.width);
  if (engine == life::Engine::bytes) {
    life::advance_bytes(exec, boundary, a, b, generations, per_pass);
    exec.fence();
    return to_host_grid(a);
  }
  life::WordGrid<memory> wa("wa", start.height, start.width / 64),
      wb("wb", start.height, start.width / 64);
  life::pack_bits(exec, a, wa);
  life::advance_bits(exec, boundary, wa, wb, generations, per_pass);
  life::unpack_bits(exec, wa, b);
  exec.fence();
  return to_host_grid(b);
}

// Keeps every handed-over generation (unpacked) in memory.
class ChunksInMemory : public life::ChunkSink {
 public:
  void write(const life::Chunk& chunk) override {
    ++chunks;
    firsts.push_back(chunk.first_generation);
    lasts.push_back(chunk.last_generation);
    const std::int64_t grid_bytes = chunk.height * chunk.row_bytes;
    for (std::int64_t i = 0; i < chunk.count; ++i) {
      generations.push_back(chunk.generations[i]);
      const std::uint8_t* g = chunk.data + i * grid_bytes;
      std::vector<std::uint8_t> cells;
      if (!chunk.packed) {
        cells.assign(g, g + grid_bytes);
      } else {
        for (std::int64_t b = 0; b < grid_bytes; ++b)
          for (int bit = 0; bit < 8; ++bit)
            cells.push_back((g[b] >> bit) & 1u);  // bitorder 'little'
      }
      grids.push_back(cells);
    }
  }
  int chunks = 0;
  std::vector<std::int64_t> firsts, lasts, generations;
  std::vector<std::vector<std::uint8_t>> grids;
};

}  // namespace portasim::testing
