#pragma once
// How the reduction kernels (whole_reduction.hpp, axis_reduction.hpp) combine values: a
// register array in a tree, a thread's strided range with several loads in flight, a team's
// values, and any of these as a Kokkos reducer.
//
// The strided range is what sets a reduction's bandwidth on a GPU. Each thread must keep
// several loads in flight, so a chunk of Count loads is issued back to back and only then
// used, with Count known at compile time (with a run-time count every load sat in its own
// guarded block with its use right behind it: one load in flight per thread). What counts
// is the bytes in flight per multiprocessor, and that every thread of the grid is resident
// at once: the kernels that walk such ranges either hold 4 loads at 32 registers over all of
// exec.concurrency() (OneWaveLaunchBounds) or 8 loads at 64 registers over half of it
// (HalfWaveLaunchBounds). A grid sized for the whole of it at 56 registers has only half of
// it resident, and the rest runs as a second wave (docs/design/reductions.md).

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

#include "portasim/toolkit/launch_shape.hpp"

namespace portasim::toolkit::impl {

// Blocks of up to 1024 threads, at least 2 per multiprocessor: at most 32 registers per
// thread, so that 2048 threads per multiprocessor, the whole of exec.concurrency(), fit.
using OneWaveLaunchBounds = Kokkos::LaunchBounds<1024, 2>;

// The kernels that split a reduction (the whole-array kernel, pass 1 along an axis) keep 8
// loads in flight per thread with up to 64 registers, none spilled, and aim at half of
// exec.concurrency(): the 1024 threads per multiprocessor that fit at 64 registers, with as
// many bytes in flight as a full wave of 4 loads, and half as many threads to pay each
// team's fixed work (its indices, its team's combine, its count), which sets the pace where a
// thread of a full wave has only a few chunks to load. Half a wave of 4 loads (half the bytes
// in flight) and a full wave of 8 loads (as many threads) both measured slower
// (docs/design/reductions.md).
using HalfWaveLaunchBounds = Kokkos::LaunchBounds<1024, 1>;
inline constexpr std::size_t half_wave_divisor = 2;

// The threads of one wave of a HalfWaveLaunchBounds kernel on a device running
// `concurrency` threads at once.
inline std::size_t half_wave(std::size_t concurrency) {
  const std::size_t threads = concurrency / half_wave_divisor;
  return threads > 0 ? threads : 1;
}

// A Kokkos reducer for any associative `combine` with an identity, writing into a View.
template <class T, class Combine, class Space>
struct CombineReducer {
  using reducer = CombineReducer;
  using value_type = std::remove_cv_t<T>;
  using result_view_type = Kokkos::View<value_type, Space>;

  result_view_type m_value;
  Combine m_combine;
  value_type m_identity;
  bool m_references_scalar;

  KOKKOS_INLINE_FUNCTION CombineReducer(value_type& value, const Combine& combine,
                                        value_type identity)
      : m_value(&value), m_combine(combine), m_identity(identity), m_references_scalar(true) {}
  CombineReducer(const result_view_type& value, const Combine& combine, value_type identity)
      : m_value(value), m_combine(combine), m_identity(identity), m_references_scalar(false) {}

  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    dest = m_combine(dest, src);
  }
  // Kokkos 3.x joins through volatile references as well; goes with Kokkos 3 support.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,
                                   const volatile value_type& src) const {
    const value_type a = dest, b = src;
    dest = m_combine(a, b);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = m_identity; }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *m_value.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return m_value; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return m_references_scalar; }
};

// A partial written by another team: read past this SM's L1, which is not coherent with the
// other SMs' stores (the writers fenced before counting themselves done).
template <class Acc>
KOKKOS_FORCEINLINE_FUNCTION Acc load_partial(const Acc* p) {
  if constexpr (std::is_arithmetic<Acc>::value) {
    return *static_cast<const volatile Acc*>(p);
  } else {
    return *p;
  }
}

// v[0] = the combination of v[0..N) in a tree (the pairs, then pairs of pairs): fewer
// dependent steps than a running value, and pairwise rounding for float sums.
template <int N, class Combine, class Acc>
KOKKOS_FORCEINLINE_FUNCTION Acc combine_tree(const Combine& combine, Acc (&v)[N]) {
  for (int width = 1; width < N; width *= 2)
    for (int r = 0; r + width < N; r += 2 * width) v[r] = combine(v[r], v[r + width]);
  return v[0];
}

