#pragma once
// The naive and tiled matmul kernels. Included by src/toolkit/matmul.cpp, which compiles
// them once per scalar, layout and execution space.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "portasim/core/compat.hpp"

namespace portasim::toolkit::impl {

template <class Layout>
constexpr bool is_row_major = std::is_same<Layout, Kokkos::LayoutRight>::value;

// One thread per element of C. Consecutive threads take consecutive elements of C in its
// memory order, so that the stores of C and the loads of B (row-major) or A (column-major)
// coalesce while the other operand is a broadcast.
template <class AView, class BView, class CView>
struct NaiveMatmul {
  using Scalar = typename CView::non_const_value_type;
  AView a;
  BView b;
  CView c;
  int m, n, k;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    int i, j;
    if (is_row_major<typename CView::array_layout>) {
      i = static_cast<int>(index / n);
      j = static_cast<int>(index - static_cast<std::int64_t>(i) * n);
    } else {
      j = static_cast<int>(index / m);
      i = static_cast<int>(index - static_cast<std::int64_t>(j) * m);
    }
    Scalar sum = 0;
    for (int p = 0; p < k; ++p) sum += a(i, p) * b(p, j);
    c(i, j) = sum;
  }
};

// Team tile of C: BM x BN, K panels BK deep; each of the (BM/TM) x (BN/TN) threads of a
// team owns TM x TN elements of C, strided by the thread grid so that neighbouring threads
// hold neighbouring elements (coalesced stores, conflict-free scratch reads).
// min_teams: teams per SM the GPU compiler must leave room for (launch bounds), which caps
// the registers a thread may use at 65536 / (team_size * min_teams).
template <int BM_, int BN_, int BK_, int TM_, int TN_, int MinTeams = 1>
struct TileShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, min_teams = MinTeams;
  static constexpr int thread_rows = BM / TM, thread_cols = BN / TN;
  static constexpr int team_size = thread_rows * thread_cols;
  static_assert(BM % TM == 0 && BN % TN == 0, "tile must split evenly into thread blocks");
};

// GPU: 256 threads with 8 x 8 accumulators each (the classic SIMT GEMM shape: 64 FMAs per
// 16 scratch loads). ptxas (sm_90): 234 registers in double (128 of them accumulators),
// 137 in float, no spills; one team per SM either way. (Two float teams per SM, capped at
// 128 registers, spill a little.) Host: one thread a team, a 64 x 64 block of C that the
// compiler vectorizes along its rows, panels that stay in L1.
// Other GPU shapes, compiled for double only, for the benchmark's sweep
// (matmul_tiled_variant): 1 = deeper panels (half the barriers; ptxas: 255 registers and
// a few spills), 2 = 128 x 64 tiles with 8 x 4 per thread, two teams per SM.
template <class Exec, class Scalar, int Variant = 0>
using TileShapeFor = std::conditional_t<
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible,
    TileShape<64, 64, 16, 64, 64>,
    std::conditional_t<
        Variant == 1, TileShape<128, 128, 16, 8, 8>,
        std::conditional_t<Variant == 2, TileShape<128, 64, 8, 8, 4, 2>,
                           TileShape<128, 128, 8, 8, 8>>>>;

template <class Shape, class AView, class BView, class CView>
struct TiledMatmul {
  using Scalar = typename CView::non_const_value_type;
  static constexpr int BM = Shape::BM, BN = Shape::BN, BK = Shape::BK, TM = Shape::TM, TN = Shape::TN;
  static constexpr int threads = Shape::team_size;
  // Padding of the scratch rows: the transposing stores of a row-major A panel (and a
  // column-major B panel) would otherwise hit one bank eight times over.
  static constexpr int pad = 4;
  static constexpr int a_ld = BM + pad, b_ld = BN + pad;
  static constexpr int a_per_thread = BM * BK / threads, b_per_thread = BK * BN / threads;
  static_assert(BM * BK % threads == 0 && BK * BN % threads == 0, "panels must split evenly over the team");
  static constexpr bool row_major = is_row_major<typename CView::array_layout>;

  AView a;
  BView b;
  CView c;
  int m, n, k, tiles_n;

  static std::size_t scratch_bytes() { return sizeof(Scalar) * BK * (a_ld + b_ld); }

