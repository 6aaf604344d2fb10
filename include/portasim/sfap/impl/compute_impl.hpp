#pragma once
// Kernels of sfap::compute and of the single functions. Included by src/sfap/compute.cpp
// (explicit instantiation per execution space); users include portasim/sfap/compute.hpp.
//
// On a device, per batch of fibers under the buffer budget (all on `exec`):
//   grid     z of every fiber of the batch (NumPy arange, plus z_last + dz_hat),
//   points   per-grid-point decisions (windows, mirror row, end-plate) and h for every electrode,
//   project  S[j, e, f] = sum_k IAP[k, j] h_e[k] (tiled_projection.hpp): teams per (fiber,
//            share of the points, tile of times), which form the source of a chunk of rows
//            in scratch from psi, evaluated where it is read, then add it into every block
//            of electrodes' sums; k summed in ascending order, rows outside the wave skipped.
// The corrected source (an option) is written to a buffer first and projected from there
// (projection.hpp).
// Host spaces compute one fiber per work item instead (host_kernels.hpp).
// Then, with delays: integer + fractional delay as a real circular convolution with the kernel
// whose DFT is the spec's phase ramp, and the MUAP (optionally jittered the same way).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "portasim/core/compat.hpp"
#include "portasim/core/counter_rng.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/batch_pool.hpp"
#include "portasim/sfap/impl/fiber_grids.hpp"
#include "portasim/sfap/impl/host_kernels.hpp"
#include "portasim/sfap/impl/projection.hpp"
#include "portasim/sfap/impl/tiled_projection.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// An explicit grid z plus the extra point.
template <class MemorySpace>
struct ExplicitZ {
  Kokkos::View<const double*, MemorySpace> z;
  double last;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return k < n ? z(k) : last; }
};

inline double resolve_dt(const Options& o) { return o.dt_s > 0 ? o.dt_s : 1.0 / o.fs_hz; }

// Validation bits of the input values.
enum InputFlaw : int {
  flaw_centers = 1,
  flaw_endplate = 2,
  flaw_velocity = 4,
  flaw_diameter = 8,
  flaw_nerve_paths = 16,
  flaw_electrodes = 32
};

template <class MemorySpace>
struct ViewValues {
  Kokkos::View<const double*, MemorySpace> x;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return x(i); }
};

// What compute needs to know of its inputs before it sizes anything, in one pass and one
// synchronisation: the flaws of the block's values (InputFlaw bits), the longest duration
// max(L1, L2)/v of every fiber of the unit (its time axis is the whole unit's), and NumPy's
// pairwise sum of every fiber's diameter (whose mean is the default minimum radius), which
// work item 0 forms alone while the others add an exact 0.
struct InputSummary {
  int flaws = 0;
  double longest = 0;
  double diameter_sum = 0;
};

template <class MemorySpace>
struct SummarizeInputs {
  using value_type = InputSummary;
  Inputs<MemorySpace> block;  // the fibers this call computes
  Inputs<MemorySpace> all;    // every fiber of the unit
  bool check_paths = false, sum_diameters = false;

  KOKKOS_INLINE_FUNCTION void init(value_type& s) const {
    s.flaws = 0;
    s.longest = 0;
    s.diameter_sum = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    a.flaws |= b.flaws;
    if (b.longest > a.longest) a.longest = b.longest;
    a.diameter_sum += b.diameter_sum;
  }
  // Kokkos 3.x joins through volatile references as well; goes with Kokkos 3 support.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a, const volatile value_type& b) const {
    a.flaws |= b.flaws;
    if (b.longest > a.longest) a.longest = b.longest;
    a.diameter_sum += b.diameter_sum;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, value_type& s) const {
    namespace m = compat::math;
    const std::int64_t nf = block.endplate_z.extent(0), ne = block.electrode_positions.extent(0);
    const double left = block.left_mm, right = block.right_mm;
    if (i < nf) {
      const double zi = block.endplate_z(i), v = block.conduction_velocity(i),
                   d = block.diameter(i);
      if (!m::isfinite(block.fiber_centers(i, 0)) || !m::isfinite(block.fiber_centers(i, 1)))
        s.flaws |= flaw_centers;
      if (!m::isfinite(zi) || !(zi >= left) || !(zi <= right)) s.flaws |= flaw_endplate;
      if (!m::isfinite(v) || !(v > 0)) s.flaws |= flaw_velocity;
      if (!m::isfinite(d) || !(d > 0)) s.flaws |= flaw_diameter;
      if (check_paths &&
          (!m::isfinite(block.nerve_paths(i, 0)) || !m::isfinite(block.nerve_paths(i, 1))))
        s.flaws |= flaw_nerve_paths;
    }
    if (i < ne)
      for (int c = 0; c < 3; ++c)
        if (!m::isfinite(block.electrode_positions(i, c))) s.flaws |= flaw_electrodes;
    const std::int64_t n_all = all.endplate_z.extent(0);
    if (i < n_all) {
      const double L1 = right - all.endplate_z(i), L2 = all.endplate_z(i) - left;
      const double T = (L1 > L2 ? L1 : L2) / all.conduction_velocity(i);
      if (T > s.longest) s.longest = T;
    }
    if (i == 0 && sum_diameters)
      s.diameter_sum += pairwise_sum(ViewValues<MemorySpace>{all.diameter}, n_all);
  }
};

