#pragma once
// The naive and tiled matmul kernels. Included by src/toolkit/matmul.cpp, which compiles
// them once per scalar, layout and execution space.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "portasim/core/compat.hpp"
#include "portasim/core/impl/backend_mma.hpp"

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
// 16 scratch loads), one team per SM, without spills in float or double (two float teams per
// SM, capped at 128 registers, spill). Double goes to the tensor cores where the backend has
// them (TiledMatmulMma): the SIMT kernel stays well below their rate. Register counts and
// rates: docs/design/matmul.md.
// Host: one thread a team, a 64 x 64 block of C that the compiler vectorizes along its
// rows, panels that stay in L1.
template <class Exec>
using SimtTileShape = std::conditional_t<
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible,
    TileShape<64, 64, 16, 64, 64>, TileShape<128, 128, 8, 8, 8>>;
// 128 x 64 tiles with 8 x 4 per thread, two teams per SM: for the benchmark's comparison.
template <class Exec>
using SimtTileShapeNarrow = std::conditional_t<
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible,
    TileShape<64, 64, 16, 64, 64>, TileShape<128, 64, 8, 8, 4, 2>>;

// Tensor-core tiles (double, where portasim::impl::WarpMmaF64<Exec>::available): a team of
// WarpsM x WarpsN warps computes BM x BN of C, each warp a (BM / WarpsM) x (BN / WarpsN)
// block as a grid of 8 x 8 MMA tiles, K in steps of 4.
template <int BM_, int BN_, int BK_, int WarpsM, int WarpsN, int MinTeams = 1>
struct MmaTileShape {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, warps_m = WarpsM, warps_n = WarpsN,
                       min_teams = MinTeams;
  static constexpr int warp_size = 32, team_size = warp_size * WarpsM * WarpsN;
  static constexpr int WM = BM / WarpsM, WN = BN / WarpsN;  // one warp's block of C
  static constexpr int MI = WM / 8, NJ = WN / 8;            // its 8 x 8 MMA tiles
  static_assert(BM % (8 * WarpsM) == 0 && BN % (8 * WarpsN) == 0 && BK % 4 == 0,
                "MMA tiles must fit the team tile");
};
// Large: 128 x 128 x 16, 2 x 4 warps of 64 x 32 (32 MMAs per 12 fragment loads; 64
// accumulators a thread, one team per SM, 37 KiB of scratch; at the register limit, with a
// small spill). Narrow: 128 x 64 x 16 with 2 x 2 warps of the same 64 x 32, two teams of 128
// threads per SM, so that one team computes while the other waits at a barrier (a third more
// global loads per flop; also at the register limit, with a spill). Small: 64 x 64 x 16 with
// 2 x 2 warps of 32 x 32, three teams per SM (registers capped at 168; twice the global loads
// per flop of Large).
using MmaTileShapeLarge = MmaTileShape<128, 128, 16, 2, 4>;
using MmaTileShapeNarrow = MmaTileShape<128, 64, 16, 2, 2, 2>;
using MmaTileShapeSmall = MmaTileShape<64, 64, 16, 2, 2, 3>;
// The default is the one measured fastest (docs/design/matmul.md): three teams per SM hide
// the barriers better than one big one.
using MmaTileShapeDefault = MmaTileShapeSmall;

// Element e of a BO x BK operand panel in global memory order (BO runs along the rows of A
// or the columns of B): consecutive e are contiguous in memory, so that consecutive threads'
// loads coalesce. DepthContiguous: a row-major A or a column-major B.
template <int BO, int BK, bool DepthContiguous>
KOKKOS_INLINE_FUNCTION void panel_slot(int e, int& o, int& d) {
  if (DepthContiguous) {
    o = e / BK;
    d = e % BK;
  } else {
    o = e % BO;
    d = e / BO;
  }
}

template <class Shape, class AView, class BView, class CView>
struct TiledMatmul {
  using Scalar = typename CView::non_const_value_type;
  static constexpr int BM = Shape::BM, BN = Shape::BN, BK = Shape::BK, TM = Shape::TM,
                       TN = Shape::TN;
  static constexpr int threads = Shape::team_size;
  // Padding of the scratch rows: the transposing stores of a row-major A panel (and a
  // column-major B panel) would otherwise hit one bank eight times over.
  static constexpr int pad = 4;
  static constexpr int a_ld = BM + pad, b_ld = BN + pad;
  static constexpr int a_per_thread = BM * BK / threads, b_per_thread = BK * BN / threads;
  static_assert(BM * BK % threads == 0 && BK * BN % threads == 0,
                "panels must split evenly over the team");
  static constexpr bool row_major = is_row_major<typename CView::array_layout>;

  AView a;
  BView b;
  CView c;
  int m, n, k, tiles_n;

  static std::size_t scratch_bytes() { return sizeof(Scalar) * BK * (a_ld + b_ld); }

