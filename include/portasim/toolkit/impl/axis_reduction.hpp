#pragma once
// The kernels of a reduction along one axis (Reduction::along). With many outputs, one pass:
// one work item per output walks the whole reduced axis. With few outputs that alone leaves
// most of a GPU idle (a thread per output, where the device holds hundreds of thousands of
// threads: see docs/design/axis-reductions.md), so the reduced axis is split into S segments:
//   pass 1: work item (output k, segment s) reduces its segment into partials[k * segments + s];
//   pass 2: a team per output combines its S partials in a fixed order, post-maps, stores;
//   the rows and columns forms do this in pass 1's kernel instead (the last team of an
//   output, or of a group of outputs, to finish combines it) when their grid is one wave (the
//   rows form always on host backends).
// The partials and the rows form's counters live in per-instance grow-only blocks
// (reduction_scratch.hpp): no allocation and no fence per call once a block is large enough.
// Every order of combination depends only on the shape, the backend and its concurrency, so
// results repeat run to run.
//
// The forms of work item:
//   flat (AxisFlatBody): one thread per (output, segment), used along any axis but the last of
//     row-major data; neighbouring threads take neighbouring outputs, so along a row-major
//     axis 0 a warp reads neighbouring addresses of one row;
//   columns (AxisColumnsBody, devices): along the first axis with few outputs, or with more
//     where the flat form would split the axis, a team per block of rows of all the outputs
//     (up to axis_max_column_outputs) or of a group of 32, reading consecutive addresses (the flat
//     form read pieces too short for a warp with few outputs, and needed the combine kernel with
//     more);
//   rows (AxisTeamBody): a team per (output, segment), along the last axis of row-major data;
//     the team's threads read neighbouring addresses of one contiguous piece of a row;
//     without a split, AxisRowsVectorBody gives a team several rows, a row per warp.
// Threads walk their elements with impl::accumulate_strided (axis_loads_in_flight loads in
// flight, all issued before any is used). The flat, columns and rows forms may use 64
// registers and aim at half the device's threads (HalfWaveLaunchBounds), so that the wave the
// split aims at is resident at once; AxisRowsVectorBody, which never splits, keeps 4 loads at
// 32 registers and a full wave. The reduced slot is a template parameter (AxisElement), so
// each load is one address step.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <numeric>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/impl/combine.hpp"
#include "portasim/toolkit/impl/reduction_scratch.hpp"
#include "portasim/toolkit/launch_shape.hpp"

