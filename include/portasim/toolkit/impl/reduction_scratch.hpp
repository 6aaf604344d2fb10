#pragma once
// Device scratch of the whole-array reduction kernel: per instance (CUDA stream), a counter
// of the teams that are done and room for one partial result per team. Allocated on the
// first reduction on an instance and kept until Kokkos is finalized: kernels on one stream
// run in order, so every reduction on that stream can use the same scratch without an
// allocation, a fence or a reset (the kernel's last team sets the counter back to 0).
// Instances on different streams get different scratch and may reduce concurrently.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "portasim/core/impl/backend.hpp"

namespace portasim::toolkit::impl {

// Layout: the counter at 0, a result slot for the synchronous value() form at
// reduction_scratch_value_offset, the partials from reduction_scratch_header on.
inline constexpr std::size_t reduction_scratch_value_offset = 256;
inline constexpr std::size_t reduction_scratch_header = 4096;
inline constexpr std::size_t reduction_scratch_partial_bytes = 64 * 1024;

struct ReductionScratch {
  unsigned int* counter = nullptr;
  void* value = nullptr;
  void* partials = nullptr;
};

template <class MemorySpace>
class ReductionScratchRegistry {
 public:
  static ReductionScratchRegistry& get() {
    static ReductionScratchRegistry registry;
    return registry;
  }

  template <class Exec>
  ReductionScratch scratch(const Exec& exec) {
    const std::uintptr_t key = portasim::impl::StreamKey<Exec>::of(exec);
    std::lock_guard<std::mutex> lock(m_mutex);
    auto found = m_blocks.find(key);
    if (found == m_blocks.end()) {
      if (!m_hook_pushed) {
        // Before Kokkos finalizes its spaces; a later Kokkos::initialize starts afresh.
        Kokkos::push_finalize_hook([] { get().release(); });
        m_hook_pushed = true;
      }
      void* block = Kokkos::kokkos_malloc<MemorySpace>(
          std::string("portasim::toolkit::reduction_scratch"),
          reduction_scratch_header + reduction_scratch_partial_bytes);
      // zeroed on the instance itself, ordered before the first reduction that uses it
      Kokkos::deep_copy(
          exec,
          Kokkos::View<unsigned int, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
              static_cast<unsigned int*>(block)),
          0u);
      found = m_blocks.emplace(key, block).first;
    }
    ReductionScratch s;
    s.counter = static_cast<unsigned int*>(found->second);
    s.value = static_cast<char*>(found->second) + reduction_scratch_value_offset;
    s.partials = static_cast<char*>(found->second) + reduction_scratch_header;
    return s;
  }

 private:
  void release() {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& entry : m_blocks) Kokkos::kokkos_free<MemorySpace>(entry.second);
    m_blocks.clear();
    m_hook_pushed = false;
  }

  std::mutex m_mutex;
  std::map<std::uintptr_t, void*> m_blocks;
  bool m_hook_pushed = false;
};

template <class Exec>
ReductionScratch reduction_scratch(const Exec& exec) {
  return ReductionScratchRegistry<typename Exec::memory_space>::get().scratch(exec);
}

// Partials and counters of the split reduction along an axis (impl/axis_reduction.hpp): per
// instance, grow-only blocks, from a few KB up to what a call needs (the partials at most
// axis_partials_max_bytes). Kernels on one stream run in order, so every axis reduction on it
// reuses the blocks without an allocation or a fence; only a call that needs more than any
// before on that stream reallocates, after a fence on that stream (earlier kernels may still
// be reading the old block). A counters block is zeroed on the instance when it is allocated,
// and the kernels leave their counters at 0. Host instances all share stream key 0 and run a
// kernel on the calling thread, so there the calling thread is part of the key: host threads
// reducing at the same time get different blocks.
inline constexpr std::size_t axis_partials_min_bytes = 64 * 1024;
inline constexpr std::size_t axis_partials_max_bytes = 8 * 1024 * 1024;

template <class MemorySpace, bool Zeroed>
class AxisBlockRegistry {
 public:
  static AxisBlockRegistry& get() {
    static AxisBlockRegistry registry;
    return registry;
  }

  template <class Exec>
  void* block(const Exec& exec, std::size_t bytes) {
    std::size_t thread = 0;
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                             typename Exec::memory_space>::accessible)
      thread = std::hash<std::thread::id>()(std::this_thread::get_id());
    const Key key{portasim::impl::StreamKey<Exec>::of(exec), thread};
    std::lock_guard<std::mutex> lock(m_mutex);
    Block& block = m_blocks[key];
    if (block.bytes < bytes) {
      if (!m_hook_pushed) {
        Kokkos::push_finalize_hook([] { get().release(); });
        m_hook_pushed = true;
      }
      std::size_t grown =
          block.bytes > axis_partials_min_bytes ? block.bytes : axis_partials_min_bytes;
      while (grown < bytes) grown *= 2;
      if (block.data != nullptr) {
        exec.fence();
        Kokkos::kokkos_free<MemorySpace>(block.data);
        block = Block{};
      }
      block.data = Kokkos::kokkos_malloc<MemorySpace>(
          std::string(Zeroed ? "portasim::toolkit::axis_counters"
                             : "portasim::toolkit::axis_partials"),
          grown);
      block.bytes = grown;
      if constexpr (Zeroed)
        Kokkos::deep_copy(
            exec,
            Kokkos::View<unsigned char*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                static_cast<unsigned char*>(block.data), grown),
            static_cast<unsigned char>(0));
    }
    return block.data;
  }

 private:
  struct Block {
    void* data = nullptr;
    std::size_t bytes = 0;
  };

  void release() {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& entry : m_blocks)
      if (entry.second.data != nullptr) Kokkos::kokkos_free<MemorySpace>(entry.second.data);
    m_blocks.clear();
    m_hook_pushed = false;
  }

  std::mutex m_mutex;
  using Key = std::pair<std::uintptr_t, std::size_t>;
  std::map<Key, Block> m_blocks;
  bool m_hook_pushed = false;
};

// Room for at least `bytes` of partials on exec's stream, valid until a later call on the
// same stream asks for more.
template <class Exec>
void* axis_partials(const Exec& exec, std::size_t bytes) {
  return AxisBlockRegistry<typename Exec::memory_space, false>::get().block(exec, bytes);
}

// At least `count` counters on exec's stream, at 0 for the next kernel on it; the kernel that
// uses them must leave them at 0.
template <class Exec>
unsigned int* axis_counters(const Exec& exec, std::size_t count) {
  return static_cast<unsigned int*>(
      AxisBlockRegistry<typename Exec::memory_space, true>::get().block(
          exec, count * sizeof(unsigned int)));
}

}  // namespace portasim::toolkit::impl
