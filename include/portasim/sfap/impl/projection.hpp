#pragma once
// The projection of a batch of fibers on a device from a current-density buffer (the
// corrected source): S[j, e, f] = sum_k source(j, k) h_e[k], one team per (fiber, block of
// electrodes, share of the points), threads over time, k summed in ascending order within a
// share and the shares' partial sums added in order. Also what every device projection
// shares: the rows where the wave can be, the blocks of electrodes and the shares.
// MyoGen's source is projected by tiled_projection.hpp; host spaces run one fiber at a time
// (host_kernels.hpp).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "portasim/core/compat.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

template <class MemorySpace>
using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace>;

// Row fb of the batch's extended grids, as z(k).
template <class MemorySpace>
struct BatchRowZ {
  Matrix<MemorySpace> zbuf;
  std::int64_t fb;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return zbuf(fb, k); }
};

// Number of the points z(0..n-1) (ascending) below `value` (strictly, or <= if `inclusive`).
template <class ZValues>
KOKKOS_INLINE_FUNCTION std::int64_t count_below(const ZValues& z, std::int64_t n, double value,
                                                bool inclusive) {
  std::int64_t lo = 0, hi = n;  // answer in [lo, hi]
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    const double zm = z(mid);
    if (zm < value || (inclusive && zm == value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The rows k of fiber g (extended grid z(0..n_z)) whose long wave LW(k) = psi(k + 1) - psi(k)
// can be non-zero at time t; the short wave copies LW at mirror rows, so these bound
// MyoGen's whole source (psi_window). psi vanishes ahead of the wave front (x <= 0), so LW
// vanishes there. The front is located by bisection on the grid with a margin of two
// points, which covers any rounding difference (a few ulps) between this location and psi's
// own x > 0 test. The range is not clipped to the grid.
struct SourceRows {
  std::int64_t long_lo, long_hi;
};

template <class ZValues>
KOKKOS_INLINE_FUNCTION SourceRows source_rows(const FiberGrid& g, const ZValues& z, double t) {
  const std::int64_t nz = g.n_z, kzi = g.n_left - 1;
  SourceRows r;
  if (g.right_longer) {
    // psi(k) = 0 for k >= kf (z_k at or beyond zi + v t)
    std::int64_t kf = count_below(z, nz + 1, g.zi + g.v * t, false) + 2;
    if (kf > nz + 1) kf = nz + 1;
    r.long_lo = kzi + 1;  // LW: z_k > zi and k < kf
    r.long_hi = kf - 1;
  } else {
    // psi(k) = 0 for k < kb (z_k at or before zi - v t)
    std::int64_t kb = count_below(z, nz + 1, g.zi - g.v * t, true) - 2;
    if (kb < 0) kb = 0;
    r.long_lo = kb - 1;  // LW: z_k < zi and k + 1 >= kb
    r.long_hi = kzi - 1;
  }
  return r;
}

// The source of row k at time j, read from the current-density buffer (nt x nbatch nzmax).
template <class ExecutionSpace>
struct SourceFromBuffer {
  Kokkos::View<double**, typename ExecutionSpace::array_layout,
               typename ExecutionSpace::memory_space>
      iap;
  std::int64_t nzmax = 0;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t j, std::int64_t fb, std::int64_t k) const {
    return iap(j, fb * nzmax + k);
  }
};

// Electrodes per projection team: blocks of at most 4 (many small teams fill a device's SMs;
// one block of 32 per fiber leaves too few teams for a batch of a few hundred), evenly filled
// and rounded up to a power of two (25 -> 7 x 4), so that few kernels are compiled. Padded
// electrodes have h = 0 and are never stored; the sum over k per electrode does not depend on
// the width, so results are bit-identical for every width.
inline int electrode_block(std::int64_t ne) {
  constexpr std::int64_t max_block = 4;
  const std::int64_t nblocks = (ne + max_block - 1) / max_block;
  const std::int64_t per_block = (ne + nblocks - 1) / nblocks;
  int ec = 1;
  while (ec < per_block) ec *= 2;
  return ec;
}

// f(std::integral_constant<int, EC>{}) for a block width of electrode_block (1, 2 or 4): the
// projection kernels take the width as a template argument, so that a thread's sums stay in
// registers.
template <class F>
void with_block_width(int ec, const F& f) {
  switch (ec) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    default: f(std::integral_constant<int, 4>{}); break;
  }
}

// Points per team's share of a fiber's sum over k. A team per (fiber, block of electrodes)
// alone gives a batch of a few hundred long fibers with one block of electrodes too few
// threads to hide its loads. The shares depend only on the point index, so a fiber's sums
// are the same whatever batch or block of fibers it is in (the MPI runs compare them bit for
// bit); empty shares add an exact 0. A batch whose longest fiber has fewer points than a
// share takes one team per block, which writes S itself: no partials and no second pass.
inline constexpr std::int64_t projection_share = 1024;

inline std::int64_t projection_shares(std::int64_t nzmax) {
  return (nzmax + projection_share - 1) / projection_share;
}

// S(j, e, f0 + fb) = weight * (the partials of (j, e, fb) added in share order).
template <class ExecutionSpace>
void add_shares(
    const ExecutionSpace& exec,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, std::int64_t shares, bool dz_weighted) {
  const std::int64_t nt = S.extent(0), ne = S.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::project_shares",
      Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nt * ne * nbatch),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t fb = i % nbatch, e = (i / nbatch) % ne, j = i / (nbatch * ne);
        double sum = 0;
        for (std::int64_t s = 0; s < shares; ++s) sum += partial(s * nt * ne * nbatch + i);
        const double weight = dz_weighted ? grids(f0 + fb).dz_hat : 1.0;
        S(j, e, f0 + fb) = weight == 1.0 ? sum : sum * weight;
      });
}

