#pragma once
// A ring of page-locked host buffers for asynchronous device-to-host copies: a copy into a
// slot is enqueued on an instance and returns at once; the host waits for that slot only
// when it needs the data. All buffers are allocated up front, so a streaming loop allocates
// (and therefore synchronizes) nothing.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/memory_spaces.hpp"

namespace portasim {

template <class T, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class PinnedStaging {
 public:
  using host_view = Kokkos::View<T*, PinnedHostSpace<ExecutionSpace>>;

  PinnedStaging(int slots, std::size_t elements_per_slot, const std::string& label = "staging") {
    require(slots > 0, "PinnedStaging needs at least one slot, got " + std::to_string(slots));
    for (int i = 0; i < slots; ++i) {
      m_buffers.emplace_back(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "_" + std::to_string(i)),
          elements_per_slot);
      m_copied.emplace_back(/*timing=*/false);
      m_sizes.push_back(0);
    }
  }

  int slots() const noexcept { return static_cast<int>(m_buffers.size()); }
  std::size_t capacity() const noexcept { return m_buffers.front().extent(0); }

  // Enqueues a copy of the contiguous view `source` (any rank) into `slot` on `exec`.
  template <class SourceView>
  void copy_async(const ExecutionSpace& exec, int slot, const SourceView& source) {
    check_slot(slot);
    require(source.span_is_contiguous(),
            "PinnedStaging::copy_async needs a contiguous source view");
    const std::size_t count = source.span();
    require(count <= capacity(), "PinnedStaging::copy_async: source has " + std::to_string(count) +
                                     " elements, slot holds " + std::to_string(capacity()));
    using source_memory = typename SourceView::memory_space;
    Kokkos::View<const T*, source_memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> flat(
        source.data(), count);
    auto target = Kokkos::subview(m_buffers[static_cast<std::size_t>(slot)],
                                  Kokkos::make_pair(std::size_t(0), count));
    Kokkos::deep_copy(exec, target, flat);
    m_copied[static_cast<std::size_t>(slot)].record(exec);
    m_sizes[static_cast<std::size_t>(slot)] = count;
  }

  // Blocks until the last copy into `slot` has landed, then returns its data.
  host_view wait(int slot) const {
    check_slot(slot);
    const auto& copied = m_copied[static_cast<std::size_t>(slot)];
    if (copied.recorded()) copied.synchronize();
    return Kokkos::subview(
        m_buffers[static_cast<std::size_t>(slot)],
        Kokkos::make_pair(std::size_t(0), m_sizes[static_cast<std::size_t>(slot)]));
  }

  bool ready(int slot) const {
    check_slot(slot);
    return m_copied[static_cast<std::size_t>(slot)].query();
  }

 private:
  void check_slot(int slot) const {
    require(slot >= 0 && slot < slots(), "PinnedStaging slot " + std::to_string(slot) +
                                             " out of range [0, " + std::to_string(slots()) + ")");
  }
  std::vector<host_view> m_buffers;
  std::vector<Event<ExecutionSpace>> m_copied;
  std::vector<std::size_t> m_sizes;
};

}  // namespace portasim
