#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/stream_ordered_pool.hpp"
#include "portasim/core/transfers.hpp"

namespace test_memory_pool {

using portasim::PoolLimit;

template <class Exec>
using DevicePool = portasim::DeviceMemoryPool<Exec>;

template <class Exec>
void pool_reuses_freed_blocks_and_counts_exactly() {
  DevicePool<Exec> pool(PoolLimit::none());
  auto a = pool.allocate(1000);
  auto b = pool.allocate(5000);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a.bytes(), 1024u);
  EXPECT_EQ(b.bytes(), 5120u);
  auto s = pool.statistics();
  EXPECT_EQ(s.used_bytes, 6144u);
  EXPECT_EQ(s.total_bytes, 6144u);
  EXPECT_EQ(s.used_blocks, 2u);
  EXPECT_EQ(s.free_blocks, 0u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 2u);

  void* const a_memory = a.data();
  a.reset();
  s = pool.statistics();
  EXPECT_EQ(s.used_bytes, 5120u);
  EXPECT_EQ(s.total_bytes, 6144u);
  EXPECT_EQ(s.free_blocks, 1u);

  auto c = pool.allocate(700);  // same size class as a: a's block again
  EXPECT_EQ(c.data(), a_memory);
  s = pool.statistics();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.free_blocks, 0u);
  EXPECT_EQ(s.used_bytes, 6144u);

  auto d = pool.allocate(2000);  // another class: a new block although 1 KiB... is in use
  EXPECT_NE(d.data(), a_memory);
  EXPECT_EQ(pool.statistics().misses, 3u);

  {
    auto copy_of_b = b;  // shared handle: the block returns only with the last one
    b.reset();
    EXPECT_EQ(pool.statistics().free_blocks, 0u);
  }
  s = pool.statistics();
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.used_bytes, 1024u + 2048u);
  EXPECT_EQ(s.total_bytes, 1024u + 2048u + 5120u);

  c.reset();
  d.reset();
  pool.free_all_blocks();
  s = pool.statistics();
  EXPECT_EQ(s.used_bytes, 0u);
  EXPECT_EQ(s.total_bytes, 0u);
  EXPECT_EQ(s.free_blocks, 0u);
  EXPECT_EQ(s.used_blocks, 0u);
}

template <class Exec>
void free_all_blocks_keeps_blocks_in_use() {
  DevicePool<Exec> pool(PoolLimit::none());
  auto kept = pool.template view<int*>(Exec(), 1000);
  {
    auto dropped1 = pool.allocate(1 << 20);
    auto dropped2 = pool.allocate(3 << 20);
  }
  EXPECT_EQ(pool.free_blocks(), 2u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.free_blocks(), 0u);
  EXPECT_EQ(pool.total_bytes(), kept.block().bytes());
  // The View still works after the cache was emptied.
  auto v = kept.view();
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec>(0, 1000), KOKKOS_LAMBDA(const int i) { v(i) = 3 * i; });
  long sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Exec>(0, 1000),
      KOKKOS_LAMBDA(const int i, long& acc) { acc += v(i); }, sum);
  EXPECT_EQ(sum, 3L * 999 * 1000 / 2);
}

template <class Exec>
void pooled_views_work_in_kernels_on_an_instance() {
  portasim::InstancePool<Exec> instances(1);
  const Exec& exec = instances[0];
  DevicePool<Exec> pool(PoolLimit::none());
  const int rows = 37, cols = 53;
  auto a = pool.template view<double**, Kokkos::LayoutLeft>(exec, rows, cols);
  auto b = pool.template view<double*>(exec, rows);
  static_assert(std::is_same<typename decltype(a)::view_type::memory_traits,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>::value,
                "");
  EXPECT_EQ(a.view().extent(0), static_cast<std::size_t>(rows));
  EXPECT_EQ(a.view().extent(1), static_cast<std::size_t>(cols));
  EXPECT_GE(a.block().bytes(), sizeof(double) * rows * cols);
  auto av = a.view();
  auto bv = b.view();
  Kokkos::parallel_for(
      "fill", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(const int i, const int j) { av(i, j) = 0.5 * i + j; });
  Kokkos::parallel_for(
      "row_sums", Kokkos::RangePolicy<Exec>(exec, 0, rows), KOKKOS_LAMBDA(const int i) {
        double s = 0;
        for (int j = 0; j < cols; ++j) s += av(i, j);
        bv(i) = s;
      });
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), bv);
  Kokkos::deep_copy(exec, host, bv);
  exec.fence();
  for (int i = 0; i < rows; ++i) {
    double expected = 0;
    for (int j = 0; j < cols; ++j) expected += 0.5 * i + j;
    EXPECT_DOUBLE_EQ(host(i), expected) << i;
  }
  // Reuse on the same instance: a view freed after the work was enqueued comes back for
  // the next allocation on that instance (the instance runs it after the earlier work).
  void* const b_memory = b.view().data();
  b.reset();
  auto again = pool.template view<double*>(exec, rows);
  EXPECT_EQ(static_cast<void*>(again.view().data()), b_memory);
}

