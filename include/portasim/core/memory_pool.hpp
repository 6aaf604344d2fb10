#pragma once
// A caching allocator for one memory space, like CuPy's MemoryPool (device memory) and
// PinnedMemoryPool (page-locked host memory): freed blocks are kept and handed out again,
// so that a loop allocating temporaries stops paying for (and, on CUDA, synchronizing in)
// cudaMalloc/cudaFree.
//
// - Size classes: requests round up to a multiple of 512 B up to 1 MiB, above that to one of
//   8 classes per power of two (at most 12.5 % slack); a freed block serves later requests
//   of the same class.
// - Per-instance reuse: a block freed by work on one instance (CUDA stream) is reused only
//   by allocations for the same instance, which that instance runs after the earlier work.
//   So drop a handle once the work using it is enqueued on that instance; to hand memory to
//   another instance, order the instances first (portasim::wait_for) or fence.
// - Limit: in bytes or as a fraction of the space's memory (PoolLimit); without one given,
//   PORTASIM_POOL_LIMIT's. Over the limit the pool first returns its cached blocks to the
//   space, then refuses with Error(out_of_memory) stating what was asked, used and held.
// - Exhausted space: the same (cached blocks returned, one retry, then the error).
// - Thread-safe: any host thread may allocate and free.
// - Plain host memory (HostSpace): blocks of 4 MiB or more are advised to use transparent huge
//   pages before their first write, as NumPy's arrays are (huge_pages.hpp).
// The pool's memory goes back to the space when the pool and every block from it are gone;
// all of that must happen before Kokkos is finalized.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/huge_pages.hpp"
#include "portasim/core/impl/backend.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/pool_limit.hpp"
#include "portasim/core/pooled_view.hpp"

namespace portasim {

namespace impl {

inline constexpr std::size_t pool_granule = 512;

// The block size a request of `bytes` gets (see the header comment).
inline std::size_t pool_size_class(std::size_t bytes) {
  require(bytes <= (std::numeric_limits<std::size_t>::max() >> 2),
          "memory pool request of " + std::to_string(bytes) + " bytes is too large",
          ErrorKind::out_of_memory);
  const std::size_t at_least_one = bytes == 0 ? 1 : bytes;
  const std::size_t rounded = (at_least_one + pool_granule - 1) / pool_granule * pool_granule;
  if (rounded <= (std::size_t(1) << 20)) return rounded;
  int top_bit = 0;
  while ((rounded >> (top_bit + 1)) != 0) ++top_bit;
  const std::size_t step = std::size_t(1) << (top_bit - 3);
  return (rounded + step - 1) / step * step;
}

template <class MemorySpace>
class CachingPoolState {
 public:
  explicit CachingPoolState(const PoolLimit& limit) { set_limit(limit); }
  ~CachingPoolState() { release_cached(); }
  CachingPoolState(const CachingPoolState&) = delete;
  CachingPoolState& operator=(const CachingPoolState&) = delete;

  // Returns the block's memory; throws Error(out_of_memory) when neither the cache nor the
  // space can serve it within the limit.
  void* acquire(std::uintptr_t queue, std::size_t size_class) {
    std::unique_lock<std::mutex> lock(m_mutex);
    auto cached = m_free.find(Key{queue, size_class});
    if (cached != m_free.end() && !cached->second.empty()) {
      void* block = cached->second.back();
      cached->second.pop_back();
      --m_stats.free_blocks;
      ++m_stats.hits;
      m_stats.used_bytes += size_class;
      ++m_stats.used_blocks;
      return block;
    }
    ++m_stats.misses;
    const bool over_limit = m_stats.total_bytes + size_class > m_limit_bytes;
    if (over_limit && m_stats.free_blocks > 0) release_cached_locked();
    if (m_stats.total_bytes + size_class > m_limit_bytes) refuse(size_class, /*limit_hit=*/true);
    void* block = allocate_raw(size_class);
    if (block == nullptr && m_stats.free_blocks > 0) {
      release_cached_locked();
      block = allocate_raw(size_class);
    }
    if (block == nullptr) refuse(size_class, /*limit_hit=*/false);
    m_stats.total_bytes += size_class;
    m_stats.used_bytes += size_class;
    ++m_stats.used_blocks;
    return block;
  }

  void give_back(std::uintptr_t queue, std::size_t size_class, void* block) noexcept {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stats.used_bytes -= size_class;
    --m_stats.used_blocks;
    try {
      m_free[Key{queue, size_class}].push_back(block);
      ++m_stats.free_blocks;
    } catch (...) {  // no memory for the free list: give the block to the space instead
      deallocate_raw(block, size_class);
      m_stats.total_bytes -= size_class;
    }
  }

  void release_cached() {
    std::lock_guard<std::mutex> lock(m_mutex);
    release_cached_locked();
  }

  PoolStatistics statistics() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stats;
  }

  void set_limit(const PoolLimit& limit) {
    const std::size_t space_total =
        limit.is_fraction() ? MemorySpaceCapacity<MemorySpace>::total_bytes() : 0;
    std::lock_guard<std::mutex> lock(m_mutex);
    m_limit = limit;
    m_limit_bytes = limit.resolve(space_total);
    m_stats.limit_bytes = m_limit_bytes;
  }

  PoolLimit limit() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_limit;
  }

 private:
  using Key = std::pair<std::uintptr_t, std::size_t>;

