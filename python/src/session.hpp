#pragma once
// The Kokkos runtime of the Python package and the instance every call runs on. Kokkos comes
// up on the first call and goes down at interpreter exit (atexit), once: it cannot come up
// again in the same process.

#include <pybind11/pybind11.h>

#include <Kokkos_Core.hpp>

namespace portasim::python {

namespace py = pybind11;

using Exec = Kokkos::DefaultExecutionSpace;

// The instance of this process's calls: a pool instance, never the default one (which up to
// Kokkos 3.7 serializes every other CUDA stream). Starts Kokkos on first use; needs the GIL.
const Exec& instance();

}  // namespace portasim::python
