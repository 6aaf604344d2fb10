#pragma once
// The SFAP pipeline on host spaces (docs/design/cpu-vectorization.md). A device computes a
// batch of fibers stage by stage through buffers (compute_impl.hpp); a CPU core does better
// with one fiber per work item, every stage in per-thread buffers that stay in its cache and
// are reused from fiber to fiber (fresh buffers cost more in page faults than the arithmetic):
//   points   the fiber's grid, point decisions and responses H (points x electrodes), and
//            for MyoGen's source the weights W of psi (electrode_weights.hpp);
//   source   per time: psi over the long side's rows that the wave has reached, through a
//            loop the compiler vectorizes (glibc's vector exp); the corrected source per
//            point;
//   project  psi (times x rows) times W, or the corrected source times H, through the host
//            BLAS.
// Then the delays, a circular convolution per fiber, as one product with the circulant
// matrix. The physics is physics.hpp's and the weights are the device's; results are the
// device's within rounding, and do not depend on the thread count or on which fibers a run
// computes (MPI blocks match bit for bit).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "portasim/core/impl/host_blas.hpp"
#include "portasim/core/vector_math.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/electrode_weights.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// Points per vectorized step of psi: two AVX2 registers of double. The grid is padded to
// whole steps (repeating the last point), so that every value comes from the vector code.
inline constexpr int psi_lanes = 8;
// Electrodes of H padded to whole AVX2 vectors, so that the responses' loop has no scalar tail.
inline constexpr int electrode_lanes = 4;
// Times per product of the projection: each block multiplies only the rows where one of its
// times has a source (the window grows with the wave), in products large enough for the BLAS.
inline constexpr int gemm_times = 32;

// One thread's buffers for the fiber it computes.
struct FiberScratch {
  std::vector<double> z;             // z(0..n_z), padded with the last point
  std::vector<std::uint8_t> flags;   // point decisions (row_flags)
  std::vector<double> h;             // n_z x ne_padded
  std::vector<double> w;             // (n_z + 1) x ne_padded, MyoGen's source only
  std::vector<double> source;        // nt x stride: psi, or the corrected source
  std::vector<double> product;       // nt x ne_padded
  std::vector<std::int64_t> window;  // the source's rows [lo_j, hi_j] of each time j
};

inline FiberScratch& fiber_scratch() {
  thread_local FiberScratch scratch;
  return scratch;
}

// z(k) of a fiber's grid held in a buffer.
struct BufferZ {
  const double* z;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return z[k]; }
};

// A fiber's row flags and one electrode's column of H in the thread's buffers, as
// electrode_weight reads them (functions it can call from any backend's code).
struct BufferRowFlags {
  const std::uint8_t* flags;
  KOKKOS_INLINE_FUNCTION std::uint8_t operator()(std::int64_t k) const { return flags[k]; }
};
struct BufferResponse {
  const double* h;  // h[k * stride] is row k's
  std::int64_t stride;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return h[k * stride]; }
};

// Grid, point decisions, H (points x ne_padded) and, for MyoGen's source, W of fiber f.
template <class MemorySpace>
void fiber_points_on_host(const FiberGrid& g, const Inputs<MemorySpace>& in, const Options& o,
                          std::int64_t f, double min_r, std::int64_t ne_padded, FiberScratch& s) {
  const std::int64_t n = g.n_z, padded = (n + 1 + psi_lanes - 1) / psi_lanes * psi_lanes;
  const auto size = [](std::int64_t count) { return static_cast<std::size_t>(count); };
  s.z.resize(size(padded));
  s.flags.resize(size(n));
  for (std::int64_t k = 0; k < padded; ++k) s.z[size(k)] = g.z(std::min(k, n));
  const BufferZ z{s.z.data()};
  for (std::int64_t k = 0; k < n; ++k)
    s.flags[size(k)] =
        row_flags(point_coefficients(g, z, k, o.suppress_endplate, o.endplate_half_width_mm));
  const std::int64_t ne = in.electrode_positions.extent(0);
  const auto& el = in.electrode_positions;
  const double xf = in.fiber_centers(f, 0), yf = in.fiber_centers(f, 1);
  s.h.resize(size(n * ne_padded));
  for (std::int64_t k = 0; k < n; ++k) {
    double* h = s.h.data() + k * ne_padded;
    const double zk = s.z[size(k)];
    // Padding electrodes repeat the last one and store 0: a select, so the loop vectorizes.
    PORTASIM_SIMD
    for (std::int64_t e = 0; e < ne_padded; ++e) {
      const std::int64_t eu = e < ne ? e : ne - 1;
      const double r = clamp_radius(radial_distance(xf, yf, el(eu, 0), el(eu, 1)), min_r);
      const double value = elementary_response(zk, r, el(eu, 2), o.sigma_r, o.sigma_z);
      h[e] = e < ne ? value : 0.0;
    }
  }
  if (o.corrected_source) return;
  s.w.resize(size((n + 1) * ne_padded));
  const BufferRowFlags flags{s.flags.data()};
  for (std::int64_t i = 0; i <= n; ++i)
    for (std::int64_t e = 0; e < ne_padded; ++e)
      s.w[size(i * ne_padded + e)] =
          electrode_weight(g, flags, BufferResponse{s.h.data() + e, ne_padded}, i);
}