// The protocol of the kernels whose last team combines every team's partial (the whole-array
// kernel, the split rows and columns forms): one thread of the team calls write() to store the
// team's partial, fences so that the partial is visible before the count says so, and counts
// the team done on *counter. A team whose threads store partials of their own (the columns
// form) has each writer fence, then a team barrier, then passes an empty write(). True in every
// thread of the team that counted last of `teams`, which may then read the others' partials
// (load_partial) and must set *counter back to 0.
template <class Member, class Write>
KOKKOS_INLINE_FUNCTION bool write_and_count_last(const Member& member, const Write& write,
                                                 unsigned int* counter, unsigned int teams) {
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(member),
      [&](int& is_last) {
        write();
        Kokkos::memory_fence();
        is_last = Kokkos::atomic_fetch_add(counter, 1u) == teams - 1 ? 1 : 0;
      },
      last);
  if (last) Kokkos::memory_fence();
  return last != 0;
}

// The combination of every thread's `mine` over the team, returned to every thread. One
// index per thread: each thread's value enters the team's tree exactly once.
template <class Member, class Combine, class Acc>
KOKKOS_INLINE_FUNCTION Acc team_combine(const Member& member, const Combine& combine, Acc identity,
                                        Acc mine) {
  Acc total = identity;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(member, member.team_size()),
      [&](const int, Acc& v) { v = combine(v, mine); },
      CombineReducer<Acc, Combine, Kokkos::HostSpace>(total, combine, identity));
  return total;
}

// Chunks of a strided range combined into a block value before the running total: a float
// sum along a long range is a sum of short sums, not one running sum (a one-pass reduction
// along a 1e5-long axis would otherwise lose ~1e-3 of its value).
inline constexpr int chunks_per_block = 64;

// The combination of load(k) for k = first, first + stride, ... < end: chunks of Count
// loads issued together, each combined in a tree, then into a block value and the running
// total. Count + 2 values in registers. The range ends in at most one partial chunk, loaded
// one guarded element at a time, or with PredicatedTail as one more chunk whose loads past
// `end` give the identity: issued together, for ranges that are mostly tail (pass 2 of a
// split axis reads up to 8 partials per thread). Pass 1 keeps the guarded tail: with the
// predicated one its rows and team forms spilled at 32 registers.
template <int Count, bool PredicatedTail = false, class Load, class Combine, class Acc>
KOKKOS_FORCEINLINE_FUNCTION Acc accumulate_strided(const Load& load, const Combine& combine,
                                                   Acc identity, std::size_t first, std::size_t end,
                                                   std::size_t stride) {
  const std::size_t last_offset = static_cast<std::size_t>(Count - 1) * stride;
  const std::size_t chunk = static_cast<std::size_t>(Count) * stride;
  Acc total = identity;
  std::size_t base = first;
  while (base + last_offset < end) {
    Acc block = identity;
    for (int c = 0; c < chunks_per_block && base + last_offset < end; ++c, base += chunk) {
      Acc v[Count];
      for (int r = 0; r < Count; ++r) v[r] = load(base + static_cast<std::size_t>(r) * stride);
      block = combine(block, combine_tree(combine, v));
    }
    total = combine(total, block);
  }
  if constexpr (PredicatedTail) {
    if (base < end) {
      Acc v[Count];
      for (int r = 0; r < Count; ++r) {
        const std::size_t k = base + static_cast<std::size_t>(r) * stride;
        v[r] = k < end ? load(k) : identity;
      }
      total = combine(total, combine_tree(combine, v));
    }
  } else {
    for (int r = 0; r < Count; ++r) {
      const std::size_t k = base + static_cast<std::size_t>(r) * stride;
      if (k < end) total = combine(total, load(k));
    }
  }
  return total;
}

// The same with a run-time count: the counts 1, 2, 4 and 8 get their compile-time forms;
// any other (launch-shape sweeps only) is guarded, one load at a time.
template <class Load, class Combine, class Acc>
KOKKOS_FORCEINLINE_FUNCTION Acc accumulate_strided(int count, const Load& load,
                                                   const Combine& combine, Acc identity,
                                                   std::size_t first, std::size_t end,
                                                   std::size_t stride) {
  switch (count) {
    case 1: return accumulate_strided<1>(load, combine, identity, first, end, stride);
    case 2: return accumulate_strided<2>(load, combine, identity, first, end, stride);
    case 4: return accumulate_strided<4>(load, combine, identity, first, end, stride);
    case 8: return accumulate_strided<8>(load, combine, identity, first, end, stride);
    default: break;
  }
  Acc total = identity;
  const std::size_t chunk = static_cast<std::size_t>(count) * stride;
  for (std::size_t base = first; base < end; base += chunk)
    for (int r = 0; r < max_elements_in_flight; ++r) {
      const std::size_t k = base + static_cast<std::size_t>(r) * stride;
      if (r < count && k < end) total = combine(total, load(k));
    }
  return total;
}

}  // namespace portasim::toolkit::impl
