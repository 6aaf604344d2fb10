#pragma once
// The parts of the extension _portasim, one per module of the package, and the NumPy copies
// of host results they share.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <vector>

namespace portasim::python {

namespace py = pybind11;

void register_life(py::module_& m);
void register_hh(py::module_& m);
void register_sfap(py::module_& m);
void register_toolkit(py::module_& m);

// A new NumPy array of `shape` holding a copy of `data` (C order).
template <class T>
py::array_t<T> array_of(const T* data, const std::vector<py::ssize_t>& shape) {
  py::array_t<T> out(shape);
  if (out.size() > 0) std::memcpy(out.mutable_data(), data, out.size() * sizeof(T));
  return out;
}

// A host view (LayoutRight, any rank) as a NumPy array of its shape.
template <class View>
py::array_t<typename View::non_const_value_type> array_of(const View& view) {
  std::vector<py::ssize_t> shape;
  for (unsigned i = 0; i < static_cast<unsigned>(View::rank); ++i)
    shape.push_back(static_cast<py::ssize_t>(view.extent(i)));
  return array_of(view.data(), shape);
}

}  // namespace portasim::python