// psi of the fiber at time t into row[i] for the rows [lo, hi] of psi_window, 0 elsewhere of
// the padded grid: a loop the compiler vectorizes, over [lo, hi] widened to whole lanes.
inline void psi_row_on_host(const FiberGrid& g, double t, double d1, const FiberScratch& s,
                            std::int64_t lo, std::int64_t hi, double* row) {
  const std::int64_t padded = static_cast<std::int64_t>(s.z.size());
  const std::int64_t first = lo / psi_lanes * psi_lanes;
  const std::int64_t end = std::min(padded, (hi / psi_lanes + 1) * psi_lanes);
  std::fill(row, row + first, 0.0);
  std::fill(row + end, row + padded, 0.0);
  const double* z = s.z.data();
  // Locals, which row[] cannot alias: the branch on right_longer leaves the loop.
  const bool right_longer = g.right_longer;
  const double zi = g.zi, v = g.v;
  PORTASIM_SIMD
  for (std::int64_t i = first; i < end; ++i) {
    const double psi_i = psi(right_longer, zi, v, t, z[i], d1);
    row[i] = i >= lo && i <= hi ? psi_i : 0.0;
  }
}

// Per time j into row j of s.source (nt x stride, zero outside rows [lo_j, hi_j], recorded
// in s.window): psi on psi_window's rows for MyoGen's source (the padded grid's rows), the
// corrected source on the grid's n_z. Returns the stride.
template <class Times>
std::int64_t fiber_source_on_host(const FiberGrid& g, const Times& t, const Options& o,
                                  FiberScratch& s) {
  const std::int64_t nt = t.extent(0), nz = g.n_z;
  const std::int64_t stride = o.corrected_source ? nz : static_cast<std::int64_t>(s.z.size());
  const BufferZ z{s.z.data()};
  s.source.resize(static_cast<std::size_t>(nt * stride));
  s.window.resize(static_cast<std::size_t>(2 * nt));
  for (std::int64_t j = 0; j < nt; ++j) {
    double* row = s.source.data() + j * stride;
    std::int64_t lo = 0, hi = nz - 1;
    if (!o.corrected_source) psi_window(source_rows(g, z, t(j)), nz, lo, hi);
    if (lo > hi) lo = hi + 1;
    s.window[static_cast<std::size_t>(2 * j)] = lo;
    s.window[static_cast<std::size_t>(2 * j + 1)] = hi;
    if (!o.corrected_source) {
      if (lo <= hi) psi_row_on_host(g, t(j), o.d1, s, lo, hi, row);
      else std::fill(row, row + stride, 0.0);
      continue;
    }
    for (std::int64_t k = 0; k < nz; ++k)
      row[k] = corrected_current_density(g, z, k, t(j), o.d1, o.suppress_endplate,
                                         o.endplate_half_width_mm);
  }
  return stride;
}

// s.product (nt x ne_padded) = s.source (nt rows of `stride`) times the responses (a row of
// ne_padded per source column: W, or H for the corrected source) through the host BLAS, a
// block of times at a time over only the columns where the block has a source: the skipped
// terms are exact zeros.
inline void project_fiber_on_host(std::int64_t nt, std::int64_t stride, std::int64_t ne_padded,
                                  const double* responses, FiberScratch& s) {
  s.product.assign(static_cast<std::size_t>(nt * ne_padded), 0.0);
  for (std::int64_t j0 = 0; j0 < nt; j0 += gemm_times) {
    const std::int64_t times = std::min<std::int64_t>(gemm_times, nt - j0);
    std::int64_t lo = stride, hi = -1;
    for (std::int64_t j = j0; j < j0 + times; ++j) {
      const std::int64_t row_lo = s.window[static_cast<std::size_t>(2 * j)],
                         row_hi = s.window[static_cast<std::size_t>(2 * j + 1)];
      if (row_lo > row_hi) continue;  // no source at this time
      lo = std::min(lo, row_lo);
      hi = std::max(hi, row_hi);
    }
    if (lo > hi) continue;
    // Row-major product = source responses is, column-major, its transpose = responses^T
    // source^T: the same memory, the operands swapped.
    portasim::impl::host_gemm(
        static_cast<int>(ne_padded), static_cast<int>(times), static_cast<int>(hi - lo + 1),
        responses + lo * ne_padded, static_cast<int>(ne_padded), s.source.data() + j0 * stride + lo,
        static_cast<int>(stride), s.product.data() + j0 * ne_padded, static_cast<int>(ne_padded));
  }
}

