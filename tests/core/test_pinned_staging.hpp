#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/pinned_staging.hpp"

namespace test_pinned_staging {

template <class Exec>
void staging_copies_chunks_asynchronously() {
  static_assert(
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, portasim::PinnedHostSpace<Exec>>::accessible,
      "staging buffers must be readable by the host");
  portasim::InstancePool<Exec> pool(2);
  const int chunk = 4, rows = 3, cols = 5;
  portasim::PinnedStaging<int, Exec> staging(2, chunk * rows * cols);
  EXPECT_EQ(staging.slots(), 2);
  EXPECT_EQ(staging.capacity(), static_cast<std::size_t>(chunk * rows * cols));
  Kokkos::View<int***, Kokkos::LayoutRight, typename Exec::memory_space> grid("grid", chunk, rows,
                                                                              cols);
  for (int round = 0; round < 4; ++round) {
    const int slot = round % 2;
    Kokkos::parallel_for(
        "fill",
        Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3>>(pool[0], {0, 0, 0}, {chunk, rows, cols}),
        KOKKOS_LAMBDA(const int g, const int r, const int c) {
          grid(g, r, c) = round * 1000 + g * 100 + r * 10 + c;
        });
    pool[0].fence();
    staging.copy_async(pool[1], slot, grid);
    const auto host = staging.wait(slot);
    ASSERT_EQ(host.extent(0), static_cast<std::size_t>(chunk * rows * cols));
    for (int g = 0; g < chunk; ++g)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
          ASSERT_EQ(host((g * rows + r) * cols + c), round * 1000 + g * 100 + r * 10 + c);
    EXPECT_TRUE(staging.ready(slot));
  }
}

template <class Exec>
void staging_rejects_what_it_cannot_copy() {
  portasim::InstancePool<Exec> pool(1);
  portasim::PinnedStaging<double, Exec> staging(1, 10);
  Kokkos::View<double**, Kokkos::LayoutRight, typename Exec::memory_space> big("big", 4, 4);
  EXPECT_THROW(staging.copy_async(pool[0], 0, big), portasim::Error);  // 16 > 10 elements
  auto column = Kokkos::subview(big, Kokkos::ALL(), 1);
  EXPECT_THROW(staging.copy_async(pool[0], 0, column), portasim::Error);  // strided
  auto row = Kokkos::subview(big, 1, Kokkos::ALL());
  EXPECT_THROW(staging.copy_async(pool[0], 1, row), portasim::Error);  // no slot 1
  EXPECT_NO_THROW(staging.copy_async(pool[0], 0, row));
  EXPECT_EQ(staging.wait(0).extent(0), 4u);
  EXPECT_THROW((portasim::PinnedStaging<double, Exec>(0, 10)), portasim::Error);
}

TEST(TEST_CATEGORY, pinned_staging_copies_chunks) {
  staging_copies_chunks_asynchronously<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, pinned_staging_rejects_bad_copies) {
  staging_rejects_what_it_cannot_copy<TEST_EXECSPACE>();
}

}  // namespace test_pinned_staging