template <class Exec>
void blocks_are_reused_per_instance() {
  portasim::InstancePool<Exec> instances(2);
  DevicePool<Exec> pool(PoolLimit::none());
  void* first = nullptr;
  {
    auto block = pool.allocate(instances[0], 4096);
    first = block.data();
  }
  auto other = pool.allocate(instances[1], 4096);
  const bool distinct_queues = portasim::impl::StreamKey<Exec>::of(instances[0]) !=
                               portasim::impl::StreamKey<Exec>::of(instances[1]);
  if (distinct_queues) {
    EXPECT_NE(other.data(), first);  // another stream must not get a block still in flight
    EXPECT_EQ(pool.statistics().hits, 0u);
  } else {
    EXPECT_EQ(other.data(), first);  // one queue on host backends
    EXPECT_EQ(pool.statistics().hits, 1u);
  }
  auto same = pool.allocate(instances[0], 4000);
  EXPECT_EQ(same.data(), distinct_queues ? first : same.data());
}

inline std::string message_of_allocation(const std::function<void()>& allocate) {
  try {
    allocate();
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::out_of_memory);
    return e.what();
  }
  ADD_FAILURE() << "the allocation succeeded";
  return {};
}

template <class Exec>
void pool_limit_in_bytes_is_enforced_with_a_clear_error() {
  DevicePool<Exec> pool(PoolLimit::bytes(4096));
  EXPECT_EQ(pool.limit_bytes(), 4096u);
  auto a = pool.allocate(2048);
  auto b = pool.allocate(2048);
  const std::string message = message_of_allocation([&] { pool.allocate(1); });
  for (const char* part :
       {"cannot allocate 512 B (512 bytes)", "4 KiB in use", "4 KiB held", "limit 4 KiB",
        "exceeds the pool limit", "smaller chunks", "PORTASIM_POOL_LIMIT"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
  EXPECT_EQ(pool.statistics().used_bytes, 4096u);  // the refusal changed nothing
  // Over the limit, cached blocks go back to the space first.
  b.reset();
  EXPECT_EQ(pool.statistics().free_blocks, 1u);
  auto c = pool.allocate(1024);
  auto s = pool.statistics();
  EXPECT_EQ(s.free_blocks, 0u);
  EXPECT_EQ(s.total_bytes, 3072u);
  EXPECT_EQ(s.used_bytes, 3072u);
  // Raising the limit lets it through.
  EXPECT_THROW(pool.allocate(4096), portasim::Error);
  pool.set_limit(PoolLimit::bytes(1 << 20));
  EXPECT_NO_THROW(pool.allocate(4096));
}

template <class Exec>
void pool_limit_as_a_fraction_follows_the_space() {
  using Space = typename Exec::memory_space;
  DevicePool<Exec> pool(PoolLimit::fraction(0.25));
  const std::size_t space = portasim::impl::MemorySpaceCapacity<Space>::total_bytes();
  EXPECT_GT(space, std::size_t(1) << 28);  // every machine we run on has > 256 MiB
  EXPECT_EQ(pool.limit_bytes(), static_cast<std::size_t>(0.25 * static_cast<double>(space)));
  // Half the space is more than the limit allows: refused by the pool, not the device.
  const std::string message = message_of_allocation([&] { pool.allocate(space / 2); });
  EXPECT_NE(message.find("exceeds the pool limit"), std::string::npos) << message;
  EXPECT_NE(message.find("25 % of memory"), std::string::npos) << message;
}

template <class Exec>
void exhausted_space_is_an_error_not_a_crash() {
  DevicePool<Exec> pool(PoolLimit::none());
  auto kept = pool.allocate(1 << 20);
  const std::size_t absurd = std::size_t(1) << 60;  // 1 EiB
  const std::string message = message_of_allocation([&] { pool.allocate(absurd); });
  for (const char* part :
       {"cannot allocate 1 EiB", "1 MiB in use", "memory space is exhausted", "smaller chunks"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
  EXPECT_EQ(pool.statistics().used_bytes, std::size_t(1) << 20);
  // The pool (and the backend) still work.
  auto v = pool.template view<int*>(Exec(), 10);
  auto vv = v.view();
  Kokkos::parallel_for(
      "after_failure", Kokkos::RangePolicy<Exec>(0, 10), KOKKOS_LAMBDA(const int i) { vv(i) = i; });
  int sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Exec>(0, 10),
      KOKKOS_LAMBDA(const int i, int& acc) { acc += vv(i); }, sum);
  EXPECT_EQ(sum, 45);
}

template <class Exec>
void pool_is_thread_safe() {
  DevicePool<Exec> pool(PoolLimit::none());
  constexpr int threads = 4, rounds = 1500;
  std::mutex live_mutex;
  std::set<void*> live;
  std::atomic<int> overlaps{0};
  auto worker = [&](int seed) {
    std::mt19937 rng(seed);
    const std::size_t sizes[] = {100, 3000, 70000, (std::size_t(1) << 20) + 5};
    std::vector<portasim::PoolBlock> held;
    for (int r = 0; r < rounds; ++r) {
      if (held.size() < 3 && rng() % 3 != 0) {
        auto block = pool.allocate(sizes[rng() % 4]);
        {
          std::lock_guard<std::mutex> lock(live_mutex);
          if (!live.insert(block.data()).second) ++overlaps;  // handed out twice
        }
        held.push_back(std::move(block));
      } else if (!held.empty()) {
        {
          std::lock_guard<std::mutex> lock(live_mutex);
          live.erase(held.back().data());
        }
        held.pop_back();
      }
    }
    std::lock_guard<std::mutex> lock(live_mutex);
    for (auto& block : held) live.erase(block.data());
    held.clear();
  };
  std::vector<std::thread> pool_threads;
  for (int t = 0; t < threads; ++t) pool_threads.emplace_back(worker, 17 + t);
  for (auto& t : pool_threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  const auto s = pool.statistics();
  EXPECT_EQ(s.used_bytes, 0u);
  EXPECT_EQ(s.used_blocks, 0u);
  EXPECT_GT(s.hits, s.misses);  // most allocations were served from the cache
  EXPECT_LE(s.misses, static_cast<std::size_t>(4 * threads *
                                               3));  // per class at most the blocks live at once
  EXPECT_GE(s.free_blocks, 1u);
  pool.free_all_blocks();
  EXPECT_EQ(pool.statistics().total_bytes, 0u);
}

template <class Exec>
void pinned_pool_serves_host_staging() {
  portasim::PinnedMemoryPool<Exec> pinned(PoolLimit::none());
  DevicePool<Exec> device(PoolLimit::none());
  const int n = 1000;
  auto host = pinned.template view<float*>(Exec(), n);
  auto h = host.view();
  for (int i = 0; i < n; ++i) h(i) = 0.25f * i;
  auto dev = device.template view<float*>(Exec(), n);
  portasim::copy(Exec(), dev.view(), h);
  auto dv = dev.view();
  Kokkos::parallel_for(
      "double", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) { dv(i) *= 2; });
  portasim::copy(Exec(), h, dv);
  Exec().fence();
  for (int i = 0; i < n; ++i) ASSERT_EQ(h(i), 0.5f * i);
}

template <class Exec>
void stream_ordered_pool_allocates_in_instance_order() {
  portasim::InstancePool<Exec> instances(1);
  const Exec& exec = instances[0];
  portasim::StreamOrderedPoolOptions options;
  options.limit = PoolLimit::bytes(8 << 20);
  portasim::StreamOrderedPool<Exec> pool(options);
  const int n = 100000;
  long expected = 0;
  for (int i = 0; i < n; ++i) expected += i % 7;
  for (int round = 0; round < 3; ++round) {  // allocate, use, free: all in the instance's order
    auto v = pool.template view<int*>(exec, n);
    auto vv = v.view();
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const int i) { vv(i) = i % 7; });
    long sum = 0;
    Kokkos::parallel_reduce(
        "sum", Kokkos::RangePolicy<Exec>(exec, 0, n),
        KOKKOS_LAMBDA(const int i, long& acc) { acc += vv(i); }, sum);
    EXPECT_EQ(sum, expected);
    EXPECT_EQ(pool.used_bytes(), sizeof(int) * n);
    EXPECT_GE(pool.total_bytes(), sizeof(int) * n);
  }
  EXPECT_EQ(pool.used_bytes(), 0u);
  EXPECT_EQ(pool.statistics().used_blocks, 0u);
  const std::string message = message_of_allocation([&] { pool.allocate(exec, 9 << 20); });
  EXPECT_NE(message.find("StreamOrderedPool"), std::string::npos) << message;
  EXPECT_NE(message.find("exceeds the pool limit"), std::string::npos) << message;
  pool.free_all_blocks();
  EXPECT_EQ(pool.total_bytes(), 0u);
}

TEST(TEST_CATEGORY, memory_pool_reuses_blocks_with_exact_statistics) {
  pool_reuses_freed_blocks_and_counts_exactly<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_free_all_blocks) {
  free_all_blocks_keeps_blocks_in_use<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_views_in_kernels) {
  pooled_views_work_in_kernels_on_an_instance<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_reuse_is_per_instance) {
  blocks_are_reused_per_instance<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_limit_in_bytes) {
  pool_limit_in_bytes_is_enforced_with_a_clear_error<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_limit_as_fraction) {
  pool_limit_as_a_fraction_follows_the_space<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_exhaustion_is_an_error) {
  exhausted_space_is_an_error_not_a_crash<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, memory_pool_thread_safety) { pool_is_thread_safe<TEST_EXECSPACE>(); }
TEST(TEST_CATEGORY, pinned_memory_pool_staging) {
  pinned_pool_serves_host_staging<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, stream_ordered_pool) {
  stream_ordered_pool_allocates_in_instance_order<TEST_EXECSPACE>();
}

}  // namespace test_memory_pool
