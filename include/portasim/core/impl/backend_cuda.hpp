#pragma once
// Compat layer, CUDA side: instances on streams portasim owns, CUDA events, pinned memory.
// Included only when Kokkos has CUDA enabled.

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

#include <cstdint>
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
    check_cuda(
        cudaEventCreateWithFlags(&m_event, timing ? cudaEventDefault : cudaEventDisableTiming),
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
  // A cudaStream_t that another library owns, by its handle (0: the legacy default stream).
  void record_on_native(std::uintptr_t stream) {
    check_cuda(cudaEventRecord(m_event, reinterpret_cast<cudaStream_t>(stream)), "cudaEventRecord");
    m_recorded = true;
  }
  void make_native_wait(std::uintptr_t stream) const {
    check_cuda(cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(stream), m_event, 0),
               "cudaStreamWaitEvent");
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

template <>
struct StreamKey<Kokkos::Cuda> {
  static std::uintptr_t of(const Kokkos::Cuda& exec) noexcept {
    return reinterpret_cast<std::uintptr_t>(exec.cuda_stream());
  }
};

// Runs `work` with Kokkos' device current on this host thread (a thread other than the
// one that initialized Kokkos starts on device 0).
template <class Work>
auto on_kokkos_device(Work&& work) {
  const int device = Kokkos::Cuda().cuda_device();
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) check_cuda(cudaSetDevice(device), "cudaSetDevice");
  struct Restore {
    int device;
    bool changed;
    ~Restore() {
      if (changed) cudaSetDevice(device);
    }
  } restore{current, current != device};
  return work();
}

template <>
struct MemorySpaceCapacity<Kokkos::CudaSpace> {
  static std::size_t total_bytes() { return info().second; }
  static std::size_t free_bytes() { return info().first; }

 private:
  static std::pair<std::size_t, std::size_t> info() {
    return on_kokkos_device([] {
      std::size_t free = 0, total = 0;
      check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
      return std::make_pair(free, total);
    });
  }
};

template <>
struct MemorySpaceCapacity<Kokkos::CudaUVMSpace> : MemorySpaceCapacity<Kokkos::CudaSpace> {};

// cudaMallocAsync from a pool of our own (so its statistics are ours alone): allocations
// and frees are ordered in the instance's stream, and memory freed in a stream is reused by
// later allocations in it without synchronizing. The release threshold is how much freed
// memory the pool keeps cached across synchronizations.
template <>
class StreamOrderedAllocator<Kokkos::Cuda> {
 public:
  static constexpr bool native = true;

  explicit StreamOrderedAllocator(std::size_t release_threshold) {
    on_kokkos_device([&] {
      cudaMemPoolProps properties{};
      properties.allocType = cudaMemAllocationTypePinned;
      properties.handleTypes = cudaMemHandleTypeNone;
      properties.location.type = cudaMemLocationTypeDevice;
      properties.location.id = Kokkos::Cuda().cuda_device();
      check_cuda(cudaMemPoolCreate(&m_pool, &properties), "cudaMemPoolCreate");
      std::uint64_t threshold = release_threshold;
      check_cuda(cudaMemPoolSetAttribute(m_pool, cudaMemPoolAttrReleaseThreshold, &threshold),
                 "cudaMemPoolSetAttribute(ReleaseThreshold)");
      return 0;
    });
  }
  ~StreamOrderedAllocator() {
    if (m_pool == nullptr) return;
    // Frees still queued in streams must have run before the pool goes.
    cudaDeviceSynchronize();
    cudaMemPoolDestroy(m_pool);
  }
  StreamOrderedAllocator(const StreamOrderedAllocator&) = delete;
  StreamOrderedAllocator& operator=(const StreamOrderedAllocator&) = delete;

  void* allocate(const Kokkos::Cuda& exec, std::size_t bytes) {
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, m_pool, exec.cuda_stream());
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it so that later checks do not trip on it
      return nullptr;
    }
    check_cuda(status, "cudaMallocFromPoolAsync");
    return pointer;
  }
  void deallocate(const Kokkos::Cuda& exec, void* pointer, std::size_t /*bytes*/) noexcept {
    cudaFreeAsync(pointer, exec.cuda_stream());
  }
  std::size_t reserved_bytes(std::size_t /*used_bytes*/) const {
    std::uint64_t reserved = 0;
    check_cuda(cudaMemPoolGetAttribute(m_pool, cudaMemPoolAttrReservedMemCurrent, &reserved),
               "cudaMemPoolGetAttribute(ReservedMemCurrent)");
    return static_cast<std::size_t>(reserved);
  }
  // Returns cached memory to the device once queued frees have run.
  void trim() {
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check_cuda(cudaMemPoolTrimTo(m_pool, 0), "cudaMemPoolTrimTo");
  }

 private:
  cudaMemPool_t m_pool = nullptr;
};

inline int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device
    return 0;
  }
  return count;
}

}  // namespace portasim::impl

#include "portasim/core/build_info.hpp"

namespace portasim::impl {

inline std::vector<DeviceProperties> query_cuda_devices() {
  const int count = cuda_device_count();
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
    device.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate);
    device.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    device.memory_bandwidth_gb_per_s =
        2.0 * device.memory_clock_khz * 1e3 * (device.memory_bus_width_bits / 8.0) / 1e9;
    // Free memory needs a context on the device: only the device this thread uses (the one
    // Kokkos runs on) is asked, so that `info` does not take a context on every GPU of a
    // shared node. 0 means not queried.
    int current = 0;
    check_cuda(cudaGetDevice(&current), "cudaGetDevice");
    if (id == current) {
      std::size_t free = 0, total = 0;
      check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
      device.free_memory_bytes = free;
    }
    devices.push_back(device);
  }
  return devices;
}

}  // namespace portasim::impl
