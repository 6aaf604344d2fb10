#pragma once
// The SFAP model as small functions shared by every backend, the kernels and the tests:
// NumPy's arange and pairwise summation, Rosenfalck's source, the tendon window, the
// anisotropic volume conductor and the FFT-defined fractional delay as a real circular
// convolution. Every discrete decision (grid points, masks, the mirror shift) follows NumPy's
// floating-point semantics exactly, since a last-bit difference flips whole rows.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/core/vector_math.hpp"

namespace portasim::sfap {

constexpr double pi = 3.141592653589793;

// ---- NumPy arange -------------------------------------------------------------------------
// len(arange(start, stop, step)) = ceil((stop - start)/step), at least 0.
KOKKOS_INLINE_FUNCTION std::int64_t arange_length(double start, double stop, double step) {
  const double len = -compat::math::floor(-((stop - start) / step));  // ceil
  return len > 0 ? static_cast<std::int64_t>(len) : 0;
}

// Element i of arange(start, stop, step): NumPy stores start, next = fl(start + step), and
// fills i >= 2 with start + i*delta, delta = next - start. The product is rounded on its own
// (compat::multiply_unfused) so that no compiler contracts it with the sum into an FMA: that
// changes the last bit and moves grid points off the end-plate mask boundaries.
KOKKOS_INLINE_FUNCTION double arange_element(double start, double step, std::int64_t i) {
  const double next = start + step;
  if (i == 0) return start;
  if (i == 1) return next;
  const double delta = next - start;
  return start + compat::multiply_unfused(static_cast<double>(i), delta);
}

// ---- NumPy pairwise summation (numpy/core/src/umath/loops_utils.h.src, PW_BLOCKSIZE 128) --
// `value(i)` gives element i of the n summed values.
template <class Values>
KOKKOS_INLINE_FUNCTION double pairwise_sum_block(const Values& value, std::int64_t offset,
                                                 std::int64_t n) {
  if (n < 8) {
    double res = 0.;
    for (std::int64_t i = 0; i < n; ++i) res += value(offset + i);
    return res;
  }
  double r[8];
  for (int j = 0; j < 8; ++j) r[j] = value(offset + j);
  std::int64_t i = 8;
  for (; i < n - (n % 8); i += 8)
    for (int j = 0; j < 8; ++j) r[j] += value(offset + i + j);
  double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i) res += value(offset + i);
  return res;
}

// NumPy's recursion (n <= 128: one block; else split at n2 = n/2 rounded down to a multiple of
// 8, left half first, then left + right) as a loop over an explicit stack, so that device code
// neither recurses nor inlines a tree of calls. Depth <= log2(n/128) + 1 < 48 for any n.
// `block(offset, length)` gives the sum of one block of at most 128 values; it is called for
// the blocks from left to right, so a caller may record them, or hand back sums formed
// elsewhere in the same order.
template <class Block>
KOKKOS_INLINE_FUNCTION double pairwise_tree(Block& block, std::int64_t n) {
  if (n <= 128) return block(std::int64_t(0), n);
  std::int64_t off[48], len[48];
  double left[48];
  int stage[48];  // 0: left half pending, 1: right half pending
  int top = 0;
  off[0] = 0;
  len[0] = n;
  stage[0] = 0;
  while (true) {
    while (len[top] > 128) {  // descend along left halves
      std::int64_t n2 = len[top] / 2;
      n2 -= n2 % 8;
      off[top + 1] = off[top];
      len[top + 1] = n2;
      stage[top + 1] = 0;
      ++top;
    }
    double ret = block(off[top], len[top]);
    --top;
    while (true) {  // hand the value up
      std::int64_t n2 = len[top] / 2;
      n2 -= n2 % 8;
      if (stage[top] == 0) {  // the left half is done: do the right half
        left[top] = ret;
        stage[top] = 1;
        off[top + 1] = off[top] + n2;
        len[top + 1] = len[top] - n2;
        stage[top + 1] = 0;
        ++top;
        break;
      }
      ret = left[top] + ret;  // both halves done
      if (top == 0) return ret;
      --top;
    }
  }
}