  // Element l of this thread's share of the A panel: (row r, depth d) of the tile.
  // Consecutive threads walk the contiguous direction of A in memory.
  KOKKOS_INLINE_FUNCTION static void a_slot(int rank, int l, int& r, int& d) {
    const int index = rank + l * threads;
    if (row_major) {
      r = index / BK;
      d = index % BK;
    } else {
      r = index % BM;
      d = index / BM;
    }
  }
  KOKKOS_INLINE_FUNCTION static void b_slot(int rank, int l, int& d, int& col) {
    const int index = rank + l * threads;
    if (row_major) {
      col = index % BN;
      d = index / BN;
    } else {
      col = index / BK;
      d = index % BK;
    }
  }

  // Global -> registers, zero outside the matrices (tails of M, N and K).
  KOKKOS_INLINE_FUNCTION void load_panels(int row0, int col0, int k0, int rank, Scalar* ra, Scalar* rb) const {
    PORTASIM_UNROLL
    for (int l = 0; l < a_per_thread; ++l) {
      int r, d;
      a_slot(rank, l, r, d);
      ra[l] = (row0 + r < m && k0 + d < k) ? a(row0 + r, k0 + d) : Scalar(0);
    }
    PORTASIM_UNROLL
    for (int l = 0; l < b_per_thread; ++l) {
      int d, col;
      b_slot(rank, l, d, col);
      rb[l] = (k0 + d < k && col0 + col < n) ? b(k0 + d, col0 + col) : Scalar(0);
    }
  }

  // Registers -> scratch, both panels depth-major: a_s[d][r], b_s[d][col].
  KOKKOS_INLINE_FUNCTION static void store_panels(int rank, const Scalar* ra, const Scalar* rb, Scalar* a_s, Scalar* b_s) {
    PORTASIM_UNROLL
    for (int l = 0; l < a_per_thread; ++l) {
      int r, d;
      a_slot(rank, l, r, d);
      a_s[d * a_ld + r] = ra[l];
    }
    PORTASIM_UNROLL
    for (int l = 0; l < b_per_thread; ++l) {
      int d, col;
      b_slot(rank, l, d, col);
      b_s[d * b_ld + col] = rb[l];
    }
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int tile = team.league_rank();
    const int row0 = (tile / tiles_n) * BM;
    const int col0 = (tile % tiles_n) * BN;
    const int rank = team.team_rank();
    // The thread grid runs along C's contiguous direction first.
    const int ty = row_major ? rank / Shape::thread_cols : rank % Shape::thread_rows;
    const int tx = row_major ? rank % Shape::thread_cols : rank / Shape::thread_rows;

    Scalar* a_s = static_cast<Scalar*>(team.team_shmem().get_shmem(sizeof(Scalar) * BK * a_ld));
    Scalar* b_s = static_cast<Scalar*>(team.team_shmem().get_shmem(sizeof(Scalar) * BK * b_ld));

    Scalar acc[TM][TN];
    PORTASIM_UNROLL
    for (int i = 0; i < TM; ++i) {
      PORTASIM_UNROLL
      for (int j = 0; j < TN; ++j) acc[i][j] = Scalar(0);
    }
    Scalar ra[a_per_thread], rb[b_per_thread];
    load_panels(row0, col0, 0, rank, ra, rb);

    for (int k0 = 0; k0 < k; k0 += BK) {
      store_panels(rank, ra, rb, a_s, b_s);
      team.team_barrier();
      // The next panels' global loads are in flight while this panel is multiplied.
      if (k0 + BK < k) load_panels(row0, col0, k0 + BK, rank, ra, rb);
      PORTASIM_UNROLL
      for (int d = 0; d < BK; ++d) {
        Scalar af[TM], bf[TN];
        PORTASIM_UNROLL
        for (int i = 0; i < TM; ++i) af[i] = a_s[d * a_ld + ty + i * Shape::thread_rows];
        PORTASIM_UNROLL
        for (int j = 0; j < TN; ++j) bf[j] = b_s[d * b_ld + tx + j * Shape::thread_cols];
        PORTASIM_UNROLL
        for (int i = 0; i < TM; ++i) {
          PORTASIM_UNROLL
          for (int j = 0; j < TN; ++j) acc[i][j] += af[i] * bf[j];
        }
      }
      team.team_barrier();
    }

    PORTASIM_UNROLL
    for (int i = 0; i < TM; ++i) {
      const int row = row0 + ty + i * Shape::thread_rows;
      PORTASIM_UNROLL
      for (int j = 0; j < TN; ++j) {
        const int col = col0 + tx + j * Shape::thread_cols;
        if (row < m && col < n) c(row, col) = acc[i][j];
      }
    }
  }
};

}  // namespace portasim::toolkit::impl
