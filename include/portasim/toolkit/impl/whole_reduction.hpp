#pragma once
// The device kernel of a whole-array reduction, in one launch (Kokkos 3.4's RangePolicy
// parallel_reduce reaches a small fraction of copy bandwidth: docs/design/reductions.md):
//   1. a grid of teams that the device holds at once (one wave of HalfWaveLaunchBounds) splits
//      the elements into equal contiguous shares, one per team; a team walks its share in
//      chunks of team * per_thread, each thread taking per_thread elements a team-width apart
//      per chunk (every load coalesced, per_thread loads in flight per thread, all issued
//      before any use: impl::accumulate_strided);
//   2. each team combines its threads' values and writes one partial into the instance's
//      scratch (reduction_scratch.hpp), then counts itself done with an atomic;
//   3. the last team to finish combines the partials, applies the post-map and writes the
//      rank-0 result, and resets the counter for the next reduction on the stream.
// One wave and equal shares matter at n ~ 1e7, where each team has only a few chunks: with
// a grid-stride walk some teams took one chunk more than others, and with a grid larger
// than the device holds, the teams of a partial second wave ran alone at the end (a
// grid-stride walk over whole rounds with equal shares of the rest measured no better than
// equal shares alone; figures in docs/design/reductions.md).
// Accuracy: a thread sums each chunk of per_thread elements in a tree and the chunk sums in
// ~n / (teams * team * per_thread) steps, then threads and teams in trees: pairwise-like,
// far better than one running sum.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

#include "portasim/core/error.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/impl/combine.hpp"
#include "portasim/toolkit/impl/reduction_scratch.hpp"
#include "portasim/toolkit/launch_shape.hpp"

namespace portasim::toolkit::impl {

// The grid of the device kernel; zeros mean the defaults.
struct DeviceReduceShape {
  int team = 0;        // threads per team, default 256
  int per_thread = 0;  // elements (loads in flight) per thread and chunk, 1..8, default 8
  int waves = 0;       // teams = waves * half_wave(exec.concurrency()) / team at most, default 1
};

inline constexpr int default_reduce_team = 256;
inline constexpr int default_reduce_per_thread = 8;  // with half a wave (HalfWaveLaunchBounds)
inline constexpr int default_reduce_waves = 1;

template <class Exec, class E, class Combine, class Post, class Acc, class Result>
struct TwoLevelReduce {
  using member_type = typename Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>::member_type;
  E expr;
  Combine combine;
  Post post;
  Acc identity;
  FlatIndex index;
  std::size_t n;
  std::size_t share;  // elements per team, a multiple of 32 (warp-aligned shares)
  int per_thread;
  Result result;
  Acc* partials;
  unsigned int* counter;

  KOKKOS_FORCEINLINE_FUNCTION Acc element(const std::size_t k) const {
    std::size_t i0, i1, i2;
    index.template at<E::static_rank>(k, i0, i1, i2);
    return static_cast<Acc>(expr(i0, i1, i2));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t team = static_cast<std::size_t>(member.team_size());
    const std::size_t league = static_cast<std::size_t>(member.league_size());
    const int rank = member.league_rank();
    const std::size_t begin = static_cast<std::size_t>(rank) * share;
    const std::size_t end = begin + share < n ? begin + share : n;
    const std::size_t first = begin + static_cast<std::size_t>(member.team_rank());
    const TwoLevelReduce& self = *this;
    const Acc mine = accumulate_strided(
        per_thread, [&](std::size_t k) { return self.element(k); }, combine, identity, first, end,
        team);

    const Acc team_total = team_combine(member, combine, identity, mine);

    Acc* const p = partials;
    unsigned int* const done = counter;
    if (!write_and_count_last(
            member, [&]() { p[rank] = team_total; }, done, static_cast<unsigned int>(league)))
      return;
    const Combine& c = combine;
    Acc total = identity;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, member.league_size()),
        [&](const int i, Acc& v) { v = c(v, load_partial(p + i)); },
        CombineReducer<Acc, Combine, Kokkos::HostSpace>(total, c, identity));
    const Result out = result;
    const Post& post_map = post;
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      out() = post_map(total);
      *done = 0;  // ready for the next reduction on this stream
    });
  }
};

// result() = post(combine over k < n of expr at index(k)), on exec, without a fence. The
// caller has checked the shape (Reduction::operator()).
template <class Exec, class E, class Combine, class Post, class Acc, class Result>
void reduce_whole_on_device(const std::string& label, const Exec& exec, const E& expr,
                            const FlatIndex& index, std::size_t n, const Combine& combine,
                            Acc identity, const Post& post, const Result& result,
                            const DeviceReduceShape& shape = {}) {
  static_assert(sizeof(Acc) <= reduction_scratch_header - reduction_scratch_value_offset,
                "the accumulator type is too large for the reduction scratch");
  if (n == 0) {  // post(identity), whatever the identity: teams would join it once per thread
    const Post post_map = post;
    const Result out = result;
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<Exec>(exec, 0, 1),
        KOKKOS_LAMBDA(const int) { out() = post_map(identity); });
    return;
  }
  const int team = shape.team > 0 ? shape.team : default_reduce_team;
  const int per_thread = shape.per_thread > 0 ? shape.per_thread : default_reduce_per_thread;
  const int waves = shape.waves > 0 ? shape.waves : default_reduce_waves;
  const std::size_t chunk = static_cast<std::size_t>(team) * static_cast<std::size_t>(per_thread);
  std::size_t teams = (n + chunk - 1) / chunk;
  const std::size_t full_grid = static_cast<std::size_t>(waves) *
                                half_wave(static_cast<std::size_t>(exec.concurrency())) /
                                static_cast<std::size_t>(team);
  if (teams > full_grid) teams = full_grid;
  const std::size_t capacity = reduction_scratch_partial_bytes / sizeof(Acc);
  if (teams > capacity) teams = capacity;
  if (teams == 0) teams = 1;  // a grid cap below one team (tiny devices, huge teams)
  constexpr std::size_t warp_aligned = 32;
  const std::size_t share =
      ((n + teams - 1) / teams + warp_aligned - 1) / warp_aligned * warp_aligned;
  teams = (n + share - 1) / share;  // rounding the share up may leave the last teams nothing
  const ReductionScratch scratch = reduction_scratch(exec);
  TwoLevelReduce<Exec, E, Combine, Post, Acc, Result> body{
      expr,           combine,
      post,           identity,
      index,          n,
      share,          per_thread,
      result,         static_cast<Acc*>(scratch.partials),
      scratch.counter};
  Kokkos::parallel_for(
      label, Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>(exec, static_cast<int>(teams), team),
      body);
}

}  // namespace portasim::toolkit::impl