template <class ExecutionSpace, class MemorySpace>
InputSummary summarize_inputs(const ExecutionSpace& exec, const Inputs<MemorySpace>& block,
                              const Inputs<MemorySpace>& all, bool check_paths,
                              bool sum_diameters) {
  const std::int64_t n = std::max({static_cast<std::int64_t>(block.endplate_z.extent(0)),
                                   static_cast<std::int64_t>(block.electrode_positions.extent(0)),
                                   static_cast<std::int64_t>(all.endplate_z.extent(0))});
  InputSummary summary;
  Kokkos::parallel_reduce(
      "portasim::sfap::summarize_inputs", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      SummarizeInputs<MemorySpace>{block, all, check_paths, sum_diameters}, summary);
  return summary;
}

template <class ExecutionSpace, class MemorySpace>
double max_duration(const ExecutionSpace& exec, const Kokkos::View<const double*, MemorySpace>& zi,
                    const Kokkos::View<const double*, MemorySpace>& v, double left, double right) {
  double tmax = 0;
  Kokkos::parallel_reduce(
      "portasim::sfap::duration", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, zi.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t f, double& m) {
        const double L1 = right - zi(f), L2 = zi(f) - left;
        const double T = (L1 > L2 ? L1 : L2) / v(f);
        if (T > m) m = T;
      },
      Kokkos::Max<double>(tmax));
  return 2 * tmax;
}

template <class ExecutionSpace>
void fill_time_axis(const ExecutionSpace& exec,
                    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& t,
                    double dt) {
  Kokkos::parallel_for(
      "portasim::sfap::time_axis", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, t.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t j) { t(j) = arange_element(0.0, dt, j); });
}

// The time axis arange(0, T + dt, dt).
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> time_axis_of_duration(
    const ExecutionSpace& exec, double T, double dt) {
  const std::int64_t nt = arange_length(0.0, T + dt, dt);
  Kokkos::View<double*, typename ExecutionSpace::memory_space> t(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_t"), nt);
  fill_time_axis(exec, t, dt);
  return t;
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> time_axis_impl(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& zi,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& v, double left,
    double right, double dt) {
  return time_axis_of_duration(exec, max_duration(exec, zi, v, left, right), dt);
}

// ---- compute ---------------------------------------------------------------------------------

template <class ExecutionSpace>
void compute_batch(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& in,
    const Options& o,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Matrix<typename ExecutionSpace::memory_space>& zbuf,
    const Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        flags,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& H,
    const Kokkos::View<double**, typename ExecutionSpace::array_layout,
                       typename ExecutionSpace::memory_space>& iap,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    const Kokkos::View<double*, typename ExecutionSpace::memory_space>& partial, std::int64_t f0,
    std::int64_t nbatch, double min_r, int ec) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t nzmax = zbuf.extent(1) - 1, nt = t.extent(0),
                     ne = in.electrode_positions.extent(0);
  const std::int64_t ne_padded = H.extent(2);
  const bool suppress = o.suppress_endplate, corrected = o.corrected_source;
  const double half_width = o.endplate_half_width_mm, d1 = o.d1, sigma_r = o.sigma_r,
               sigma_z = o.sigma_z;
  const auto centers = in.fiber_centers;
  const auto el = in.electrode_positions;
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
  // responses: the volume conductor of every point for every electrode, electrodes fastest
  // so that a warp's stores are contiguous; padding electrodes and points past a fiber's grid
  // hold 0.
  Kokkos::parallel_for(
      "portasim::sfap::responses",
      Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nbatch * nzmax * ne_padded),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t e = i % ne_padded, point = i / ne_padded;
        const std::int64_t fb = point / nzmax, k = point % nzmax, f = f0 + fb;
        double h = 0.0;
        if (e < ne && k < grids(f).n_z) {
          const double r = clamp_radius(
              radial_distance(centers(f, 0), centers(f, 1), el(e, 0), el(e, 1)), min_r);
          h = elementary_response(zbuf(fb, k), r, el(e, 2), sigma_r, sigma_z);
        }
        H(fb, k, e) = h;
      });
  if (!corrected) {
    // MyoGen's source, formed in each projection team's scratch from psi where it is read.
    project_source_tiles_dispatch(exec, ec, SourceTiles<ExecutionSpace>{zbuf, flags, t, d1}, H,
                                  grids, S, partial, f0, nbatch, o.dz_weighted);
    return;
  }
  // The corrected source into its buffer first, then projected from there. Three-dimensional
  // ranges (time, fiber, point): no integer division per element; tiles of 32 consecutive
  // times (coalesced in the time-fastest layout) by 8 points.
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
  project_dispatch(exec, ec, SourceFromBuffer<ExecutionSpace>{iap, nzmax}, H, grids, S, partial, f0,
                   nbatch, o.dz_weighted);
}

