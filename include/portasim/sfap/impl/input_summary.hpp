#pragma once
// What sfap::compute learns of its inputs' values before it sizes anything: their flaws, the
// time axis's duration, the longest grid and the default minimum radius, in one reduction on
// the instance.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

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
// max(L1, L2)/v of every fiber of the unit (its time axis is the whole unit's), the longest
// grid N_z of the block's fibers (the batches' row count), and NumPy's pairwise sum of every
// fiber's diameter (whose mean is the default minimum radius), which work item 0 forms alone
// while the others add an exact 0. With every size known here, compute takes its result's
// arrays before it queues any work, and waits for the device nowhere after them.
struct InputSummary {
  int flaws = 0;
  double longest = 0;
  std::int64_t longest_grid = 0;
  double diameter_sum = 0;
};

template <class MemorySpace>
struct SummarizeInputs {
  using value_type = InputSummary;
  Inputs<MemorySpace> block;  // the fibers this call computes
  Inputs<MemorySpace> all;    // every fiber of the unit
  double dz = 0;
  bool check_paths = false, sum_diameters = false;

  KOKKOS_INLINE_FUNCTION void init(value_type& s) const {
    s.flaws = 0;
    s.longest = 0;
    s.longest_grid = 0;
    s.diameter_sum = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& a, const value_type& b) const {
    a.flaws |= b.flaws;
    if (b.longest > a.longest) a.longest = b.longest;
    if (b.longest_grid > a.longest_grid) a.longest_grid = b.longest_grid;
    a.diameter_sum += b.diameter_sum;
  }
  // Kokkos 3.x joins through volatile references as well; goes with Kokkos 3 support.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& a, const volatile value_type& b) const {
    a.flaws |= b.flaws;
    if (b.longest > a.longest) a.longest = b.longest;
    if (b.longest_grid > a.longest_grid) a.longest_grid = b.longest_grid;
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
      else if (const std::int64_t n_z = grid_points(zi, left, right, dz).n_z; n_z > s.longest_grid)
        s.longest_grid = n_z;
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
                              const Inputs<MemorySpace>& all, double dz, bool check_paths,
                              bool sum_diameters) {
  const std::int64_t n = std::max({static_cast<std::int64_t>(block.endplate_z.extent(0)),
                                   static_cast<std::int64_t>(block.electrode_positions.extent(0)),
                                   static_cast<std::int64_t>(all.endplate_z.extent(0))});
  InputSummary summary;
  Kokkos::parallel_reduce(
      "portasim::sfap::summarize_inputs", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, n),
      SummarizeInputs<MemorySpace>{block, all, dz, check_paths, sum_diameters}, summary);
  return summary;
}

}  // namespace portasim::sfap::impl