template <class Values>
struct PairwiseBlocks {
  const Values* value;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t offset, std::int64_t n) const {
    return pairwise_sum_block(*value, offset, n);
  }
};

// NumPy's pairwise sum of value(0 .. n-1).
template <class Values>
KOKKOS_INLINE_FUNCTION double pairwise_sum(const Values& value, std::int64_t n) {
  PairwiseBlocks<Values> blocks{&value};
  return pairwise_tree(blocks, n);
}

// ---- Grid of one fiber --------------------------------------------------------------------
// z = concat(reverse(arange(zi, left - dz, -dz)), arange(zi, right + dz, dz)[1:]), anchored
// at zi; one extra point z_last + dz_hat closes the forward difference.
struct FiberGrid {
  double zi = 0, dz = 0;
  std::int64_t n_left = 0;   // len(z_left), z_left[0] = zi
  std::int64_t n_right = 0;  // len(z_right), z_right[0] = zi
  std::int64_t n_z = 0;      // n_left + n_right - 1
  double dz_hat = 0;         // mean(diff(z)), NumPy pairwise
  double z_ext_last = 0;     // z[n_z - 1] + dz_hat
  std::int64_t mirror_shift = 0;
  bool right_longer = true;  // L1 >= L2
  double L1 = 0, L2 = 0, v = 0, scale = 0;

  KOKKOS_INLINE_FUNCTION double z(std::int64_t k) const {
    if (k < n_left) return arange_element(zi, -dz, n_left - 1 - k);
    if (k < n_z) return arange_element(zi, dz, k - n_left + 1);
    return z_ext_last;
  }
};

// Python's round(): half to even.
KOKKOS_INLINE_FUNCTION std::int64_t round_half_even(double x) {
  const double f = compat::math::floor(x);
  const double diff = x - f;
  std::int64_t r = static_cast<std::int64_t>(f);
  if (diff > 0.5) return r + 1;
  if (diff < 0.5) return r;
  return (r % 2 == 0) ? r : r + 1;
}

// Mirror shift of the short-side wave: round((L1 + L2 - z_ext_max + L2 - L1)/dz_hat).
KOKKOS_INLINE_FUNCTION std::int64_t mirror_shift(double L1, double L2, double z_ext_max,
                                                 double dz_hat) {
  return round_half_even((L1 + L2 - z_ext_max + L2 - L1) / dz_hat);
}

template <class ZValues>
struct GridDiffs {
  ZValues z;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return z(i + 1) - z(i); }
};

// dz_hat = mean(diff(z)) for any z given as z(k), k < n.
template <class ZValues>
KOKKOS_INLINE_FUNCTION double mean_diff(const ZValues& z, std::int64_t n) {
  GridDiffs<ZValues> d{z};
  return pairwise_sum(d, n - 1) / static_cast<double>(n - 1);
}

struct GridZ {
  const FiberGrid* g;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return g->z(k); }
};

// The points of a fiber's z grid (enough to evaluate z(k)).
KOKKOS_INLINE_FUNCTION FiberGrid grid_points(double zi, double left, double right, double dz) {
  FiberGrid g;
  g.zi = zi;
  g.dz = dz;
  g.n_left = arange_length(zi, left - dz, -dz);
  g.n_right = arange_length(zi, right + dz, dz);
  g.n_z = g.n_left + g.n_right - 1;
  return g;
}

// Everything a fiber's source needs but what follows from dz_hat.
KOKKOS_INLINE_FUNCTION FiberGrid fiber_grid_points(double zi, double left, double right, double dz,
                                                   double v, double d, double sigma_i) {
  FiberGrid g = grid_points(zi, left, right, dz);
  g.L1 = right - zi;
  g.L2 = zi - left;
  g.v = v;
  g.right_longer = g.L1 >= g.L2;
  g.scale = sigma_i * pi * ((d / 2) * (d / 2));
  return g;
}

