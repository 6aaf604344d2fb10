#pragma once
// Where a device's SFAP batch buffers come from: one stream-ordered pool per execution space
// and process (core/stream_ordered_pool.hpp), which keeps the memory it has held for the next
// call until Kokkos is finalized or sfap::release_cached_buffers is called. From the space's
// allocator the buffers were allocated and freed on every call, and the free waited for the
// device; from the pool they are freed in the instance's order and the next call reuses
// them at once. PORTASIM_POOL_LIMIT caps the pool, and the batches are sized under its cap.
// docs/design/sfap-projection.md, rule 8.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>

#include "portasim/core/pooled_view.hpp"
#include "portasim/core/stream_ordered_pool.hpp"

namespace portasim::sfap::impl {

template <class ExecutionSpace>
class BatchPool {
 public:
  // A block of at least `bytes`, freed in `exec`'s order when its last handle goes.
  static PoolBlock allocate(const ExecutionSpace& exec, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex());
    return pool().allocate(exec, bytes);
  }
  // The pool's cap in bytes (SIZE_MAX without PORTASIM_POOL_LIMIT).
  static std::size_t limit_bytes() {
    std::lock_guard<std::mutex> lock(mutex());
    return pool().limit_bytes();
  }
  // Gives the memory the pool keeps back to the device, once queued frees have run.
  static void release() {
    std::lock_guard<std::mutex> lock(mutex());
    if (instance() != nullptr) instance()->free_all_blocks();
  }

 private:
  // Under the mutex.
  static StreamOrderedPool<ExecutionSpace>& pool() {
    StreamOrderedPool<ExecutionSpace>*& created = instance();
    if (created == nullptr) {
      created = new StreamOrderedPool<ExecutionSpace>();
      // Before Kokkos finalizes its spaces; a later Kokkos::initialize starts afresh.
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> hook_lock(mutex());
        delete instance();
        instance() = nullptr;
      });
    }
    return *created;
  }
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  // A pointer, not an object: the pool is destroyed by the finalize hook, never by static
  // destruction after the device is gone.
  static StreamOrderedPool<ExecutionSpace>*& instance() {
    static StreamOrderedPool<ExecutionSpace>* pool = nullptr;
    return pool;
  }
};

// n values of T for one call: from the batch pool (batch_pool.hpp), freed in exec's order at
// the end of the call, where a View of its own is freed with a synchronization of the
// device; under a pool cap (PORTASIM_POOL_LIMIT), which the batches are sized against, an
// allocation of its own.
template <class T, class MemorySpace>
struct CallTemporary {
  PoolBlock block;                     // empty for an allocation of its own
  Kokkos::View<T*, MemorySpace> view;  // over the block, or owning its memory
};

template <class T, class ExecutionSpace>
CallTemporary<T, typename ExecutionSpace::memory_space> call_temporary(const ExecutionSpace& exec,
                                                                       std::int64_t n,
                                                                       const std::string& label) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  CallTemporary<T, MemorySpace> temporary;
  if (BatchPool<ExecutionSpace>::limit_bytes() == std::numeric_limits<std::size_t>::max()) {
    temporary.block =
        BatchPool<ExecutionSpace>::allocate(exec, static_cast<std::size_t>(n) * sizeof(T));
    temporary.view = Kokkos::View<T*, MemorySpace>(static_cast<T*>(temporary.block.data()), n);
  } else {
    // With the instance: a View of a struct is destroyed by a kernel, which otherwise runs on
    // the default instance of the memory space's execution space.
    temporary.view = Kokkos::View<T*, MemorySpace>(
        Kokkos::view_alloc(exec, Kokkos::WithoutInitializing, label), n);
  }
  return temporary;
}

}  // namespace portasim::sfap::impl
