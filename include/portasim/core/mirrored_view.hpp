#pragma once
// A device View with a host mirror and explicit modify/sync (a thin wrapper of
// Kokkos::DualView), for data that is mostly on the device but read or edited on the host.
//
// Protocol: after writing one side, call modify_host() or modify_device(); before reading
// the other side, call sync_host(exec) / sync_device(exec) and fence `exec`.
// Pitfalls this wrapper guards against or documents:
// - A sync copies the WHOLE view, whatever was modified: edit on one side in batches, and
//   for partial updates copy a subview yourself (portasim::copy) instead.
// - Modifying both sides without a sync in between cannot be merged; Kokkos >= 4.7 aborts
//   on it and older releases silently lose one side. Here it is a portasim::Error on every
//   backend (also where host and device share memory and DualView does not track it).
// - The host side is pageable memory (DualView's HostMirror); for transfers at PCIe speed
//   use pinned_host_mirror() with portasim::copy.

#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <string>

#include "portasim/core/error.hpp"

namespace portasim {

template <class DataType, class ExecutionSpace = Kokkos::DefaultExecutionSpace,
          class Layout = Kokkos::LayoutRight>
class MirroredView {
 public:
  using dual_view_type = Kokkos::DualView<DataType, Layout, typename ExecutionSpace::device_type>;
  using device_view_type = typename dual_view_type::t_dev;
  using host_view_type = typename dual_view_type::t_host;

  MirroredView() = default;
  template <class... Extents>
  explicit MirroredView(const std::string& label, Extents... extents)
      : m_dual(label, static_cast<std::size_t>(extents)...) {}

  const device_view_type& device_view() const noexcept { return m_dual.d_view; }
  const host_view_type& host_view() const noexcept { return m_dual.h_view; }
  // For interoperation (read-only: flags changed behind this wrapper's back are not seen).
  const dual_view_type& dual_view() const noexcept { return m_dual; }

  void modify_host() {
    require(m_state != State::device_modified,
            conflict("modify_host()", "device", "sync_host(exec)"));
    m_state = State::host_modified;
    m_dual.modify_host();
  }
  void modify_device() {
    require(m_state != State::host_modified,
            conflict("modify_device()", "host", "sync_device(exec)"));
    m_state = State::device_modified;
    m_dual.modify_device();
  }

  // Enqueues the copy device -> host on `exec` when the device side was modified.
  void sync_host(const ExecutionSpace& exec) {
    if (m_state != State::device_modified) return;
    m_dual.sync_host(exec);
    m_state = State::in_sync;
  }
  // Enqueues the copy host -> device on `exec` when the host side was modified.
  void sync_device(const ExecutionSpace& exec) {
    if (m_state != State::host_modified) return;
    m_dual.sync_device(exec);
    m_state = State::in_sync;
  }

  bool need_sync_host() const noexcept { return m_state == State::device_modified; }
  bool need_sync_device() const noexcept { return m_state == State::host_modified; }

 private:
  enum class State { in_sync, host_modified, device_modified };

  std::string conflict(const char* call, const char* other, const char* fix) const {
    return "MirroredView '" + m_dual.d_view.label() + "': " + call + " while the " + other +
           " side holds changes not synced yet; call " + fix +
           " first (changes on both sides cannot be merged; Kokkos >= 4.7 aborts here)";
  }

  dual_view_type m_dual;
  State m_state = State::in_sync;
};

}  // namespace portasim