// The rest, from dz_hat = mean(diff(z)).
KOKKOS_INLINE_FUNCTION void finish_fiber_grid(FiberGrid& g, double dz_hat) {
  g.dz_hat = dz_hat;
  g.z_ext_last = g.z(g.n_z - 1) + g.dz_hat;
  g.mirror_shift = mirror_shift(g.L1, g.L2, g.z_ext_last, g.dz_hat);
}

// Everything a fiber's source needs, from its end-plate, velocity and diameter.
KOKKOS_INLINE_FUNCTION FiberGrid make_fiber_grid(double zi, double left, double right, double dz,
                                                 double v, double d, double sigma_i) {
  FiberGrid g = fiber_grid_points(zi, left, right, dz, v, d, sigma_i);
  GridZ zz{&g};
  finish_fiber_grid(g, mean_diff(zz, g.n_z));
  return g;
}

// ---- Source ---------------------------------------------------------------------------------
// Rosenfalck's derivative: D1 (3x^2 - x^3) e^-x for x > 0, else 0. A select, not a branch,
// and exp_if: host loops over points vectorize through it (the device still skips the exp).
KOKKOS_FORCEINLINE_FUNCTION double tm_current(double x, double d1 = 96.0) {
  const double e = compat::math::exp_if(x > 0, -x);
  return x > 0 ? d1 * (3 * (x * x) - (x * x) * x) * e : 0.0;
}

// Tendon terminator: 1 where -L/2 <= u <= L/2 (inclusive).
KOKKOS_INLINE_FUNCTION bool tendon_window(double u, double L) { return -L / 2 <= u && u <= L / 2; }

// Travelling-wave potential psi at (z, t) of the long side.
KOKKOS_FORCEINLINE_FUNCTION double psi(bool right_longer, double zi, double v, double t, double z,
                                       double d1) {
  if (right_longer) return -4 * tm_current(2 * (zi + v * t - z), d1);
  return 4 * tm_current(2 * (z - zi + v * t), d1);
}

// Per-grid-point decisions of the source.
struct PointCoefficients {
  bool long_on = false;      // the long-side window (and the z != zi side mask) keeps row k
  std::int64_t mirror = -1;  // row of the long wave that the short wave copies at k, or -1
  bool keep = true;          // outside the end-plate zone
};

// The long-side window at z_k (tendon window times the strict side mask).
KOKKOS_INLINE_FUNCTION bool long_window(const FiberGrid& g, double zk) {
  if (g.right_longer) return tendon_window(zk - g.zi - g.L1 / 2, g.L1) && (zk - g.zi) / g.v > 0;
  return tendon_window(zk - g.zi + g.L2 / 2, g.L2) && (g.zi - zk) / g.v > 0;
}
KOKKOS_INLINE_FUNCTION bool short_window(const FiberGrid& g, double zk) {
  if (g.right_longer) return tendon_window(zk - g.zi + g.L2 / 2, g.L2);
  return tendon_window(zk - g.zi - g.L1 / 2, g.L1);
}
KOKKOS_INLINE_FUNCTION bool outside_endplate(const FiberGrid& g, double zk, double half_width) {
  const double lo = g.zi - half_width, hi = g.zi + half_width;
  return !(zk > lo && zk < hi);
}

// k's decisions, given the grid values through z(k).
template <class ZValues>
KOKKOS_INLINE_FUNCTION PointCoefficients point_coefficients(const FiberGrid& g, const ZValues& z,
                                                            std::int64_t k, bool suppress_endplate,
                                                            double half_width) {
  PointCoefficients c;
  const double zk = z(k);
  c.long_on = long_window(g, zk);
  // shortest wave = long wave reversed, then shift_padding by s: SW[k] = LW[n_z - 1 - (k - s)].
  const std::int64_t src = k - g.mirror_shift;
  if (src >= 0 && src < g.n_z && short_window(g, zk)) {
    const std::int64_t m = g.n_z - 1 - src;
    if (long_window(g, z(m))) c.mirror = m;
  }
  c.keep = !suppress_endplate || outside_endplate(g, zk, half_width);
  return c;
}

