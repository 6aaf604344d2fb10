#pragma once
// The pre-shift SFAPs on a device, in batches of fibers under the buffer budget, all on
// `exec`:
//   grid       z of every fiber of the batch (NumPy arange, plus z_last + dz_hat),
//   points     per-grid-point decisions (windows, mirror row, end-plate),
//   weights    the weights W of psi on every row of the extended grid for every electrode:
//              the source's differences and mirror rows moved onto the volume conductor h
//              (electrode_weights.hpp),
//   project    S[j, e, f] = sum_i psi(i, j) W_e(i) (tiled_projection.hpp): teams per
//              (fiber, share of the rows, tile of times), which evaluate psi on a chunk of
//              rows in scratch, then add it into every block of electrodes' sums; i summed in
//              ascending order, rows outside the wave skipped.
// The corrected source (an option) is written to a buffer first and projected from there
// onto h (projection.hpp). Host spaces compute one fiber per work item instead
// (host_kernels.hpp).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "portasim/core/error.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/batch_pool.hpp"
#include "portasim/sfap/impl/electrode_weights.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/impl/tiled_projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// h(fb, k, e): the volume conductor of row k of a batch's grids for an electrode. The radii
// are the result's r_used, and the conductivities' factors (ratio = sigma_z / sigma_r,
// scale = 4 pi sigma_r) are formed once: one square root and one division per value.
template <class MemorySpace>
struct BatchResponse {
  Matrix<MemorySpace> zbuf;
  Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace> electrodes;
  Matrix<MemorySpace> r_used;
  std::int64_t f0;
  double ratio, scale;

  KOKKOS_INLINE_FUNCTION double operator()(const std::int64_t fb, const std::int64_t k,
                                           const std::int64_t e) const {
    return elementary_response_of(zbuf(fb, k) - electrodes(e, 2), r_used(e, f0 + fb), ratio, scale);
  }
};

// H(fb, k, e) = h(fb, k, e); padding electrodes and points past a fiber's grid hold 0.
template <class MemorySpace>
struct VolumeConductor {
  Kokkos::View<const FiberGrid*, MemorySpace> grids;
  BatchResponse<MemorySpace> h;
  Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace> H;
  std::int64_t ne;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t fb, const std::int64_t k,
                                         const std::int64_t e) const {
    H(fb, k, e) = e < ne && k < grids(h.f0 + fb).n_z ? h(fb, k, e) : 0.0;
  }
};

// W(fb, i, e): the weights of psi (electrode_weights.hpp) on the rows of a batch's extended
// grids for an electrode, with h evaluated on the rows that carry a wave; padding electrodes
// and rows past a fiber's extended grid hold 0.
template <class MemorySpace>
struct PsiWeights {
  Kokkos::View<const FiberGrid*, MemorySpace> grids;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, MemorySpace> flags;
  BatchResponse<MemorySpace> h;
  BatchWeights<MemorySpace> W;
  std::int64_t ne;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t fb, const std::int64_t i,
                                         const std::int64_t e) const {
    const FiberGrid& g = grids(h.f0 + fb);
    double w = 0.0;
    if (e < ne && i <= g.n_z) {
      const auto response = [&](std::int64_t k) { return h(fb, k, e); };
      const auto flags_of = [&](std::int64_t k) { return flags(fb, k); };
      w = electrode_weight(g, flags_of, response, i);
    }
    W(fb, i, e) = w;
  }
};

// f(fb, k, e) for every (fiber of the batch, row, electrode): a three-dimensional range (no
// integer division per element) where the CUDA grid allows it (Kokkos 3 bounds its y and z
// dimensions by 65535 blocks), electrodes fastest so that a warp's stores are contiguous.
template <class ExecutionSpace, class F>
void for_each_row_electrode(const ExecutionSpace& exec, const char* label, std::int64_t nbatch,
                            std::int64_t rows, std::int64_t ne_padded, const F& f) {
  using md_policy =
      Kokkos::MDRangePolicy<ExecutionSpace,
                            Kokkos::Rank<3, Kokkos::Iterate::Right, Kokkos::Iterate::Right>>;
  const std::int64_t tile_e = ne_padded < 32 ? ne_padded : 32, tile_rows = 256 / tile_e;
  if ((rows + tile_rows - 1) / tile_rows <= 65535 && nbatch <= 65535)
    Kokkos::parallel_for(
        label, md_policy(exec, {0, 0, 0}, {nbatch, rows, ne_padded}, {1, tile_rows, tile_e}),
        KOKKOS_LAMBDA(const std::int64_t fb, const std::int64_t k, const std::int64_t e) {
          f(fb, k, e);
        });
  else
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nbatch * rows * ne_padded),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t point = i / ne_padded;
          f(point / rows, point % rows, i % ne_padded);
        });
}

