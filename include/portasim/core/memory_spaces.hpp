#pragma once
// Where host buffers that an execution space copies into asynchronously should live:
// page-locked memory on CUDA (so device-to-host copies are truly asynchronous and reach
// PCIe speed), plain host memory elsewhere.

#include <Kokkos_Core.hpp>

#include "portasim/core/impl/backend.hpp"

namespace portasim {

template <class ExecutionSpace>
using PinnedHostSpace = typename impl::PinnedHostSpaceOf<ExecutionSpace>::type;

}  // namespace portasim
