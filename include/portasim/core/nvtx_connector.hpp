#pragma once
// Forwards Kokkos profiling regions and kernel launches to NVTX ranges so that Nsight
// Systems shows them without a separately built Kokkos tool.

namespace portasim {

// True when the connector is now active. False in builds without NVTX (no CUDA), or when a
// Kokkos tool library is already loaded (that tool keeps the callbacks).
bool enable_nvtx_connector();
bool nvtx_connector_available() noexcept;

}  // namespace portasim
