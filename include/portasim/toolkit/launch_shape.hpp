#pragma once
// How an elementwise kernel is mapped onto the hardware (the "raw kernel with grid/block"
// lesson): a flat RangePolicy, optionally with a chunk size, or a TeamPolicy of `league`
// teams of `team` threads times `vector` lanes walking the elements grid-stride, so that any
// league size covers any n. Zero means "let Kokkos choose".

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::toolkit {

struct LaunchShape {
  enum class Kind { range, team };
  Kind kind = Kind::range;
  int chunk = 0;   // RangePolicy chunk size, 0: Kokkos' default
  int league = 0;  // number of teams (CUDA blocks), 0: enough to give every lane one element
  int team = 0;    // threads per team, 0: Kokkos' recommendation for the kernel
  int vector = 1;  // vector lanes per thread (a power of two)

  static LaunchShape range(int chunk = 0) {
    LaunchShape s;
    s.chunk = chunk;
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
    if (kind == Kind::range) return "range(chunk=" + std::to_string(chunk) + ")";
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
    const std::size_t block = static_cast<std::size_t>(team_size) * static_cast<std::size_t>(vector);
    const std::size_t stride = block * static_cast<std::size_t>(member.league_size());
    const Body& f = body;
    const std::size_t count = n;
    const int lanes = vector;
    for (std::size_t base = static_cast<std::size_t>(member.league_rank()) * block; base < count;
         base += stride) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, team_size), [&](const int t) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, lanes), [&](const int v) {
          const std::size_t k = base + static_cast<std::size_t>(t) * static_cast<std::size_t>(lanes) +
                                static_cast<std::size_t>(v);
          if (k < count) f(k);
        });
      });
    }
  }
};

// Elements per device thread of the default launch. Kokkos 3.4 sizes a RangePolicy's CUDA
// blocks as the smallest block with full occupancy (64 threads on Hopper), one element per
// thread: at n = 1e8 that is 1.6 million blocks, and y = x1*x2 + B ran at 1.27 TB/s (block
// scheduling bound) where a copy reaches 4 TB/s. Four elements per thread, m = n/4 apart so
// that each of the four loads stays coalesced across a warp, cut the blocks fourfold. Host
// spaces keep one contiguous element per index (strided access would defeat their caches).
constexpr std::size_t elements_per_device_thread = 4;

template <class Exec>
constexpr bool is_device_space() {
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
}

template <class Body>
struct ElementsApart {
  Body body;
  std::size_t n, m;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t j) const {
    for (std::size_t r = 0; r < elements_per_device_thread; ++r) {
      const std::size_t k = j + r * m;
      if (k < n) body(k);
    }
  }
};

inline bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// body(k) for k in [0, n) on exec under the given shape; refuses shapes the backend cannot
// run with a message instead of Kokkos' abort.
template <class Exec, class Body>
void launch(const std::string& label, const Exec& exec, const LaunchShape& shape, std::size_t n,
            const Body& body) {
  if (n == 0) return;
  if (shape.kind == LaunchShape::Kind::range) {
    require(shape.chunk >= 0, "LaunchShape chunk size must be >= 0, got " + std::to_string(shape.chunk));
    if (is_device_space<Exec>() && shape.chunk == 0) {
      const std::size_t m = (n + elements_per_device_thread - 1) / elements_per_device_thread;
      Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, m), ElementsApart<Body>{body, n, m});
      return;
    }
    Kokkos::RangePolicy<Exec> policy(exec, 0, n);
    if (shape.chunk > 0) policy = Kokkos::RangePolicy<Exec>(exec, 0, n, Kokkos::ChunkSize(shape.chunk));
    Kokkos::parallel_for(label, policy, body);
    return;
  }
  using Policy = Kokkos::TeamPolicy<Exec>;
  require(shape.league >= 0 && shape.team >= 0,
          "LaunchShape " + shape.to_string() + ": league and team sizes must be >= 0");
  const int vector_max = Policy::vector_length_max();
  require(is_power_of_two(shape.vector) && shape.vector <= vector_max,
          "LaunchShape " + shape.to_string() + ": vector length must be a power of two <= " +
              std::to_string(vector_max) + " on this backend");
  TeamStrided<Exec, Body> strided{body, n, shape.team, shape.vector};
  const Policy probe(exec, 1, Kokkos::AUTO, shape.vector);
  const int team_max = probe.team_size_max(strided, Kokkos::ParallelForTag());
  if (shape.team == 0) strided.team_size = probe.team_size_recommended(strided, Kokkos::ParallelForTag());
  require(strided.team_size <= team_max,
          "LaunchShape " + shape.to_string() + ": team size above this backend's maximum of " +
              std::to_string(team_max) + " for vector length " + std::to_string(shape.vector));
  const std::size_t block = static_cast<std::size_t>(strided.team_size) * static_cast<std::size_t>(shape.vector);
  std::size_t league = static_cast<std::size_t>(shape.league);
  if (league == 0) league = (n + block - 1) / block;
  const std::size_t league_cap = static_cast<std::size_t>(1) << 30;
  if (league > league_cap) league = league_cap;  // grid-stride covers the rest
  Kokkos::parallel_for(label, Policy(exec, static_cast<int>(league), strided.team_size, shape.vector), strided);
}

}  // namespace impl
}  // namespace portasim::toolkit