namespace portasim::toolkit::impl {

// A chosen split for Reduction::along (zeros: the defaults). segments = 1 forces one pass;
// segments > 1 forces that many segments (capped only by axis_partials_max_bytes); waves
// sets how many threads the automatic choice aims at: waves times the threads a device holds
// of these kernels (half_wave), or times the host's concurrency.
struct AxisReduceShape {
  int segments = 0;
  int waves = 0;
  int team = 0;  // threads per team of the rows form on devices (0: from the row length)
};

// Loads in flight per thread of pass 1 (and of the one-pass flat and team forms): 8, with up
// to 64 registers (HalfWaveLaunchBounds). A compile-time count: with a run-time one (a switch
// over 1, 2, 4, 8 as in the whole-array kernel) these kernels spilled at 32 registers.
inline constexpr int axis_loads_in_flight = 8;
// Loads in flight per thread of pass 2, whose team gives each thread at most this many
// partials (plan_axis_split, plan_axis_columns) up to 2048 segments: all of a thread's
// loads then go out at once, one wait on L2 per combine.
inline constexpr int axis_combine_loads_in_flight = 8;
// The team of the one-pass team form (and of a forced AxisReduceShape::team): row piece /
// (axis_loads_in_flight x axis_team_steps) threads, 32..256; the split rows form caps it at
// axis_split_rows_team. Sized when a team took a whole row, where the smallest team, one
// warp, was fastest: a short row gives a larger team too little work per thread
// (docs/design/axis-reductions.md); the one-pass rows now go to AxisRowsVectorBody.
inline constexpr std::size_t axis_team_steps = 8;
// The split aims at one wave: every thread of the grid resident at once, and no more teams
// (each with its fixed work and its partial) than fill the device. More waves measured no
// faster (docs/design/axis-reductions.md).
inline constexpr int axis_default_waves = 1;
inline constexpr std::size_t axis_min_elements_per_thread = 32;  // below: partials cost too much
inline constexpr std::size_t axis_max_segments = 8192;  // pass 2 reads at most 32 per thread
inline constexpr int axis_max_team = 256;
inline constexpr int axis_min_device_team = 32;
// The team of the split rows form: more, smaller teams per row. For a few long rows 64
// threads measured faster than 32, 128 or 256 (docs/design/axis-reductions.md).
inline constexpr int axis_split_rows_team = 64;

// How one call runs: `segments` = 1 is the one-pass form; team: threads per work item of the
// rows form (1 for the flat form); combine_team: threads per output in pass 2.
struct AxisPlan {
  std::size_t segments = 1;
  int team = 1;
  int combine_team = 1;
  std::size_t columns = 0;  // columns form: the outputs a team takes (0: another form)
};

KOKKOS_INLINE_FUNCTION constexpr std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

inline int pow2_team(std::size_t threads_wanted, bool device) {
  if (!device) return 1;  // host teams are one thread (Kokkos' AUTO there)
  int team = axis_min_device_team;
  while (team < axis_max_team && static_cast<std::size_t>(team) < threads_wanted) team *= 2;
  return team;
}

// A segment count within the bounds of every split: when chosen rather than forced, at least
// axis_min_elements_per_thread elements for each of the `lanes` threads that share a
// segment's stretch of the axis, and at most axis_max_segments; always within the partials
// block, and at least 1.
inline std::size_t bound_segments(std::size_t s, bool chosen, std::size_t length, std::size_t lanes,
                                  std::size_t outputs, std::size_t acc_bytes) {
  if (chosen) {
    const std::size_t by_length = length / (lanes * axis_min_elements_per_thread);
    if (s > by_length) s = by_length;
    if (s > axis_max_segments) s = axis_max_segments;
  }
  const std::size_t by_bytes = axis_partials_max_bytes / (outputs * acc_bytes);
  if (s > by_bytes) s = by_bytes;
  return s < 1 ? 1 : s;
}

// The threads a split aims at: waves (the shape's, else default_waves) times `resident`,
// the threads of one wave.
inline std::size_t wave_threads(const AxisReduceShape& shape, int default_waves,
                                std::size_t resident) {
  const std::size_t waves = static_cast<std::size_t>(shape.waves > 0 ? shape.waves : default_waves);
  return waves * (resident > 0 ? resident : 1);
}

// The threads of one wave of the split kernels: half_wave on devices, all of a host's.
inline std::size_t split_wave(bool device, std::size_t concurrency) {
  return device ? half_wave(concurrency) : concurrency;
}

// The split for `outputs` outputs of a `length`-long axis on a device (or host) running
// `concurrency` threads at once. Pure host arithmetic, so tests can check the plan of any
// device on any backend.
inline AxisPlan plan_axis_split(std::size_t outputs, std::size_t length, bool rows, bool device,
                                std::size_t concurrency, std::size_t acc_bytes,
                                const AxisReduceShape& shape) {
  AxisPlan plan;
  const std::size_t per_thread = axis_loads_in_flight * axis_team_steps;
  if (rows)
    plan.team =
        device && shape.team > 0 ? shape.team : pow2_team(ceil_div(length, per_thread), device);
  if (outputs == 0) return plan;
  const std::size_t wanted =
      wave_threads(shape, axis_default_waves, split_wave(device, concurrency));
  std::size_t s = 1;
  bool chosen = false;
  if (shape.segments > 0) {
    s = static_cast<std::size_t>(shape.segments);
  } else if (outputs * static_cast<std::size_t>(plan.team) < wanted) {
    if (rows && device && shape.team == 0 && plan.team > axis_split_rows_team)
      plan.team = axis_split_rows_team;
    // Rounded down: a grid one team past the wave runs that team in a second wave, and the
    // whole call waits for it (docs/design/axis-reductions.md).
    s = wanted / (outputs * static_cast<std::size_t>(plan.team));  // bound_segments: at least 1
    chosen = true;
  }
  s = bound_segments(s, chosen, length, static_cast<std::size_t>(plan.team), outputs, acc_bytes);
  plan.segments = s;
  if (s > 1) {
    if (rows && !(device && shape.team > 0)) {
      const int by_segment = pow2_team(ceil_div(ceil_div(length, s), per_thread), device);
      if (by_segment < plan.team) plan.team = by_segment;
    }
    plan.combine_team = pow2_team(ceil_div(s, axis_combine_loads_in_flight), device);
  }
  return plan;
}

// The columns form (AxisColumnsBody): the first axis of row-major data on a device, with at
// most axis_max_column_outputs outputs, or with more where the flat form would split the axis
// (use_columns_form). A team of axis_column_team threads (rounded down to a multiple of
// the columns it takes) takes a contiguous block of rows of all the outputs, or above
// axis_max_column_outputs of a group of axis_column_group outputs.
inline constexpr std::size_t axis_max_column_outputs = 128;
inline constexpr int axis_column_team = 256;
// Groups of 32 columns (8 lanes per column) leave few enough segments for the last team of a
// group to combine them (columns_split_folds), which saves the combine kernel's launch. Wider
// groups are fewer, need more segments each to fill the wave, and so the combine kernel: they
// measured slower, as did the flat form with its combine kernel
// (docs/design/axis-reductions.md).
inline constexpr std::size_t axis_column_group = 32;
// The columns form aims at one wave, as the split does (axis_default_waves): with segments of
// whole lines more waves measured no faster, and where axis_min_elements_per_thread caps the
// teams a second wave is only partly filled (docs/design/axis-reductions.md).
inline constexpr int axis_column_waves = 1;

// With more than axis_max_column_outputs outputs, the columns form where the flat form would
// split the axis (and so need the combine kernel); otherwise the flat form in one pass, which
// is the faster of the two when it needs no split: with a few rows of many columns the
// columns form's lanes get only a handful of rows each (docs/design/axis-reductions.md).
inline bool use_columns_form(int axis, bool first_index_fastest, std::size_t outputs,
                             std::size_t length, bool device, std::size_t concurrency,
                             std::size_t acc_bytes, const AxisReduceShape& shape) {
  if (!device || axis != 0 || first_index_fastest || outputs == 0) return false;
  if (outputs <= axis_max_column_outputs) return true;
  return plan_axis_split(outputs, length, false, device, concurrency, acc_bytes, shape).segments >
         1;
}

// The columns a team of the columns form takes: all of them up to axis_max_column_outputs,
// else a group of axis_column_group.
inline std::size_t columns_per_team(std::size_t outputs) {
  if (outputs <= axis_max_column_outputs) return outputs;
  return axis_column_group;
}

// The split of the columns form: `segments` blocks of rows for each group of columns, a team
// per (group, segment), aiming at waves * concurrency threads (rounded down, as every split
// is: see plan_axis_split), each thread left at least axis_min_elements_per_thread rows.
inline AxisPlan plan_axis_columns(std::size_t outputs, std::size_t length, std::size_t concurrency,
                                  std::size_t acc_bytes, const AxisReduceShape& shape) {
  AxisPlan plan;
  const std::size_t columns = columns_per_team(outputs);
  plan.columns = columns;
  plan.team = static_cast<int>(static_cast<std::size_t>(axis_column_team) / columns * columns);
  const std::size_t lanes = static_cast<std::size_t>(plan.team) / columns;  // threads per column
  const std::size_t groups = ceil_div(outputs, columns);
  const bool chosen = shape.segments <= 0;
  const std::size_t s =
      chosen ? wave_threads(shape, axis_column_waves, split_wave(true, concurrency)) /
                   (groups * static_cast<std::size_t>(plan.team))
             : static_cast<std::size_t>(shape.segments);
  plan.segments = bound_segments(s, chosen, length, lanes, outputs, acc_bytes);
  if (plan.segments > 1)
    plan.combine_team = pow2_team(ceil_div(plan.segments, axis_combine_loads_in_flight), true);
  return plan;
}

// Whether a split columns form combines in its own kernel (the last team of a group to finish
// combines the group's partials) rather than in the combine kernel: when its grid is one wave,
// as the default plan makes it, and each thread of that last team reads at most
// axis_combine_loads_in_flight partials.
inline bool columns_split_folds(std::size_t outputs, const AxisPlan& plan,
                                std::size_t concurrency) {
  if (plan.segments <= 1 || plan.columns == 0) return false;
  const std::size_t lanes = static_cast<std::size_t>(plan.team) / plan.columns;
  const std::size_t groups = ceil_div(outputs, plan.columns);
  return ceil_div(plan.segments, lanes) <= static_cast<std::size_t>(axis_combine_loads_in_flight) &&
         groups * plan.segments * static_cast<std::size_t>(plan.team) <=
             split_wave(true, concurrency);
}

// The rows of a segment of the columns form: a multiple of 32 / gcd(outputs, 32) rows, so
// that a segment holds a multiple of 32 elements and, with row-major data, starts on a
// 128-byte line when the array does: in a segment that starts mid-line every warp load of
// its team straddles two lines (docs/design/axis-reductions.md).
inline std::size_t column_segment_length(std::size_t length, std::size_t segments,
                                         std::size_t outputs) {
  if (segments <= 1) return length;
  const std::size_t step = 32 / std::gcd(outputs, std::size_t{32});
  return ceil_div(ceil_div(length, segments), step) * step;
}

// Whether a split rows form combines in its own kernel (AxisTeamBody) rather than in the
// combine kernel: when its grid is one wave (the default plan's is), or a forced split's is
// one segment more, and always on host backends. Within one wave the fold saves the combine
// kernel's launch; beyond it a team waiting on its counter holds back the next wave, and the
// combine kernel is faster (docs/design/axis-reductions.md).
inline bool rows_split_folds(std::size_t outputs, std::size_t segments, int team, bool device,
                             std::size_t concurrency) {
  return segments > 1 && (!device || outputs * (segments - 1) * static_cast<std::size_t>(team) <
                                         split_wave(device, concurrency));
}

// The plan of whichever form a call uses: columns (use_columns_form), else the split of the
// rows or flat form.
inline AxisPlan plan_axis(std::size_t outputs, std::size_t length, bool rows, bool columns,
                          bool device, std::size_t concurrency, std::size_t acc_bytes,
                          const AxisReduceShape& shape) {
  return columns ? plan_axis_columns(outputs, length, concurrency, acc_bytes, shape)
                 : plan_axis_split(outputs, length, rows, device, concurrency, acc_bytes, shape);
}

// Whether a split call combines in pass 1's kernel (rows_split_folds, columns_split_folds)
// rather than in the combine kernel.
inline bool axis_split_folds(std::size_t outputs, const AxisPlan& plan, bool rows, bool columns,
                             bool device, std::size_t concurrency) {
  if (columns) return columns_split_folds(outputs, plan, concurrency);
  return rows && rows_split_folds(outputs, plan.segments, plan.team, device, concurrency);
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
  KOKKOS_FORCEINLINE_FUNCTION void origin(std::size_t k, std::size_t& i0, std::size_t& i1,
                                          std::size_t& i2, std::size_t& o0, std::size_t& o1,
                                          std::size_t& o2) const {
    outer(k, o0, o1, o2);
    i2 = axis_slot == 2 ? 0 : o2;
    i1 = axis_slot == 2 ? o2 : (axis_slot == 1 ? 0 : o1);
    i0 = axis_slot == 0 ? 0 : o1;
  }
  // origin() without the output's indices.
  KOKKOS_FORCEINLINE_FUNCTION void input_origin(std::size_t k, std::size_t& i0, std::size_t& i1,
                                                std::size_t& i2) const {
    std::size_t o0, o1, o2;
    origin(k, i0, i1, i2, o0, o1, o2);
  }
  KOKKOS_FORCEINLINE_FUNCTION std::size_t length() const { return extent[axis_slot]; }
};

// Element j of the reduced axis from the origin (i0, i1, i2), the reduced slot known at
// compile time: with the slot a run-time value, each load cost three 64-bit index products
// and the kernels spilled at 32 registers.
template <class E, class Acc, int Slot>
struct AxisElement {
  E expr;
  KOKKOS_FORCEINLINE_FUNCTION Acc operator()(std::size_t i0, std::size_t i1, std::size_t i2,
                                             std::size_t j) const {
    return static_cast<Acc>(
        expr(Slot == 0 ? i0 + j : i0, Slot == 1 ? i1 + j : i1, Slot == 2 ? i2 + j : i2));
  }
};

// [begin, end) of segment s of a `length`-long axis cut into segments of segment_length
// (the last ones may be short or empty): the flat and columns forms.
KOKKOS_FORCEINLINE_FUNCTION void segment_range(std::size_t s, std::size_t segment_length,
                                               std::size_t length, std::size_t& begin,
                                               std::size_t& end) {
  const std::size_t first = s * segment_length;
  begin = first < length ? first : length;
  end = length - begin > segment_length ? begin + segment_length : length;
}

// Rows form: segments of a row are segment_length long (a multiple of 32) and start where the
// row's flat element number k * length + j is a multiple of 32, the first one at the row's
// start and the last ending at its end; later ones may be empty. With dense float rows every
// warp load of a segment then reads one aligned 128-byte line: with segments cut at multiples
// of the length, rows whose length is not a multiple of 32 made every load straddle two lines
// (docs/design/axis-reductions.md).
KOKKOS_FORCEINLINE_FUNCTION void row_segment_range(std::size_t k, std::size_t s,
                                                   std::size_t segments, std::size_t segment_length,
                                                   std::size_t length, std::size_t& begin,
                                                   std::size_t& end) {
  constexpr std::size_t line = 32;
  const std::size_t shift = (line - (k * length) % line) % line;
  const std::size_t first = s * segment_length + shift, next = first + segment_length;
  begin = s == 0 ? 0 : (first < length ? first : length);
  end = s + 1 == segments ? length : (next < length ? next : length);
}

// What every kernel of a reduction along an axis reads and writes.
template <class Out, class Element, class Combine, class Post, class Acc>
struct AxisOperands {
  ViewOperand<Out> out;
  Element element;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  std::size_t outputs;
  std::size_t segments;  // of the split (1: one pass)

