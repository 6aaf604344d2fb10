#pragma once
// A marker in an instance's queue of work, like cupy.cuda.Event: record it on an instance,
// then wait for it on the host, make another instance wait for it, or time the work between
// two events. CUDA events on CUDA; fences and host clocks elsewhere.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend.hpp"

namespace portasim {

template <class ExecutionSpace>
class Event;

// Milliseconds of device time between two recorded events (waits for `stop`).
template <class ExecutionSpace>
double elapsed_ms(const Event<ExecutionSpace>& start, const Event<ExecutionSpace>& stop);

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class Event {
 public:
  // Events used only for ordering skip the timing bookkeeping on CUDA.
  explicit Event(bool timing = true) : m_impl(timing) {}

  void record(const ExecutionSpace& exec) { m_impl.record(exec); }
  bool recorded() const noexcept { return m_impl.recorded(); }
  // Blocks the host until the recorded work has finished.
  void synchronize() const {
    require_recorded("synchronize");
    m_impl.synchronize();
  }
  // True when the recorded work has finished (never blocks).
  bool query() const { return !m_impl.recorded() || m_impl.query(); }
  // Work enqueued on `consumer` after this call starts only after the recorded work ends.
  void make_wait(const ExecutionSpace& consumer) const {
    require_recorded("make_wait");
    m_impl.make_wait(consumer);
  }

  // The same with a queue that another library owns (CuPy's current stream, a caller's
  // cudaStream_t), by its native handle; 0 is CUDA's legacy default stream.
  void record_on_native_stream(std::uintptr_t stream) { m_impl.record_on_native(stream); }
  void make_native_stream_wait(std::uintptr_t stream) const {
    require_recorded("make_native_stream_wait");
    m_impl.make_native_wait(stream);
  }

  template <class Space>
  friend double elapsed_ms(const Event<Space>& start, const Event<Space>& stop);

 private:
  void require_recorded(const char* operation) const {
    require(m_impl.recorded(),
            std::string("Event::") + operation + " called on an event that was never recorded");
  }
  impl::EventImpl<ExecutionSpace> m_impl;
};

template <class ExecutionSpace>
double elapsed_ms(const Event<ExecutionSpace>& start, const Event<ExecutionSpace>& stop) {
  start.require_recorded("elapsed_ms");
  stop.require_recorded("elapsed_ms");
  return impl::EventImpl<ExecutionSpace>::elapsed_ms(start.m_impl, stop.m_impl);
}

}  // namespace portasim
