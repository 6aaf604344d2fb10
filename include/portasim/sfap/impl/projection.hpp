#pragma once
// The projection of a batch of fibers on a device: S[j, e, f] = sum_k source(j, k) h_e[k], with
// the source formed from the batch's psi buffer as the projection goes (MyoGen's source, one
// block of electrodes) or read from a current-density buffer (several blocks, or the corrected
// source). One team per (fiber, block of electrodes, share of the points), threads over
// time, k summed in ascending order within a share and the shares' partial sums added in
// order, rows ahead of the wave front skipped (exact zeros). Host spaces run one fiber at a
// time instead (host_kernels.hpp); the window of rows with a source is shared by both.

#include <Kokkos_Core.hpp>

#include <cstdint>

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

// Row j of the batch's psi buffer, from column offset q0, as psi(k).
template <class ExecutionSpace>
struct PsiRow {
  Kokkos::View<double**, typename ExecutionSpace::array_layout,
               typename ExecutionSpace::memory_space>
      P;
  std::int64_t j, q0;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return P(j, q0 + k); }
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

// The rows [lo, hi] of fiber g (extended grid z(0..n_z)) outside which MyoGen's source is
// exactly zero at time t: psi vanishes ahead of the wave front (x <= 0), so LW vanishes there
// and SW at its mirror rows. The front is located by bisection on the grid with a margin of
// two points, which covers any rounding difference (a few ulps) between this location and
// psi's own x > 0 test. Skipping exact zeros keeps the sums bit for bit.
template <class ZValues>
KOKKOS_INLINE_FUNCTION void source_window(const FiberGrid& g, const ZValues& z, double t,
                                          std::int64_t& lo, std::int64_t& hi) {
  const std::int64_t nz = g.n_z, kzi = g.n_left - 1, s = g.mirror_shift;
  std::int64_t a_lo, a_hi, b_lo, b_hi;
  if (g.right_longer) {
    // psi(k) = 0 for k >= kf (z_k at or beyond zi + v t)
    std::int64_t kf = count_below(z, nz + 1, g.zi + g.v * t, false) + 2;
    if (kf > nz + 1) kf = nz + 1;
    a_lo = kzi + 1;  // LW: z_k > zi and k < kf
    a_hi = kf - 1;
    b_lo = nz + s - kf;  // SW(k) = LW(m), m = nz - 1 - (k - s) in [a_lo, a_hi]
    b_hi = nz - 1 + s - a_lo;
  } else {
    // psi(k) = 0 for k < kb (z_k at or before zi - v t)
    std::int64_t kb = count_below(z, nz + 1, g.zi - g.v * t, true) - 2;
    if (kb < 0) kb = 0;
    a_lo = kb - 1;  // LW: z_k < zi and k + 1 >= kb
    a_hi = kzi - 1;
    b_lo = nz - 1 + s - a_hi;
    b_hi = nz - 1 + s - a_lo;
  }
  lo = nz;
  hi = -1;
  if (a_lo <= a_hi) {
    lo = a_lo;
    hi = a_hi;
  }
  if (b_lo <= b_hi) {
    lo = b_lo < lo ? b_lo : lo;
    hi = b_hi > hi ? b_hi : hi;
  }
  if (lo < 0) lo = 0;
  if (hi > nz - 1) hi = nz - 1;
}

// The source of row k at time j, read from the current-density buffer; when `windowed`
// (MyoGen's source) only the rows of source_window can be non-zero.
template <class ExecutionSpace>
struct SourceFromBuffer {
  Kokkos::View<double**, typename ExecutionSpace::array_layout,
               typename ExecutionSpace::memory_space>
      iap;
  std::int64_t nzmax = 0;
  Matrix<typename ExecutionSpace::memory_space> zbuf;
  Kokkos::View<const double*, typename ExecutionSpace::memory_space> t;
  bool windowed = false;
  static constexpr bool skip_zeros = false;
  // A read from the buffer is one load: a thread sums four times, sharing each load of h.
  static constexpr int times_per_thread = 4;
  KOKKOS_INLINE_FUNCTION double operator()(const FiberGrid&, std::int64_t j, std::int64_t fb,
                                           std::int64_t k) const {
    return iap(j, fb * nzmax + k);
  }
  KOKKOS_INLINE_FUNCTION void range(const FiberGrid& g, std::int64_t j, std::int64_t fb,
                                    std::int64_t& lo, std::int64_t& hi) const {
    if (windowed) {
      source_window(g, BatchRowZ<typename ExecutionSpace::memory_space>{zbuf, fb}, t(j), lo, hi);
    } else {
      lo = 0;
      hi = g.n_z - 1;
    }
  }
};

