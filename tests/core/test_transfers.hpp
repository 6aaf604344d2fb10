#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "harness/busy_kernel.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/mirrored_view.hpp"
#include "portasim/core/ordering.hpp"
#include "portasim/core/transfers.hpp"

namespace test_transfers {

// A copy on instance B that waits for a kernel on instance A sees the kernel's result.
template <class Exec>
void pinned_copy_after_kernel_sees_its_result() {
  portasim::InstancePool<Exec> instances(2);
  const Exec& compute = instances[0];
  const Exec& copier = instances[1];
  const int n = 1 << 20;
  Kokkos::View<int*, typename Exec::memory_space> data("data", n);
  Kokkos::View<std::uint32_t*, typename Exec::memory_space> sink("sink", n);
  auto pinned = portasim::pinned_host_mirror(copier, data);
  static_assert(
      std::is_same<typename decltype(pinned)::memory_space, portasim::PinnedHostSpace<Exec>>::value,
      "");
  EXPECT_EQ(pinned.extent(0), static_cast<std::size_t>(n));
  Kokkos::fence();
  for (int round = 1; round <= 3; ++round) {
    portasim::testing::fill_after_busy_work(compute, data, sink, 100 + round,
                                            portasim::testing::busy_rounds<Exec>(20000));
    portasim::wait_for(copier, compute);
    portasim::copy(copier, pinned, data);
    copier.fence();
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += pinned(i) != 100 + round;
    ASSERT_EQ(wrong, 0) << "round " << round;
  }
}

template <class Exec>
void pageable_and_pinned_round_trips_agree() {
  portasim::InstancePool<Exec> instances(1);
  const Exec& exec = instances[0];
  const int rows = 300, cols = 7;
  Kokkos::View<double**, Kokkos::LayoutRight, typename Exec::memory_space> device("device", rows,
                                                                                  cols);
  auto pinned = portasim::make_pinned_host_view<double**, Exec>("pinned", rows, cols);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> pageable("pageable", rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) pinned(i, j) = i - 0.125 * j;
  portasim::copy(exec, device, pinned);
  Kokkos::parallel_for(
      "negate", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(const int i, const int j) { device(i, j) = -device(i, j); });
  portasim::copy(exec, pageable, device);
  exec.fence();
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) ASSERT_EQ(pageable(i, j), -(i - 0.125 * j));
}

template <class Exec>
void copy_rejects_mismatched_views() {
  using Space = typename Exec::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Space> device("device", 4, 5);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> wrong("wrong", 5, 4);
  try {
    portasim::copy(Exec(), wrong, device);
    ADD_FAILURE() << "mismatched extents were copied";
  } catch (const portasim::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'device' (4 x 5"), std::string::npos) << message;
    EXPECT_NE(message.find("'wrong' (5 x 4"), std::string::npos) << message;
    EXPECT_NE(message.find("extents differ"), std::string::npos) << message;
  }
  Kokkos::View<float*, Kokkos::HostSpace> column_host("column", 4);
  auto column = Kokkos::subview(device, Kokkos::ALL(), 2);
  EXPECT_THROW(portasim::copy(Exec(), column_host, column), portasim::Error);
  Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> left("left", 4, 5);
  EXPECT_THROW(portasim::copy(Exec(), left, device), portasim::Error);
}

template <class Exec>
void mirrored_view_round_trip() {
  portasim::InstancePool<Exec> instances(1);
  const Exec& exec = instances[0];
  const int n = 1000;
  portasim::MirroredView<double*, Exec> mirrored("mirrored", n);
  EXPECT_FALSE(mirrored.need_sync_host());
  EXPECT_FALSE(mirrored.need_sync_device());
  auto h = mirrored.host_view();
  for (int i = 0; i < n; ++i) h(i) = i;
  mirrored.modify_host();
  EXPECT_TRUE(mirrored.need_sync_device());
  mirrored.sync_device(exec);
  EXPECT_FALSE(mirrored.need_sync_device());
  auto d = mirrored.device_view();
  Kokkos::parallel_for(
      "affine", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(const int i) { d(i) = 2 * d(i) + 1; });
  mirrored.modify_device();
  EXPECT_TRUE(mirrored.need_sync_host());
  mirrored.sync_host(exec);
  exec.fence();
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), 2.0 * i + 1) << i;
  // A second sync with nothing modified copies nothing and changes nothing.
  mirrored.sync_host(exec);
  mirrored.sync_device(exec);
  exec.fence();
  EXPECT_EQ(h(n - 1), 2.0 * (n - 1) + 1);
}

template <class Exec>
void mirrored_view_refuses_modifications_on_both_sides() {
  portasim::MirroredView<int*, Exec> mirrored("both", 10);
  mirrored.modify_host();
  mirrored.modify_host();  // the same side again is fine
  try {
    mirrored.modify_device();
    ADD_FAILURE() << "both sides modified without an error";
  } catch (const portasim::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("MirroredView 'both'"), std::string::npos) << message;
    EXPECT_NE(message.find("sync_device(exec)"), std::string::npos) << message;
  }
  mirrored.sync_device(Exec());
  Exec().fence();
  mirrored.modify_device();
  EXPECT_THROW(mirrored.modify_host(), portasim::Error);
  mirrored.sync_host(Exec());
  Exec().fence();
  EXPECT_NO_THROW(mirrored.modify_host());
}

TEST(TEST_CATEGORY, transfer_pinned_copy_waits_for_kernel) {
  pinned_copy_after_kernel_sees_its_result<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, transfer_pageable_and_pinned_round_trip) {
  pageable_and_pinned_round_trips_agree<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, transfer_rejects_mismatched_views) {
  copy_rejects_mismatched_views<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, mirrored_view_modify_sync_round_trip) {
  mirrored_view_round_trip<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, mirrored_view_both_modified_is_an_error) {
  mirrored_view_refuses_modifications_on_both_sides<TEST_EXECSPACE>();
}

}  // namespace test_transfers
