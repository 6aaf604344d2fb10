#pragma once
// Ordering between instances (the role of stream.wait_event): work enqueued on `consumer`
// after the call starts only once everything enqueued on `producer` so far has finished.
// The host is never blocked when both are instances of the same device space.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "portasim/core/event.hpp"

namespace portasim {

template <class Consumer, class Producer>
void wait_for(const Consumer& consumer, const Producer& producer) {
  if constexpr (std::is_same_v<Consumer, Producer>) {
    Event<Producer> marker(/*timing=*/false);
    marker.record(producer);
    marker.make_wait(consumer);
  } else {
    // Different spaces share no queue: the only portable order is a host-side fence.
    producer.fence();
  }
}

// Ordering with a queue that another library owns, by its native handle (CuPy's
// `cupy.cuda.get_current_stream().ptr`; 0 is CUDA's legacy default stream): how a caller's
// arrays are handed over without a host synchronisation. Work enqueued on `exec` after
// wait_for_native_stream starts only once the caller's queued work has finished; work the
// caller enqueues after make_native_stream_wait starts only once `exec`'s has. Host instances
// run in order with the host: both are no-ops there.
template <class ExecutionSpace>
void wait_for_native_stream(const ExecutionSpace& exec, std::uintptr_t stream) {
  Event<ExecutionSpace> marker(/*timing=*/false);
  marker.record_on_native_stream(stream);
  marker.make_wait(exec);
}

template <class ExecutionSpace>
void make_native_stream_wait(std::uintptr_t stream, const ExecutionSpace& exec) {
  Event<ExecutionSpace> marker(/*timing=*/false);
  marker.record(exec);
  marker.make_native_stream_wait(stream);
}

}  // namespace portasim
