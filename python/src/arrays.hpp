#pragma once
// The caller's arrays as Kokkos Views, and results as new arrays of the caller's kind.
// portasim/_arrays.py has checked dtype, shape, contiguity and device before a call gets
// here and passes where the call's arrays live (Place):
//  - NumPy arrays on a host backend are viewed where they are (no copy);
//  - CuPy arrays on the CUDA backend are viewed where they are, after the caller's current
//    stream: the call's work on the package's instance starts once the work the caller
//    queued before it has finished, and work the caller queues after the call starts once
//    the call's work has finished. The host never waits for the device;
//  - NumPy arrays on the CUDA backend are copied to the device and results back.
// Results are copied into arrays that NumPy or CuPy allocate, so their lifetime is the
// caller's business and never outlives Kokkos' memory.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portasim/core/ordering.hpp"
#include "session.hpp"

namespace portasim::python {

using Memory = Exec::memory_space;

// Whether the backend's memory is the host's (NumPy arrays are then viewed in place).
inline constexpr bool host_memory =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;

// Where a call's arrays live: NumPy (host) or CuPy (device), and for CuPy the caller's
// current CUDA stream (its native handle; 0 is the legacy default stream).
struct Place {
  bool device = false;
  std::uintptr_t stream = 0;

  static Place of(const py::tuple& where) {
    return {where[0].cast<bool>(), where[1].cast<std::uintptr_t>()};
  }
};

// Where the array's first element is: CuPy's __cuda_array_interface__, NumPy's buffer.
inline std::uintptr_t address_of(const py::handle& array, bool device) {
  if (device)
    return array.attr("__cuda_array_interface__")["data"]
        .cast<py::tuple>()[0]
        .cast<std::uintptr_t>();
  return reinterpret_cast<std::uintptr_t>(py::reinterpret_borrow<py::array>(array).data());
}

inline std::vector<std::size_t> shape_of(const py::handle& array) {
  std::vector<std::size_t> shape;
  for (const py::handle extent : array.attr("shape").cast<py::tuple>())
    shape.push_back(extent.cast<std::size_t>());
  return shape;
}

template <class DataType, class Space>
using ViewOver =
    Kokkos::View<DataType, Kokkos::LayoutRight, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

inline Kokkos::LayoutRight layout_of(const std::vector<std::size_t>& shape) {
  Kokkos::LayoutRight layout;
  for (std::size_t i = 0; i < shape.size(); ++i) layout.dimension[i] = shape[i];
  return layout;
}

// An unmanaged view over memory someone else owns.
template <class View>
View view_over(typename View::pointer_type data, const std::vector<std::size_t>& shape) {
  return View(data, layout_of(shape));
}

// Makes `exec` start after what the caller queued on its stream (CuPy arrays only).
inline void order_after_caller(const Exec& exec, const Place& place) {
  if (place.device) wait_for_native_stream(exec, place.stream);
}

// The caller's array in the backend's memory, as a View of DataType (double**, const
// std::uint8_t**, ...): in place where the backend can reach it, else a copy on `exec`.
template <class DataType>
Kokkos::View<DataType, Kokkos::LayoutRight, Memory> input_view(const Exec& exec, const Place& place,
                                                               const py::handle& array,
                                                               const char* label) {
  using Result = Kokkos::View<DataType, Kokkos::LayoutRight, Memory>;
  using Value = typename Result::value_type;
  const std::vector<std::size_t> shape = shape_of(array);
  auto* data = reinterpret_cast<Value*>(address_of(array, place.device));
  if (place.device || host_memory) return view_over<ViewOver<DataType, Memory>>(data, shape);
  using Copy = Kokkos::View<typename Result::non_const_data_type, Kokkos::LayoutRight, Memory>;
  Copy copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label), exec),
            layout_of(shape));
  Kokkos::deep_copy(exec, copy, view_over<ViewOver<DataType, Kokkos::HostSpace>>(data, shape));
  return copy;
}

// A new, uninitialised NumPy or CuPy array (by `place`) of `shape` and Value's dtype.
template <class Value>
py::object empty_array(const Place& place, const std::vector<std::size_t>& shape) {
  return py::module_::import(place.device ? "cupy" : "numpy")
      .attr("empty")(py::tuple(py::cast(shape)), py::dtype::of<Value>());
}

// A new NumPy or CuPy array (by `place`) holding `result`, copied on `exec`; finish() makes
// the copy visible to the caller.
template <class View>
py::object output_array(const Exec& exec, const Place& place, const View& result) {
  using Value = typename View::non_const_value_type;
  std::vector<std::size_t> shape;
  for (unsigned i = 0; i < static_cast<unsigned>(View::rank); ++i)
    shape.push_back(result.extent(i));
  py::object array = empty_array<Value>(place, shape);
  if (result.size() == 0) return array;
  auto* data = reinterpret_cast<Value*>(address_of(array, place.device));
  using Target = typename View::non_const_data_type;
  if (place.device)
    Kokkos::deep_copy(exec, view_over<ViewOver<Target, Memory>>(data, shape), result);
  else Kokkos::deep_copy(exec, view_over<ViewOver<Target, Kokkos::HostSpace>>(data, shape), result);
  return array;
}

// A new result array of the call's kind and the View the library writes it through. Where
// the backend reaches the caller's memory (CuPy on a device backend, NumPy on a host one)
// NumPy or CuPy allocates the array and the View is the array itself, so the library's
// kernel writes the result once; NumPy arrays on a device backend get a device View that
// array() copies into a new NumPy array (output_array). That View, like the device copies
// of NumPy inputs, may go before finish(): Kokkos frees device memory only once the
// device's work is done (the free synchronizes).
template <class DataType>
class ResultArray {
 public:
  using View = Kokkos::View<DataType, Kokkos::LayoutRight, Memory>;
  using Value = typename View::value_type;

  ResultArray(const Exec& exec, const Place& place, const std::vector<std::size_t>& shape,
              const char* label) {
    if (place.device || host_memory) {
      m_array = empty_array<Value>(place, shape);
      m_view = view_over<ViewOver<DataType, Memory>>(
          reinterpret_cast<Value*>(address_of(m_array, place.device)), shape);
    } else {
      m_view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label), exec),
                    layout_of(shape));
    }
  }
  const View& view() const { return m_view; }
  // The result for the caller, once the library's call is enqueued.
  py::object array(const Exec& exec, const Place& place) const {
    return m_array ? m_array : output_array(exec, place, m_view);
  }

 private:
  py::object m_array;
  View m_view;
};

// The end of a call: NumPy results are complete when it returns; for CuPy results the
// caller's stream is made to wait for the call's work instead of the host.
inline void finish(const Exec& exec, const Place& place) {
  if (place.device) {
    make_native_stream_wait(place.stream, exec);
  } else {
    py::gil_scoped_release release;
    exec.fence();
  }
}

}  // namespace portasim::python
