#pragma once
// Host <-> device copies on an instance (cupy.asarray / ndarray.get with a stream).
// copy(exec, dst, src) enqueues the whole copy on `exec` and returns; read the target only
// after exec.fence() or an event recorded after it. Speed and overlap depend on the host
// side (see memory_spaces.hpp):
// - pinned (PinnedHostView, pinned_host_mirror, PinnedMemoryPool): DMA at PCIe speed,
//   asynchronous to the host, overlaps kernels on other instances;
// - pageable (plain HostSpace Views): the CUDA driver stages it through its own pinned
//   buffer, several times slower, and a device-to-host copy returns only when done.
// Unlike Kokkos::deep_copy, a mismatch of extents or a non-contiguous view is a
// portasim::Error naming both views, not an abort.

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#include "portasim/core/error.hpp"

namespace portasim {

namespace impl {

template <class View>
std::string describe_view(const View& view) {
  std::string text = "'" + view.label() + "' (";
  for (unsigned r = 0; r < View::rank; ++r)
    text += (r ? " x " : "") + std::to_string(view.extent(r));
  return text + ", " + View::memory_space::name() + ")";
}

}  // namespace impl

template <class ExecutionSpace, class Destination, class Source>
void copy(const ExecutionSpace& exec, const Destination& destination, const Source& source) {
  static_assert(unsigned(Destination::rank) == unsigned(Source::rank),
                "copy needs views of the same rank");
  static_assert(std::is_same<typename Destination::non_const_value_type,
                             typename Source::non_const_value_type>::value,
                "copy needs views of the same value type");
  // Messages only on failure: a View's label lives in device memory on CUDA, and reading it
  // is a blocking copy that would make every transfer wait for the device.
  const auto refuse = [&](const char* why) {
    require(false, "copy from " + impl::describe_view(source) + " to " +
                       impl::describe_view(destination) + ": " + why);
  };
  for (unsigned r = 0; r < Source::rank; ++r)
    if (destination.extent(r) != source.extent(r)) refuse("extents differ");
  if (!destination.span_is_contiguous() || !source.span_is_contiguous())
    refuse("both views must be contiguous (copy a contiguous temporary instead)");
  if (Source::rank > 1 &&
      !std::is_same<typename Destination::array_layout, typename Source::array_layout>::value)
    refuse("the layouts differ (a transposing copy is not a transfer)");
  Kokkos::deep_copy(exec, destination, source);
}

// Kokkos::create_mirror_view_and_copy(HostSpace(), source) on an instance: `source` itself
// where its memory is the host's, else a new host view (labelled `label`: reading a device
// view's own label is a blocking copy) filled by a copy on `exec`. Returns after
// exec.fence(), so the data can be read. Kokkos 3.4's takes no instance, and without one
// Kokkos fences every instance of the device, even where it copies nothing.
template <class ExecutionSpace, class View>
typename View::HostMirror host_mirror_and_copy(const ExecutionSpace& exec, const View& source,
                                               const std::string& label = "portasim::host_mirror") {
  using Mirror = typename View::HostMirror;
  Mirror mirror;
  if constexpr (std::is_same<typename Mirror::memory_space, typename View::memory_space>::value) {
    mirror = source;
  } else {
    typename Mirror::non_const_type copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                         source.layout());
    Kokkos::deep_copy(exec, copy, source);
    mirror = copy;
  }
  exec.fence();
  return mirror;
}

}  // namespace portasim
