#pragma once
// Device time of work enqueued on an instance between start() and stop(), the
// cupy.cuda.Event + get_elapsed_time idiom in one object.

#include <Kokkos_Core.hpp>

#include "portasim/core/event.hpp"

namespace portasim {

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class EventTimer {
 public:
  explicit EventTimer(const ExecutionSpace& exec = ExecutionSpace()) : m_exec(exec) {}

  void start() { m_start.record(m_exec); }
  void stop() { m_stop.record(m_exec); }
  // Waits for the stop event, then returns the elapsed device time in milliseconds.
  double elapsed_ms() const { return portasim::elapsed_ms(m_start, m_stop); }
  const ExecutionSpace& instance() const noexcept { return m_exec; }

 private:
  ExecutionSpace m_exec;
  Event<ExecutionSpace> m_start;
  Event<ExecutionSpace> m_stop;
};

}  // namespace portasim
