#pragma once
// The projection of MyoGen's source on a device, psi formed tile by tile in team scratch:
// S[j, e, f] = sum_i psi(i, j) W_e(i), with the source's differences, mirror rows and factors
// folded into the weights W (electrode_weights.hpp). A team holds a tile of times of one
// fiber and a share of its rows. For each chunk of rows its threads evaluate psi at every
// time of the tile into scratch, once per (row, time); then each thread adds the chunk into
// its time's sums for its block of electrodes. psi never goes through device memory.
// docs/design/sfap-projection.md, rules 2 to 4.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/sfap/impl/electrode_weights.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// A team's shape: `blocks` blocks of electrodes (at most 32, more go to further teams) by
// `times` consecutive times, times fastest so that a warp shares its rows and its block's
// weights. A chunk has rows_per_block rows per block: each thread evaluates psi at that many
// rows of its time.
struct TileShape {
  int blocks = 1, times = 32, rows_per_block = 8, block_width = 4;
  // With several blocks the team stages the chunk's weights of its electrodes in scratch,
  // where they fit: each warp reads its own block's, whose lines no other warp of the team
  // brings to the cache, so that from device memory every row would wait for the L2.
  bool stage_w = false;
  int team_size() const { return blocks * times; }
  int chunk_rows() const { return rows_per_block * blocks; }
  int w_columns() const { return blocks * block_width; }
  // The team's scratch: psi at the chunk's rows, and the weights.
  std::size_t scratch_doubles() const {
    return static_cast<std::size_t>(chunk_rows()) * static_cast<std::size_t>(times) +
           (stage_w ? static_cast<std::size_t>(chunk_rows() * w_columns()) : 0);
  }
};

// A warp of times (fewer with more than 8 blocks, so that a team has at most 256 threads):
// the team's rows are those of its last time, whose wave has gone furthest, and a tile of few
// times adds few rows that its earlier times' waves have not reached. The first that fits
// of: eight rows per block with the weights staged, four staged, eight, four; in the 48 KiB
// of shared memory a team gets without opting in, of which Kokkos keeps 8 (team size + 2)
// bytes for team reductions and each of the two scratch Views may take 8 more for alignment.
inline TileShape tile_shape(std::int64_t electrode_blocks, int block_width) {
  constexpr int max_blocks = 32;
  constexpr std::size_t shared_bytes = 48 * 1024;
  TileShape s;
  s.block_width = block_width;
  s.blocks = static_cast<int>(electrode_blocks < max_blocks ? electrode_blocks : max_blocks);
  int padded = 1;
  while (padded < s.blocks) padded *= 2;
  s.times = padded <= 8 ? 32 : 256 / padded;
  const auto fits = [&s]() {
    return (s.scratch_doubles() + 2 + static_cast<std::size_t>(s.team_size() + 2)) *
               sizeof(double) <=
           shared_bytes;
  };
  for (const bool stage : {true, false})
    for (const int rows : {8, 4}) {
      s.stage_w = stage && s.blocks > 1;
      s.rows_per_block = rows;
      if (fits()) return s;
    }
  return s;  // four rows unstaged: at most 32 blocks of 8 times by 4 rows fit
}

// What the tiles read of a batch: the extended grids and the times.
template <class ExecutionSpace>
struct PsiTiles {
  using memory_space = typename ExecutionSpace::memory_space;
  Matrix<memory_space> zbuf;  // (nbatch, nzmax + 1)
  Kokkos::View<const double*, memory_space> t;
  double d1 = 96.0;
};

template <class MemorySpace>
using BatchWeights = Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace>;

