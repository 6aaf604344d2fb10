// portasim._portasim: the compiled part of the Python package. Each part (life.cpp, hh.cpp,
// sfap.cpp, toolkit.cpp) runs the library on NumPy arrays, or on CuPy arrays in a CUDA build
// (arrays.hpp); the Python modules in python/portasim/ check the arguments and give the
// documented signatures. Kokkos comes up on first use and goes down at interpreter exit
// (session.hpp). The GIL is released while the library works.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "portasim/core/build_info.hpp"
#include "portasim/core/error.hpp"
#include "session.hpp"

namespace py = pybind11;

namespace {

using portasim::python::instance;

py::dict info() {
  instance();
  const portasim::BuildInfo b = portasim::build_info();
  py::list devices;
  for (const portasim::DeviceProperties& d : portasim::device_properties()) {
    py::dict device;
    device["id"] = d.id;
    device["name"] = d.name;
    device["memory_bytes"] = d.total_memory_bytes;
    device["compute_capability"] = std::to_string(d.compute_capability_major) + "." +
                                   std::to_string(d.compute_capability_minor);
    devices.append(device);
  }
  py::dict host;
  host["cpu"] = b.host.cpu_model;
  host["threads"] = b.host.hardware_threads;
  py::dict d;
  d["version"] = b.portasim_version;
  d["kokkos"] = b.kokkos_version;
  d["kokkos_kernels"] = b.kokkos_kernels_version;
  d["backends"] = b.backends;
  d["default_backend"] = b.default_backend;
  d["threads"] = b.host_concurrency;
  d["device"] = b.active_device;
  d["devices"] = devices;
  d["host"] = host;
  d["mpi"] = b.mpi;
  d["cpu_arch"] = b.cpu.arch;
  d["cpu_required"] = b.cpu.required;
  d["host_blas"] = b.host_blas;
  return d;
}

}  // namespace

PYBIND11_MODULE(_portasim, m) {
  m.doc() = "portasim's compiled core; use the portasim package";
  // portasim::Error by kind: what a Python caller expects for each.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const portasim::Error& e) {
      switch (e.kind()) {
        case portasim::ErrorKind::invalid_argument:
          PyErr_SetString(PyExc_ValueError, e.what());
          break;
        case portasim::ErrorKind::io: PyErr_SetString(PyExc_OSError, e.what()); break;
        case portasim::ErrorKind::out_of_memory:
          PyErr_SetString(PyExc_MemoryError, e.what());
          break;
        default: PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });
  m.def("info", &info, "Backends, devices and versions");
  m.def(
      "device_arrays", [] { return !portasim::python::host_memory; },
      "Whether this build runs on a GPU and takes CuPy arrays");
  portasim::python::register_life(m);
  portasim::python::register_hh(m);
  portasim::python::register_sfap(m);
  portasim::python::register_toolkit(m);
}
