#pragma once
// How an elementwise kernel is mapped onto the hardware (the "raw kernel with grid/block"
// lesson): a flat RangePolicy, optionally with a chunk size, or a TeamPolicy of `league`
// teams of `team` threads times `vector` lanes walking the elements grid-stride, so that any
// league size covers any n. Zero means "let Kokkos choose".
// On device spaces the default range launch gives each thread several elements (`per_thread`,
// loaded together before any store); `waves` > 0 makes it a grid-stride launch of
// waves * exec.concurrency() threads instead of n / per_thread. Host spaces ignore both and
// keep one contiguous element per index.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::toolkit {

struct LaunchShape {
  enum class Kind { range, team };
  Kind kind = Kind::range;
  int chunk = 0;       // RangePolicy chunk size, 0: Kokkos' default
  int per_thread = 0;  // device range launch: elements per thread and step (1..8), 0: default
  int waves = 0;  // device range launch: 0 one pass, k > 0 grid-stride over k * concurrency threads
  int league = 0;  // number of teams (CUDA blocks), 0: enough to give every lane one element
  int team = 0;    // threads per team, 0: Kokkos' recommendation for the kernel
  int vector = 1;  // vector lanes per thread (a power of two)

  static LaunchShape range(int chunk = 0) {
    LaunchShape s;
    s.chunk = chunk;
    return s;
  }
  // The device range launch with `per_thread` elements per thread (a thread's elements are
  // `threads` apart, so each load is coalesced across a warp) and `waves` as above.
  static LaunchShape spread(int per_thread, int waves = 0) {
    LaunchShape s;
    s.per_thread = per_thread;
    s.waves = waves;
    return s;
  }
  static LaunchShape teams(int league, int team, int vector = 1) {
    LaunchShape s;
    s.kind = Kind::team;
    s.league = league;
    s.team = team;
    s.vector = vector;
    return s;
  }

  std::string to_string() const {
    if (kind == Kind::range)
      return "range(chunk=" + std::to_string(chunk) + ", per_thread=" + std::to_string(per_thread) +
             ", waves=" + std::to_string(waves) + ")";
    return "team(league=" + std::to_string(league) + ", team=" + std::to_string(team) +
           ", vector=" + std::to_string(vector) + ")";
  }
};

namespace impl {

// Runs body(k) for k in [0, n) over the team lanes: lane (thread t, vector v) of team r
// takes k = base + t * vector + v, base stepping by league * team * vector, so neighbouring
// lanes touch neighbouring elements (coalesced on GPUs).
template <class Exec, class Body>
struct TeamStrided {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  Body body;
  std::size_t n;
  int team_size;
  int vector;

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t block =
        static_cast<std::size_t>(team_size) * static_cast<std::size_t>(vector);
    const std::size_t stride = block * static_cast<std::size_t>(member.league_size());
    const Body& f = body;
    const std::size_t count = n;
    const int lanes = vector;
    for (std::size_t base = static_cast<std::size_t>(member.league_rank()) * block; base < count;
         base += stride) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, team_size), [&](const int t) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, lanes), [&](const int v) {
          const std::size_t k = base +
                                static_cast<std::size_t>(t) * static_cast<std::size_t>(lanes) +
                                static_cast<std::size_t>(v);
          if (k < count) f(k);
        });
      });
    }
  }
};

// Elements per device thread of the default launch. Kokkos 3.4 sizes a RangePolicy's CUDA
// blocks as the smallest block with full occupancy, one element per thread: a large n makes
// millions of small blocks, and the block scheduler, not memory, sets the pace. Four elements
// per thread, m = n/4 apart so that each of the four loads stays coalesced across a warp, cut
// the blocks fourfold (docs/design/elementwise.md). Host spaces keep one contiguous element
// per index (strided access would defeat their caches).
constexpr int elements_per_device_thread = 4;
// The most elements a device thread holds in registers at once (the per_thread limit).
constexpr int max_elements_in_flight = 8;

template <class Exec>
constexpr bool is_device_space() {
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

// The default device range launch: thread j takes elements j + r * m, r < 4, m = n / 4. All
// four values are computed before any is stored (the output may alias an input as far as
// the compiler knows, so a store between two loads keeps one load in flight per thread);
// the count is a compile-time constant so that no guard splits the loads into separate
// blocks. Only the last thread, whose fourth element may lie past n, goes one at a time.
// Spread (below) at per_thread 4 and waves 0 has the same geometry with run-time guards, and
// measured clearly slower (docs/design/elementwise.md).
template <class Body>
struct ElementsApart {
  Body body;
  std::size_t n, m;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t j) const {
    constexpr int count = elements_per_device_thread;
    if (j + static_cast<std::size_t>(count - 1) * m < n) {
      typename Body::value_type v[count];
      for (int r = 0; r < count; ++r) v[r] = body.value(j + static_cast<std::size_t>(r) * m);
      for (int r = 0; r < count; ++r) body.store(j + static_cast<std::size_t>(r) * m, v[r]);
    } else {
      for (int r = 0; r < count; ++r) {
        const std::size_t k = j + static_cast<std::size_t>(r) * m;
        if (k < n) body(k);
      }
    }
  }
};