// partial(s, j, e, fb) = sum over the rows i of share s of psi(i, j) W_e(i), i ascending,
// then the shares in order; with one share the team writes S itself. The phases stay in one
// lambda, longer than the project's functions usually are, within the 64 registers that the
// occupancy needs (design notes, rule 4).
template <class ExecutionSpace, int EC, bool StagedW>
void project_psi_tiles_of_shape(
    const ExecutionSpace& exec, const PsiTiles<ExecutionSpace>& source,
    const BatchWeights<typename ExecutionSpace::memory_space>& W,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  // At most 64 registers, so that four teams of up to 256 threads share a multiprocessor: the
  // loads of the weights and of the grid wait on memory, and more warps hide that.
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<256, 4>>;
  using member = typename team_policy::member_type;
  using scratch_tile =
      Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::scratch_memory_space,
                   Kokkos::MemoryUnmanaged>;
  const std::int64_t nt = S.extent(0), ne = S.extent(1), ne_padded = W.extent(2);
  const std::int64_t blocks = (ne + EC - 1) / EC, shares = projection_shares(W.extent(1));
  const TileShape shape = tile_shape(blocks, EC);
  const int team_times = shape.times, chunk = shape.chunk_rows(), w_columns = shape.w_columns();
  const std::int64_t groups = (blocks + shape.blocks - 1) / shape.blocks;
  const std::int64_t tiles = (nt + team_times - 1) / team_times;
  const std::int64_t w_stride = static_cast<std::int64_t>(W.stride(1));
  const std::size_t bytes = scratch_tile::shmem_size(chunk, team_times) +
                            (StagedW ? scratch_tile::shmem_size(chunk, w_columns) : 0);
  const auto zbuf = source.zbuf;
  const auto t = source.t;
  const double d1 = source.d1;
  Kokkos::parallel_for(
      "portasim::sfap::project_tiles",
      team_policy(exec, static_cast<int>(nbatch * shares * tiles * groups), shape.team_size())
          .set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        std::int64_t rank = team.league_rank();
        const std::int64_t group = rank % groups;
        rank /= groups;
        const std::int64_t tile = rank % tiles;
        rank /= tiles;
        const std::int64_t share = rank % shares, fb = rank / shares, f = f0 + fb;
        const int lane = team.team_rank() % team_times, block = team.team_rank() / team_times;
        // Tiles end at the last time, so that a tile short of times is the first, whose
        // rows are the fewest: a tile's cost follows its last time's rows.
        const std::int64_t j_last = nt - 1 - (tiles - 1 - tile) * team_times;
        const std::int64_t j = j_last - (team_times - 1) + lane;
        const std::int64_t e0 = (group * shape.blocks + block) * EC;
        const bool stores_sums = j >= 0 && e0 < ne;  // this thread has sums to add and store
        const FiberGrid g = grids(f);
        const BatchRowZ<MemorySpace> z{zbuf, fb};
        // The rows with a weight and a wave only grow as the wave advances, so the tile's last
        // time bounds every time's.
        std::int64_t lo = 0, hi = -1;
        psi_window(source_rows(g, z, t(j_last)), g.n_z, lo, hi);
        const std::int64_t share_lo = share * projection_share;
        // Rows as 32-bit indices into the fiber's rows (compute_in_batches checks the
        // grids' length), which keeps the kernel within its registers.
        const int k_lo = static_cast<int>(lo < share_lo ? share_lo : lo);
        const int k_hi = static_cast<int>(
            hi > share_lo + projection_share - 1 ? share_lo + projection_share - 1 : hi);
        const double* z_row = &zbuf(fb, 0);
        const scratch_tile psi_tile(team.team_scratch(0), chunk, team_times);
        scratch_tile w_tile;
        if (StagedW) w_tile = scratch_tile(team.team_scratch(0), chunk, w_columns);
        // This thread's column of the psi tile: rows team_times apart.
        double* const psi_column = &psi_tile(0, lane);
        const double tj = j >= 0 ? t(j) : t(j_last);
        // With one block a thread reads only what it wrote itself: no barriers.
        const auto barrier = [&]() {
          if (shape.blocks > 1) team.team_barrier();
        };
        double acc[EC];
        for (int e = 0; e < EC; ++e) acc[e] = 0;
        for (int k0 = k_lo; k0 <= k_hi; k0 += chunk) {
          const int n = k_hi - k0 + 1 < chunk ? k_hi - k0 + 1 : chunk;
          PORTASIM_NO_UNROLL
          for (int i = block; i < n; i += shape.blocks)
            psi_column[i * team_times] = psi(g.right_longer, g.zi, g.v, tj, z_row[k0 + i], d1);
          if (StagedW) {
            const std::int64_t team_e0 = group * w_columns;
            for (int i = team.team_rank(); i < n * w_columns; i += team.team_size()) {
              const int r = i / w_columns, c = i % w_columns;
              if (team_e0 + c < ne_padded) w_tile(r, c) = W(fb, k0 + r, team_e0 + c);
            }
          }
          barrier();
          if (stores_sums) {
            const double* a = psi_column;  // rows team_times apart
            // Rows w_step apart, electrodes contiguous.
            const double* w = StagedW ? &w_tile(0, block * EC) : &W(fb, k0, e0);
            const std::int64_t w_step = StagedW ? w_columns : w_stride;
            for (int r = 0; r < n; ++r, a += team_times, w += w_step)
              for (int e = 0; e < EC; ++e) acc[e] += *a * w[e];
          }
          // The next chunk overwrites the tiles that this one's sums read.
          barrier();
        }
        if (!stores_sums) return;
        const double weight = dz_weighted ? g.dz_hat : 1.0;
        for (int e = 0; e < EC; ++e) {
          if (e0 + e >= ne) continue;
          if (shares == 1) S(j, e0 + e, f) = weight == 1.0 ? acc[e] : acc[e] * weight;
          else partial(((share * nt + j) * ne + e0 + e) * nbatch + fb) = acc[e];
        }
      });
  if (shares > 1) add_shares(exec, grids, S, partial, f0, nbatch, shares, dz_weighted);
}

// The projection for the team shape of the batch's electrodes, with the weights staged where
// the shape stages them.
template <class ExecutionSpace, int EC>
void project_psi_tiles(
    const ExecutionSpace& exec, const PsiTiles<ExecutionSpace>& source,
    const BatchWeights<typename ExecutionSpace::memory_space>& W,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  const std::int64_t blocks = (static_cast<std::int64_t>(S.extent(1)) + EC - 1) / EC;
  if (tile_shape(blocks, EC).stage_w)
    project_psi_tiles_of_shape<ExecutionSpace, EC, true>(exec, source, W, grids, S, partial, f0,
                                                         nbatch, dz_weighted);
  else
    project_psi_tiles_of_shape<ExecutionSpace, EC, false>(exec, source, W, grids, S, partial, f0,
                                                          nbatch, dz_weighted);
}

}  // namespace portasim::sfap::impl
