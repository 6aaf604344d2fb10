#pragma once
// The one streaming pipeline of the library, used by HH traces and Life chunks on one rank
// and on many. Chunk c is computed on the compute instance into device slot c % slots; a
// copy instance per slot moves the finished chunk into page-locked host memory while the
// compute instance goes on with the next chunks; the host hands the oldest copied chunk to
// its consumer (a sink, a gather to the root). Compute, copy and hand-over overlap, and
// memory is `slots` chunks on each side whatever the length of the run.
//
// Ordering is by events only: a slot's copy waits for the compute that filled it, and the
// next compute into the slot waits for that copy. The pipeline never fences the compute
// instance, and it launches nothing on any instance but the compute instance it was given
// and the copy instances it owns.

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/event_timer.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/pinned_staging.hpp"

namespace portasim {

// DeviceView: the contiguous device buffer of one slot, any rank (e.g. HH's
// (variables, rows, neurons) traces or Life's flat bytes).
template <class DeviceView, class ExecutionSpace>
class StreamingPipeline {
 public:
  using value_type = typename DeviceView::non_const_value_type;
  // Receives the first `count` elements of a chunk on the host; the memory is valid during
  // the call only.
  using Consumer = std::function<void(const value_type* data, std::size_t count)>;

  struct Timings {
    double compute_seconds = 0;    // device time of the compute instance, chunk by chunk
    double copy_seconds = 0;       // device time of the device-to-host copies
    double hand_over_seconds = 0;  // host time in the consumers
  };

  // `slots` device buffers of the same extent (at least one); two let compute and copy
  // overlap. Each slot gets a copy instance of its own and a pinned host buffer of its span.
  StreamingPipeline(const ExecutionSpace& compute, std::vector<DeviceView> slots,
                    const std::string& label = "portasim::stream")
      : m_compute(compute), m_device(check_slots(std::move(slots))),
        m_host(static_cast<int>(m_device.size()), m_device.front().span(), label + "_host"),
        m_copiers(static_cast<int>(m_device.size())) {
    for (std::size_t s = 0; s < m_device.size(); ++s) {
      m_copied.emplace_back(/*timing=*/false);
      m_computed.emplace_back(/*timing=*/false);
      m_compute_timers.emplace_back(compute);
      m_copy_timers.emplace_back(m_copiers[static_cast<int>(s)]);
    }
  }
  StreamingPipeline(const StreamingPipeline&) = delete;
  StreamingPipeline& operator=(const StreamingPipeline&) = delete;

  int slots() const noexcept { return static_cast<int>(m_device.size()); }
  const ExecutionSpace& compute_instance() const noexcept { return m_compute; }
  std::int64_t chunks() const noexcept { return m_next; }
  const Timings& timings() const noexcept { return m_timings; }

  // Opens the next chunk and returns the device buffer its compute writes. The compute
  // instance is ordered after the copy that last read the buffer.
  const DeviceView& begin_chunk() {
    require(!m_open, "StreamingPipeline::begin_chunk: the chunk before was not ended");
    const std::size_t slot = current_slot();
    if (m_copied[slot].recorded()) m_copied[slot].make_wait(m_compute);
    m_compute_timers[slot].start();
    m_open = true;
    return m_device[slot];
  }

  // Closes the open chunk: its first `count` elements go to pinned memory on the slot's copy
  // instance, then to `consume` on the host once a later chunk is under way (or at
  // finish()). A chunk of no elements still keeps its place in the order.
  void end_chunk(std::size_t count, Consumer consume) {
    require(m_open, "StreamingPipeline::end_chunk without begin_chunk");
    const std::size_t slot = current_slot();
    require(count <= m_device[slot].span(),
            "StreamingPipeline::end_chunk: " + std::to_string(count) + " elements, a slot holds " +
                std::to_string(m_device[slot].span()));
    const ExecutionSpace& copier = m_copiers[static_cast<int>(slot)];
    m_compute_timers[slot].stop();
    m_computed[slot].record(m_compute);
    m_computed[slot].make_wait(copier);
    m_copy_timers[slot].start();
    if (count > 0)
      m_host.copy_async(
          copier, static_cast<int>(slot),
          Kokkos::View<const value_type*, typename DeviceView::memory_space,
                       Kokkos::MemoryTraits<Kokkos::Unmanaged>>(m_device[slot].data(), count));
    m_copy_timers[slot].stop();
    m_copied[slot].record(copier);
    m_pending.push_back({slot, count, std::move(consume)});
    m_open = false;
    ++m_next;
    // The slot opened next holds the oldest chunk in flight: at most slots - 1 stay there.
    while (m_pending.size() + 1 > m_device.size()) hand_over_oldest();
  }

  // Hands every chunk still in flight to its consumer, in order.
  void finish() {
    require(!m_open, "StreamingPipeline::finish: a chunk is still open");
    while (!m_pending.empty()) hand_over_oldest();
    m_copiers.fence_all();
  }

 private:
  struct Pending {
    std::size_t slot;
    std::size_t count;
    Consumer consume;
  };

  static std::vector<DeviceView> check_slots(std::vector<DeviceView> slots) {
    require(!slots.empty(), "StreamingPipeline needs at least one slot");
    for (const DeviceView& slot : slots)
      require(slot.span_is_contiguous() && slot.span() == slots.front().span(),
              "StreamingPipeline slots must be contiguous and of one size");
    return slots;
  }

  std::size_t current_slot() const {
    return static_cast<std::size_t>(m_next % static_cast<std::int64_t>(m_device.size()));
  }

  void hand_over_oldest() {
    Pending pending = std::move(m_pending.front());
    m_pending.pop_front();
    const auto host = m_host.wait(static_cast<int>(pending.slot));
    m_timings.compute_seconds += m_compute_timers[pending.slot].elapsed_ms() * 1e-3;
    m_timings.copy_seconds += m_copy_timers[pending.slot].elapsed_ms() * 1e-3;
    if (!pending.consume || pending.count == 0) return;
    const auto began = std::chrono::steady_clock::now();
    pending.consume(host.data(), pending.count);
    m_timings.hand_over_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  }

  ExecutionSpace m_compute;
  std::vector<DeviceView> m_device;
  PinnedStaging<value_type, ExecutionSpace> m_host;
  // After the buffers: destroyed first, it fences the copies still in flight into them.
  InstancePool<ExecutionSpace> m_copiers;
  std::vector<Event<ExecutionSpace>> m_computed, m_copied;
  std::vector<EventTimer<ExecutionSpace>> m_compute_timers, m_copy_timers;
  std::deque<Pending> m_pending;
  Timings m_timings;
  std::int64_t m_next = 0;
  bool m_open = false;
};

}  // namespace portasim
