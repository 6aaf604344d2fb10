#pragma once
// The kernels of a reduction along one axis (Reduction::along). With many outputs, one pass:
// one work item per output walks the whole reduced axis. With few outputs that alone leaves
// most of a GPU idle (on an H200, a (1e5, 1024) float array summed along axis 0 ran 1024
// threads at 19 GB/s against a 4 TB/s copy), so the reduced axis is split into S segments:
//   pass 1: work item (output k, segment s) reduces its segment into partials[s * outputs + k];
//   pass 2: a team per output combines its S partials in a fixed order, post-maps, stores.
// The partials live in a per-instance grow-only block (reduction_scratch.hpp): no allocation
// and no fence per call once the block is large enough. Every order of combination depends
// only on the shape, the backend and its concurrency, so results repeat run to run.
//
// Two forms of work item, as before the split:
//   flat (AxisFlatBody): one thread per (output, segment), used along any axis but the last of
//     row-major data; neighbouring threads take neighbouring outputs, so along a row-major
//     axis 0 a warp reads neighbouring addresses of one row;
//   rows (AxisTeamBody): a team per (output, segment), along the last axis of row-major data;
//     the team's threads read neighbouring addresses of one contiguous piece of a row.
// Each thread keeps axis_elements_in_flight accumulators and loads that many elements into
// registers before combining any (a load next to its use keeps one load in flight per GPU
// thread), and closes a local block every axis_block_steps steps: a float sum is a sum of
// short sums, not one running sum along a long axis.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/impl/reduction_scratch.hpp"
#include "portasim/toolkit/impl/whole_reduction.hpp"
#include "portasim/toolkit/launch_shape.hpp"

namespace portasim::toolkit::impl {

// A chosen split for Reduction::along (zeros: the defaults). segments = 1 forces one pass;
// segments > 1 forces that many segments (capped only by axis_partials_max_bytes); waves
// sets how many threads the automatic choice aims at: waves * exec.concurrency().
struct AxisReduceShape {
  int segments = 0;
  int waves = 0;
  int team = 0;  // threads per team of the rows form on devices (0: from the row length)
};

inline constexpr int axis_elements_in_flight = 4;
// The team of the split rows form (and of a forced AxisReduceShape::team): row piece / (4 x 8)
// threads, 32..256. Sized when a team took a whole 1024-float row, where one warp was fastest
// on an H200 (97656 rows at 1e8 floats: 32 threads 199 us, 64 227, 128 343, 256 720); the
// one-pass rows now go to AxisRowsVectorBody.
inline constexpr std::size_t axis_team_steps = 8;
inline constexpr int axis_block_steps = 64;              // steps of a thread's local block
// The split aims at one wave: on an H200 (axis_reduction_h200_s4.json, 1e8 floats) waves:1
// took 126 us along axis 0 of (n/1024, 1024) against 133 at 2 and 144 at 4, and 178 against
// 183 and 195 for 16 rows; 16 columns measured the same at all three.
inline constexpr int axis_default_waves = 1;
inline constexpr std::size_t axis_min_elements_per_thread = 32;  // below: partials cost too much
inline constexpr std::size_t axis_max_segments = 8192;  // pass 2 reads at most 32 per thread
inline constexpr int axis_max_team = 256;
inline constexpr int axis_min_device_team = 32;

// How one call runs: `segments` = 1 is the one-pass form; team: threads per work item of the
// rows form (1 for the flat form); combine_team: threads per output in pass 2.
struct AxisPlan {
  std::size_t segments = 1;
  int team = 1;
  int combine_team = 1;
};

KOKKOS_INLINE_FUNCTION constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline int pow2_team(std::size_t threads_wanted, bool device) {
  if (!device) return 1;  // host teams are one thread (Kokkos' AUTO there)
  int team = axis_min_device_team;
  while (team < axis_max_team && static_cast<std::size_t>(team) < threads_wanted) team *= 2;
  return team;
}

// The split for `outputs` outputs of a `length`-long axis on a device (or host) running
// `concurrency` threads at once. Pure host arithmetic, so tests can check the plan of any
// device on any backend.
inline AxisPlan plan_axis_split(std::size_t outputs, std::size_t length, bool rows, bool device,
                                std::size_t concurrency, std::size_t acc_bytes, const AxisReduceShape& shape) {
  AxisPlan plan;
  const std::size_t per_thread = axis_elements_in_flight * axis_team_steps;
  if (rows) plan.team = device && shape.team > 0 ? shape.team : pow2_team(ceil_div(length, per_thread), device);
  if (outputs == 0) return plan;
  const std::size_t waves = shape.waves > 0 ? static_cast<std::size_t>(shape.waves) : axis_default_waves;
  const std::size_t wanted = waves * (concurrency > 0 ? concurrency : 1);
  std::size_t s = 1;
  if (shape.segments > 0) {
    s = static_cast<std::size_t>(shape.segments);
  } else {
    const std::size_t one_pass = outputs * static_cast<std::size_t>(plan.team);
    if (one_pass < wanted) {
      s = ceil_div(wanted, one_pass);
      const std::size_t by_length = length / (static_cast<std::size_t>(plan.team) * axis_min_elements_per_thread);
      if (s > by_length) s = by_length;
      if (s > axis_max_segments) s = axis_max_segments;
    }
  }
  const std::size_t by_bytes = axis_partials_max_bytes / (outputs * acc_bytes);
  if (s > by_bytes) s = by_bytes;
  if (s < 1) s = 1;
  plan.segments = s;
  if (s > 1) {
    if (rows && !(device && shape.team > 0)) plan.team = pow2_team(ceil_div(ceil_div(length, s), per_thread), device);
    plan.combine_team = pow2_team(ceil_div(s, 8), device);
  }
  return plan;
}

// Reduction along one slot (0..2 of the three aligned indices) of the expression's shape:
// the output element's three indices with the reduced slot set to 0 address `out`.
struct AxisGeometry {
  std::size_t extent[3] = {1, 1, 1};
  int axis_slot = 2;
  FlatIndex outer;  // over the output's elements
  int out_rank = 0;