// The pre-shift SFAPs of every fiber on a device, in batches under the buffer budget.
template <class ExecutionSpace>
void compute_in_batches(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& in,
    const Options& o,
    const Kokkos::View<const FiberGrid*, typename ExecutionSpace::memory_space>& grids,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>& S,
    std::int64_t nzmax, double min_r) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t nt = t.extent(0), ne = S.extent(1), nf = S.extent(2);
  // The projection indexes a fiber's rows with 32-bit integers.
  // (2^30 leaves room for the mirror rows, up to about twice the grid's length).
  require(nzmax < (std::int64_t(1) << 30),
          "sfap: dz is too small for the muscle (2^30 or more grid points per fiber)");
  const int ec = electrode_block(ne);
  const std::int64_t ne_padded = (ne + ec - 1) / ec * ec;
  const std::int64_t shares = projection_shares(nzmax);
  // Only the corrected source goes through a current-density buffer; MyoGen's is formed in
  // the projection's teams.
  const bool source_buffer = o.corrected_source;
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
                  h_block = block(nbatch * nzmax * ne_padded, sizeof(double)),
                  iap_block = block(iap_rows * iap_cols, sizeof(double)),
                  partial_block = block(partials, sizeof(double));
  const Matrix<MemorySpace> zbuf(static_cast<double*>(z_block.data()), nbatch, nzmax + 1);
  const Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, MemorySpace> flags(
      static_cast<std::uint8_t*>(flags_block.data()), nbatch, nzmax);
  const Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace> H(
      static_cast<double*>(h_block.data()), nbatch, nzmax, ne_padded);  // (fiber, point, electrode)
  const Kokkos::View<double**, Layout, MemorySpace> iap(static_cast<double*>(iap_block.data()),
                                                        iap_rows, iap_cols);
  const Kokkos::View<double*, MemorySpace> partial(static_cast<double*>(partial_block.data()),
                                                   partials);
  for (std::int64_t f0 = 0; f0 < nf; f0 += nbatch) {
    const std::int64_t nb = std::min(nbatch, nf - f0);
    compute_batch(exec, in, o, grids, t, zbuf, flags, H, iap, S, partial, f0, nb, min_r, ec);
  }
}

// Delay kernels c_f[u] (N_fibers, N') and integer shifts.
template <class ExecutionSpace>
void delay_kernels(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& delay_samples,
    const Matrix<typename ExecutionSpace::memory_space>& kernel,
    const Kokkos::View<std::int64_t*, typename ExecutionSpace::memory_space>& shift,
    bool split_integer) {
  const std::int64_t nf = kernel.extent(0), np = kernel.extent(1);
  Kokkos::parallel_for(
      "portasim::sfap::delay_kernels", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf * np),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t f = i / np, u = i % np;
        const DelaySplit delay = split_delay(delay_samples(f), split_integer);
        kernel(f, u) = delay_kernel(u, delay.phase, np);
        if (u == 0) shift(f) = delay.shift;
      });
}

