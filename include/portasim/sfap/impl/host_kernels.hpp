#pragma once
// Host forms of three SFAP kernels, which compute_impl.hpp runs on host backends in place of
// the device forms (docs/design/cpu-vectorization.md):
//   psi       a row of points at a time, through a loop the compiler vectorizes (glibc's
//             vector exp), the row padded so that every value comes from the vector code
//             whatever the batch (the MPI runs compare outputs bit for bit);
//   project   per fiber, the current density as a matrix (time x points) times the
//             responses (points x electrodes) through the host BLAS, when there is one;
//   delay     per (fiber, electrode), the circular convolution over blocks of outputs at
//             once, each output's sum in the same order as the device form (bit for bit).
// The physics is physics.hpp's, as on the device.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "portasim/core/impl/host_blas.hpp"
#include "portasim/core/vector_math.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// Points per vectorized step of psi: two AVX2 registers of double.
inline constexpr int psi_lanes = 8;
// Outputs per block of the host delay: eight AVX2 registers of accumulators, enough
// independent FMA chains to keep both FMA units busy.
inline constexpr int delay_block = 32;

// P(j, fb * pstride + k) = psi of the batch's fiber fb at time t(j) and point k, where the
// projection reads it (the long window holds at k or k - 1), else 0, as the device form.
// Work items are (fiber, block of psi_times times): the fiber's points and read mask are
// copied once into rows padded to a multiple of psi_lanes (repeating the last point), and
// every time's row goes through one vectorized loop over the padded length.
inline constexpr int psi_times = 16;

// Number of the first n points of the ascending z[] below `value`.
inline std::int64_t points_below(const double* z, std::int64_t n, double value) {
  return std::lower_bound(z, z + n, value) - z;
}

template <class ExecutionSpace, class Grids, class Flags, class ZBuffer, class Times, class PsiView>
void psi_on_host(const ExecutionSpace& exec, const Grids& grids, const Flags& flags,
                 const ZBuffer& zbuf, const Times& t, const PsiView& P, std::int64_t f0,
                 std::int64_t nbatch, std::int64_t pstride, double d1) {
  const std::int64_t nt = t.extent(0), blocks = (nt + psi_times - 1) / psi_times;
  const std::int64_t padded = (pstride + psi_lanes - 1) / psi_lanes * psi_lanes;
  Kokkos::parallel_for(
      "portasim::sfap::psi",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0,
                                                                           nbatch * blocks),
      [=](const std::int64_t i) {
        const std::int64_t fb = i / blocks, j0 = i % blocks * psi_times;
        const FiberGrid& g = grids(f0 + fb);
        thread_local std::vector<double> z, value;  // per thread, reused
        thread_local std::vector<unsigned char> read;
        z.resize(static_cast<std::size_t>(padded));
        value.resize(z.size());
        read.resize(z.size());
        for (std::int64_t k = 0; k < padded; ++k) {
          const std::int64_t kk = std::min(k, pstride - 1);
          z[static_cast<std::size_t>(k)] = zbuf(fb, kk);
          read[static_cast<std::size_t>(k)] = kk <= g.n_z && ((kk < g.n_z && (flags(fb, kk) & 1)) ||
                                                              (kk > 0 && (flags(fb, kk - 1) & 1)));
        }
        for (std::int64_t j = j0; j < std::min(nt, j0 + psi_times); ++j) {
          const double tj = t(j);
          // Only the points that can be non-zero and read: behind the wave front (x > 0,
          // located by bisection with a margin of two points for rounding) and on the long
          // side (where the long window can hold at k or k - 1). Every other value is exactly
          // 0. The window is widened to whole lanes, so each point keeps its lane.
          const std::int64_t kzi = g.n_left - 1;
          std::int64_t lo = 0, hi = pstride - 1;
          if (g.right_longer) {
            lo = std::max<std::int64_t>(kzi - 1, 0);
            hi = std::min(points_below(z.data(), g.n_z + 1, g.zi + g.v * tj) + 2, pstride - 1);
          } else {
            lo = std::max<std::int64_t>(points_below(z.data(), g.n_z + 1, g.zi - g.v * tj) - 2, 0);
            hi = std::min(kzi + 2, pstride - 1);
          }
          double* row = &P(j, fb * pstride);
          if (lo > hi) {
            std::fill(row, row + pstride, 0.0);
            continue;
          }
          const std::int64_t first = lo / psi_lanes * psi_lanes,
                             end = std::min(padded, (hi / psi_lanes + 1) * psi_lanes);
          std::fill(row, row + first, 0.0);
          std::fill(row + std::min(end, pstride), row + pstride, 0.0);
          PORTASIM_SIMD
          for (std::int64_t k = first; k < end; ++k) {
            const double psi_k = psi(g.right_longer, g.zi, g.v, tj, z[k], d1);
            value[k] = read[k] ? psi_k : 0.0;
          }
          for (std::int64_t k = first; k < std::min(end, pstride); ++k)
            row[k] = value[static_cast<std::size_t>(k)];
        }
      });
}