  // The input indices of output element k at reduced position 0, and the output's indices:
  // the output's indices are aligned at the right, the input's are the output's with the
  // reduced slot inserted.
  KOKKOS_FORCEINLINE_FUNCTION void origin(std::size_t k, std::size_t& i0, std::size_t& i1, std::size_t& i2,
                                          std::size_t& o0, std::size_t& o1, std::size_t& o2) const {
    outer(k, o0, o1, o2);
    i2 = axis_slot == 2 ? 0 : o2;
    i1 = axis_slot == 2 ? o2 : (axis_slot == 1 ? 0 : o1);
    i0 = axis_slot == 0 ? 0 : o1;
  }
  std::size_t length() const { return extent[axis_slot]; }
};

// Element j of the reduced axis from the origin (i0, i1, i2); step[d] is 1 in the reduced
// slot and 0 elsewhere (a run-time slot index into a register array would spill to memory).
template <class E, class Acc>
struct AxisElement {
  E expr;
  std::size_t step0, step1, step2;
  KOKKOS_FORCEINLINE_FUNCTION Acc operator()(std::size_t i0, std::size_t i1, std::size_t i2, std::size_t j) const {
    return static_cast<Acc>(expr(i0 + j * step0, i1 + j * step1, i2 + j * step2));
  }
};

// [begin, end) of segment s of a `length`-long axis cut into segments of segment_length
// (the last ones may be short or empty).
KOKKOS_FORCEINLINE_FUNCTION void segment_range(std::size_t s, std::size_t segment_length, std::size_t length,
                                               std::size_t& begin, std::size_t& end) {
  const std::size_t first = s * segment_length;
  begin = first < length ? first : length;
  end = length - begin > segment_length ? begin + segment_length : length;
}

// Pass 1 of the flat form (or the whole of it when partials is null): thread t takes output
// k = t % outputs and segment s = t / outputs of segments.
template <class Out, class E, class Combine, class Post, class Acc>
struct AxisFlatBody {
  ViewOperand<Out> out;
  AxisElement<E, Acc> element;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  std::size_t outputs;
  std::size_t segment_length;
  Acc* partials;  // [segment][output]; null: one pass, store post(total) in out

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t t) const {
    constexpr int P = axis_elements_in_flight;
    const std::size_t k = t % outputs, s = t / outputs;
    const std::size_t length = geometry.extent[geometry.axis_slot];
    std::size_t begin, end;
    segment_range(s, segment_length, length, begin, end);
    std::size_t i0, i1, i2, o0, o1, o2;
    geometry.origin(k, i0, i1, i2, o0, o1, o2);
    Acc total[P];
    for (int r = 0; r < P; ++r) total[r] = identity;
    std::size_t j = begin;
    while (j + P <= end) {
      Acc acc[P];
      for (int r = 0; r < P; ++r) acc[r] = identity;
      for (int step = 0; step < axis_block_steps && j + P <= end; ++step, j += P) {
        Acc v[P];
        for (int r = 0; r < P; ++r) v[r] = element(i0, i1, i2, j + static_cast<std::size_t>(r));
        for (int r = 0; r < P; ++r) acc[r] = combine(acc[r], v[r]);
      }
      for (int r = 0; r < P; ++r) total[r] = combine(total[r], acc[r]);
    }
    for (int r = 0; r < P; ++r)  // the ragged end, fewer than P elements
      if (j + static_cast<std::size_t>(r) < end)
        total[r] = combine(total[r], element(i0, i1, i2, j + static_cast<std::size_t>(r)));
    const Acc result = combine_tree(combine, total);
    if (partials == nullptr) {
      out(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post(result));
    } else {
      partials[s * outputs + k] = result;
    }
  }
};

