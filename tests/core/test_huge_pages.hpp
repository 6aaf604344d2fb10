#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/mman.h>

#include "portasim/core/huge_pages.hpp"
#include "portasim/core/memory_pool.hpp"

namespace test_huge_pages {

// The VmFlags line of the mapping in /proc/self/smaps that holds `address` ("" if none).
inline std::string mapping_flags(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;  // a mapping's first line: "begin-end perms ..."
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

inline bool kernel_has_transparent_huge_pages() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  return static_cast<bool>(enabled);
}

// Whether /proc/self/smaps shows each mapping's flags (not every kernel or sandbox has it).
inline bool smaps_shows_flags() {
  static int stack_value = 0;
  return !mapping_flags(&stack_value).empty();
}

inline void host_pool_blocks_of_4_mib_ask_for_huge_pages() {
  if (!kernel_has_transparent_huge_pages()) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  if (!smaps_shows_flags()) GTEST_SKIP() << "/proc/self/smaps shows no VmFlags here";
  constexpr std::size_t large = std::size_t(8) << 20;
  portasim::MemoryPool<Kokkos::HostSpace> pool(portasim::PoolLimit::none());
  auto block = pool.allocate(large);
  ASSERT_TRUE(block);
  const char* middle = static_cast<const char*>(block.data()) + large / 2;
  const std::string flags = mapping_flags(middle);
  ASSERT_FALSE(flags.empty()) << "no mapping in /proc/self/smaps holds the block";
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;

  // The block is ordinary memory: written and summed by a kernel on the host backend.
  Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> values(
      static_cast<float*>(block.data()), large / sizeof(float));
  Kokkos::deep_copy(Kokkos::DefaultHostExecutionSpace(), values, 0.5f);
  double sum = 0;
  Kokkos::parallel_reduce(
      "sum_advised_block",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, values.extent(0)),
      [=](const std::size_t i, double& acc) { acc += values(i); }, sum);
  EXPECT_EQ(sum, 0.5 * static_cast<double>(values.extent(0)));
}

inline void fresh_anonymous_memory_takes_the_advice() {
  if (!kernel_has_transparent_huge_pages()) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  constexpr std::size_t bytes = std::size_t(8) << 20;
  void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  EXPECT_TRUE(portasim::advise_huge_pages(memory, bytes));
  if (smaps_shows_flags()) {
    const std::string flags = mapping_flags(static_cast<char*>(memory) + bytes / 2);
    EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;
  }
  ::munmap(memory, bytes);
}

inline void small_ranges_get_no_advice() {
  alignas(4096) static char small[64 << 10];
  EXPECT_FALSE(portasim::advise_huge_pages(small, sizeof(small)));
  EXPECT_FALSE(portasim::advise_huge_pages(nullptr, std::size_t(64) << 20));
}

TEST(TEST_CATEGORY, huge_pages_for_large_host_pool_blocks) {
  host_pool_blocks_of_4_mib_ask_for_huge_pages();
}
TEST(TEST_CATEGORY, huge_pages_for_fresh_anonymous_memory) {
  fresh_anonymous_memory_takes_the_advice();
}
TEST(TEST_CATEGORY, huge_pages_not_for_small_ranges) { small_ranges_get_no_advice(); }

}  // namespace test_huge_pages