// MyoGen's current density at row k from the long-side potential psi(k) on the extended grid
// (k = 0..n_z): LW[k] = (psi[k+1] - psi[k])/dz_hat inside the long window, SW[k] = LW[mirror],
// IAP = +-(LW - SW) outside the end-plate zone, times sigma_i pi (d/2)^2.
KOKKOS_FORCEINLINE_FUNCTION double long_wave(const FiberGrid& g, double psi_difference) {
  return psi_difference / g.dz_hat;
}

// The same from LW at k and at the mirror row, which the caller reads where long_on and
// has_mirror say they are used. Selects: host loops over k vectorize.
KOKKOS_FORCEINLINE_FUNCTION double current_density_from_waves(const FiberGrid& g, bool keep,
                                                              bool long_on, bool has_mirror,
                                                              double lw_here, double lw_mirror) {
  const double lw = long_on ? lw_here : 0.0;
  const double sw = has_mirror ? lw_mirror : 0.0;
  const double cd = g.right_longer ? lw - sw : sw - lw;
  return keep ? cd * g.scale : 0.0;
}

template <class PsiValues>
KOKKOS_FORCEINLINE_FUNCTION double current_density_from_psi(const FiberGrid& g, const PsiValues& p,
                                                            std::int64_t k,
                                                            const PointCoefficients& c) {
  if (!c.keep) return 0.0;
  const double lw_here = c.long_on ? long_wave(g, p(k + 1) - p(k)) : 0.0;
  const double lw_mirror = c.mirror >= 0 ? long_wave(g, p(c.mirror + 1) - p(c.mirror)) : 0.0;
  return current_density_from_waves(g, true, c.long_on, c.mirror >= 0, lw_here, lw_mirror);
}

template <class ZValues>
struct PsiOnTheFly {
  const FiberGrid* g;
  const ZValues* z;
  double t, d1;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const {
    return psi(g->right_longer, g->zi, g->v, t, (*z)(k), d1);
  }
};

// The same with psi evaluated where needed.
template <class ZValues>
KOKKOS_INLINE_FUNCTION double current_density(const FiberGrid& g, const ZValues& z, std::int64_t k,
                                              const PointCoefficients& c, double t, double d1) {
  const PsiOnTheFly<ZValues> p{&g, &z, t, d1};
  return current_density_from_psi(g, p, k, c);
}

// Corrected source: the right-going wave's centred difference D(y) on the right, minus its exact
// mirror image D(2 zi - y) on the left, each inside its own tendon window.
template <class ZValues>
KOKKOS_INLINE_FUNCTION double corrected_current_density(const FiberGrid& g, const ZValues& z,
                                                        std::int64_t k, double t, double d1,
                                                        bool suppress_endplate, double half_width) {
  const double zk = z(k);
  if (suppress_endplate && !outside_endplate(g, zk, half_width)) return 0.0;
  const double h = g.dz_hat;
  double value = 0;
  // centred differences (second order), the left one the exact mirror image of the right one
  if (zk > g.zi && tendon_window(zk - g.zi - g.L1 / 2, g.L1))
    value = (psi(true, g.zi, g.v, t, zk + h / 2, d1) - psi(true, g.zi, g.v, t, zk - h / 2, d1)) / h;
  else if (zk < g.zi && tendon_window(zk - g.zi + g.L2 / 2, g.L2)) {
    const double y = 2 * g.zi - zk;
    value = -(psi(true, g.zi, g.v, t, y + h / 2, d1) - psi(true, g.zi, g.v, t, y - h / 2, d1)) / h;
  }
  return value * g.scale;
}