  static void* allocate_raw(std::size_t bytes) {
    try {
      void* block = MemorySpace().allocate("portasim_memory_pool", bytes);
      // Plain host memory: huge pages for large blocks, asked for before any page is written
      // (huge_pages.hpp). Page-locked memory is left as its allocator made it.
      if constexpr (std::is_same<MemorySpace, Kokkos::HostSpace>::value) {
        advise_huge_pages(block, bytes);
      }
      return block;
    } catch (const std::exception& e) {
      if (compat::is_allocation_failure(e)) return nullptr;
      throw;
    }
  }
  static void deallocate_raw(void* block, std::size_t bytes) noexcept {
    MemorySpace().deallocate("portasim_memory_pool", block, bytes);
  }

  void release_cached_locked() noexcept {
    // Kokkos' device deallocation synchronizes the device, so blocks freed from work still
    // running on some instance are not released under it.
    for (auto& [key, blocks] : m_free) {
      for (void* block : blocks) {
        deallocate_raw(block, key.second);
        m_stats.total_bytes -= key.second;
      }
    }
    m_free.clear();
    m_stats.free_blocks = 0;
  }

  [[noreturn]] void refuse(std::size_t size_class, bool limit_hit) {
    std::size_t space_free = 0;
    try {
      space_free = MemorySpaceCapacity<MemorySpace>::free_bytes();
    } catch (...) {
    }
    throw_error(ErrorKind::out_of_memory,
                pool_exhausted_message(std::string("MemoryPool<") + MemorySpace::name() + ">",
                                       size_class, m_stats.used_bytes, m_stats.total_bytes, m_limit,
                                       m_limit_bytes, limit_hit, space_free));
  }

  mutable std::mutex m_mutex;
  std::map<Key, std::vector<void*>> m_free;
  PoolStatistics m_stats;
  PoolLimit m_limit;
  std::size_t m_limit_bytes = std::numeric_limits<std::size_t>::max();
};

}  // namespace impl

template <class MemorySpace>
class MemoryPool {
 public:
  using memory_space = MemorySpace;

  // Limit from PORTASIM_POOL_LIMIT (none when unset); a bad value throws.
  MemoryPool() : MemoryPool(pool_limit_from_environment()) {}
  explicit MemoryPool(const PoolLimit& limit)
      : m_state(std::make_shared<impl::CachingPoolState<MemorySpace>>(limit)) {}
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A block of at least `bytes` for work on `exec` (see per-instance reuse above).
  template <class ExecutionSpace>
  PoolBlock allocate(const ExecutionSpace& exec, std::size_t bytes) {
    static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, MemorySpace>::accessible ||
                      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                  "the instance can neither use this memory nor is it host memory");
    return allocate_on_queue(impl::StreamKey<ExecutionSpace>::of(exec), bytes);
  }
  // A block for host-side use or work on the default instance.
  PoolBlock allocate(std::size_t bytes) { return allocate_on_queue(0, bytes); }

  // An uninitialized View (like view_alloc(WithoutInitializing)) of the given runtime
  // extents, for work on `exec`. Its value type must not need constructors or destructors.
  template <class DataType, class Layout = Kokkos::LayoutRight, class ExecutionSpace,
            class... Extents>
  PooledView<DataType, MemorySpace, Layout> view(const ExecutionSpace& exec, Extents... extents) {
    using value_type = typename PooledView<DataType, MemorySpace, Layout>::view_type::value_type;
    static_assert(std::is_trivially_destructible<value_type>::value,
                  "pooled Views skip constructors and destructors of their values");
    const std::size_t bytes = impl::pooled_view_bytes<DataType, MemorySpace, Layout>(extents...);
    return impl::make_pooled_view<DataType, MemorySpace, Layout>(allocate(exec, bytes), extents...);
  }

  PoolStatistics statistics() const { return m_state->statistics(); }
  std::size_t used_bytes() const { return statistics().used_bytes; }
  std::size_t total_bytes() const { return statistics().total_bytes; }
  std::size_t free_blocks() const { return statistics().free_blocks; }

  // Returns every cached block to the space (blocks in use stay valid).
  void free_all_blocks() { m_state->release_cached(); }

  void set_limit(const PoolLimit& limit) { m_state->set_limit(limit); }
  PoolLimit limit() const { return m_state->limit(); }
  std::size_t limit_bytes() const { return statistics().limit_bytes; }

 private:
  PoolBlock allocate_on_queue(std::uintptr_t queue, std::size_t bytes) {
    const std::size_t size_class = impl::pool_size_class(bytes);
    void* memory = m_state->acquire(queue, size_class);
    // The deleter owns the state, so a block may outlive the pool object.
    auto state = m_state;
    std::shared_ptr<void> owner(memory, [state, queue, size_class](void* block) {
      state->give_back(queue, size_class, block);
    });
    return PoolBlock(std::move(owner), size_class);
  }

  std::shared_ptr<impl::CachingPoolState<MemorySpace>> m_state;
};

// CuPy's two pools: device memory of an execution space, and its page-locked host memory
// (plain host memory on host backends).
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
using DeviceMemoryPool = MemoryPool<typename ExecutionSpace::memory_space>;
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
using PinnedMemoryPool = MemoryPool<PinnedHostSpace<ExecutionSpace>>;

}  // namespace portasim
