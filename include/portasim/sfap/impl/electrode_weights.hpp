#pragma once
// MyoGen's source summed by parts into weights of psi per electrode, so that a device projects
// psi itself: S[j, e] = sum_i psi(i, j) W_e(i) over the extended grid i = 0..n_z.
//
// The source of row k at time j (current_density_from_psi) is
//   IAP(k, j) = c [long_on(k) (P(k+1) - P(k)) - mirror(k) (P(m_k + 1) - P(m_k))]
// on the rows kept outside the end-plate zone, with P(i) = psi(z_i, t_j), the mirror row
// m_k = n_z - 1 - (k - shift) and c = +-scale / dz_hat (+ where the right side is the long
// one). Moving the differences onto h (summation by parts, m_k a bijection):
//   sum_k IAP(k, j) h_e(k) = sum_i P(i) W_e(i),
//   W_e(i) = c [A(i - 1) - A(i) - B(n_z - i + shift) + B(n_z - 1 - i + shift)],
// A(k) = h_e(k) on the kept rows of the long window, B(k) = h_e(k) on the kept rows with a
// mirror, 0 elsewhere and off the grid. W_e vanishes off the long window (and its next row),
// where psi is formed once per (row, time) instead of at a row and at its mirror, and the
// differences, divisions and short-side rows leave the per-time work: they are folded into
// W once per fiber. The sums are MyoGen's up to rounding (docs/design/sfap-projection.md).

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// The point decisions that the points kernel stores per row, as bits.
enum RowFlag : std::uint8_t { row_long_on = 1, row_kept = 2, row_has_mirror = 4 };

KOKKOS_INLINE_FUNCTION std::uint8_t row_flags(const PointCoefficients& c) {
  return static_cast<std::uint8_t>((c.long_on ? row_long_on : 0) | (c.keep ? row_kept : 0) |
                                   (c.mirror >= 0 ? row_has_mirror : 0));
}

// W_e(i) of fiber g, from its rows' flags(k) and the electrode's response h(k), which is
// read only on the rows that carry a wave.
template <class RowFlags, class Response>
KOKKOS_INLINE_FUNCTION double electrode_weight(const FiberGrid& g, const RowFlags& flags,
                                               const Response& h, std::int64_t i) {
  const std::int64_t n_z = g.n_z, shift = g.mirror_shift;
  const auto wave = [&](std::int64_t k, std::uint8_t kind) {
    if (k < 0 || k >= n_z) return 0.0;
    const std::uint8_t f = flags(k);
    return (f & row_kept) && (f & kind) ? h(k) : 0.0;
  };
  const double long_part = wave(i - 1, row_long_on) - wave(i, row_long_on);
  const double mirror_part =
      wave(n_z - i + shift, row_has_mirror) - wave(n_z - 1 - i + shift, row_has_mirror);
  const double c = (g.right_longer ? g.scale : -g.scale) / g.dz_hat;
  return (long_part - mirror_part) * c;
}

// The rows [lo, hi] of the extended grid where psi(i, t) W_e(i) can be non-zero at time t:
// the psi rows that source_rows' long range reads (its rows and the next ones), clipped to
// the grid (lo > hi when there are none). The short side's rows carry no weight.
KOKKOS_INLINE_FUNCTION void psi_window(const SourceRows& r, std::int64_t n_z, std::int64_t& lo,
                                       std::int64_t& hi) {
  lo = r.long_lo < 0 ? 0 : r.long_lo;
  hi = r.long_hi + 1 > n_z ? n_z : r.long_hi + 1;
  if (r.long_lo > r.long_hi) hi = lo - 1;
}

}  // namespace portasim::sfap::impl