// MyoGen's source of row k at time j from the psi buffer and the point decisions.
template <class ExecutionSpace>
struct SourceFromPsi {
  Kokkos::View<double**, typename ExecutionSpace::array_layout,
               typename ExecutionSpace::memory_space>
      P;
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> mirror;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> flags;
  std::int64_t pstride = 0;
  Matrix<typename ExecutionSpace::memory_space> zbuf;
  Kokkos::View<const double*, typename ExecutionSpace::memory_space> t;
  static constexpr bool skip_zeros = true;
  // Forming the source costs more than the loads of h it would share: one time per thread
  // (docs/design/sfap-projection.md, rule 4).
  static constexpr int times_per_thread = 1;
  KOKKOS_INLINE_FUNCTION void range(const FiberGrid& g, std::int64_t j, std::int64_t fb,
                                    std::int64_t& lo, std::int64_t& hi) const {
    source_window(g, BatchRowZ<typename ExecutionSpace::memory_space>{zbuf, fb}, t(j), lo, hi);
  }
  KOKKOS_INLINE_FUNCTION double operator()(const FiberGrid& g, std::int64_t j, std::int64_t fb,
                                           std::int64_t k) const {
    const std::uint8_t fl = flags(fb, k);
    if (!(fl & 2)) return 0.0;
    PointCoefficients c;
    c.long_on = (fl & 1) != 0;
    c.keep = true;
    c.mirror = mirror(fb, k);
    const PsiRow<ExecutionSpace> p{P, j, fb * pstride};
    return current_density_from_psi(g, p, k, c);
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

// Points per team's share of a fiber's sum over k. A team per (fiber, block of electrodes)
// alone gives a batch of a few hundred long fibers with one block of electrodes too few
// threads to hide its loads. The shares depend only on the point index, so a fiber's sums
// are the same whatever batch or block of fibers it is in (the MPI runs compare them bit for
// bit); empty shares add an exact 0. A batch whose longest fiber has fewer points than a
// share takes one team per block, which writes S itself: no partials and no second pass.
inline constexpr std::int64_t projection_share = 1024;

// Whether a batch's source goes through the current-density buffer: always for the corrected
// source, and for MyoGen's when there are several blocks of electrodes, each of which would
// otherwise form it again. One block forms it from psi inside the projection.
inline bool source_in_buffer(bool corrected_source, std::int64_t ne, int electrodes_per_block) {
  return corrected_source || ne > electrodes_per_block;
}

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
// S(j, e, f0 + fb) = weight * (sum over s of the partials, s ascending). With one share the
// team writes S itself. `partial` holds shares x nt x ne x nbatch values (unused with one).
template <class ExecutionSpace, int EC, class Source>
void project_batch(
    const ExecutionSpace& exec, const Source& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  const std::int64_t nt = S.extent(0), ne = S.extent(1);
  const std::int64_t nchunks = (ne + EC - 1) / EC, shares = projection_shares(H.extent(1));
  Kokkos::parallel_for(
      "portasim::sfap::project",
      team_policy(exec, static_cast<int>(nbatch * nchunks * shares), Kokkos::AUTO),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t share = team.league_rank() % shares, block = team.league_rank() / shares;
        const std::int64_t fb = block / nchunks, chunk = block % nchunks;
        const std::int64_t f = f0 + fb, e0 = chunk * EC;
        const FiberGrid& g = grids(f);
        const double weight = dz_weighted ? g.dz_hat : 1.0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nt), [&](const std::int64_t j) {
          double acc[EC];
          for (int e = 0; e < EC; ++e) acc[e] = 0;
          std::int64_t k_lo = 0, k_hi = -1;
          source.range(g, j, fb, k_lo, k_hi);
          const std::int64_t share_lo = share * projection_share;
          if (k_lo < share_lo) k_lo = share_lo;
          if (k_hi > share_lo + projection_share - 1) k_hi = share_lo + projection_share - 1;
          for (std::int64_t k = k_lo; k <= k_hi; ++k) {
            const double a = source(g, j, fb, k);
            // Ahead of the wave and in the end-plate zone a is 0 and adds exactly 0: a source
            // formed here skips the loads and FMAs; one read from a buffer is cheaper to add
            // than to branch on, which keeps the loads of later k in flight.
            if (Source::skip_zeros && a == 0.0) continue;
            const double* h = &H(fb, k, e0);  // contiguous electrodes of point k
            for (int e = 0; e < EC; ++e) acc[e] += a * h[e];
          }
          for (int e = 0; e < EC; ++e) {
            if (e0 + e >= ne) continue;
            if (shares == 1) S(j, e0 + e, f) = weight == 1.0 ? acc[e] : acc[e] * weight;
            else partial(((share * nt + j) * ne + e0 + e) * nbatch + fb) = acc[e];
          }
        });
      });
  if (shares > 1) add_shares(exec, grids, S, partial, f0, nbatch, shares, dz_weighted);
}

