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

// pairwise_sum(value, n) on every thread of the team; the scratch arrays hold
// team_sum_blocks entries each.
template <class Member, class Values>
KOKKOS_INLINE_FUNCTION double team_pairwise_sum(const Member& team, const Values& value,
                                                std::int64_t n, std::int64_t* offsets,
                                                std::int64_t* lengths, double* sums) {
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
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int b) {
    sums[b] = pairwise_sum_block(value, offsets[b], lengths[b]);
  });
  team.team_barrier();
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
  using index_scratch = Kokkos::View<std::int64_t*, scratch_space, Kokkos::MemoryUnmanaged>;
  using sum_scratch = Kokkos::View<double*, scratch_space, Kokkos::MemoryUnmanaged>;
  const std::int64_t nf = in.endplate_z.extent(0);
  const double left = in.left_mm, right = in.right_mm;
  const auto zi = in.endplate_z;
  const auto v = in.conduction_velocity;
  const auto d = in.diameter;
  const auto n_z = res.n_z;
  const auto shift = res.mirror_shift;
  const auto branch = res.branch_L1_ge_L2;
  const auto dz_hat = res.dz_hat;
  const std::size_t bytes =
      2 * index_scratch::shmem_size(team_sum_blocks) + sum_scratch::shmem_size(team_sum_blocks);
  Kokkos::parallel_for(
      "portasim::sfap::fiber_grids",
      team_policy(exec, static_cast<int>(nf), Kokkos::AUTO)
          .set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const member& team) {
        const std::int64_t f = team.league_rank();
        const index_scratch offsets(team.team_scratch(0), team_sum_blocks),
            lengths(team.team_scratch(0), team_sum_blocks);
        const sum_scratch sums(team.team_scratch(0), team_sum_blocks);
        FiberGrid g = fiber_grid_points(zi(f), left, right, dz, v(f), d(f), sigma_i);
        const GridZ z{&g};
        const GridDiffs<GridZ> diffs{z};
        const double sum =
            team_pairwise_sum(team, diffs, g.n_z - 1, offsets.data(), lengths.data(), sums.data());
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
