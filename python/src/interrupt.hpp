#pragma once
// Ctrl-C during a call. A job runs with the GIL released, so Python's SIGINT handler only
// sets a flag; the job's chunk and progress hooks call stop_if_interrupted(), which runs the
// pending handlers on the main thread. When one raises (KeyboardInterrupt by default) the
// job unwinds from that hook as from the command line's cooperative stop: a Life run keeps
// every chunk written so far, an HDF5 output that was not complete is removed. The Python
// exception reaches the caller unchanged.

#include <pybind11/pybind11.h>

namespace portasim::python {

inline void stop_if_interrupted() {
  pybind11::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

}  // namespace portasim::python