  // The output indices are derived again where they are needed, not kept across the
  // accumulation: held in registers through it they made the team form spill at 32.
  KOKKOS_FORCEINLINE_FUNCTION void store(std::size_t k, Acc total) const {
    std::size_t o0, o1, o2;
    geometry.outer(k, o0, o1, o2);
    store_at(o0, o1, o2, total);
  }
  KOKKOS_FORCEINLINE_FUNCTION void store_at(std::size_t o0, std::size_t o1, std::size_t o2,
                                            Acc total) const {
    out(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post(total));
  }
  // accumulate() along the axis of output k.
  template <int Count>
  KOKKOS_FORCEINLINE_FUNCTION Acc accumulate_at(std::size_t k, std::size_t first, std::size_t end,
                                                std::size_t stride) const {
    std::size_t i0, i1, i2;
    geometry.input_origin(k, i0, i1, i2);
    return accumulate<Count>(i0, i1, i2, first, end, stride);
  }
  // Where output k's partial of segment s lives in the partials block. Output-major, so that
  // pass 2 reads each output's partials as one contiguous piece: with s * outputs + k its
  // loads were `outputs` apart, a line each with many outputs (docs/design/axis-reductions.md).
  KOKKOS_FORCEINLINE_FUNCTION std::size_t slot(std::size_t k, std::size_t s) const {
    return k * segments + s;
  }
  // Output k's value of segment s: post-mapped into out when there are no partials (one
  // pass), else into its slot.
  KOKKOS_FORCEINLINE_FUNCTION void deliver(std::size_t k, std::size_t s, Acc total,
                                           Acc* partials) const {
    if (partials == nullptr) {
      store(k, total);
    } else {
      partials[slot(k, s)] = total;
    }
  }
  // The combination of the elements [first, end) of the axis through (i0, i1, i2), stride
  // apart, Count loads in flight.
  template <int Count>
  KOKKOS_FORCEINLINE_FUNCTION Acc accumulate(std::size_t i0, std::size_t i1, std::size_t i2,
                                             std::size_t first, std::size_t end,
                                             std::size_t stride) const {
    const AxisOperands& self = *this;
    return accumulate_strided<Count>([&](std::size_t j) { return self.element(i0, i1, i2, j); },
                                     combine, identity, first, end, stride);
  }
};

// Pass 1 of the flat form (or the whole of it when partials is null): thread t takes output
// k = t % outputs and the contiguous segment s = t / outputs of its axis. (Interleaved
// segments, thread (k, s) taking elements s, s + segments, ..., so that a warp reads one
// contiguous piece per load, measured no faster.)
template <class Out, class Element, class Combine, class Post, class Acc>
struct AxisFlatBody {
  AxisOperands<Out, Element, Combine, Post, Acc> ops;
  std::size_t segment_length;
  Acc* partials;  // [output][segment]; null: one pass, store post(total) in out

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t t) const {
    const std::size_t k = t % ops.outputs, s = t / ops.outputs;
    // This order (origin, range, sum, store with the indices kept) is the measured one: the
    // same kernel with the origin derived after the range and the output indices derived
    // again for the store (as the team forms do) ran clearly slower, with the same PTX loop
    // (docs/design/axis-reductions.md).
    std::size_t i0, i1, i2, o0, o1, o2;
    ops.geometry.origin(k, i0, i1, i2, o0, o1, o2);
    std::size_t begin, end;
    segment_range(s, segment_length, ops.geometry.length(), begin, end);
    const Acc total = ops.template accumulate<axis_loads_in_flight>(i0, i1, i2, begin, end, 1);
    if (partials == nullptr) {
      ops.store_at(o0, o1, o2, total);
    } else {
      partials[ops.slot(k, s)] = total;
    }
  }
};

