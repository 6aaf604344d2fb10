#pragma once
// Ordering between instances (the role of stream.wait_event): work enqueued on `consumer`
// after the call starts only once everything enqueued on `producer` so far has finished.
// The host is never blocked when both are instances of the same device space.

#include <Kokkos_Core.hpp>

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

}  // namespace portasim