// ---- Volume conductor ---------------------------------------------------------------------
KOKKOS_FORCEINLINE_FUNCTION double radial_distance(double xf, double yf, double xe, double ye) {
  const double dx = xf - xe, dy = yf - ye;
  return compat::math::sqrt(dx * dx + dy * dy);
}
KOKKOS_INLINE_FUNCTION double clamp_radius(double r, double min_r) { return r < min_r ? min_r : r; }
// The same from dz = z - ze and the conductivities' factors ratio = sigma_z / sigma_r and
// scale = 4 pi sigma_r, which a kernel forms once: the same operations in the same order.
KOKKOS_FORCEINLINE_FUNCTION double elementary_response_of(double dz, double r, double ratio,
                                                          double scale) {
  return 1.0 / (scale * compat::math::sqrt(ratio * (r * r) + dz * dz));
}
KOKKOS_FORCEINLINE_FUNCTION double elementary_response(double z, double r, double ze,
                                                       double sigma_r, double sigma_z) {
  return elementary_response_of(z - ze, r, sigma_z / sigma_r, 4 * pi * sigma_r);
}

// ---- Delays -------------------------------------------------------------------------------
// Odd FFT length used for a length-n signal (one zero appended when n is even).
KOKKOS_INLINE_FUNCTION std::int64_t odd_length(std::int64_t n) { return n % 2 == 0 ? n + 1 : n; }

// shift_padding: out[i] = in[i - sh] where 0 <= i - sh < n, else 0.
KOKKOS_INLINE_FUNCTION std::int64_t shifted_source(std::int64_t i, std::int64_t sh,
                                                   std::int64_t n) {
  const std::int64_t s = i - sh;
  return (s >= 0 && s < n) ? s : -1;
}

// Circular-convolution kernel of the FFT delay by `delay` samples (positive = later): the DFT
// with bins k = 1..(N-1)/2 multiplied by exp(-i 2 pi delay k / N), Hermitian, real part:
// c[u] = (1 + 2 sum_k cos(2 pi k (u - delay)/N)) / N, so y[j] = sum_m x[m] c[(j - m) mod N].
// A delay of D samples as the kernel's phase and an integer shift: all of it as phase, or
// (split_integer) the fractional part as phase and floor(D) as the shift.
struct DelaySplit {
  double phase;
  std::int64_t shift;
};
KOKKOS_INLINE_FUNCTION DelaySplit split_delay(double D, bool split_integer) {
  if (!split_integer) return {D, 0};
  const double whole = compat::math::floor(D);
  return {D - whole, static_cast<std::int64_t>(whole)};
}

// sin(pi x), x first reduced to [-1, 1) exactly (x - 2 floor(x/2 + 1/2)), so that a large x
// loses nothing to the rounding of pi x; exactly 0 at every integer (sin of the rounded pi
// is 1.2e-16, not 0, and an odd integer reduces to -1).
KOKKOS_INLINE_FUNCTION double sin_pi(double x) {
  const double r = x - 2.0 * compat::math::floor(0.5 * x + 0.5);
  if (r == -1.0 || r == 0.0) return 0.0;
  return compat::math::sin(pi * r);
}

// The sum in closed form (N odd, the Dirichlet kernel): with x = u - delay,
// c[u] = sin(pi x) / (N sin(pi x / N)), where sin(pi x) = (-1)^(u+1) sin(pi delay) for an
// integer u; at x = 0 mod N the limit, 1. Two sines instead of (N-1)/2 cosines, and more
// accurate than the sum (one rounding per factor against one per term).
KOKKOS_INLINE_FUNCTION double delay_kernel(std::int64_t u, double delay, std::int64_t N) {
  const double n = static_cast<double>(N);
  const double denominator = n * sin_pi((static_cast<double>(u) - delay) / n);
  if (denominator == 0.0) return 1.0;
  const double numerator = (u % 2 == 0 ? -1.0 : 1.0) * sin_pi(delay);
  return numerator / denominator;
}

}  // namespace portasim::sfap