// Output k's partials combined by a team in a fixed order: thread r takes segments r,
// r + team, ... (all of its loads at once), then the team's tree. load(s) reads output k's
// partial of segment s. Used by the combine kernel and by the rows form's last team.
template <class Member, class Operands, class Load>
KOKKOS_INLINE_FUNCTION auto combined_partials(const Member& member, const Operands& ops,
                                              const Load& load) {
  const auto mine = accumulate_strided<axis_combine_loads_in_flight, true>(
      load, ops.combine, ops.identity, static_cast<std::size_t>(member.team_rank()), ops.segments,
      static_cast<std::size_t>(member.team_size()));
  return team_combine(member, ops.combine, ops.identity, mine);
}

// The rows form: team l takes output k = l / segments and segment s = l % segments
// (neighbouring teams read neighbouring pieces of one row); thread r of a team reads
// elements r, r + team, ... of the piece. Split, each team writes its partial and counts
// itself done on output k's counter; the team that counts last combines the output's
// partials in a fixed order, stores the result and sets the counter back to 0. That replaces
// the combine kernel (AxisCombineBody), whose launch cost more than the wait on the counter.
template <class Exec, class Out, class Element, class Combine, class Post, class Acc>
struct AxisTeamBody {
  using member_type = typename Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>::member_type;
  AxisOperands<Out, Element, Combine, Post, Acc> ops;
  std::size_t segment_length;
  Acc* partials;           // [output][segment]; null: one pass, store post(total) in out
  unsigned int* counters;  // [output], at 0; null: a combine kernel follows

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    Acc mine;
    {
      const std::size_t l = static_cast<std::size_t>(member.league_rank());
      const std::size_t k = l / ops.segments, s = l % ops.segments;
      std::size_t begin, end;
      row_segment_range(k, s, ops.segments, segment_length, ops.geometry.length(), begin, end);
      mine = ops.template accumulate_at<axis_loads_in_flight>(
          k, begin + static_cast<std::size_t>(member.team_rank()), end,
          static_cast<std::size_t>(member.team_size()));
    }
    const Acc team_total = team_combine(member, ops.combine, ops.identity, mine);
    // derived again, not held through the accumulation (registers: see AxisOperands)
    const unsigned int l = static_cast<unsigned int>(member.league_rank());
    const std::size_t k = l / static_cast<unsigned int>(ops.segments),
                      s = l % static_cast<unsigned int>(ops.segments);
    Acc* const p = partials;
    const AxisOperands<Out, Element, Combine, Post, Acc>& o = ops;
    const auto deliver = [&]() { o.deliver(k, s, team_total, p); };
    if (counters == nullptr) {
      Kokkos::single(Kokkos::PerTeam(member), deliver);
      return;
    }
    if (write_and_count_last(member, deliver, counters + k, static_cast<unsigned int>(o.segments)))
      combine_partials(member, k);
  }

  // The last team of output k: its partials as the combine kernel would take them.
  KOKKOS_INLINE_FUNCTION void combine_partials(const member_type& member, std::size_t k) const {
    const Acc* const q = partials + ops.slot(k, 0);
    const Acc total =
        combined_partials(member, ops, [&](std::size_t s) { return load_partial(q + s); });
    const AxisOperands<Out, Element, Combine, Post, Acc>& o = ops;
    unsigned int* const done = counters;
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      o.store(k, total);
      done[k] = 0;  // ready for the next reduction on this stream
    });
  }
};

