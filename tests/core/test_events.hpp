#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>

#include "harness/busy_kernel.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/event_timer.hpp"
#include "portasim/core/instance_pool.hpp"

namespace test_events {

template <class Exec>
void event_synchronize_waits_for_recorded_work() {
  portasim::InstancePool<Exec> pool(1);
  const std::size_t n = 1 << 20;
  Kokkos::View<int*, typename Exec::memory_space> data("data", n);
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> sink("sink", n);
  portasim::Event<Exec> done;
  EXPECT_FALSE(done.recorded());
  EXPECT_THROW(done.synchronize(), portasim::Error);
  portasim::testing::fill_after_busy_work(pool[0], data, sink, 7,
                                          portasim::testing::busy_rounds<Exec>(20000));
  done.record(pool[0]);
  done.synchronize();
  EXPECT_TRUE(done.query());
  int sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Exec>(pool[0], 0, n),
      KOKKOS_LAMBDA(const std::size_t i, int& acc) { acc += data(i) == 7; }, sum);
  EXPECT_EQ(static_cast<std::size_t>(sum), n);
}

template <class Exec>
void timer_measures_enqueued_work() {
  portasim::InstancePool<Exec> pool(1);
  const std::size_t n = 1 << 18;
  Kokkos::View<int*, typename Exec::memory_space> data("data", n);
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> sink("sink", n);
  portasim::EventTimer<Exec> timer(pool[0]);
  timer.start();
  portasim::testing::fill_after_busy_work(pool[0], data, sink, 1,
                                          portasim::testing::busy_rounds<Exec>(20000));
  timer.stop();
  const double ms = timer.elapsed_ms();
  EXPECT_TRUE(std::isfinite(ms));
  EXPECT_GT(ms, 0.0);
  // A timer read twice gives the same answer: it measures recorded events, not "now".
  EXPECT_DOUBLE_EQ(timer.elapsed_ms(), ms);
}

TEST(TEST_CATEGORY, event_synchronize_waits_for_work) {
  event_synchronize_waits_for_recorded_work<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, event_timer_measures_work) { timer_measures_enqueued_work<TEST_EXECSPACE>(); }

}  // namespace test_events
