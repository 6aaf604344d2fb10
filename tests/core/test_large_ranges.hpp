#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace test_large_ranges {

// A range policy of more than 2^32 iterations runs each of them once and ends. Kokkos 3.4's
// CUDA backend needs patch 0007 for it (docs/design/kokkos-patches.md): without it the
// parallel_for below repeats its first iterations for a very long time and never reaches the
// last ones. Host backends have no launch shape to wrap, and 2^33 iterations cost them
// seconds, so they skip it. The work is a store per iteration into a small view and
// a count, so the test allocates nothing large.
template <class Exec>
void range_policy_past_2_to_the_32_completes() {
  if (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible)
    GTEST_SKIP() << "host backends loop over the range in its index type: nothing to wrap";
  using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>;
  constexpr std::int64_t tail = 128;
  const std::int64_t n = (std::int64_t(1) << 32) + 1000;
  Kokkos::View<int*, typename Exec::memory_space> seen("seen", tail);
  Kokkos::parallel_for(
      "large_range_for", policy(Exec(), 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        if (i >= n - tail) seen(i - (n - tail)) += 1;
      });
  std::int64_t every_1024th = 0;
  Kokkos::parallel_reduce(
      "large_range_reduce", policy(Exec(), 0, n),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& count) { count += (i % 1024) == 0; },
      every_1024th);
  const auto seen_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seen);
  for (std::int64_t i = 0; i < tail; ++i)
    EXPECT_EQ(seen_host(i), 1) << "iteration " << n - tail + i;
  EXPECT_EQ(every_1024th, (n + 1023) / 1024);
}

TEST(TEST_CATEGORY, core_range_policy_past_2_to_the_32_completes) {
  range_policy_past_2_to_the_32_completes<TEST_EXECSPACE>();
}

}  // namespace test_large_ranges
