#pragma once
// Kernels of sfap::compute and of the single functions. Included by src/sfap/compute.cpp
// (explicit instantiation per execution space); users include portasim/sfap/compute.hpp.
//
// The stages: the inputs' checks and summary (input_summary.hpp), the grids of every fiber
// (fiber_grids.hpp), the pre-shift SFAPs on a device in batches (device_batches.hpp) or on
// the host one fiber per work item (host_kernels.hpp), then with delays the post-shift SFAPs
// and the MUAP (delays.hpp).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "portasim/core/compat.hpp"
#include "portasim/core/counter_rng.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/batch_pool.hpp"
#include "portasim/sfap/impl/delays.hpp"
#include "portasim/sfap/impl/device_batches.hpp"
#include "portasim/sfap/impl/fiber_grids.hpp"
#include "portasim/sfap/impl/host_kernels.hpp"
#include "portasim/sfap/impl/input_summary.hpp"
#include "portasim/sfap/impl/result_arrays.hpp"
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

// The fibers this call computes: all of them, or the block options.first_fiber /
// fiber_count (one rank of a split run), checked against the unit's fiber count.
template <class MemorySpace>
Inputs<MemorySpace> selected_fibers(const Inputs<MemorySpace>& all, const Options& o) {
  const std::int64_t n_all = all.endplate_z.extent(0);
  const std::int64_t first_fiber = o.first_fiber;
  const std::int64_t block_end = o.fiber_count < 0 ? n_all : first_fiber + o.fiber_count;
  if (first_fiber == 0 && block_end == n_all) return all;
  auto rows = [&](std::size_t n) { return static_cast<std::int64_t>(n) == n_all; };
  require(first_fiber >= 0 && first_fiber < block_end && block_end <= n_all,
          "sfap: fiber block " + std::to_string(first_fiber) + ".." +
              std::to_string(block_end - 1) + " is empty or outside the " + std::to_string(n_all) +
              " fibers");
  require(rows(all.fiber_centers.extent(0)) && rows(all.conduction_velocity.extent(0)) &&
              rows(all.diameter.extent(0)) &&
              (all.nerve_paths.extent(0) == 0 || rows(all.nerve_paths.extent(0))),
          "sfap: the fiber inputs must all have N_fibers = " + std::to_string(n_all) + " rows");
  return fiber_block(all, first_fiber, block_end);
}

// The host checks of the inputs' shapes and of the options' scalars; returns the time step.
template <class MemorySpace>
double checked_time_step(const Inputs<MemorySpace>& in, const Options& o) {
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
  if (o.apply_delays)
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
  return dt;
}

// Each flaw of the values (InputFlaw bits), named.
inline void require_no_flaws(int flaws) {
  require(!(flaws & flaw_centers), "sfap: fiber_centers has a non-finite value");
  require(!(flaws & flaw_endplate), "sfap: endplate_z must be finite and within [left, right]");
  require(!(flaws & flaw_velocity), "sfap: conduction_velocity must be finite and > 0");
  require(!(flaws & flaw_diameter), "sfap: diameter must be finite and > 0");
  require(!(flaws & flaw_nerve_paths), "sfap: nerve_paths has a non-finite value");
  require(!(flaws & flaw_electrodes), "sfap: electrode_positions has a non-finite value");
}