// The one-pass rows form with several rows per team: team thread t of team l reduces rows
// k = (l + q * league) * rows_per_team + t over its vector lanes (a warp on CUDA), lane v
// taking elements v, v + V, ... with axis_row_loads of them loaded before any is combined.
// A team per row left each block little work, and block scheduling, not memory, set the
// pace; devices get one wave of teams that walk the rows. Host backends have one lane and one
// thread per team, and a team per row.
// Held to 32 registers (a full wave of 4 loads, unlike the split kernels' half wave of 8:
// this kernel never splits, and half a wave of 4 loads measured slower), so that the wave of
// teams is resident at once (at more registers part of the grid ran in a second wave); 4
// loads per lane keep it nearly free of spills. Figures: docs/design/axis-reductions.md.
inline constexpr int axis_row_loads = 4;

template <class Exec, class Out, class Element, class Combine, class Post, class Acc>
struct AxisRowsVectorBody {
  using member_type = typename Kokkos::TeamPolicy<Exec, OneWaveLaunchBounds>::member_type;
  AxisOperands<Out, Element, Combine, Post, Acc> ops;
  int rows_per_team;
  int lanes;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t group = static_cast<std::size_t>(rows_per_team);
    const std::size_t step = static_cast<std::size_t>(member.league_size()) * group;
    for (std::size_t row0 = static_cast<std::size_t>(member.league_rank()) * group;
         row0 < ops.outputs; row0 += step)
      reduce_rows(member, row0);
  }

  KOKKOS_INLINE_FUNCTION void reduce_rows(const member_type& member, const std::size_t row0) const {
    const AxisOperands<Out, Element, Combine, Post, Acc>& o = ops;
    const int width = lanes;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows_per_team), [&](const int t) {
      const std::size_t k = row0 + static_cast<std::size_t>(t);
      if (k >= o.outputs) return;
      std::size_t i0, i1, i2;
      o.geometry.input_origin(k, i0, i1, i2);
      const std::size_t length = o.geometry.length();
      Acc row_total = o.identity;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(member, width),
          [&](const int lane, Acc& value) {
            value = o.combine(value, o.template accumulate<axis_row_loads>(
                                         i0, i1, i2, static_cast<std::size_t>(lane), length,
                                         static_cast<std::size_t>(width)));
          },
          CombineReducer<Acc, Combine, Kokkos::HostSpace>(row_total, o.combine, o.identity));
      Kokkos::single(Kokkos::PerThread(member), [&]() { o.store(k, row_total); });
    });
  }
};

