#pragma once
// Compat layer, host side: what every execution space without native streams gets.
// Host instances run their work before a dispatch returns or at the latest at fence(), so
// an event is a fence plus a timestamp, and waiting on one costs nothing further.

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "portasim/core/compat.hpp"

namespace portasim::impl {

template <class ExecutionSpace>
struct PinnedHostSpaceOf {
  using type = Kokkos::HostSpace;
};

// Owns whatever the instances of a pool need beyond the Kokkos objects themselves.
template <class ExecutionSpace>
class InstanceFactory {
 public:
  std::vector<ExecutionSpace> create(int count) {
    return std::vector<ExecutionSpace>(static_cast<std::size_t>(count), ExecutionSpace());
  }
  void release() noexcept {}
};

template <class ExecutionSpace>
class EventImpl {
 public:
  explicit EventImpl(bool /*timing*/ = true) {}
  void record(const ExecutionSpace& exec) {
    exec.fence();
    m_time = std::chrono::steady_clock::now();
    m_recorded = true;
  }
  bool recorded() const noexcept { return m_recorded; }
  void synchronize() const {}
  bool query() const { return true; }
  void make_wait(const ExecutionSpace& /*consumer*/) const {}
  // Host instances run in order with the host, so a native queue has nothing to order.
  void record_on_native(std::uintptr_t /*stream*/) {
    m_time = std::chrono::steady_clock::now();
    m_recorded = true;
  }
  void make_native_wait(std::uintptr_t /*stream*/) const {}
  static double elapsed_ms(const EventImpl& start, const EventImpl& stop) {
    return std::chrono::duration<double, std::milli>(stop.m_time - start.m_time).count();
  }

 private:
  std::chrono::steady_clock::time_point m_time{};
  bool m_recorded = false;
};

// Identifies the queue an instance enqueues into, so that a caching pool reuses a block
// freed by work on one queue only for later work on the same queue (CuPy's per-stream free
// lists). Host instances run in order with the host: one queue.
template <class ExecutionSpace>
struct StreamKey {
  static std::uintptr_t of(const ExecutionSpace& /*exec*/) noexcept { return 0; }
};

// Total and free bytes of a memory space, for pool limits given as a fraction and for
// error messages. Host spaces (also the pinned one): physical memory.
template <class MemorySpace>
struct MemorySpaceCapacity {
  static std::size_t total_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                 : 0;
  }
  static std::size_t free_bytes() {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                 : 0;
  }
};

// The allocator behind StreamOrderedPool. Without a stream-ordered allocator in the
// backend, blocks come from the space's allocator; a free waits for the instance first, so
// that work still using the block has finished.
template <class ExecutionSpace>
class StreamOrderedAllocator {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  static constexpr bool native = false;

  explicit StreamOrderedAllocator(std::size_t /*release_threshold*/) {}
  // nullptr when the space is exhausted.
  void* allocate(const ExecutionSpace& /*exec*/, std::size_t bytes) {
    try {
      return memory_space().allocate("portasim_stream_ordered_pool", bytes);
    } catch (const std::exception& e) {
      if (compat::is_allocation_failure(e)) return nullptr;
      throw;
    }
  }
  void deallocate(const ExecutionSpace& exec, void* pointer, std::size_t bytes) noexcept {
    exec.fence();
    memory_space().deallocate("portasim_stream_ordered_pool", pointer, bytes);
  }
  // Bytes the allocator holds (in use or cached); without a cache, those in use.
  std::size_t reserved_bytes(std::size_t used_bytes) const { return used_bytes; }
  void trim() {}
};

}  // namespace portasim::impl
