#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "harness/busy_kernel.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/ordering.hpp"

namespace test_instance_pool {

template <class Exec>
void instances_run_their_own_work() {
  portasim::InstancePool<Exec> pool(3);
  ASSERT_EQ(pool.size(), 3);
  const int n = 1000;
  Kokkos::View<int**, typename Exec::memory_space> out("out", 3, n);
  for (int s = 0; s < pool.size(); ++s) {
    auto row = Kokkos::subview(out, s, Kokkos::ALL());
    Kokkos::parallel_for(
        "fill_row", Kokkos::RangePolicy<Exec>(pool[s], 0, n),
        KOKKOS_LAMBDA(const int i) { row(i) = 1000 * s + i; });
  }
  pool.fence_all();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int s = 0; s < 3; ++s)
    for (int i = 0; i < n; ++i) ASSERT_EQ(host(s, i), 1000 * s + i) << "instance " << s;
}

template <class Exec>
void pool_rejects_bad_sizes_and_indices() {
  EXPECT_THROW(portasim::InstancePool<Exec>(0), portasim::Error);
  portasim::InstancePool<Exec> pool(2);
  EXPECT_THROW(pool[2], portasim::Error);
  EXPECT_THROW(pool[-1], portasim::Error);
}

// The copy instance waits for the compute instance through wait_for only: without that
// ordering, on CUDA the copy would read the buffer before the slow kernel wrote it.
template <class Exec>
void copy_that_waits_for_kernel_sees_its_result() {
  portasim::InstancePool<Exec> pool(2);
  const auto& compute = pool[0];
  const auto& copy = pool[1];
  const std::size_t n = 1 << 20;
  Kokkos::View<int*, typename Exec::memory_space> data("data", n);
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> sink("sink", n);
  Kokkos::View<int*, portasim::PinnedHostSpace<Exec>> host("host", n);
  Kokkos::fence();
  for (int round = 1; round <= 3; ++round) {
    portasim::testing::fill_after_busy_work(compute, data, sink, round,
                                            portasim::testing::busy_rounds<Exec>(20000));
    portasim::wait_for(copy, compute);
    Kokkos::deep_copy(copy, host, data);
    copy.fence();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += host(i) != round;
    ASSERT_EQ(wrong, 0u) << "round " << round;
  }
}

TEST(TEST_CATEGORY, instance_pool_runs_work_on_each_instance) {
  instances_run_their_own_work<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, instance_pool_rejects_bad_sizes) {
  pool_rejects_bad_sizes_and_indices<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, ordering_copy_waits_for_kernel) {
  copy_that_waits_for_kernel_sees_its_result<TEST_EXECSPACE>();
}

}  // namespace test_instance_pool