// The columns form, pass 1 (or the whole of it when partials is null): team l takes group
// g = l % groups of `columns` outputs (all of them, or axis_column_group) and the rows
// [s * segment_length, ...) of the reduced axis, s = l / groups (neighbouring teams take
// neighbouring groups of one block of rows); with L = team / columns lanes per column, thread
// r takes output k = g * columns + r % columns and rows r / columns, r / columns + L, ... of
// the block. A warp's loads are then consecutive addresses of row-major data, as in the
// whole-array kernel; the flat form gave each thread one output, and with 16 columns a warp
// read two 64-byte pieces of different segments per load (docs/design/axis-reductions.md).
// The L lanes of a column are combined in a tree in team scratch memory (a fixed
// order). With counters, each team writes its partials and counts itself done on its group's
// counter; the last team of a group combines the group's partials the same way (lanes over
// segments, then the tree) and stores them, in place of the combine kernel.
template <class Exec, class Out, class Element, class Combine, class Post, class Acc>
struct AxisColumnsBody {
  using member_type = typename Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>::member_type;
  AxisOperands<Out, Element, Combine, Post, Acc> ops;
  std::size_t segment_length;
  std::size_t columns;     // outputs per team
  Acc* partials;           // [output][segment]; null: one pass, store post(total) in out
  unsigned int* counters;  // [group], at 0; null: a combine kernel follows (or one pass)

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int team) {
    return static_cast<std::size_t>(team) * sizeof(Acc);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t groups = ceil_div(ops.outputs, columns);
    const std::size_t lanes = static_cast<std::size_t>(member.team_size()) / columns;
    const std::size_t r = static_cast<std::size_t>(member.team_rank());
    const std::size_t l = static_cast<std::size_t>(member.league_rank());
    const std::size_t g = l % groups, s = l / groups;
    const std::size_t k = g * columns + r % columns;
    std::size_t begin, end;
    segment_range(s, segment_length, ops.geometry.length(), begin, end);
    Acc* const values =
        static_cast<Acc*>(member.team_scratch(0).get_shmem(scratch_bytes(member.team_size())));
    values[r] =
        r < lanes * columns && k < ops.outputs
            ? ops.template accumulate_at<axis_loads_in_flight>(k, begin + r / columns, end, lanes)
            : ops.identity;
    combine_lanes(member, values, lanes);
    const bool writes = r < columns && k < ops.outputs;
    if (writes) ops.deliver(k, s, values[r], partials);
    if (counters == nullptr) return;
    if (writes) Kokkos::memory_fence();  // this partial visible before the team counts itself done
    member.team_barrier();
    if (write_and_count_last(
            member, [] {}, counters + g, static_cast<unsigned int>(ops.segments)))
      combine_group(member, values, g, lanes);
  }

  // values[c] = the combination of values[c + q * columns] over the lanes q < lanes, for each
  // column c < columns: lanes q < m - half take in lane q + half.
  KOKKOS_INLINE_FUNCTION void combine_lanes(const member_type& member, Acc* values,
                                            std::size_t lanes) const {
    const std::size_t r = static_cast<std::size_t>(member.team_rank());
    member.team_barrier();
    for (std::size_t m = lanes; m > 1;) {
      const std::size_t half = (m + 1) / 2;
      if (r < (m - half) * columns) values[r] = ops.combine(values[r], values[r + half * columns]);
      member.team_barrier();
      m = half;
    }
  }

  // The last team of group g: lane q of column c combines its partials of segments q, q +
  // lanes, ... (issued together), then the lanes' tree; stores and sets the counter back to 0.
  KOKKOS_INLINE_FUNCTION void combine_group(const member_type& member, Acc* values, std::size_t g,
                                            std::size_t lanes) const {
    const std::size_t r = static_cast<std::size_t>(member.team_rank());
    const std::size_t k = g * columns + r % columns;
    if (r < lanes * columns && k < ops.outputs) {
      const Acc* const q = partials + ops.slot(k, 0);
      values[r] = accumulate_strided<axis_combine_loads_in_flight, true>(
          [&](std::size_t s) { return load_partial(q + s); }, ops.combine, ops.identity,
          r / columns, ops.segments, lanes);
    } else {
      values[r] = ops.identity;
    }
    combine_lanes(member, values, lanes);
    if (r < columns && k < ops.outputs) ops.store(k, values[r]);
    if (r == 0) counters[g] = 0;  // ready for the next reduction on this stream
  }
};