template <class ExecutionSpace>
void apply_delays(
    const ExecutionSpace& exec,
    const Kokkos::View<const double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        S,
    const Matrix<typename ExecutionSpace::memory_space>& kernel,
    const Kokkos::View<const std::int64_t*, typename ExecutionSpace::memory_space>& shift,
    const Kokkos::View<double***, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        out) {
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  using scratch_view =
      Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                           typename ExecutionSpace::memory_space>::accessible) {
    apply_delays_on_host(exec, S, kernel, shift, out);
    return;
  }
  const std::int64_t nt = S.extent(0), ne = S.extent(1), nf = S.extent(2), np = kernel.extent(1);
  // One team per (fiber, electrode): the integer-shifted series x' and the fiber's kernel twice
  // over (cc[u] = c[u mod N'], so that c[(j - m) mod N'] = cc[j - m + N'] without a branch) go
  // to scratch. A thread sums four outputs, j + q ceil(nt/4), over m ascending, so that each
  // load of x'(m) serves four independent sums, and only over the rows m that the shift
  // fills (the others are exact zeros and add nothing).
  constexpr int outputs = 4;
  const std::int64_t rows = (nt + outputs - 1) / outputs;
  const std::size_t bytes = scratch_view::shmem_size(nt) + scratch_view::shmem_size(2 * np);
  // A long series goes to level-1 scratch (device memory, through the caches), which has no
  // such bound as the shared memory of level 0.
  const int level = bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(0)) ? 0 : 1;
  Kokkos::parallel_for(
      "portasim::sfap::delay",
      team_policy(exec, static_cast<int>(nf * ne), Kokkos::AUTO)
          .set_scratch_size(level, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t f = team.league_rank() / ne, e = team.league_rank() % ne;
        const scratch_view x(team.team_scratch(level), nt), cc(team.team_scratch(level), 2 * np);
        const std::int64_t n = shift(f);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * np), [&](const std::int64_t u) {
          cc(u) = kernel(f, u < np ? u : u - np);
          if (u < nt) {
            const std::int64_t src = shifted_source(u, n, nt);
            x(u) = src >= 0 ? S(src, e, f) : 0.0;
          }
        });
        team.team_barrier();
        const std::int64_t m0 = n < 0 ? 0 : (n > nt ? nt : n);
        const std::int64_t m1 = nt + n < 0 ? 0 : (nt + n > nt ? nt : nt + n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows), [&](const std::int64_t row) {
          std::int64_t j[outputs];
          double y[outputs];
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q) {
            // An output past the series repeats the row's first and is never stored.
            j[q] = row + q * rows < nt ? row + q * rows : row;
            y[q] = 0.0;
          }
          for (std::int64_t m = m0; m < m1; ++m) {
            const double xm = x(m);
            PORTASIM_UNROLL
            for (int q = 0; q < outputs; ++q) y[q] += xm * cc(j[q] - m + np);
          }
          PORTASIM_UNROLL
          for (int q = 0; q < outputs; ++q)
            if (row + q * rows < nt) out(j[q], e, f) = y[q];
        });
      });
}

// n values of T for one call: from the batch pool (batch_pool.hpp), freed in exec's order at
// the end of the call, where a View of its own is freed with a synchronization of the
// device; under a pool cap (PORTASIM_POOL_LIMIT), which the batches are sized against, an
// allocation of its own.
template <class T, class MemorySpace>
struct CallTemporary {
  PoolBlock block;                     // empty for an allocation of its own
  Kokkos::View<T*, MemorySpace> view;  // over the block, or owning its memory
};

template <class T, class ExecutionSpace>
CallTemporary<T, typename ExecutionSpace::memory_space> call_temporary(const ExecutionSpace& exec,
                                                                       std::int64_t n,
                                                                       const std::string& label) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  CallTemporary<T, MemorySpace> temporary;
  if (BatchPool<ExecutionSpace>::limit_bytes() == std::numeric_limits<std::size_t>::max()) {
    temporary.block =
        BatchPool<ExecutionSpace>::allocate(exec, static_cast<std::size_t>(n) * sizeof(T));
    temporary.view = Kokkos::View<T*, MemorySpace>(static_cast<T*>(temporary.block.data()), n);
  } else {
    // With the instance: a View of a struct is destroyed by a kernel, which otherwise runs on
    // the default instance of the memory space's execution space.
    temporary.view = Kokkos::View<T*, MemorySpace>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n);
  }
  return temporary;
}

