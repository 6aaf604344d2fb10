#pragma once
// Compat layer, CUDA side: instances on streams portasim owns, CUDA events, pinned memory.
// Included only when Kokkos has CUDA enabled.

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend_host.hpp"

namespace portasim::impl {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  const ErrorKind kind =
      status == cudaErrorMemoryAllocation ? ErrorKind::out_of_memory : ErrorKind::backend;
  throw_error(kind, std::string(what) + " failed: " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ")");
}

template <>
struct PinnedHostSpaceOf<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};

// Non-blocking streams: they do not serialize against the legacy default stream, on which
// Kokkos up to 3.7 runs work of the default instance.
template <>
class InstanceFactory<Kokkos::Cuda> {
 public:
  std::vector<Kokkos::Cuda> create(int count) {
    std::vector<Kokkos::Cuda> instances;
    instances.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      cudaStream_t stream = nullptr;
      check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
      m_streams.push_back(stream);
      instances.emplace_back(stream);
    }
    return instances;
  }
  // Called after every Kokkos::Cuda built on these streams is gone: Kokkos does not own
  // streams handed to it.
  void release() noexcept {
    for (cudaStream_t stream : m_streams) cudaStreamDestroy(stream);
    m_streams.clear();
  }

 private:
  std::vector<cudaStream_t> m_streams;
};

template <>
class EventImpl<Kokkos::Cuda> {
 public:
  explicit EventImpl(bool timing = true) {
    check_cuda(cudaEventCreateWithFlags(&m_event, timing ? cudaEventDefault : cudaEventDisableTiming),
               "cudaEventCreate");
  }
  ~EventImpl() {
    if (m_event) cudaEventDestroy(m_event);
  }
  EventImpl(const EventImpl&) = delete;
  EventImpl& operator=(const EventImpl&) = delete;
  EventImpl(EventImpl&& other) noexcept : m_event(other.m_event), m_recorded(other.m_recorded) {
    other.m_event = nullptr;
  }
  EventImpl& operator=(EventImpl&& other) noexcept {
    std::swap(m_event, other.m_event);
    std::swap(m_recorded, other.m_recorded);
    return *this;
  }

  void record(const Kokkos::Cuda& exec) {
    check_cuda(cudaEventRecord(m_event, exec.cuda_stream()), "cudaEventRecord");
    m_recorded = true;
  }
  bool recorded() const noexcept { return m_recorded; }
  void synchronize() const { check_cuda(cudaEventSynchronize(m_event), "cudaEventSynchronize"); }
  bool query() const {
    const cudaError_t status = cudaEventQuery(m_event);
    if (status == cudaErrorNotReady) return false;
    check_cuda(status, "cudaEventQuery");
    return true;
  }
  void make_wait(const Kokkos::Cuda& consumer) const {
    check_cuda(cudaStreamWaitEvent(consumer.cuda_stream(), m_event, 0), "cudaStreamWaitEvent");
  }
  static double elapsed_ms(const EventImpl& start, const EventImpl& stop) {
    stop.synchronize();
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, start.m_event, stop.m_event), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  }

 private:
  cudaEvent_t m_event = nullptr;
  bool m_recorded = false;
};

}  // namespace portasim::impl

#include "portasim/core/build_info.hpp"

namespace portasim::impl {

inline std::vector<DeviceProperties> query_cuda_devices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: report none rather than fail
    return {};
  }
  std::vector<DeviceProperties> devices;
  for (int id = 0; id < count; ++id) {
    cudaDeviceProp properties{};
    check_cuda(cudaGetDeviceProperties(&properties, id), "cudaGetDeviceProperties");
    auto attribute = [id](cudaDeviceAttr which) {
      int value = 0;
      check_cuda(cudaDeviceGetAttribute(&value, which, id), "cudaDeviceGetAttribute");
      return value;
    };
    DeviceProperties device;
    device.id = id;
    device.name = properties.name;
    device.total_memory_bytes = properties.totalGlobalMem;
    device.multiprocessors = attribute(cudaDevAttrMultiProcessorCount);
    device.compute_capability_major = attribute(cudaDevAttrComputeCapabilityMajor);
    device.compute_capability_minor = attribute(cudaDevAttrComputeCapabilityMinor);
    // DDR: two transfers per clock; clock in kHz, bus width in bits.
    device.memory_bandwidth_gb_per_s = 2.0 * attribute(cudaDevAttrMemoryClockRate) * 1e3 *
                                       (attribute(cudaDevAttrGlobalMemoryBusWidth) / 8.0) / 1e9;
    devices.push_back(device);
  }
  return devices;
}

}  // namespace portasim::impl