// Pass 2: team k combines partials[k * segments + s] over s < segments (combined_partials)
// and stores post(total) in out.
template <class Exec, class Operands, class Acc>
struct AxisCombineBody {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  Operands ops;
  const Acc* partials;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t k = static_cast<std::size_t>(member.league_rank());
    const Acc* const p = partials + ops.slot(k, 0);
    const Acc total = combined_partials(member, ops, [&](std::size_t s) { return p[s]; });
    const Operands& o = ops;
    Kokkos::single(Kokkos::PerTeam(member), [&]() { o.store(k, total); });
  }
};

// Pass 1 (and pass 2 if the axis is split) with the reduced slot known at compile time.
template <int Slot, class Exec, class Out, class E, class Combine, class Post, class Acc>
void launch_along(const std::string& label, const std::string& combine_label, const Exec& exec,
                  const AxisReduceShape& shape, const AxisPlan& plan, const E& expr,
                  const AxisGeometry& geometry, std::size_t outputs, bool rows, bool columns,
                  const Combine& combine, Acc identity, const Post& post, const Out& out) {
  using Element = AxisElement<E, Acc, Slot>;
  using Operands = AxisOperands<Out, Element, Combine, Post, Acc>;
  const std::size_t length = geometry.length();
  const std::size_t segments = plan.segments;
  const std::size_t segment_length = segments > 1 ? ceil_div(length, segments) : length;
  // the rows form's segments start on 32-element boundaries (row_segment_range)
  const std::size_t row_segment_length = segments > 1 ? ceil_div(segment_length, 32) * 32 : length;
  Acc* partials = segments > 1
                      ? static_cast<Acc*>(axis_partials(exec, segments * outputs * sizeof(Acc)))
                      : nullptr;
  const Operands ops{
      ViewOperand<Out>(out), Element{expr}, combine, post, identity, geometry, outputs, segments};
  const bool folded = axis_split_folds(outputs, plan, rows, columns, is_device_space<Exec>(),
                                       static_cast<std::size_t>(exec.concurrency()));
  // rows (the last axis of row-major data) is Slot 2 only
  if constexpr (Slot == max_rank - 1) {
    if (rows && segments == 1 && shape.team == 0) {
      using Policy = Kokkos::TeamPolicy<Exec, OneWaveLaunchBounds>;
      const int lanes = Policy::vector_length_max() >= 32 ? 32 : 1;
      const int rows_per_team = is_device_space<Exec>() ? 8 : 1;
      std::size_t league = ceil_div(outputs, static_cast<std::size_t>(rows_per_team));
      if (is_device_space<Exec>()) {
        const std::size_t wave = static_cast<std::size_t>(exec.concurrency()) /
                                 static_cast<std::size_t>(rows_per_team * lanes);
        if (league > wave && wave > 0) league = wave;
      }
      Kokkos::parallel_for(
          label, Policy(exec, static_cast<int>(league), rows_per_team, lanes),
          AxisRowsVectorBody<Exec, Out, Element, Combine, Post, Acc>{ops, rows_per_team, lanes});
    } else if (rows) {
      unsigned int* const counters = folded ? axis_counters(exec, outputs) : nullptr;
      Kokkos::parallel_for(label,
                           Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>(
                               exec, static_cast<int>(outputs * segments), plan.team),
                           AxisTeamBody<Exec, Out, Element, Combine, Post, Acc>{
                               ops, row_segment_length, partials, counters});
    }
  }
  // columns: the first axis (Slot + rank == 3) on a device only
  if constexpr (Slot + E::static_rank == max_rank && is_device_space<Exec>()) {
    if (columns) {
      using Body = AxisColumnsBody<Exec, Out, Element, Combine, Post, Acc>;
      const std::size_t groups = ceil_div(outputs, plan.columns);
      unsigned int* const counters = folded ? axis_counters(exec, groups) : nullptr;
      Kokkos::parallel_for(
          label,
          Kokkos::TeamPolicy<Exec, HalfWaveLaunchBounds>(exec, static_cast<int>(groups * segments),
                                                         plan.team)
              .set_scratch_size(0, Kokkos::PerTeam(Body::scratch_bytes(plan.team))),
          Body{ops, column_segment_length(length, segments, outputs), plan.columns, partials,
               counters});
    }
  }
  if (!rows && !columns) {
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<Exec, HalfWaveLaunchBounds>(exec, 0, outputs * segments),
        AxisFlatBody<Out, Element, Combine, Post, Acc>{ops, segment_length, partials});
  }
  if (segments > 1 && !folded) {
    Kokkos::parallel_for(
        combine_label, Kokkos::TeamPolicy<Exec>(exec, static_cast<int>(outputs), plan.combine_team),
        AxisCombineBody<Exec, Operands, Acc>{ops, partials});
  }
}