// The pre-shift SFAPs of the batch's fibers f0 .. f0 + nbatch - 1. `responses` holds the
// weights W (nbatch, nzmax + 1, ne_padded) of MyoGen's source, or the volume conductor H
// (nbatch, nzmax, ne_padded) of the corrected one.
template <class ExecutionSpace>
void compute_batch(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& in,
    const Options& o,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Matrix<typename ExecutionSpace::memory_space>& zbuf,
    const Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        flags,
    double* responses, std::int64_t ne_padded,
    const Kokkos::View<double**, typename ExecutionSpace::array_layout,
                       typename ExecutionSpace::memory_space>& iap,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, const Matrix<typename ExecutionSpace::memory_space>& r_used, int ec) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t nzmax = zbuf.extent(1) - 1, nt = t.extent(0),
                     ne = in.electrode_positions.extent(0);
  const bool suppress = o.suppress_endplate;
  const double half_width = o.endplate_half_width_mm, d1 = o.d1, ratio = o.sigma_z / o.sigma_r,
               scale = 4 * pi * o.sigma_r;
  const BatchResponse<MemorySpace> response{zbuf, in.electrode_positions, r_used, f0, ratio, scale};
  // grid
  Kokkos::parallel_for(
      "portasim::sfap::grid", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nbatch * (nzmax + 1)),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t fb = i / (nzmax + 1), k = i % (nzmax + 1);
        const FiberGrid g = grids(f0 + fb);
        zbuf(fb, k) = k <= g.n_z ? g.z(k) : 0.0;
      });
  // points: the decisions of every grid point (rows past a fiber's grid are never read)
  Kokkos::parallel_for(
      "portasim::sfap::points", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nbatch * nzmax),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t fb = i / nzmax, k = i % nzmax;
        const FiberGrid& g = grids(f0 + fb);
        if (k >= g.n_z) return;
        const BatchRowZ<MemorySpace> z{zbuf, fb};
        flags(fb, k) = row_flags(point_coefficients(g, z, k, suppress, half_width));
      });
  if (!o.corrected_source) {
    // MyoGen's source: the weights of psi, then psi formed in each projection team's scratch.
    const BatchWeights<MemorySpace> W(responses, nbatch, nzmax + 1, ne_padded);
    const PsiWeights<MemorySpace> weights{grids, flags, response, W, ne};
    for_each_row_electrode(exec, "portasim::sfap::psi_weights", nbatch, nzmax + 1, ne_padded,
                           weights);
    const PsiTiles<ExecutionSpace> source{zbuf, t, d1};
    with_block_width(ec, [&](auto width) {
      project_psi_tiles<ExecutionSpace, decltype(width)::value>(exec, source, W, grids, S, partial,
                                                                f0, nbatch, o.dz_weighted);
    });
    return;
  }
  // The corrected source: the volume conductor of every point for every electrode
  // (VolumeConductor), the source into its buffer, then projected from there.
  const Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace> H(responses, nbatch, nzmax,
                                                                    ne_padded);
  const VolumeConductor<MemorySpace> conductor{grids, response, H, ne};
  for_each_row_electrode(exec, "portasim::sfap::responses", nbatch, nzmax, ne_padded, conductor);
  // Three-dimensional ranges (time, fiber, point): no integer division per element; tiles of
  // 32 consecutive times (coalesced in the time-fastest layout) by 8 points.
  using md_policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<3>>;
  const std::int64_t tile_j = 32, tile_k = 8, tile_f = 1;
  Kokkos::parallel_for(
      "portasim::sfap::corrected_source",
      md_policy(exec, {0, 0, 0}, {nt, nbatch, nzmax}, {tile_j, tile_f, tile_k}),
      KOKKOS_LAMBDA(const std::int64_t j, const std::int64_t fb, const std::int64_t k) {
        const FiberGrid& g = grids(f0 + fb);
        const BatchRowZ<MemorySpace> z{zbuf, fb};
        iap(j, fb * nzmax + k) =
            k < g.n_z ? corrected_current_density(g, z, k, t(j), d1, suppress, half_width) : 0.0;
      });
  const SourceFromBuffer<ExecutionSpace> source{iap, nzmax};
  with_block_width(ec, [&](auto width) {
    project_batch<ExecutionSpace, decltype(width)::value>(exec, source, H, grids, S, partial, f0,
                                                          nbatch, o.dz_weighted);
  });
}

