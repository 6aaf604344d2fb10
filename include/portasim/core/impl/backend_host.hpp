#pragma once
// Compat layer, host side: what every execution space without native streams gets.
// Host instances run their work before a dispatch returns or at the latest at fence(), so
// an event is a fence plus a timestamp, and waiting on one costs nothing further.

#include <Kokkos_Core.hpp>

#include <chrono>
#include <vector>

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
  static double elapsed_ms(const EventImpl& start, const EventImpl& stop) {
    return std::chrono::duration<double, std::milli>(stop.m_time - start.m_time).count();
  }

 private:
  std::chrono::steady_clock::time_point m_time{};
  bool m_recorded = false;
};

}  // namespace portasim::impl