// out = post(combine along geometry's slot of expr), on exec, without a fence. `rows`: the
// reduced axis is the last one of row-major data; `columns`: use the columns form
// (use_columns_form). The caller has checked the shapes.
template <class Exec, class Out, class E, class Combine, class Post, class Acc>
void reduce_along(const std::string& label, const std::string& combine_label, const Exec& exec,
                  const AxisReduceShape& shape, const E& expr, const AxisGeometry& geometry,
                  std::size_t outputs, bool rows, bool columns, const Combine& combine,
                  Acc identity, const Post& post, const Out& out) {
  if (outputs == 0) return;
  const AxisPlan plan =
      plan_axis(outputs, geometry.length(), rows, columns, is_device_space<Exec>(),
                static_cast<std::size_t>(exec.concurrency()), sizeof(Acc), shape);
  // Only the slots an expression of this rank can have are compiled: a rank-2 expression's
  // axes are slots 1 and 2.
  switch (geometry.axis_slot) {
    case 0:
      if constexpr (E::static_rank >= 3)
        return launch_along<0>(label, combine_label, exec, shape, plan, expr, geometry, outputs,
                               rows, columns, combine, identity, post, out);
      break;
    case 1:
      if constexpr (E::static_rank >= 2)
        return launch_along<1>(label, combine_label, exec, shape, plan, expr, geometry, outputs,
                               rows, columns, combine, identity, post, out);
      break;
    default:
      return launch_along<2>(label, combine_label, exec, shape, plan, expr, geometry, outputs, rows,
                             columns, combine, identity, post, out);
  }
  throw_error(ErrorKind::internal, "reduction along slot " + std::to_string(geometry.axis_slot) +
                                       " of an expression of rank " +
                                       std::to_string(E::static_rank));
}

}  // namespace portasim::toolkit::impl