// The pre-shift SFAPs of every fiber on a device, in batches under the buffer budget.
template <class ExecutionSpace>
void compute_in_batches(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& in,
    const Options& o,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    std::int64_t nzmax, const Matrix<typename ExecutionSpace::memory_space>& r_used) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t nt = t.extent(0), ne = S.extent(1), nf = S.extent(2);
  // The projection indexes a fiber's rows with 32-bit integers.
  // (2^30 leaves room for the mirror rows, up to about twice the grid's length).
  require(nzmax < (std::int64_t(1) << 30),
          "sfap: dz is too small for the muscle (2^30 or more grid points per fiber)");
  const int ec = electrode_block(ne);
  const std::int64_t ne_padded = (ne + ec - 1) / ec * ec;
  // Only the corrected source goes through a current-density buffer and projects the grid's
  // rows; MyoGen's is formed in the projection's teams, which project psi on the extended
  // grid's.
  const bool source_buffer = o.corrected_source;
  const std::int64_t projected_rows = source_buffer ? nzmax : nzmax + 1;
  const std::int64_t shares = projection_shares(projected_rows);
  const double per_fiber =
      (static_cast<double>(nzmax + 1) * static_cast<double>(ne_padded + 2) +
       (source_buffer ? static_cast<double>(nzmax) * static_cast<double>(nt) : 0.0) +
       (shares > 1 ? static_cast<double>(shares * nt * ne) : 0.0)) *
      8.0;
  // The buffers come from the batch pool, so its cap (PORTASIM_POOL_LIMIT) bounds them too.
  const double budget = std::min(
      o.max_buffer_bytes > 0 ? static_cast<double>(o.max_buffer_bytes) : 2048.0 * (1 << 20),
      static_cast<double>(BatchPool<ExecutionSpace>::limit_bytes()));
  std::int64_t nbatch = static_cast<std::int64_t>(budget / per_fiber);
  nbatch = std::max<std::int64_t>(1, std::min(nbatch, nf));
  // The projections count their teams in an int: per fiber at most shares x (tiles of at
  // least 8 times) x electrodes.
  const std::int64_t teams_per_fiber = shares * ((nt + 7) / 8 + 1) * ne;
  require(teams_per_fiber < std::numeric_limits<int>::max(),
          "sfap: too many time samples x electrodes x grid points per fiber for one launch");
  nbatch = std::min(nbatch, std::numeric_limits<int>::max() / teams_per_fiber);
  // The buffers come from the batch pool (batch_pool.hpp): views over its blocks, which go
  // back in exec's order when the blocks' handles go at the end of this function.
  using Layout = typename ExecutionSpace::array_layout;
  auto block = [&](std::int64_t count, std::size_t size) {
    return BatchPool<ExecutionSpace>::allocate(exec, static_cast<std::size_t>(count) * size);
  };
  const std::int64_t iap_rows = source_buffer ? nt : 0,
                     iap_cols = source_buffer ? nbatch * nzmax : 0;
  const std::int64_t partials = shares > 1 ? shares * nt * ne * nbatch : 0;
  const PoolBlock z_block = block(nbatch * (nzmax + 1), sizeof(double)),
                  flags_block = block(nbatch * nzmax, sizeof(std::uint8_t)),
                  responses_block = block(nbatch * projected_rows * ne_padded, sizeof(double)),
                  iap_block = block(iap_rows * iap_cols, sizeof(double)),
                  partial_block = block(partials, sizeof(double));
  const Matrix<MemorySpace> zbuf(static_cast<double*>(z_block.data()), nbatch, nzmax + 1);
  const Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, MemorySpace> flags(
      static_cast<std::uint8_t*>(flags_block.data()), nbatch, nzmax);
  const Kokkos::View<double**, Layout, MemorySpace> iap(static_cast<double*>(iap_block.data()),
                                                        iap_rows, iap_cols);
  const Kokkos::View<double*, MemorySpace> partial(static_cast<double*>(partial_block.data()),
                                                   partials);
  for (std::int64_t f0 = 0; f0 < nf; f0 += nbatch) {
    const std::int64_t nb = std::min(nbatch, nf - f0);
    compute_batch(exec, in, o, grids, t, zbuf, flags, static_cast<double*>(responses_block.data()),
                  ne_padded, iap, S, partial, f0, nb, r_used, ec);
  }
}

}  // namespace portasim::sfap::impl