  // Element l of this thread's share of the A panel: (row r, depth d) of the tile; of the B
  // panel: (depth d, column col). Consecutive threads walk the contiguous direction in memory.
  KOKKOS_INLINE_FUNCTION static void a_slot(int rank, int l, int& r, int& d) {
    panel_slot<BM, BK, row_major>(rank + l * threads, r, d);
  }
  KOKKOS_INLINE_FUNCTION static void b_slot(int rank, int l, int& d, int& col) {
    panel_slot<BN, BK, !row_major>(rank + l * threads, col, d);
  }

  // Global -> registers, zero outside the matrices (tails of M, N and K).
  KOKKOS_INLINE_FUNCTION void load_panels(int row0, int col0, int k0, int rank, Scalar* ra,
                                          Scalar* rb) const {
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
  KOKKOS_INLINE_FUNCTION static void store_panels(int rank, const Scalar* ra, const Scalar* rb,
                                                  Scalar* a_s, Scalar* b_s) {
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

// A panel of one operand in scratch: BO x BK, where BO runs along the rows of A or the
// columns of B. It is stored as it lies in global memory (depth-contiguous for a row-major A
// or a column-major B), so that the global loads coalesce and the scratch stores of a
// half-warp hit distinct banks; the row pitch of BO + 4 or BK + 4 doubles (4 or 12 mod 16)
// keeps the MMA fragment reads conflict-free too (lanes 4 apart in the fragment's row
// land 4 banks apart).
template <int BO, int BK, bool DepthContiguous>
struct ScratchPanel {
  static constexpr int pad = 4;
  static constexpr int ld = DepthContiguous ? BK + pad : BO + pad;
  static constexpr int size = DepthContiguous ? BO * ld : BK * ld;
  KOKKOS_INLINE_FUNCTION static int at(int o, int d) {
    return DepthContiguous ? o * ld + d : d * ld + o;
  }
  KOKKOS_INLINE_FUNCTION static void slot(int e, int& o, int& d) {
    panel_slot<BO, BK, DepthContiguous>(e, o, d);
  }
};

// The tiled kernel on the FP64 tensor cores (Mma: portasim::impl::WarpMmaF64<Exec>, its
// `available` true). Same pipeline as TiledMatmul: the next panels' global loads are in
// registers while this panel is multiplied; the team's thread grid is replaced by warps,
// each owning MI x NJ MMA tiles of C. Partial tiles: panels are zero-filled beyond M, N and
// K (bounds checks only on teams that touch an edge), and C is written within bounds.
// Every lane of every warp reaches every mma (no early exits: mma.sync needs whole warps).
template <class Shape, class Mma, class AView, class BView, class CView>
struct TiledMatmulMma {
  static_assert(std::is_same<typename CView::non_const_value_type, double>::value,
                "FP64 tensor-core kernel");
  using Fragment = portasim::impl::WarpMmaF64Layout;
  static constexpr int BM = Shape::BM, BN = Shape::BN, BK = Shape::BK, MI = Shape::MI,
                       NJ = Shape::NJ;
  static constexpr int threads = Shape::team_size;
  static constexpr bool row_major = is_row_major<typename CView::array_layout>;
  using APanel = ScratchPanel<BM, BK, row_major>;   // A(i, p): contiguous in p when row-major
  using BPanel = ScratchPanel<BN, BK, !row_major>;  // B(p, j): contiguous in p when column-major
  static constexpr int a_per_thread = BM * BK / threads, b_per_thread = BN * BK / threads;
  static_assert(BM * BK % threads == 0 && BK * BN % threads == 0,
                "panels must split evenly over the team");

  AView a;
  BView b;
  CView c;
  int m, n, k, tiles_n;

  static std::size_t scratch_bytes() { return sizeof(double) * (APanel::size + BPanel::size); }

  // Global -> registers; `inside`: the whole BM x BK and BK x BN panels lie in the matrices.
  KOKKOS_INLINE_FUNCTION void load_panels(int row0, int col0, int k0, int rank, bool inside,
                                          double* ra, double* rb) const {
    if (inside) {
      PORTASIM_UNROLL
      for (int l = 0; l < a_per_thread; ++l) {
        int o, d;
        APanel::slot(rank + l * threads, o, d);
        ra[l] = a(row0 + o, k0 + d);
      }
      PORTASIM_UNROLL
      for (int l = 0; l < b_per_thread; ++l) {
        int o, d;
        BPanel::slot(rank + l * threads, o, d);
        rb[l] = b(k0 + d, col0 + o);
      }
    } else {
      PORTASIM_UNROLL
      for (int l = 0; l < a_per_thread; ++l) {
        int o, d;
        APanel::slot(rank + l * threads, o, d);
        ra[l] = (row0 + o < m && k0 + d < k) ? a(row0 + o, k0 + d) : 0.0;
      }
      PORTASIM_UNROLL
      for (int l = 0; l < b_per_thread; ++l) {
        int o, d;
        BPanel::slot(rank + l * threads, o, d);
        rb[l] = (k0 + d < k && col0 + o < n) ? b(k0 + d, col0 + o) : 0.0;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION static void store_panels(int rank, const double* ra, const double* rb,
                                                  double* a_s, double* b_s) {
    PORTASIM_UNROLL
    for (int l = 0; l < a_per_thread; ++l) {
      int o, d;
      APanel::slot(rank + l * threads, o, d);
      a_s[APanel::at(o, d)] = ra[l];
    }
    PORTASIM_UNROLL
    for (int l = 0; l < b_per_thread; ++l) {
      int o, d;
      BPanel::slot(rank + l * threads, o, d);
      b_s[BPanel::at(o, d)] = rb[l];
    }
  }

  // Where a thread's warp block starts in the team tile, and its lane. Kokkos' CUDA teams
  // (vector length 1) number their threads in warp order.
  KOKKOS_INLINE_FUNCTION static void warp_origin(int rank, int& warp_row0, int& warp_col0,
                                                 int& lane) {
    const int warp = rank / Shape::warp_size;
    lane = rank % Shape::warp_size;
    warp_row0 = (warp / Shape::warps_n) * Shape::WM;
    warp_col0 = (warp % Shape::warps_n) * Shape::WN;
  }
  // The lane's fragments of MMA tile row mi (A) and column nj (B) at panel depth kk.
  KOKKOS_INLINE_FUNCTION static double a_fragment(const double* a_s, int warp_row0, int mi, int kk,
                                                  int lane) {
    return a_s[APanel::at(warp_row0 + 8 * mi + Fragment::a_row(lane), kk + Fragment::a_col(lane))];
  }
  KOKKOS_INLINE_FUNCTION static double b_fragment(const double* b_s, int warp_col0, int nj, int kk,
                                                  int lane) {
    return b_s[BPanel::at(warp_col0 + 8 * nj + Fragment::b_col(lane), kk + Fragment::b_row(lane))];
  }
  // Tile coordinates of accumulator (mi, nj, i) of a lane.
  KOKKOS_INLINE_FUNCTION static int c_row(int warp_row0, int mi, int lane) {
    return warp_row0 + 8 * mi + Fragment::d_row(lane);
  }
  KOKKOS_INLINE_FUNCTION static int c_col(int warp_col0, int nj, int lane, int i) {
    return warp_col0 + 8 * nj + Fragment::d_col(lane, i);
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int tile = team.league_rank();
    const int row0 = (tile / tiles_n) * BM;
    const int col0 = (tile % tiles_n) * BN;
    const int rank = team.team_rank();
    int warp_row0, warp_col0, lane;
    warp_origin(rank, warp_row0, warp_col0, lane);

    double* a_s = static_cast<double*>(team.team_shmem().get_shmem(sizeof(double) * APanel::size));
    double* b_s = static_cast<double*>(team.team_shmem().get_shmem(sizeof(double) * BPanel::size));

    double acc[MI][NJ][2];
    PORTASIM_UNROLL
    for (int i = 0; i < MI; ++i) {
      PORTASIM_UNROLL
      for (int j = 0; j < NJ; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;
    }
    const bool inside_mn = row0 + BM <= m && col0 + BN <= n;
    double ra[a_per_thread], rb[b_per_thread];
    load_panels(row0, col0, 0, rank, inside_mn && BK <= k, ra, rb);

    for (int k0 = 0; k0 < k; k0 += BK) {
      store_panels(rank, ra, rb, a_s, b_s);
      team.team_barrier();
      if (k0 + BK < k)
        load_panels(row0, col0, k0 + BK, rank, inside_mn && k0 + 2 * BK <= k, ra, rb);
      PORTASIM_UNROLL
      for (int kk = 0; kk < BK; kk += 4) {
        double af[MI], bf[NJ];
        PORTASIM_UNROLL
        for (int i = 0; i < MI; ++i) af[i] = a_fragment(a_s, warp_row0, i, kk, lane);
        PORTASIM_UNROLL
        for (int j = 0; j < NJ; ++j) bf[j] = b_fragment(b_s, warp_col0, j, kk, lane);
        PORTASIM_UNROLL
        for (int i = 0; i < MI; ++i) {
          PORTASIM_UNROLL
          for (int j = 0; j < NJ; ++j) Mma::mma(acc[i][j][0], acc[i][j][1], af[i], bf[j]);
        }
      }
      team.team_barrier();
    }

    PORTASIM_UNROLL
    for (int i = 0; i < MI; ++i) {
      const int row = row0 + c_row(warp_row0, i, lane);
      PORTASIM_UNROLL
      for (int j = 0; j < NJ; ++j) {
        PORTASIM_UNROLL
        for (int e = 0; e < 2; ++e) {
          const int col = col0 + c_col(warp_col0, j, lane, e);
          if (row < m && col < n) c(row, col) = acc[i][j][e];
        }
      }
    }
  }
};

}  // namespace portasim::toolkit::impl