// Fibers [begin, end) of the inputs.
template <class MemorySpace>
Inputs<MemorySpace> fiber_block(const Inputs<MemorySpace>& in, std::int64_t begin,
                                std::int64_t end) {
  const auto range = Kokkos::make_pair(begin, end);
  Inputs<MemorySpace> out = in;
  out.fiber_centers = Kokkos::subview(in.fiber_centers, range, Kokkos::ALL);
  out.endplate_z = Kokkos::subview(in.endplate_z, range);
  out.conduction_velocity = Kokkos::subview(in.conduction_velocity, range);
  out.diameter = Kokkos::subview(in.diameter, range);
  if (in.nerve_paths.extent(0) > 0)
    out.nerve_paths = Kokkos::subview(in.nerve_paths, range, Kokkos::ALL);
  return out;
}

template <class ExecutionSpace>
Result<typename ExecutionSpace::memory_space> compute_impl(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& all,
    const Options& o) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  Result<MemorySpace> res;
  // A block of the fibers (options.first_fiber / fiber_count; one rank of a split run): the
  // time axis and the default minimum radius come from `all`, everything else from `in`.
  const std::int64_t n_all = all.endplate_z.extent(0);
  const std::int64_t first_fiber = o.first_fiber;
  const std::int64_t block_end = o.fiber_count < 0 ? n_all : first_fiber + o.fiber_count;
  const bool whole = first_fiber == 0 && block_end == n_all;
  if (!whole) {
    auto rows = [&](std::size_t n) { return static_cast<std::int64_t>(n) == n_all; };
    require(first_fiber >= 0 && first_fiber < block_end && block_end <= n_all,
            "sfap: fiber block " + std::to_string(first_fiber) + ".." +
                std::to_string(block_end - 1) + " is empty or outside the " +
                std::to_string(n_all) + " fibers");
    require(rows(all.fiber_centers.extent(0)) && rows(all.conduction_velocity.extent(0)) &&
                rows(all.diameter.extent(0)) &&
                (all.nerve_paths.extent(0) == 0 || rows(all.nerve_paths.extent(0))),
            "sfap: the fiber inputs must all have N_fibers = " + std::to_string(n_all) + " rows");
  }
  const Inputs<MemorySpace> in = whole ? all : fiber_block(all, first_fiber, block_end);
  // ---- host checks of shapes and scalars
  const std::int64_t nf = in.endplate_z.extent(0), ne = in.electrode_positions.extent(0);
  require(nf > 0, "sfap: no fibers (endplate_z is empty)");
  require(ne > 0, "sfap: no electrodes (electrode_positions is empty)");
  require(
      in.fiber_centers.extent(0) == static_cast<std::size_t>(nf) && in.fiber_centers.extent(1) == 2,
      "sfap: fiber_centers must have shape (N_fibers, 2) = (" + std::to_string(nf) + ", 2)");
  require(in.conduction_velocity.extent(0) == static_cast<std::size_t>(nf),
          "sfap: conduction_velocity must have N_fibers = " + std::to_string(nf) + " values");
  require(in.diameter.extent(0) == static_cast<std::size_t>(nf),
          "sfap: diameter must have N_fibers = " + std::to_string(nf) + " values");
  require(in.electrode_positions.extent(1) == 3,
          "sfap: electrode_positions must have shape (N_electrodes, 3)");
  const bool delays = o.apply_delays;
  if (delays)
    require(
        in.nerve_paths.extent(0) == static_cast<std::size_t>(nf) && in.nerve_paths.extent(1) == 2,
        "sfap: nerve_paths must have shape (N_fibers, 2) = (" + std::to_string(nf) +
            ", 2) when delays are applied");
  require(std::isfinite(in.left_mm) && std::isfinite(in.right_mm) && in.right_mm > in.left_mm,
          "sfap: the muscle must have finite ends with right > left");
  require(std::isfinite(o.dz_mm) && o.dz_mm > 0, "sfap: dz must be finite and > 0");
  const double dt = resolve_dt(o);
  require(std::isfinite(dt) && dt > 0, "sfap: dt (1/fs) must be finite and > 0");
  require(std::isfinite(o.jitter_sd_s) && o.jitter_sd_s >= 0,
          "sfap: jitter_sd_s must be finite and >= 0");
  require(o.endplate_half_width_mm >= 0, "sfap: endplate_half_width_mm must be >= 0");
  require(o.sigma_r > 0 && o.sigma_z > 0, "sfap: conductivities must be > 0");
  const bool default_min_r = !(o.min_radial_dist_mm >= 0);
  const InputSummary summary = summarize_inputs(exec, in, all, delays, default_min_r);
  const int flaws = summary.flaws;
  require(!(flaws & flaw_centers), "sfap: fiber_centers has a non-finite value");
  require(!(flaws & flaw_endplate), "sfap: endplate_z must be finite and within [left, right]");
  require(!(flaws & flaw_velocity), "sfap: conduction_velocity must be finite and > 0");
  require(!(flaws & flaw_diameter), "sfap: diameter must be finite and > 0");
  require(!(flaws & flaw_nerve_paths), "sfap: nerve_paths has a non-finite value");
  require(!(flaws & flaw_electrodes), "sfap: electrode_positions has a non-finite value");

  const double left = in.left_mm, right = in.right_mm, dz = o.dz_mm, sigma_i = o.sigma_i;
  // float(mean(d)) of every fiber of the unit, NumPy's pairwise sum.
  const double min_r = default_min_r
                           ? summary.diameter_sum / static_cast<double>(all.diameter.extent(0))
                           : o.min_radial_dist_mm;
  res.dt_s = dt;
  res.dz_mm = dz;
  res.min_radial_dist_mm = min_r;
  res.n_fibers = nf;
  res.n_electrodes = ne;

  // ---- time axis and grids
  res.t = time_axis_of_duration(exec, 2 * summary.longest, dt);
  const std::int64_t nt = res.t.extent(0);
  res.nt = nt;
  // The call's temporaries (the grids here, the delay kernels below) come from the batch
  // pool: freed in exec's order when their blocks go at the end of the call, where Views of
  // their own would each be freed with a synchronization of the device.
  const auto grid_block = call_temporary<FiberGrid>(exec, nf, "sfap_grids");
  const Kokkos::View<FiberGrid*, MemorySpace> grids = grid_block.view;
  res.n_z = decltype(res.n_z)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_n_z"), nf);
  res.mirror_shift = decltype(res.mirror_shift)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_mirror_shift"), nf);
  res.branch_L1_ge_L2 = decltype(res.branch_L1_ge_L2)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_branch"), nf);
  res.dz_hat =
      decltype(res.dz_hat)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_dz_hat"), nf);
  res.n_z_max = fiber_grids(exec, in, dz, sigma_i, grids, res);
  const std::int64_t nzmax = res.n_z_max;
  require(nzmax >= 2, "sfap: dz is too large for the muscle (fewer than 2 grid points)");

  // ---- radial distances (diagnostics)
  res.r_raw =
      Matrix<MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_r_raw"), ne, nf);
  res.r_used =
      Matrix<MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_r_used"), ne, nf);
  {
    const auto centers = in.fiber_centers;
    const auto el = in.electrode_positions;
    const auto r_raw = res.r_raw;
    const auto r_used = res.r_used;
    Kokkos::parallel_for(
        "portasim::sfap::radii", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, ne * nf),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int64_t e = i / nf, f = i % nf;
          const double r = radial_distance(centers(f, 0), centers(f, 1), el(e, 0), el(e, 1));
          r_raw(e, f) = r;
          r_used(e, f) = clamp_radius(r, min_r);
        });
  }

  // ---- SFAPs: on a device in batches of fibers under the buffer budget, on the host one
  // fiber per work item with per-thread buffers (host_kernels.hpp)
  res.sfaps_pre_shift = typename Result<MemorySpace>::cube(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfaps_pre_shift"), nt, ne, nf);
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  if constexpr (on_host)
    compute_fibers_on_host(exec, in, o, Kokkos::View<const FiberGrid*, MemorySpace>(grids), res.t,
                           res.sfaps_pre_shift, min_r);
  else
    compute_in_batches(exec, in, o, Kokkos::View<const FiberGrid*, MemorySpace>(grids), res.t,
                       res.sfaps_pre_shift, nzmax, min_r);

  if (!delays) return res;
  // ---- delays
  const std::int64_t np = odd_length(nt);
  res.delays_s =
      decltype(res.delays_s)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_delays"), nf);
  const auto samples_block = call_temporary<double>(exec, nf, "sfap_delay_samples");
  const Kokkos::View<double*, MemorySpace> delay_samples = samples_block.view;
  {
    const auto paths = in.nerve_paths;
    const auto delays_s = res.delays_s;
    const double v0 = o.nmj_velocity_0, v1 = o.nmj_velocity_1;
    Kokkos::parallel_for(
        "portasim::sfap::nerve_delays", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf),
        KOKKOS_LAMBDA(const std::int64_t f) {
          const double delay = paths(f, 0) / v0 + paths(f, 1) / v1;
          delays_s(f) = delay;
          delay_samples(f) = delay / dt;
        });
  }
  const auto kernel_block = call_temporary<double>(exec, nf * np, "sfap_delay_kernel");
  const Matrix<MemorySpace> kernel(kernel_block.view.data(), nf, np);
  const auto shift_block = call_temporary<std::int64_t>(exec, nf, "sfap_delay_shift");
  const Kokkos::View<std::int64_t*, MemorySpace> shift = shift_block.view;
  delay_kernels(exec, Kokkos::View<const double*, MemorySpace>(delay_samples), kernel, shift, true);
  res.sfaps_post_shift = typename Result<MemorySpace>::cube(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfaps_post_shift"), nt, ne, nf);
  apply_delays(exec,
               Kokkos::View<const double***, Kokkos::LayoutRight, MemorySpace>(res.sfaps_pre_shift),
               kernel, Kokkos::View<const std::int64_t*, MemorySpace>(shift), res.sfaps_post_shift);

  // ---- MUAP: the sum over fibers, in fiber order, of the post-shift SFAPs, or with jitter of
  // the jittered SFAPs (a further N(0, sd)/dt samples per fiber through the same FFT-defined
  // delay). Jittered SFAPs are kept as their own cube so that a rank of a split run hands the
  // same per-fiber terms to the ordered MUAP reduction (distributed::gather_result) as a
  // single rank sums here.
  res.muap = Matrix<MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "muap"), nt, ne);
  auto terms = res.sfaps_post_shift;
  if (o.jitter_sd_s > 0) {
    const double scale = o.jitter_sd_s / dt;
    const std::uint64_t seed = o.jitter_seed;
    Kokkos::parallel_for(
        "portasim::sfap::jitter_draws", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nf),
        KOKKOS_LAMBDA(const std::int64_t f) {
          // hr_shift_template(x, jitter): earlier by the draw, i.e. a delay of -jitter samples.
          delay_samples(f) =
              -counter_normal(seed, static_cast<std::uint64_t>(first_fiber + f), 0) * scale;
        });
    delay_kernels(exec, Kokkos::View<const double*, MemorySpace>(delay_samples), kernel, shift,
                  false);
    res.sfaps_jittered = typename Result<MemorySpace>::cube(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfaps_jittered"), nt, ne, nf);
    apply_delays(
        exec, Kokkos::View<const double***, Kokkos::LayoutRight, MemorySpace>(res.sfaps_post_shift),
        kernel, Kokkos::View<const std::int64_t*, MemorySpace>(shift), res.sfaps_jittered);
    terms = res.sfaps_jittered;
  }
  const auto muap = res.muap;
  Kokkos::parallel_for(
      "portasim::sfap::muap", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nt * ne),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t j = i / ne, e = i % ne;
        double sum = 0;
        for (std::int64_t f = 0; f < nf; ++f) sum += terms(j, e, f);
        muap(j, e) = sum;
      });
  return res;
}

