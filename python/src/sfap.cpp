// portasim.sfap: MyoGen's calc_sfaps (with shift_sfaps and calc_muap when delays are on) on
// NumPy or CuPy arrays, through the job's validation and options and sfap::compute on the
// package's instance. CuPy inputs and results stay on the device.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <utility>

#include "arrays.hpp"
#include "bindings.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/job.hpp"

namespace portasim::python {

namespace {

using Matrix = const double**;
using Vector = const double*;

// The options of a call as a job spec: the same checks and messages as `portasim sfap`.
sfap::Options options_of(const py::dict& o, std::size_t fibers, std::size_t electrodes) {
  sfap::HostInputs scalars;  // the motor unit's attributes; its arrays stay with the caller
  scalars.n_fibers = fibers;
  scalars.n_electrodes = electrodes;
  scalars.right_mm = o["muscle_length_mm"].cast<double>();
  scalars.dt_s = o["dt_s"].cast<double>();
  scalars.dz_mm = o["dz_mm"].cast<double>();
  scalars.min_radial_dist_mm = o["min_radial_dist_mm"].cast<double>();  // NaN: mean diameter
  sfap::JobSpec spec;
  spec.dz_mm = scalars.dz_mm;  // validated by name (--dz) before anything runs
  spec.inputs = scalars;
  spec.delays = o["delays"].cast<bool>();
  spec.corrected_source = o["corrected_source"].cast<bool>();
  spec.dz_weighted = o["dz_weighted"].cast<bool>();
  spec.jitter_sd_ms = o["jitter_sd_s"].cast<double>() * 1e3;
  if (spec.jitter_sd_ms > 0) spec.jitter_seed = o["jitter_seed"].cast<std::uint64_t>();
  sfap::validate(spec);
  sfap::Options options = sfap::options_of(spec, scalars);
  options.nmj_velocity_0 = o["nmj_velocity_0"].cast<double>();
  options.nmj_velocity_1 = o["nmj_velocity_1"].cast<double>();
  return options;
}

template <class View>
py::object array_or_none(const Exec& exec, const Place& place, const View& view) {
  if (view.size() == 0) return py::none();
  return output_array(exec, place, view);
}

// Arrays of the /inputs shapes, float64 and C-contiguous, all NumPy or all CuPy (checked in
// portasim/sfap.py); nerve_paths is (0, 2) without delays.
py::dict calc(const py::tuple& where, const py::object& fiber_centers, const py::object& endplate_z,
              const py::object& conduction_velocity, const py::object& diameter,
              const py::object& electrode_positions, const py::object& nerve_paths,
              const py::dict& o) {
  const Place place = Place::of(where);
  const Exec& exec = instance();
  sfap::Inputs<Memory> in;
  in.endplate_z = input_view<Vector>(exec, place, endplate_z, "endplate_z");
  in.electrode_positions =
      input_view<Matrix>(exec, place, electrode_positions, "electrode_positions");
  const sfap::Options options =
      options_of(o, in.endplate_z.extent(0), in.electrode_positions.extent(0));
  order_after_caller(exec, place);
  in.fiber_centers = input_view<Matrix>(exec, place, fiber_centers, "fiber_centers");
  in.conduction_velocity = input_view<Vector>(exec, place, conduction_velocity, "velocity");
  in.diameter = input_view<Vector>(exec, place, diameter, "diameter");
  in.nerve_paths = input_view<Matrix>(exec, place, nerve_paths, "nerve_paths");
  in.left_mm = 0;
  in.right_mm = o["muscle_length_mm"].cast<double>();
  sfap::Result<Memory> r;
  {
    py::gil_scoped_release release;
    r = sfap::compute(exec, in, options);
  }
  py::dict d;
  d["t"] = output_array(exec, place, r.t);
  d["sfaps_pre_shift"] = array_or_none(exec, place, r.sfaps_pre_shift);
  d["sfaps_post_shift"] = array_or_none(exec, place, r.sfaps_post_shift);
  d["sfaps_jittered"] = array_or_none(exec, place, r.sfaps_jittered);
  d["muap"] = array_or_none(exec, place, r.muap);
  d["delays_s"] = array_or_none(exec, place, r.delays_s);
  d["dz_mm"] = r.dz_mm;
  d["dt_s"] = r.dt_s;
  d["min_radial_dist_mm"] = r.min_radial_dist_mm;
  finish(exec, place);
  return d;
}

}  // namespace

void register_sfap(py::module_& m) { m.def("sfap_calc", &calc); }

}  // namespace portasim::python
