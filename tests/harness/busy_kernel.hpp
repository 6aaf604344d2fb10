#pragma once
// A kernel that takes long enough (milliseconds on a GPU) for ordering bugs between
// instances to show, and whose result is still exactly predictable: every element of
// `target` ends at `value`, written after `rounds` of integer work kept alive through `sink`.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace portasim::testing {

// Rounds sized for a GPU; host backends get a hundredth so that the suite stays quick there
// (they run the kernel synchronously, so its length does not matter for ordering).
template <class ExecutionSpace>
int busy_rounds(int gpu_rounds) {
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecutionSpace::memory_space>::accessible;
  return host ? (gpu_rounds / 100 > 0 ? gpu_rounds / 100 : 1) : gpu_rounds;
}

template <class ExecutionSpace, class View, class SinkView>
void fill_after_busy_work(const ExecutionSpace& exec, const View& target, const SinkView& sink,
                          typename View::value_type value, int rounds) {
  Kokkos::parallel_for(
      "portasim_test_busy_fill", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, target.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) {
        std::uint32_t state = static_cast<std::uint32_t>(i) + 1u;
        for (int r = 0; r < rounds; ++r) state = state * 1664525u + 1013904223u;
        sink(i) = state;
        target(i) = value;
      });
}

}  // namespace portasim::testing
