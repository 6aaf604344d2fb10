#pragma once
// A pool whose allocations and frees are ordered in an instance's queue, like CuPy's
// MemoryAsyncPool: on CUDA, cudaMallocFromPoolAsync/cudaFreeAsync from a cudaMemPool of its
// own. A block is allocated for work on the instance given to allocate() and freed, when
// its last handle goes, in that same instance's stream: work enqueued there before the
// free may still use it, and memory freed there is reused by later allocations in the
// stream without any synchronization. The release threshold is how much freed memory the
// pool keeps across synchronizations (CUDA's default, 0, gives it all back at every one).
// Backends without a stream-ordered allocator fall back to the space's allocator (a free
// fences the instance first).
// Statistics: used bytes and blocks, total bytes held (the cudaMemPool's reserved memory),
// no hits/misses or free-block counts (the driver keeps those to itself).
// The instance's stream must outlive every block from the pool (the free is enqueued there).

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend.hpp"
#include "portasim/core/pool_limit.hpp"
#include "portasim/core/pooled_view.hpp"

namespace portasim {

struct StreamOrderedPoolOptions {
  PoolLimit limit = pool_limit_from_environment();
  // Bytes of freed memory kept cached (not returned to the device) across synchronizations;
  // the default keeps everything, as a caching pool does.
  std::size_t release_threshold = std::numeric_limits<std::size_t>::max();
};

namespace impl {

template <class ExecutionSpace>
class StreamOrderedPoolState {
 public:
  using memory_space = typename ExecutionSpace::memory_space;

  explicit StreamOrderedPoolState(const StreamOrderedPoolOptions& options)
      : m_allocator(options.release_threshold) {
    set_limit(options.limit);
  }

  void* acquire(const ExecutionSpace& exec, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_stats.used_bytes + bytes > m_stats.limit_bytes) refuse(bytes, true);
    void* block = m_allocator.allocate(exec, bytes);
    if (block == nullptr) {
      m_allocator.trim();  // cached memory back to the device, then one retry
      block = m_allocator.allocate(exec, bytes);
    }
    if (block == nullptr) refuse(bytes, false);
    m_stats.used_bytes += bytes;
    ++m_stats.used_blocks;
    return block;
  }

  void give_back(const ExecutionSpace& exec, void* block, std::size_t bytes) noexcept {
    m_allocator.deallocate(exec, block, bytes);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stats.used_bytes -= bytes;
    --m_stats.used_blocks;
  }

  PoolStatistics statistics() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    PoolStatistics stats = m_stats;
    stats.total_bytes = m_allocator.reserved_bytes(m_stats.used_bytes);
    return stats;
  }

  void trim() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_allocator.trim();
  }

  void set_limit(const PoolLimit& limit) {
    const std::size_t space_total =
        limit.is_fraction() ? MemorySpaceCapacity<memory_space>::total_bytes() : 0;
    std::lock_guard<std::mutex> lock(m_mutex);
    m_limit = limit;
    m_stats.limit_bytes = limit.resolve(space_total);
  }

 private:
  [[noreturn]] void refuse(std::size_t bytes, bool limit_hit) const {
    std::size_t space_free = 0;
    try {
      space_free = MemorySpaceCapacity<memory_space>::free_bytes();
    } catch (...) {
    }
    throw_error(ErrorKind::out_of_memory,
                pool_exhausted_message(
                    std::string("StreamOrderedPool<") + ExecutionSpace::name() + ">", bytes,
                    m_stats.used_bytes, m_allocator.reserved_bytes(m_stats.used_bytes), m_limit,
                    m_stats.limit_bytes, limit_hit, space_free));
  }

  mutable std::mutex m_mutex;
  StreamOrderedAllocator<ExecutionSpace> m_allocator;
  PoolStatistics m_stats;
  PoolLimit m_limit;
};

}  // namespace impl

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class StreamOrderedPool {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  // True where the backend orders allocations in the stream (CUDA), false for the fallback.
  static constexpr bool native = impl::StreamOrderedAllocator<ExecutionSpace>::native;

  explicit StreamOrderedPool(const StreamOrderedPoolOptions& options = {})
      : m_state(std::make_shared<impl::StreamOrderedPoolState<ExecutionSpace>>(options)) {}
  StreamOrderedPool(const StreamOrderedPool&) = delete;
  StreamOrderedPool& operator=(const StreamOrderedPool&) = delete;

  // A block of `bytes` (not rounded), allocated in `exec`'s order and freed in it.
  PoolBlock allocate(const ExecutionSpace& exec, std::size_t bytes) {
    const std::size_t size = bytes == 0 ? 1 : bytes;
    void* memory = m_state->acquire(exec, size);
    auto state = m_state;
    std::shared_ptr<void> owner(
        memory, [state, exec, size](void* block) { state->give_back(exec, block, size); });
    return PoolBlock(std::move(owner), size);
  }

  template <class DataType, class Layout = Kokkos::LayoutRight, class... Extents>
  PooledView<DataType, memory_space, Layout> view(const ExecutionSpace& exec, Extents... extents) {
    using value_type = typename PooledView<DataType, memory_space, Layout>::view_type::value_type;
    static_assert(std::is_trivially_destructible<value_type>::value,
                  "pooled Views skip constructors and destructors of their values");
    const std::size_t bytes = impl::pooled_view_bytes<DataType, memory_space, Layout>(extents...);
    return impl::make_pooled_view<DataType, memory_space, Layout>(allocate(exec, bytes),
                                                                  extents...);
  }

  PoolStatistics statistics() const { return m_state->statistics(); }
  std::size_t used_bytes() const { return statistics().used_bytes; }
  std::size_t total_bytes() const { return statistics().total_bytes; }
  // Waits for queued frees, then returns all cached memory to the device.
  void free_all_blocks() { m_state->trim(); }
  void set_limit(const PoolLimit& limit) { m_state->set_limit(limit); }
  std::size_t limit_bytes() const { return statistics().limit_bytes; }

 private:
  std::shared_ptr<impl::StreamOrderedPoolState<ExecutionSpace>> m_state;
};

}  // namespace portasim
