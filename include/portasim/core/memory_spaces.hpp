#pragma once
// Where host buffers that an execution space copies into asynchronously should live:
// page-locked memory on CUDA (so device-to-host copies are truly asynchronous and reach
// PCIe speed), plain host memory elsewhere. Page-locked memory is a scarce, slow-to-allocate
// resource: allocate it once for staging and reuse it (PinnedMemoryPool caches it).

#include <Kokkos_Core.hpp>

#include <string>

#include "portasim/core/impl/backend.hpp"

namespace portasim {

template <class ExecutionSpace>
using PinnedHostSpace = typename impl::PinnedHostSpaceOf<ExecutionSpace>::type;

template <class DataType, class ExecutionSpace = Kokkos::DefaultExecutionSpace,
          class Layout = Kokkos::LayoutRight>
using PinnedHostView = Kokkos::View<DataType, Layout, PinnedHostSpace<ExecutionSpace>>;

// A page-locked host View of the given runtime extents, left uninitialized (its first use
// is normally the target of a copy).
template <class DataType, class ExecutionSpace = Kokkos::DefaultExecutionSpace,
          class Layout = Kokkos::LayoutRight, class... Extents>
PinnedHostView<DataType, ExecutionSpace, Layout> make_pinned_host_view(const std::string& label,
                                                                       Extents... extents) {
  return PinnedHostView<DataType, ExecutionSpace, Layout>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label), static_cast<std::size_t>(extents)...);
}

// A page-locked host View with the data type, layout and extents of `view` (uninitialized),
// the target/source of pinned transfers of `view` on instances of `ExecutionSpace`.
template <class ExecutionSpace, class View>
Kokkos::View<typename View::non_const_data_type, typename View::array_layout,
             PinnedHostSpace<ExecutionSpace>>
pinned_host_mirror(const ExecutionSpace& /*exec*/, const View& view) {
  using result = Kokkos::View<typename View::non_const_data_type, typename View::array_layout,
                              PinnedHostSpace<ExecutionSpace>>;
  return result(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label() + "_pinned_mirror"),
                view.layout());
}

}  // namespace portasim
