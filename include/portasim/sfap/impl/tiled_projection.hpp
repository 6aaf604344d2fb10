#pragma once
// The projection of MyoGen's source on a device with psi formed tile by tile in team scratch:
// S[j, e, f] = sum_k IAP(k, j) h_e[k]. A team holds a tile of times of one fiber and a share of
// its points. For each chunk of rows its threads evaluate psi at the chunk's rows and at the
// rows their mirrors read, for every time of the tile; then form the source of each (row,
// time) once, each thread a run of rows at its time; then each thread adds the chunk into
// its time's sums for its block of electrodes. Neither psi nor the current density goes
// through device memory. docs/design/sfap-projection.md, rules 2 to 4.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// The point decisions that the points kernel stores per row, as bits.
enum RowFlag : std::uint8_t { row_long_on = 1, row_kept = 2, row_has_mirror = 4 };

KOKKOS_INLINE_FUNCTION std::uint8_t row_flags(const PointCoefficients& c) {
  return static_cast<std::uint8_t>((c.long_on ? row_long_on : 0) | (c.keep ? row_kept : 0) |
                                   (c.mirror >= 0 ? row_has_mirror : 0));
}

// A team's shape: `blocks` blocks of electrodes (at most 32, more go to further teams) by
// `times` consecutive times, times fastest so that a warp shares its rows and its block's h.
// A chunk has rows_per_block rows per block: each thread forms the source of that many rows.
struct TileShape {
  int blocks = 1, times = 32, rows_per_block = 8, block_width = 4;
  // With several blocks the team stages the chunk's h of its electrodes in scratch, where it
  // fits: each warp reads its own block's h, whose lines no other warp of the team brings to
  // the cache, so that from device memory every row would wait for the L2.
  bool stage_h = false;
  int team_size() const { return blocks * times; }
  int chunk_rows() const { return rows_per_block * blocks; }
  int h_columns() const { return blocks * block_width; }
  // The team's scratch: psi at the chunk's rows and at their mirrors, the source, and h.
  std::size_t scratch_doubles() const {
    return static_cast<std::size_t>(3 * chunk_rows() + 2) * static_cast<std::size_t>(times) +
           (stage_h ? static_cast<std::size_t>(chunk_rows() * h_columns()) : 0);
  }
};

// A warp of times (fewer with more than 8 blocks, so that a team has at most 256 threads):
// the team's rows are those of its last time, whose wave has gone furthest, and a tile of few
// times adds few rows that its earlier times' waves have not reached. The first that fits
// of: eight rows per block with h staged, four with h staged, eight, four; in the 48 KiB of
// shared memory a team gets without opting in, of which Kokkos keeps 8 (team size + 2) bytes
// for team reductions and each of the four scratch Views may take 8 more for alignment.
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
    return (s.scratch_doubles() + 4 + static_cast<std::size_t>(s.team_size() + 2)) *
               sizeof(double) <=
           shared_bytes;
  };
  for (const bool stage : {true, false})
    for (const int rows : {8, 4}) {
      s.stage_h = stage && s.blocks > 1;
      s.rows_per_block = rows;
      if (fits()) return s;
    }
  return s;  // four rows unstaged: at most 32 blocks of 8 times by 4 rows fit
}

// What the tiles read of a batch: the extended grids, the point decisions and the times.
template <class ExecutionSpace>
struct SourceTiles {
  using memory_space = typename ExecutionSpace::memory_space;
  Matrix<memory_space> zbuf;                                              // (nbatch, nzmax + 1)
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, memory_space> flags;  // (nbatch, nzmax)
  Kokkos::View<const double*, memory_space> t;
  double d1 = 96.0;
};

// MyoGen's source of row k = k0 + r from the chunk's psi values (current_density_from_psi):
// long(i) = psi(k0 + i) and mirrored(i) = psi(m_last + i), m_last the mirror of the chunk's
// last row, so that row r's mirror n_z - 1 - (k - shift) is m_last + rows - 1 - r. A wave
// that the chunk's rows cannot have (has_long, has_mirror false) is exactly 0.
template <class LongValues, class MirroredValues>
KOKKOS_INLINE_FUNCTION double source_of_row(const FiberGrid& g, std::uint8_t flags, int r, int rows,
                                            bool has_long, bool has_mirror,
                                            const LongValues& long_psi,
                                            const MirroredValues& mirrored_psi) {
  if (!(flags & row_kept)) return 0.0;
  const bool long_on = (flags & row_long_on) != 0, mirror = (flags & row_has_mirror) != 0;
  const double lw = long_on && has_long ? long_wave(g, long_psi(r + 1) - long_psi(r)) : 0.0;
  const double mw = mirror && has_mirror
                        ? long_wave(g, mirrored_psi(rows - r) - mirrored_psi(rows - 1 - r))
                        : 0.0;
  return current_density_from_waves(g, true, long_on, mirror, lw, mw);
}