// Pass 1 of the rows form (or the whole of it when partials is null): team l takes output
// k = l / segments and segment s = l % segments (neighbouring teams read neighbouring
// pieces of one row); thread r of a team reads elements r, r + team, ... of the piece.
template <class Exec, class Out, class E, class Combine, class Post, class Acc>
struct AxisTeamBody {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ViewOperand<Out> out;
  AxisElement<E, Acc> element;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  std::size_t outputs;
  std::size_t segments;
  std::size_t segment_length;
  Acc* partials;  // [segment][output]; null: one pass, store post(total) in out

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    constexpr int P = axis_elements_in_flight;
    const std::size_t l = static_cast<std::size_t>(member.league_rank());
    const std::size_t k = l / segments, s = l % segments;
    const std::size_t length = geometry.extent[geometry.axis_slot];
    std::size_t begin, end;
    segment_range(s, segment_length, length, begin, end);
    const std::size_t team = static_cast<std::size_t>(member.team_size());
    const std::size_t chunk = team * P;
    std::size_t i0, i1, i2, o0, o1, o2;
    geometry.origin(k, i0, i1, i2, o0, o1, o2);
    Acc total[P];
    for (int r = 0; r < P; ++r) total[r] = identity;
    std::size_t base = begin + static_cast<std::size_t>(member.team_rank());
    while (base < end) {
      Acc acc[P];
      for (int r = 0; r < P; ++r) acc[r] = identity;
      for (int step = 0; step < axis_block_steps && base < end; ++step, base += chunk) {
        if (base + (chunk - team) < end) {  // the whole chunk is inside: no bound checks
          Acc v[P];
          for (int r = 0; r < P; ++r) v[r] = element(i0, i1, i2, base + static_cast<std::size_t>(r) * team);
          for (int r = 0; r < P; ++r) acc[r] = combine(acc[r], v[r]);
        } else {
          for (int r = 0; r < P; ++r) {
            const std::size_t j = base + static_cast<std::size_t>(r) * team;
            if (j < end) acc[r] = combine(acc[r], element(i0, i1, i2, j));
          }
        }
      }
      for (int r = 0; r < P; ++r) total[r] = combine(total[r], acc[r]);
    }
    const Acc mine = combine_tree(combine, total);

    const Acc team_total = team_combine(member, combine, identity, mine);
    Acc* const p = partials;
    const ViewOperand<Out>& o = out;
    const Post& post_map = post;
    const std::size_t slot = s * outputs + k;
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      if (p == nullptr) {
        o(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post_map(team_total));
      } else {
        p[slot] = team_total;
      }
    });
  }
};

// The one-pass rows form with several rows per team: team thread t of team l reduces row
// k = l * rows_per_team + t over its vector lanes (a warp on CUDA), lane v taking elements
// v, v + V, ... with axis_row_loads of them loaded before any is combined. A team per row
// left each block a few microseconds of work, and block scheduling set the pace (a 1024-float
// row per 32-thread team: 2.0 TB/s of a 4 TB/s copy on an H200). Host backends have one lane
// and one thread per team: a row per team, as before.
inline constexpr int axis_row_loads = 8;

template <class Exec, class Out, class E, class Combine, class Post, class Acc>
struct AxisRowsVectorBody {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ViewOperand<Out> out;
  AxisElement<E, Acc> element;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  std::size_t outputs;
  int rows_per_team;
  int lanes;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t row0 = static_cast<std::size_t>(member.league_rank()) * static_cast<std::size_t>(rows_per_team);
    const AxisRowsVectorBody& self = *this;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows_per_team), [&](const int t) {
      const std::size_t k = row0 + static_cast<std::size_t>(t);
      if (k >= self.outputs) return;
      std::size_t i0, i1, i2, o0, o1, o2;
      self.geometry.origin(k, i0, i1, i2, o0, o1, o2);
      const std::size_t length = self.geometry.extent[self.geometry.axis_slot];
      const std::size_t width = static_cast<std::size_t>(self.lanes);
      const Combine& c = self.combine;
      Acc row_total = self.identity;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(member, self.lanes),
          [&](const int lane, Acc& value) {
            constexpr int P = axis_row_loads;
            const std::size_t chunk = width * P;
            Acc acc = self.identity;
            std::size_t base = static_cast<std::size_t>(lane);
            for (; base + (chunk - width) < length; base += chunk) {
              Acc v[P];
              for (int r = 0; r < P; ++r) v[r] = self.element(i0, i1, i2, base + static_cast<std::size_t>(r) * width);
              acc = c(acc, combine_tree(c, v));
            }
            for (int r = 0; r < P; ++r) {  // the ragged end of the row
              const std::size_t j = base + static_cast<std::size_t>(r) * width;
              if (j < length) acc = c(acc, self.element(i0, i1, i2, j));
            }
            value = c(value, acc);
          },
          CombineReducer<Acc, Combine, Kokkos::HostSpace>(row_total, c, self.identity));
      Kokkos::single(Kokkos::PerThread(member), [&]() {
        self.out(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(self.post(row_total));
      });
    });
  }
};