// partial(s, j, e, fb) = sum over k in share s of source(j, k) h_e[k], k ascending; then
// S(j, e, f0 + fb) = weight * (the partials added in share order). With one share the team
// writes S itself. `partial` holds shares x nt x ne x nbatch values (unused with one).
// A thread sums `times_per_thread` (JT) times spread evenly over the series, so that each
// load of h serves JT of them.
template <class ExecutionSpace, int EC>
void project_batch(
    const ExecutionSpace& exec, const SourceFromBuffer<ExecutionSpace>& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  constexpr int JT = 4;
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  const std::int64_t nt = S.extent(0), ne = S.extent(1);
  const std::int64_t nchunks = (ne + EC - 1) / EC, shares = projection_shares(H.extent(1));
  const std::int64_t rows = (nt + JT - 1) / JT;
  Kokkos::parallel_for(
      "portasim::sfap::project",
      team_policy(exec, static_cast<int>(nbatch * nchunks * shares), Kokkos::AUTO),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t share = team.league_rank() % shares, block = team.league_rank() / shares;
        const std::int64_t fb = block / nchunks, chunk = block % nchunks;
        const std::int64_t f = f0 + fb, e0 = chunk * EC;
        const FiberGrid& g = grids(f);
        const double weight = dz_weighted ? g.dz_hat : 1.0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const std::int64_t row) {
          double acc[JT][EC];
          std::int64_t j[JT];
          PORTASIM_UNROLL
          for (int q = 0; q < JT; ++q) {
            // A time past the series repeats the row's first and is never stored.
            j[q] = row + q * rows < nt ? row + q * rows : row;
            for (int e = 0; e < EC; ++e) acc[q][e] = 0;
          }
          const std::int64_t share_lo = share * projection_share;
          const std::int64_t k_hi = g.n_z - 1 < share_lo + projection_share - 1
                                        ? g.n_z - 1
                                        : share_lo + projection_share - 1;
          for (std::int64_t k = share_lo; k <= k_hi; ++k) {
            const double* h = &H(fb, k, e0);  // contiguous electrodes of point k
            PORTASIM_UNROLL
            for (int q = 0; q < JT; ++q) {
              const double a = source(j[q], fb, k);
              for (int e = 0; e < EC; ++e) acc[q][e] += a * h[e];
            }
          }
          PORTASIM_UNROLL
          for (int q = 0; q < JT; ++q) {
            if (row + q * rows >= nt) continue;
            for (int e = 0; e < EC; ++e) {
              if (e0 + e >= ne) continue;
              if (shares == 1) S(j[q], e0 + e, f) = weight == 1.0 ? acc[q][e] : acc[q][e] * weight;
              else partial(((share * nt + j[q]) * ne + e0 + e) * nbatch + fb) = acc[q][e];
            }
          }
        });
      });
  if (shares > 1) add_shares(exec, grids, S, partial, f0, nbatch, shares, dz_weighted);
}

}  // namespace portasim::sfap::impl