// The pre-shift SFAPs S(j, e, f) of every fiber (module comment).
template <class ExecutionSpace>
void compute_fibers_on_host(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& in,
    const Options& o,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    double min_r) {
  const std::int64_t nt = S.extent(0), ne = S.extent(1), nf = S.extent(2);
  const std::int64_t ne_padded = (ne + electrode_lanes - 1) / electrode_lanes * electrode_lanes;
  Kokkos::parallel_for("portasim::sfap::fibers",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>,
                                           Kokkos::IndexType<std::int64_t>>(exec, 0, nf),
                       [=](const std::int64_t f) {
                         const FiberGrid& g = grids(f);
                         FiberScratch& s = fiber_scratch();
                         fiber_points_on_host(g, in, o, f, min_r, ne_padded, s);
                         const std::int64_t stride = fiber_source_on_host(g, t, o, s);
                         project_fiber_on_host(nt, stride, ne_padded,
                                               o.corrected_source ? s.h.data() : s.w.data(), s);
                         const double weight = o.dz_weighted ? g.dz_hat : 1.0;
                         for (std::int64_t j = 0; j < nt; ++j)
                           for (std::int64_t e = 0; e < ne; ++e) {
                             const double value =
                                 s.product[static_cast<std::size_t>(j * ne_padded + e)];
                             S(j, e, f) = weight == 1.0 ? value : value * weight;
                           }
                       });
}

// Rows of the circulant matrix per product of the host delay: its memory per thread stays
// bounded (rows x nt doubles) however long the recording.
inline constexpr std::int64_t delay_rows = 256;

// out(j, e, f) = sum_m x'(m) c_f[(j - m) mod N'] with x' the integer-shifted S(., e, f): per
// fiber, products of the circulant matrix C(j, m) = c_f[(j - m) mod N'] (nt x nt, delay_rows
// rows at a time) and the shifted series of all electrodes (nt x ne).
template <class ExecutionSpace, class SView, class KernelView, class ShiftView, class OutView>
void apply_delays_on_host(const ExecutionSpace& exec, const SView& S, const KernelView& kernel,
                          const ShiftView& shift, const OutView& out) {
  const std::int64_t nt = S.extent(0), ne = S.extent(1), nf = S.extent(2), np = kernel.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::delay",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, nf),
      [=](const std::int64_t f) {
        const std::int64_t n = shift(f);
        thread_local std::vector<double> x, circulant, y, twice;  // per thread, reused
        x.resize(static_cast<std::size_t>(nt * ne));
        y.assign(x.size(), 0.0);
        circulant.resize(static_cast<std::size_t>(std::min(nt, delay_rows) * nt));
        twice.resize(static_cast<std::size_t>(2 * np));  // twice[u] = c_f[u mod N']
        // Only the rows m of x that the shift fills (the others are exact zeros): the gemm
        // reads x and the circulant's columns in [m0, m1) alone.
        const std::int64_t m0 = std::clamp<std::int64_t>(n, 0, nt),
                           m1 = std::clamp<std::int64_t>(nt + n, 0, nt);
        for (std::int64_t m = m0; m < m1; ++m) {
          const std::int64_t src = shifted_source(m, n, nt);
          for (std::int64_t e = 0; e < ne; ++e)
            x[static_cast<std::size_t>(m * ne + e)] = src >= 0 ? S(src, e, f) : 0.0;
        }
        for (std::int64_t u = 0; u < 2 * np; ++u)
          twice[static_cast<std::size_t>(u)] = kernel(f, u % np);
        for (std::int64_t j0 = 0; j0 < nt && m0 < m1; j0 += delay_rows) {
          const std::int64_t rows = std::min(delay_rows, nt - j0);
          for (std::int64_t r = 0; r < rows; ++r) {
            double* row = circulant.data() + r * nt;
            const double* c = twice.data() + j0 + r + np;  // c[-m] = c_f[(j - m) mod N']
            for (std::int64_t m = m0; m < m1; ++m) row[m] = c[-m];
          }
          // Row-major y rows j0.. (rows x ne) = C rows (rows x nt) x (nt x ne), as
          // column-major y^T = x^T C^T.
          portasim::impl::host_gemm(static_cast<int>(ne), static_cast<int>(rows),
                                    static_cast<int>(m1 - m0), x.data() + m0 * ne,
                                    static_cast<int>(ne), circulant.data() + m0,
                                    static_cast<int>(nt), y.data() + j0 * ne, static_cast<int>(ne));
        }
        for (std::int64_t j = 0; j < nt; ++j)
          for (std::int64_t e = 0; e < ne; ++e)
            out(j, e, f) = y[static_cast<std::size_t>(j * ne + e)];
      });
}

}  // namespace portasim::sfap::impl
