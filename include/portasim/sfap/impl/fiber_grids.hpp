#pragma once
// The grids of every fiber (make_fiber_grid), with dz_hat = mean(diff(z)) summed by a team per
// fiber. NumPy's pairwise sum is a fixed tree over blocks of at most 128 values, so the team's
// threads sum the blocks at once and one thread adds the sums up the tree: the same additions
// in the same order as one thread alone, bit for bit. A fiber of 600 points has 8 blocks, of
// 6000 points 64: a team forms a small unit's sums, one per fiber, at the speed of many
// threads rather than of one (docs/design/sfap-projection.md, rule 10).

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/physics.hpp"

namespace portasim::sfap::impl {

// The most blocks a team's scratch holds; a longer sum is formed by one thread.
inline constexpr int team_sum_blocks = 512;

// The blocks that pairwise_tree visits, recorded in its order (up to `capacity`).
struct BlockRecorder {
  std::int64_t* offsets;
  std::int64_t* lengths;
  int capacity;
  int count = 0;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t offset, std::int64_t n) {
    if (count < capacity) {
      offsets[count] = offset;
      lengths[count] = n;
    }
    ++count;
    return 0.0;
  }
};

// Sums formed elsewhere, handed back in the order pairwise_tree asks for its blocks.
struct RecordedSums {
  const double* sums;
  int next = 0;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t, std::int64_t) { return sums[next++]; }
};

// Blocks whose values a team forms at once in scratch (128 values each).
inline constexpr int team_sum_wave = 16;

// A team's scratch for team_pairwise_sum: the blocks' offsets, lengths and sums, and the
// values of a wave of blocks.
template <class ScratchSpace>
struct PairwiseScratch {
  using index_view = Kokkos::View<std::int64_t*, ScratchSpace, Kokkos::MemoryUnmanaged>;
  using value_view = Kokkos::View<double*, ScratchSpace, Kokkos::MemoryUnmanaged>;
  index_view offsets, lengths;
  value_view sums, values;
  static std::size_t bytes() {
    return 2 * index_view::shmem_size(team_sum_blocks) + value_view::shmem_size(team_sum_blocks) +
           value_view::shmem_size(team_sum_wave * 128);
  }
  template <class Member>
  KOKKOS_INLINE_FUNCTION explicit PairwiseScratch(const Member& team)
      : offsets(team.team_scratch(0), team_sum_blocks),
        lengths(team.team_scratch(0), team_sum_blocks), sums(team.team_scratch(0), team_sum_blocks),
        values(team.team_scratch(0), team_sum_wave * 128) {}
};

// Values held in scratch, read as value(k).
struct ScratchValues {
  const double* v;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t k) const { return v[k]; }
};

// pairwise_sum(value, n) on every thread of the team. The team's threads form the values of
// a wave of blocks in scratch, then one thread per block sums its block from there: a block's
// sum is a few hundred dependent instructions when one thread also forms its values, and the
// team waited for the slowest (docs/design/sfap-projection.md, rule 10). The same values in
// the same order: bit for bit the sum one thread forms.
template <class Member, class Values, class ScratchSpace>
KOKKOS_INLINE_FUNCTION double team_pairwise_sum(const Member& team, const Values& value,
                                                std::int64_t n,
                                                const PairwiseScratch<ScratchSpace>& scratch) {
  std::int64_t* const offsets = scratch.offsets.data();
  std::int64_t* const lengths = scratch.lengths.data();
  double* const sums = scratch.sums.data();
  double* const values = scratch.values.data();
  int count = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& c) {
        BlockRecorder blocks{offsets, lengths, team_sum_blocks};
        pairwise_tree(blocks, n);
        c = blocks.count;
      },
      count);
  team.team_barrier();
  double total = 0;
  if (count > team_sum_blocks) {
    Kokkos::single(
        Kokkos::PerTeam(team), [&](double& t) { t = pairwise_sum(value, n); }, total);
    return total;
  }
  for (int b0 = 0; b0 < count; b0 += team_sum_wave) {
    const int blocks = count - b0 < team_sum_wave ? count - b0 : team_sum_wave;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, blocks * 128), [&](const int i) {
      const int b = b0 + i / 128, k = i % 128;
      if (k < lengths[b]) values[i] = value(offsets[b] + k);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, blocks), [&](const int b) {
      sums[b0 + b] = pairwise_sum_block(ScratchValues{values + b * 128}, 0, lengths[b0 + b]);
    });
    team.team_barrier();
  }
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](double& t) {
        RecordedSums recorded{sums};
        t = pairwise_tree(recorded, n);
      },
      total);
  return total;
}

// grids(f) and its diagnostics for every fiber of the block, queued on exec (the longest grid
// is the inputs' summary's, so nothing here waits for the device).
template <class ExecutionSpace>
void fiber_grids(const ExecutionSpace& exec,
                 const Inputs<typename ExecutionSpace::memory_space>& in, double dz, double sigma_i,
                 const Kokkos::View<FiberGrid*, typename ExecutionSpace::memory_space>& grids,
                 const Result<typename ExecutionSpace::memory_space>& res) {
  using team_policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using member = typename team_policy::member_type;
  using scratch_space = typename ExecutionSpace::scratch_memory_space;
  const std::int64_t nf = in.endplate_z.extent(0);
  const double left = in.left_mm, right = in.right_mm;
  const auto zi = in.endplate_z;
  const auto v = in.conduction_velocity;
  const auto d = in.diameter;
  const auto n_z = res.n_z;
  const auto shift = res.mirror_shift;
  const auto branch = res.branch_L1_ge_L2;
  const auto dz_hat = res.dz_hat;
  const std::size_t bytes = PairwiseScratch<scratch_space>::bytes();
  Kokkos::parallel_for(
      "portasim::sfap::fiber_grids",
      team_policy(exec, static_cast<int>(nf), Kokkos::AUTO)
          .set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t f = team.league_rank();
        const PairwiseScratch<scratch_space> scratch(team);
        FiberGrid g = fiber_grid_points(zi(f), left, right, dz, v(f), d(f), sigma_i);
        const GridZ z{&g};
        const GridDiffs<GridZ> diffs{z};
        const double sum = team_pairwise_sum(team, diffs, g.n_z - 1, scratch);
        finish_fiber_grid(g, sum / static_cast<double>(g.n_z - 1));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          grids(f) = g;
          n_z(f) = g.n_z;
          shift(f) = g.mirror_shift;
          branch(f) = g.right_longer ? 1 : 0;
          dz_hat(f) = g.dz_hat;
        });
      });
}

}  // namespace portasim::sfap::impl