// Pass 2: team k combines partials[s * outputs + k] over s < segments (thread r takes s = r,
// r + team, ... in order, then the team's tree) and stores post(total) in out.
template <class Exec, class Out, class Combine, class Post, class Acc>
struct AxisCombineBody {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ViewOperand<Out> out;
  Combine combine;
  Post post;
  Acc identity;
  FlatIndex outer;
  std::size_t outputs;
  std::size_t segments;
  const Acc* partials;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    constexpr int P = axis_elements_in_flight;
    const std::size_t k = static_cast<std::size_t>(member.league_rank());
    const std::size_t team = static_cast<std::size_t>(member.team_size());
    Acc acc[P];
    for (int r = 0; r < P; ++r) acc[r] = identity;
    for (std::size_t s = static_cast<std::size_t>(member.team_rank()); s < segments; s += team * P) {
      Acc v[P];
      for (int r = 0; r < P; ++r) {
        const std::size_t q = s + static_cast<std::size_t>(r) * team;
        v[r] = q < segments ? partials[q * outputs + k] : identity;
      }
      for (int r = 0; r < P; ++r) acc[r] = combine(acc[r], v[r]);
    }
    const Acc mine = combine_tree(combine, acc);
    const Acc total = team_combine(member, combine, identity, mine);
    const ViewOperand<Out>& o = out;
    const Post& post_map = post;
    std::size_t o0, o1, o2;
    outer(k, o0, o1, o2);
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      o(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post_map(total));
    });
  }
};

// out = post(combine along geometry's slot of expr), on exec, without a fence. `rows`: the
// reduced axis is the last one of row-major data. The caller has checked the shapes.
template <class Exec, class Out, class E, class Combine, class Post, class Acc>
void reduce_along(const std::string& label, const std::string& combine_label, const Exec& exec,
                  const AxisReduceShape& shape, const E& expr, const AxisGeometry& geometry, std::size_t outputs,
                  bool rows, const Combine& combine, Acc identity, const Post& post, const Out& out) {
  if (outputs == 0) return;
  const std::size_t length = geometry.length();
  const AxisPlan plan = plan_axis_split(outputs, length, rows, is_device_space<Exec>(),
                                        static_cast<std::size_t>(exec.concurrency()), sizeof(Acc), shape);
  const std::size_t segments = plan.segments;
  const std::size_t segment_length = segments > 1 ? ceil_div(length, segments) : length;
  Acc* partials = segments > 1 ? static_cast<Acc*>(axis_partials(exec, segments * outputs * sizeof(Acc))) : nullptr;
  AxisElement<E, Acc> element{expr, geometry.axis_slot == 0 ? 1u : 0u, geometry.axis_slot == 1 ? 1u : 0u,
                              geometry.axis_slot == 2 ? 1u : 0u};
  const ViewOperand<Out> target(out);
  if (rows && segments == 1 && shape.team == 0) {
    using Policy = Kokkos::TeamPolicy<Exec>;
    const int lanes = Policy::vector_length_max() >= 32 ? 32 : 1;
    const int rows_per_team = is_device_space<Exec>() ? 8 : 1;
    const std::size_t league = ceil_div(outputs, static_cast<std::size_t>(rows_per_team));
    AxisRowsVectorBody<Exec, Out, E, Combine, Post, Acc> body{target,   element, combine,       post,
                                                              identity, geometry, outputs, rows_per_team,
                                                              lanes};
    Kokkos::parallel_for(label, Policy(exec, static_cast<int>(league), rows_per_team, lanes), body);
  } else if (rows) {
    AxisTeamBody<Exec, Out, E, Combine, Post, Acc> body{target, element,  combine,        post,
                                                        identity, geometry, outputs,  segments,
                                                        segment_length, partials};
    Kokkos::parallel_for(label, Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(outputs * segments), plan.team),
                         body);
  } else {
    AxisFlatBody<Out, E, Combine, Post, Acc> body{target, element, combine, post, identity, geometry,
                                                  outputs, segment_length, partials};
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, outputs * segments), body);
  }
  if (segments > 1) {
    AxisCombineBody<Exec, Out, Combine, Post, Acc> body{target, combine, post, identity, geometry.outer,
                                                        outputs, segments, partials};
    Kokkos::parallel_for(combine_label, Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(outputs), plan.combine_team),
                         body);
  }
}

}  // namespace portasim::toolkit::impl