// The diagnostics r_raw and r_used (the radius clamped at min_r), (electrode, fiber), into
// the result's arrays.
template <class ExecutionSpace>
void radial_distances(const ExecutionSpace& exec,
                      const Inputs<typename ExecutionSpace::memory_space>& in, double min_r,
                      Result<typename ExecutionSpace::memory_space>& res) {
  const std::int64_t nf = res.n_fibers, ne = res.n_electrodes;
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

// Every array of the result, sized by res.nt, n_fibers, n_electrodes and the options, before
// the call queues any work: from the arrays of earlier results that their callers have let go
// of (result_arrays.hpp), or allocated, which under Kokkos 3 waits for the device.
template <class ExecutionSpace>
void allocate_result(const ExecutionSpace& exec, const Options& o,
                     Result<typename ExecutionSpace::memory_space>& res) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using R = Result<MemorySpace>;
  using Arrays = ResultArrays<ExecutionSpace>;
  const std::int64_t nt = res.nt, nf = res.n_fibers, ne = res.n_electrodes;
  const bool keep =
      BatchPool<ExecutionSpace>::limit_bytes() == std::numeric_limits<std::size_t>::max();
  bool reused = false;
  std::vector<std::string> taken;
  auto take = [&](auto& array, const char* label, auto... extents) {
    array =
        Arrays::template take<std::decay_t<decltype(array)>>(exec, keep, label, reused, extents...);
    taken.emplace_back(label);
  };
  take(res.t, "sfap_t", nt);
  take(res.n_z, "sfap_n_z", nf);
  take(res.mirror_shift, "sfap_mirror_shift", nf);
  take(res.branch_L1_ge_L2, "sfap_branch", nf);
  take(res.dz_hat, "sfap_dz_hat", nf);
  take(res.r_raw, "sfap_r_raw", ne, nf);
  take(res.r_used, "sfap_r_used", ne, nf);
  take(res.sfaps_pre_shift, "sfaps_pre_shift", nt, ne, nf);
  if (o.apply_delays) {
    take(res.delays_s, "sfap_delays", nf);
    take(res.sfaps_post_shift, "sfaps_post_shift", nt, ne, nf);
    if (o.jitter_sd_s > 0) take(res.sfaps_jittered, "sfaps_jittered", nt, ne, nf);
    take(res.muap, "muap", nt, ne);
  }
  // The arrays of labels this call does not take (the jittered SFAPs of an earlier call with
  // jitter, say) go, where no one holds them.
  Arrays::keep_only(taken);
  // Work the caller queued on a reused array before letting it go finishes first, as the
  // array's free would have waited for it.
  if (reused) Kokkos::fence();
}

template <class ExecutionSpace>
Result<typename ExecutionSpace::memory_space> compute_impl(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& all,
    const Options& o) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  Result<MemorySpace> res;
  // The time axis and the default minimum radius come from `all`, everything else from `in`.
  const Inputs<MemorySpace> in = selected_fibers(all, o);
  const double dt = checked_time_step(in, o);
  const std::int64_t nf = in.endplate_z.extent(0), ne = in.electrode_positions.extent(0);
  const bool default_min_r = !(o.min_radial_dist_mm >= 0);
  const InputSummary summary =
      summarize_inputs(exec, in, all, o.dz_mm, o.apply_delays, default_min_r);
  require_no_flaws(summary.flaws);
  require(summary.longest_grid >= 2,
          "sfap: dz is too large for the muscle (fewer than 2 grid points)");
  // float(mean(d)) of every fiber of the unit, NumPy's pairwise sum.
  const double min_r = default_min_r
                           ? summary.diameter_sum / static_cast<double>(all.diameter.extent(0))
                           : o.min_radial_dist_mm;
  res.dt_s = dt;
  res.dz_mm = o.dz_mm;
  res.min_radial_dist_mm = min_r;
  res.n_fibers = nf;
  res.n_electrodes = ne;
  res.nt = arange_length(0.0, 2 * summary.longest + dt, dt);
  res.n_z_max = summary.longest_grid;
  allocate_result(exec, o, res);

  // ---- time axis and grids
  fill_time_axis(exec, res.t, dt);
  // The call's temporaries (the grids here, the delay kernels later) come from the batch
  // pool: freed in exec's order when their blocks go at the end of the call, where Views of
  // their own would each be freed with a synchronization of the device.
  const auto grid_block = call_temporary<FiberGrid>(exec, nf, "sfap_grids");
  const Kokkos::View<FiberGrid*, MemorySpace> grids = grid_block.view;
  fiber_grids(exec, in, o.dz_mm, o.sigma_i, grids, res);
  radial_distances(exec, in, min_r, res);

  // ---- SFAPs: on a device in batches of fibers under the buffer budget, on the host one
  // fiber per work item with per-thread buffers (host_kernels.hpp)
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  if constexpr (on_host)
    compute_fibers_on_host(exec, in, o, Kokkos::View<const FiberGrid*, MemorySpace>(grids), res.t,
                           res.sfaps_pre_shift, min_r);
  else
    compute_in_batches(exec, in, o, Kokkos::View<const FiberGrid*, MemorySpace>(grids), res.t,
                       res.sfaps_pre_shift, res.n_z_max, res.r_used);

  if (o.apply_delays) add_delays_and_muap(exec, in, o, dt, o.first_fiber, res);
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