// project_batch for a source read from a buffer, with Source::times_per_thread (JT) times
// per thread. Its team decoding and stores repeat project_batch's on purpose: shared
// through a helper, both kernels ran much slower (docs/design/sfap-projection.md, rule 4).
// The JT times are spread evenly over the series, so that each load of h serves JT of them. A
// thread's points are the union of its times' windows: outside its own window a time's
// source is an exact 0, added as +0, which leaves every sum as it is, so each sum over k is
// the same, bit for bit, as in project_batch.
template <class ExecutionSpace, int EC, class Source>
void project_batch_several_times(
    const ExecutionSpace& exec, const Source& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  constexpr int JT = Source::times_per_thread;
  static_assert(!Source::skip_zeros, "several times per thread add the zeros");
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
          std::int64_t k_lo = 0, k_hi = -1;
          PORTASIM_UNROLL
          for (int q = 0; q < JT; ++q) {
            // A time past the series repeats the row's first and is never stored.
            j[q] = row + q * rows < nt ? row + q * rows : row;
            for (int e = 0; e < EC; ++e) acc[q][e] = 0;
            std::int64_t lo = 0, hi = -1;
            source.range(g, j[q], fb, lo, hi);
            if (q == 0 || lo < k_lo) k_lo = lo;
            if (q == 0 || hi > k_hi) k_hi = hi;
          }
          const std::int64_t share_lo = share * projection_share;
          if (k_lo < share_lo) k_lo = share_lo;
          if (k_hi > share_lo + projection_share - 1) k_hi = share_lo + projection_share - 1;
          for (std::int64_t k = k_lo; k <= k_hi; ++k) {
            const double* h = &H(fb, k, e0);  // contiguous electrodes of point k
            PORTASIM_UNROLL
            for (int q = 0; q < JT; ++q) {
              const double a = source(g, j[q], fb, k);
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

// Blocks of EC electrodes: one time per thread, or several where the source allows.
template <class ExecutionSpace, int EC, class Source>
void project_block(
    const ExecutionSpace& exec, const Source& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  if constexpr (Source::times_per_thread == 1)
    project_batch<ExecutionSpace, EC>(exec, source, H, grids, S, partial, f0, nbatch, dz_weighted);
  else
    project_batch_several_times<ExecutionSpace, EC>(exec, source, H, grids, S, partial, f0, nbatch,
                                                    dz_weighted);
}

template <class ExecutionSpace, class Source>
void project_dispatch(
    const ExecutionSpace& exec, int ec, const Source& source,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, bool dz_weighted) {
  switch (ec) {
#define PORTASIM_SFAP_PROJECT_CASE(N)                                                              \
  case N:                                                                                          \
    project_block<ExecutionSpace, N>(exec, source, H, grids, S, partial, f0, nbatch, dz_weighted); \
    break;
    PORTASIM_SFAP_PROJECT_CASE(1)
    PORTASIM_SFAP_PROJECT_CASE(2)
    default:
      project_block<ExecutionSpace, 4>(exec, source, H, grids, S, partial, f0, nbatch, dz_weighted);
      break;
#undef PORTASIM_SFAP_PROJECT_CASE
  }
}

}  // namespace portasim::sfap::impl
