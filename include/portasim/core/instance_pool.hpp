#pragma once
// A pool of independent execution-space instances, the portable form of a set of CUDA
// streams. On CUDA each instance runs on a non-blocking stream the pool owns; on host
// spaces the instances are valid but need not run concurrently.
// Instances copied out of the pool stay usable only while the pool lives.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend.hpp"

namespace portasim {

template <class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class InstancePool {
 public:
  explicit InstancePool(int count) {
    require(count > 0, "InstancePool needs at least one instance, got " + std::to_string(count));
    m_instances = m_factory.create(count);
  }
  ~InstancePool() {
    fence_all();
    m_instances.clear();
    m_factory.release();
  }
  InstancePool(const InstancePool&) = delete;
  InstancePool& operator=(const InstancePool&) = delete;

  int size() const noexcept { return static_cast<int>(m_instances.size()); }
  const ExecutionSpace& operator[](int i) const {
    require(i >= 0 && i < size(), "InstancePool index " + std::to_string(i) + " out of range [0, " +
                                      std::to_string(size()) + ")");
    return m_instances[static_cast<std::size_t>(i)];
  }
  void fence_all() const {
    for (const auto& exec : m_instances) exec.fence();
  }

 private:
  impl::InstanceFactory<ExecutionSpace> m_factory;
  std::vector<ExecutionSpace> m_instances;
};

}  // namespace portasim