// ---- single functions ----------------------------------------------------------------------

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> tm_current_impl(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double d1) {
  Kokkos::View<double*, typename ExecutionSpace::memory_space> y(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_f"), x.extent(0));
  Kokkos::parallel_for(
      "portasim::sfap::tm_current", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, x.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t i) { y(i) = tm_current(x(i), d1); });
  return y;
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> z_grid_impl(const ExecutionSpace& exec,
                                                                         double zi, double left,
                                                                         double right, double dz) {
  const std::int64_t n = grid_points(zi, left, right, dz).n_z;
  Kokkos::View<double*, typename ExecutionSpace::memory_space> z(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_z"), n);
  Kokkos::parallel_for(
      "portasim::sfap::z_grid", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t k) { z(k) = grid_points(zi, left, right, dz).z(k); });
  return z;
}

template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
current_density_impl(const ExecutionSpace& exec,
                     const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
                     const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z,
                     const FiberSource& fs, const Options& o, std::int64_t* mirror_shift_out) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t n = z.extent(0), nt = t.extent(0);
  require(n >= 2, "sfap::current_density: z needs at least 2 points");
  Kokkos::View<FiberGrid*, MemorySpace> grid(Kokkos::view_alloc(exec, "sfap_grid"), 1);
  const double sigma_i = o.sigma_i, d1 = o.d1, half_width = o.endplate_half_width_mm;
  const bool suppress = o.suppress_endplate, corrected = o.corrected_source;
  Kokkos::parallel_for(
      "portasim::sfap::explicit_grid", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, 1),
      KOKKOS_LAMBDA(const int) {
        FiberGrid g;
        g.zi = fs.zi;
        g.n_z = n;
        g.L1 = fs.L1;
        g.L2 = fs.L2;
        g.v = fs.v;
        g.right_longer = fs.L1 >= fs.L2;
        g.scale = sigma_i * pi * ((fs.d / 2) * (fs.d / 2));
        g.dz_hat = mean_diff(ViewValues<MemorySpace>{z}, n);
        g.z_ext_last = z(n - 1) + g.dz_hat;
        g.mirror_shift = mirror_shift(g.L1, g.L2, g.z_ext_last, g.dz_hat);
        grid(0) = g;
      });
  Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> cd(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_cd"), n, nt);
  using md_policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "portasim::sfap::current_density", md_policy(exec, {0, 0}, {n, nt}),
      KOKKOS_LAMBDA(const std::int64_t k, const std::int64_t j) {
        const FiberGrid g = grid(0);
        const ExplicitZ<MemorySpace> zz{z, g.z_ext_last, n};
        if (corrected) {
          cd(k, j) = corrected_current_density(g, zz, k, t(j), d1, suppress, half_width);
        } else {
          const PointCoefficients c = point_coefficients(g, zz, k, suppress, half_width);
          cd(k, j) = current_density(g, zz, k, c, t(j), d1);
        }
      });
  if (mirror_shift_out) {
    auto host = host_mirror_and_copy(exec, grid, "sfap_grid_host");
    *mirror_shift_out = host(0).mirror_shift;
  }
  return cd;
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> elementary_response_impl(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z, double r,
    double ze, const Options& o) {
  Kokkos::View<double*, typename ExecutionSpace::memory_space> h(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_h"), z.extent(0));
  const double sr = o.sigma_r, sz = o.sigma_z;
  Kokkos::parallel_for(
      "portasim::sfap::elementary_response",
      Kokkos::RangePolicy<ExecutionSpace>(exec, 0, z.extent(0)),
      KOKKOS_LAMBDA(const std::int64_t k) { h(k) = elementary_response(z(k), r, ze, sr, sz); });
  return h;
}

template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
shift_padding_impl(const ExecutionSpace& exec,
                   const Kokkos::View<const double**, Kokkos::LayoutRight,
                                      typename ExecutionSpace::memory_space>& x,
                   std::int64_t sh) {
  const std::int64_t n = x.extent(0), m = x.extent(1);
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> y(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_shifted"), n, m);
  Kokkos::parallel_for(
      "portasim::sfap::shift_padding", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n * m),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const std::int64_t r = i / m, c = i % m;
        const std::int64_t src = shifted_source(r, sh, n);
        y(r, c) = src >= 0 ? x(src, c) : 0.0;
      });
  return y;
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> hr_shift_template_impl(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double delay) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  const std::int64_t n = x.extent(0), np = odd_length(n);
  Kokkos::View<double*, MemorySpace> c(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_kernel"), np);
  Kokkos::View<double*, MemorySpace> y(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "sfap_hr_shift"), n);
  Kokkos::parallel_for(
      "portasim::sfap::hr_kernel", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, np),
      KOKKOS_LAMBDA(const std::int64_t u) { c(u) = delay_kernel(u, -delay, np); });
  Kokkos::parallel_for(
      "portasim::sfap::hr_shift", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t j) {
        double s = 0;
        for (std::int64_t m = 0; m < n; ++m) {
          std::int64_t u = j - m;  // in (-N', N'): one wrap, no modulo
          if (u < 0) u += np;
          s += x(m) * c(u);
        }
        y(j) = s;
      });
  return y;
}

}  // namespace portasim::sfap::impl