// S(j, e, f0 + fb) = weight * sum_k source(j, k) H(fb, k, e) for every fiber of the batch: the
// fiber's source rows (zero outside the source's range, as the device form skips them) go to
// a buffer, and one host gemm per fiber multiplies them by the fiber's responses.
template <class ExecutionSpace, class Source, class HView, class Grids, class SView>
void project_on_host(const ExecutionSpace& exec, const Source& source, const HView& H,
                     const Grids& grids, const SView& S, std::int64_t f0, std::int64_t nbatch,
                     bool dz_weighted) {
  const std::int64_t nt = S.extent(0), ne = S.extent(1), ne_padded = H.extent(2);
  Kokkos::parallel_for(
      "portasim::sfap::project",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, nbatch),
      [=](const std::int64_t fb) {
        const FiberGrid& g = grids(f0 + fb);
        const std::int64_t nz = g.n_z;
        // Per thread, reused from fiber to fiber: a fresh megabyte per fiber cost more in page
        // faults than the gemm.
        thread_local std::vector<double> a, c;
        a.resize(static_cast<std::size_t>(nt * nz));
        c.resize(static_cast<std::size_t>(nt * ne_padded));
        const auto rows = source.fiber_rows(g, fb);
        for (std::int64_t j = 0; j < nt; ++j) {
          double* row = a.data() + j * nz;
          std::int64_t lo = 0, hi = -1;
          source.range(g, j, fb, lo, hi);
          lo = std::max<std::int64_t>(lo, 0);
          hi = std::min(hi, nz - 1);
          if (lo > hi) lo = hi + 1;
          std::fill(row, row + lo, 0.0);
          std::fill(row + hi + 1, row + nz, 0.0);
          if (lo <= hi) source.fill_row(g, rows, j, fb, lo, hi, row);
        }
        // Row-major C (nt x ne, leading dimension ne_padded) = A (nt x nz) H_fb (nz x ne) is,
        // column-major, C^T = H_fb^T A^T: the same memory, the operands swapped.
        portasim::impl::host_gemm(static_cast<int>(ne), static_cast<int>(nt), static_cast<int>(nz),
                                  &H(fb, 0, 0), static_cast<int>(ne_padded), a.data(),
                                  static_cast<int>(nz), c.data(), static_cast<int>(ne_padded));
        const double weight = dz_weighted ? g.dz_hat : 1.0;
        for (std::int64_t j = 0; j < nt; ++j)
          for (std::int64_t e = 0; e < ne; ++e) {
            const double value = c[static_cast<std::size_t>(j * ne_padded + e)];
            S(j, e, f0 + fb) = weight == 1.0 ? value : value * weight;
          }
      });
}

// out(j, e, f) = sum_m x'(m) c_f[(j - m) mod N'] with x' the integer-shifted S(., e, f): the
// device form's sums, m ascending from 0, for delay_block outputs j at once. The kernel is
// unrolled twice (cc[i] = c[i mod N']) so that c[(j - m) mod N'] = cc[j - m + N'] for every
// j and m, with no wrap inside the loop.
template <class ExecutionSpace, class SView, class KernelView, class ShiftView, class OutView>
void apply_delays_on_host(const ExecutionSpace& exec, const SView& S, const KernelView& kernel,
                          const ShiftView& shift, const OutView& out) {
  const std::int64_t nt = S.extent(0), ne = S.extent(1), nf = S.extent(2), np = kernel.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::delay",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, nf * ne),
      [=](const std::int64_t i) {
        const std::int64_t f = i / ne, e = i % ne, n = shift(f);
        thread_local std::vector<double> x, cc;  // per thread, reused
        x.resize(static_cast<std::size_t>(nt));
        cc.resize(static_cast<std::size_t>(2 * np + delay_block));
        for (std::int64_t m = 0; m < nt; ++m) {
          const std::int64_t src = shifted_source(m, n, nt);
          x[static_cast<std::size_t>(m)] = src >= 0 ? S(src, e, f) : 0.0;
        }
        for (std::int64_t u = 0; u < 2 * np + delay_block; ++u)
          cc[static_cast<std::size_t>(u)] = kernel(f, u % np);
        for (std::int64_t j0 = 0; j0 < nt; j0 += delay_block) {
          double y[delay_block] = {};
          for (std::int64_t m = 0; m < nt; ++m) {
            const double xm = x[static_cast<std::size_t>(m)];
            const double* c = cc.data() + (j0 - m + np);
            PORTASIM_SIMD
            for (int w = 0; w < delay_block; ++w) y[w] += xm * c[w];
          }
          for (int w = 0; w < delay_block && j0 + w < nt; ++w) out(j0 + w, e, f) = y[w];
        }
      });
}

// kernel(f, u) = delay_kernel(u, phi_f, N') and shift(f) (the integer part of the delay when
// split_integer), for every fiber: the sums over k for all u at once, each in the device
// form's order (k ascending), with (k u) mod N' kept per u by one addition a step.
template <class ExecutionSpace, class DelayView, class KernelView, class ShiftView>
void delay_kernels_on_host(const ExecutionSpace& exec, const DelayView& delay_samples,
                           const KernelView& kernel, const ShiftView& shift, bool split_integer) {
  const std::int64_t nf = kernel.extent(0), np = kernel.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::delay_kernels",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, nf),
      [=](const std::int64_t f) {
        const DelaySplit delay = split_delay(delay_samples(f), split_integer);
        // (k u) mod N' as doubles (exact: integers below N'), since AVX2 cannot convert
        // 64-bit integers to double in vector registers.
        std::vector<double> sum_vector(static_cast<std::size_t>(np), 0.0), ku_vector(sum_vector);
        double* sum = sum_vector.data();
        double* ku = ku_vector.data();
        const double n_points = static_cast<double>(np);
        for (std::int64_t k = 1; k <= (np - 1) / 2; ++k) {
          PORTASIM_SIMD
          for (int u = 0; u < static_cast<int>(np); ++u) {       // int: AVX2 converts it to double
            const double next = ku[u] + static_cast<double>(u);  // from ((k - 1) u) mod N'
            ku[u] = next >= n_points ? next - n_points : next;
            sum[u] += delay_kernel_term(ku[u], k, delay.phase, np);
          }
        }
        for (std::int64_t u = 0; u < np; ++u)
          kernel(f, u) = (1.0 + 2.0 * sum[u]) / static_cast<double>(np);
        shift(f) = delay.shift;
      });
}

}  // namespace portasim::sfap::impl