// partial(s, j, e, fb) = sum over k in share s of IAP(k, j) h_e[k], k ascending, as
// project_batch sums it (the rows outside the window add exact zeros), then the shares in
// order; with one share the team writes S itself. The phases stay in one lambda, longer than
// the project's functions usually are: its speed follows its register allocation, which
// each restructuring so far has moved (design notes, rule 4).
template <class ExecutionSpace, int EC, bool StagedH>
void project_source_tiles_of_shape(
    const ExecutionSpace& exec, const SourceTiles<ExecutionSpace>& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  // At most 64 registers, so that four teams of up to 256 threads share a multiprocessor: the
  // loads of h and of the grid wait on memory, and more warps hide that (design notes).
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::LaunchBounds<256, 4>>;
  using member = typename team_policy::member_type;
  using scratch_tile =
      Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::scratch_memory_space,
                   Kokkos::MemoryUnmanaged>;
  const std::int64_t nt = S.extent(0), ne = S.extent(1);
  const std::int64_t blocks = (ne + EC - 1) / EC, shares = projection_shares(H.extent(1));
  const TileShape shape = tile_shape(blocks, EC);
  const int team_times = shape.times, chunk = shape.chunk_rows();
  const std::int64_t groups = (blocks + shape.blocks - 1) / shape.blocks;
  const std::int64_t tiles = (nt + team_times - 1) / team_times;
  const std::int64_t h_stride = static_cast<std::int64_t>(H.stride(1));
  // With one block the source of row r goes over psi(r) in the long tile, which no later row
  // of the thread's own column reads: the scratch of a source tile leaves room for more
  // teams.
  const int source_rows_in_scratch = shape.blocks > 1 ? chunk : 0;
  const std::size_t bytes = 2 * scratch_tile::shmem_size(chunk + 1, team_times) +
                            scratch_tile::shmem_size(source_rows_in_scratch, team_times) +
                            (StagedH ? scratch_tile::shmem_size(chunk, shape.h_columns()) : 0);
  const auto zbuf = source.zbuf;
  const auto flags = source.flags;
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
        // The rows with a source only grow as the wave advances, so the tile's last time
        // bounds every time's.
        const SourceRows wave_rows = source_rows(g, z, t(j_last));
        std::int64_t lo = 0, hi = -1;
        // The window by a second bisection rather than from `wave_rows`: this kernel's speed
        // follows its register allocation, which moves with such changes; each was measured
        // (docs/design/sfap-projection.md, rule 4).
        source_window(g, z, t(j_last), lo, hi);
        const std::int64_t share_lo = share * projection_share;
        // Rows as 32-bit indices into the fiber's rows (compute_in_batches checks the
        // grids' length), which keeps the kernel within its registers.
        const int k_lo = static_cast<int>(lo < share_lo ? share_lo : lo);
        const int k_hi = static_cast<int>(
            hi > share_lo + projection_share - 1 ? share_lo + projection_share - 1 : hi);
        const int long_lo = static_cast<int>(wave_rows.long_lo),
                  long_hi = static_cast<int>(wave_rows.long_hi);
        const int mirror_lo = static_cast<int>(wave_rows.mirror_lo),
                  mirror_hi = static_cast<int>(wave_rows.mirror_hi);
        const int n_z = static_cast<int>(g.n_z), shift = static_cast<int>(g.mirror_shift);
        const double* z_row = &zbuf(fb, 0);
        const std::uint8_t* flag_row = &flags(fb, 0);
        const scratch_tile long_tile(team.team_scratch(0), chunk + 1, team_times);
        const scratch_tile mirror_tile(team.team_scratch(0), chunk + 1, team_times);
        const scratch_tile source_tile(team.team_scratch(0), source_rows_in_scratch, team_times);
        // Without staging the kernel is the one it was before staging came, capturing nothing
        // more: its speed follows its register allocation and code (design notes, rule 4).
        scratch_tile h_tile;
        if (StagedH) h_tile = scratch_tile(team.team_scratch(0), chunk, shape.blocks * EC);
        // This thread's column of each tile: rows team_times apart.
        double* const long_column = &long_tile(0, lane);
        double* const mirror_column = &mirror_tile(0, lane);
        double* const source_column = shape.blocks > 1 ? source_tile.data() + lane : long_column;
        const auto long_psi = [&](int i) { return long_column[i * team_times]; };
        const auto mirrored_psi = [&](int i) { return mirror_column[i * team_times]; };
        const double tj = j >= 0 ? t(j) : t(j_last);
        // psi at this thread's time of rows outside the grid (never used) is taken at its ends.
        const auto psi_at = [&](int k) {
          const int inside = k < 0 ? 0 : (k > n_z ? n_z : k);
          return psi(g.right_longer, g.zi, g.v, tj, z_row[inside], d1);
        };
        // With one block a thread reads only what it wrote itself: no barriers.
        const auto barrier = [&]() {
          if (shape.blocks > 1) team.team_barrier();
        };
        double acc[EC];
        for (int e = 0; e < EC; ++e) acc[e] = 0;
        for (int k0 = k_lo; k0 <= k_hi; k0 += chunk) {
          const int k_end = k0 + chunk - 1;
          const bool has_long = k0 <= long_hi && k_end >= long_lo;
          const bool has_mirror = k0 <= mirror_hi && k_end >= mirror_lo;
          const int m_last = n_z - 1 - (k_end - shift);
          // psi at the chunk's rows and at its mirror rows, where the chunk reads them.
          PORTASIM_NO_UNROLL
          for (int i = block; i <= chunk; i += shape.blocks) {
            if (has_long) long_column[i * team_times] = psi_at(k0 + i);
            if (has_mirror) mirror_column[i * team_times] = psi_at(m_last + i);
          }
          barrier();
          // The chunk's h of the team's electrodes, after the barrier that every read of the
          // previous chunk's precedes.
          if (StagedH) {
            const int n = k_hi - k0 + 1 < chunk ? k_hi - k0 + 1 : chunk;
            const int columns = shape.blocks * EC;
            const std::int64_t team_e0 = group * shape.blocks * EC;
            for (int i = team.team_rank(); i < n * columns; i += team.team_size()) {
              const int r = i / columns, c = i % columns;
              if (team_e0 + c < static_cast<std::int64_t>(H.extent(2)))
                h_tile(r, c) = H(fb, k0 + r, team_e0 + c);
            }
          }
          // The source of this thread's run of rows, at its time (0 past k_hi).
          PORTASIM_NO_UNROLL
          for (int i = 0; i < shape.rows_per_block; ++i) {
            const int r = block * shape.rows_per_block + i;
            source_column[r * team_times] =
                k0 + r <= k_hi ? source_of_row(g, flag_row[k0 + r], r, chunk, has_long, has_mirror,
                                               long_psi, mirrored_psi)
                               : 0.0;
          }
          barrier();
          if (stores_sums) {
            const int n = k_hi - k0 + 1 < chunk ? k_hi - k0 + 1 : chunk;
            const double* a = source_column;  // rows team_times apart
            // Rows h_step apart, electrodes contiguous.
            const double* h = StagedH ? &h_tile(0, block * EC) : &H(fb, k0, e0);
            const std::int64_t h_step = StagedH ? shape.blocks * EC : h_stride;
            for (int r = 0; r < n; ++r, a += team_times, h += h_step)
              for (int e = 0; e < EC; ++e) acc[e] += *a * h[e];
          }
          // No barrier here: the next chunk writes the psi tiles, last read before the
          // barrier above, and the source tile only after its own first barrier.
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

// The projection for the team shape of the batch's electrodes, with h staged where the shape
// stages it.
template <class ExecutionSpace, int EC>
void project_source_tiles(
    const ExecutionSpace& exec, const SourceTiles<ExecutionSpace>& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  const std::int64_t blocks = (static_cast<std::int64_t>(S.extent(1)) + EC - 1) / EC;
  if (tile_shape(blocks, EC).stage_h)
    project_source_tiles_of_shape<ExecutionSpace, EC, true>(exec, source, H, grids, S, partial, f0,
                                                            nbatch, dz_weighted);
  else
    project_source_tiles_of_shape<ExecutionSpace, EC, false>(exec, source, H, grids, S, partial, f0,
                                                             nbatch, dz_weighted);
}

}  // namespace portasim::sfap::impl