// Thread j of the device range launch: per step, `count` elements `stride` apart, all loaded
// (body.value) before any is stored (body.store): the output may alias an input as far as
// the compiler knows, so a store between two loads would keep one load in flight per thread.
// Steps move by `step`; step >= n makes it a single pass. The loops run to the compile-time
// bound with a run-time guard, so one instantiation serves every count up to the bound and
// the compiler still unrolls them.
template <class Body>
struct Spread {
  Body body;
  std::size_t n, stride, step;
  int count;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t j) const {
    using V = typename Body::value_type;
    for (std::size_t base = j; base < n; base += step) {
      V v[max_elements_in_flight] = {};
      for (int r = 0; r < max_elements_in_flight; ++r) {
        const std::size_t k = base + static_cast<std::size_t>(r) * stride;
        if (r < count && k < n) v[r] = body.value(k);
      }
      for (int r = 0; r < max_elements_in_flight; ++r) {
        const std::size_t k = base + static_cast<std::size_t>(r) * stride;
        if (r < count && k < n) body.store(k, v[r]);
      }
    }
  }
};

// The thread count and spacing of the device range launch for n elements.
struct SpreadGeometry {
  std::size_t threads = 0, stride = 0, step = 0;
  int count = 1;
};

template <class Exec>
SpreadGeometry spread_geometry(const Exec& exec, std::size_t n, int per_thread, int waves) {
  SpreadGeometry g;
  g.count = per_thread > 0 ? per_thread : elements_per_device_thread;
  const std::size_t count = static_cast<std::size_t>(g.count);
  g.threads = (n + count - 1) / count;
  if (waves > 0) {
    const std::size_t grid =
        static_cast<std::size_t>(waves) * static_cast<std::size_t>(exec.concurrency());
    if (grid < g.threads) g.threads = grid;
  }
  g.stride = g.threads;
  g.step = g.threads * count;
  return g;
}

inline bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// body(k) for k in [0, n) on exec under the given shape; refuses shapes the backend cannot
// run with a message instead of Kokkos' abort. The messages are built only on failure (the
// call must stay close to a raw launch). Body: operator()(k), and for the device range
// launch value_type, value(k) and store(k, v).
template <class Exec, class Body>
void launch(const std::string& label, const Exec& exec, const LaunchShape& shape, std::size_t n,
            const Body& body) {
  if (shape.kind == LaunchShape::Kind::range) {
    if (shape.chunk < 0 || shape.per_thread < 0 || shape.per_thread > max_elements_in_flight ||
        shape.waves < 0)
      throw_error(ErrorKind::invalid_argument,
                  "LaunchShape " + shape.to_string() +
                      ": chunk size and waves must be >= 0 and per_thread in 0.." +
                      std::to_string(max_elements_in_flight));
    if (n == 0) return;
    if constexpr (is_device_space<Exec>()) {
      if (shape.chunk == 0 && shape.per_thread == 0 && shape.waves == 0) {
        const std::size_t m = (n + elements_per_device_thread - 1) / elements_per_device_thread;
        Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, m),
                             ElementsApart<Body>{body, n, m});
        return;
      }
      if (shape.chunk == 0) {
        const SpreadGeometry g = spread_geometry(exec, n, shape.per_thread, shape.waves);
        Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, g.threads),
                             Spread<Body>{body, n, g.stride, g.step, g.count});
        return;
      }
    }
    if (shape.chunk > 0) {
      Kokkos::parallel_for(
          label, Kokkos::RangePolicy<Exec>(exec, 0, n, Kokkos::ChunkSize(shape.chunk)), body);
    } else {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, n), body);
    }
    return;
  }
  using Policy = Kokkos::TeamPolicy<Exec>;
  if (shape.league < 0 || shape.team < 0)
    throw_error(ErrorKind::invalid_argument,
                "LaunchShape " + shape.to_string() + ": league and team sizes must be >= 0");
  const int vector_max = Policy::vector_length_max();
  if (!is_power_of_two(shape.vector) || shape.vector > vector_max)
    throw_error(ErrorKind::invalid_argument, "LaunchShape " + shape.to_string() +
                                                 ": vector length must be a power of two <= " +
                                                 std::to_string(vector_max) + " on this backend");
  if (n == 0) return;
  TeamStrided<Exec, Body> strided{body, n, shape.team, shape.vector};
  const Policy probe(exec, 1, Kokkos::AUTO, shape.vector);
  const int team_max = probe.team_size_max(strided, Kokkos::ParallelForTag());
  if (shape.team == 0)
    strided.team_size = probe.team_size_recommended(strided, Kokkos::ParallelForTag());
  if (strided.team_size > team_max)
    throw_error(ErrorKind::invalid_argument, "LaunchShape " + shape.to_string() +
                                                 ": team size above this backend's maximum of " +
                                                 std::to_string(team_max) + " for vector length " +
                                                 std::to_string(shape.vector));
  const std::size_t block =
      static_cast<std::size_t>(strided.team_size) * static_cast<std::size_t>(shape.vector);
  std::size_t league = static_cast<std::size_t>(shape.league);
  if (league == 0) league = (n + block - 1) / block;
  const std::size_t league_cap = static_cast<std::size_t>(1) << 30;
  if (league > league_cap) league = league_cap;  // grid-stride covers the rest
  Kokkos::parallel_for(
      label, Policy(exec, static_cast<int>(league), strided.team_size, shape.vector), strided);
}

}  // namespace impl
}  // namespace portasim::toolkit
