// portasim._portasim: the compiled part of the Python package. It runs the library's jobs
// (hh::run_job, life::run_job) on NumPy arrays; the Python modules in python/portasim/ give
// them the documented signatures. Kokkos comes up on first use and goes down at interpreter
// exit. The GIL is released while a job runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "portasim/core/build_info.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/runtime.hpp"
#include "portasim/hh/job.hpp"
#include "portasim/life/job.hpp"
#include "portasim/sfap/job.hpp"

namespace py = pybind11;

namespace {

using Exec = Kokkos::DefaultExecutionSpace;

// The runtime and the instance every job runs on (never the default instance, which up to
// Kokkos 3.7 serializes every other CUDA stream). Members go in reverse: the pool first.
struct Session {
  portasim::Runtime runtime;
  portasim::InstancePool<Exec> pool{1};
};

std::unique_ptr<Session>& session_slot() {
  static std::unique_ptr<Session> session;
  return session;
}
bool ended = false;  // Kokkos cannot come up again once it went down

const Exec& instance() {
  auto& session = session_slot();
  if (!session) {
    if (ended)
      throw std::runtime_error("portasim: the Kokkos runtime has ended (interpreter exit)");
    session = std::make_unique<Session>();
    py::module_::import("atexit").attr("register")(py::cpp_function([] {
      session_slot().reset();
      ended = true;
    }));
  }
  return session->pool[0];
}

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
  return d;
}

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

// The same, or None for an empty view (a result the options did not ask for).
template <class View>
py::object array_or_none(const View& view) {
  if (view.size() == 0) return py::none();
  return array_of(view);
}

// Generations of a 2-D C-contiguous uint8 grid of 0/1 (checked in portasim/life.py).
py::array_t<std::uint8_t> life_step(const py::array_t<std::uint8_t, py::array::c_style>& grid,
                                    std::int64_t generations, const std::string& boundary,
                                    const std::string& engine) {
  namespace life = portasim::life;
  life::JobSpec spec;
  spec.config.height = grid.shape(0);
  spec.config.width = grid.shape(1);
  spec.config.steps = generations;
  spec.config.chunk_size = generations > 0 ? generations : 1;  // nothing is recorded
  spec.config.boundary = boundary == "dead" ? life::Boundary::dead : life::Boundary::torus;
  spec.config.engine = engine == "bits" ? life::Engine::bits : life::Engine::bytes;
  spec.output_path.clear();
  spec.keep_final_grid = true;
  life::HostGrid initial{spec.config.height, spec.config.width, {}};
  initial.cells.assign(grid.data(), grid.data() + grid.size());
  spec.initial_grid = std::move(initial);
  const Exec& exec = instance();
  life::JobReport report;
  {
    py::gil_scoped_release release;
    report = life::run_job(exec, spec);
  }
  return array_of(report.final_grid->cells.data(), {static_cast<py::ssize_t>(spec.config.height),
                                                    static_cast<py::ssize_t>(spec.config.width)});
}

// The HH job with its result and traces as NumPy arrays (portasim/hh.py shapes them).
template <class Scalar>
py::dict hh_run(const portasim::hh::JobSpec& spec) {
  namespace hh = portasim::hh;
  const Exec& exec = instance();
  hh::TraceInMemory<Scalar> traces;
  hh::JobReport<Scalar> report;
  {
    py::gil_scoped_release release;
    report = hh::run_job<Scalar>(exec, spec, {}, &traces);
  }
  const auto& r = report.result;
  py::dict d;
  const std::vector<py::ssize_t> trace_shape{traces.samples, traces.neurons};
  for (auto [name, values] :
       {std::pair{"v", &traces.v}, {"m", &traces.m}, {"h", &traces.h}, {"n", &traces.n}})
    d[(std::string("trace_") + name).c_str()] =
        values->empty() ? py::object(py::none())
                        : py::object(array_of(values->data(), trace_shape));
  d["final_v"] = array_of(r.v);
  d["final_m"] = array_of(r.m);
  d["final_h"] = array_of(r.h);
  d["final_n"] = array_of(r.n);
  d["spike_count"] = array_of(r.spike_count);
  d["spike_offsets"] = array_of(r.spike_offsets);
  d["spike_times"] = array_of(r.spike_times);
  d["firing_rate_hz"] = array_of(r.firing_rate_hz);
  d["mean_isi_ms"] = array_of(r.mean_isi_ms);
  d["isi_cv"] = array_of(r.isi_cv);
  d["steps"] = report.steps;
  d["samples"] = traces.samples;
  d["spikes_dropped"] = report.spikes_dropped;
  d["seconds"] = report.summary.seconds;
  d["neuron_steps_per_second"] = report.neuron_steps_per_second;
  d["warnings"] = report.summary.warnings;
  return d;
}

py::dict hh_simulate(const py::dict& options) {
  namespace hh = portasim::hh;
  hh::JobSpec spec;
  hh::Config& c = spec.config;
  hh::GeneratedStimulus& g = spec.generated;
  c.neurons = options["neurons"].cast<std::int64_t>();
  c.t_ms = options["t_ms"].cast<double>();
  c.dt_ms = options["dt_ms"].cast<double>();
  c.every = options["every"].cast<int>();
  hh::set_record(c, options["record"].cast<std::string>());
  c.integrator = hh::integrator_named(options["integrator"].cast<std::string>());
  c.threshold_mv = options["threshold_mv"].cast<double>();
  c.max_spikes_per_neuron = options["max_spikes"].cast<int>();
  g.amplitude_first = options["amplitude_first"].cast<double>();
  g.amplitude_last = options["amplitude_last"].cast<double>();
  g.step_on_ms = options["step_on_ms"].cast<double>();
  g.step_off_ms = options["step_off_ms"].cast<double>();
  g.pulse_period_ms = options["pulse_period_ms"].cast<double>();
  g.pulse_width_ms = options["pulse_width_ms"].cast<double>();
  g.ramp_per_ms = options["ramp_per_ms"].cast<double>();
  g.noise_sd = options["noise_sd"].cast<double>();
  g.seed = options["seed"].cast<std::uint64_t>();
  spec.output_path = options["output"].cast<std::string>();
  spec.keep_result = true;
  hh::validate(spec);
  return options["precision"].cast<std::string>() == "f64" ? hh_run<double>(spec)
                                                           : hh_run<float>(spec);
}

using Doubles = py::array_t<double, py::array::c_style>;

std::vector<double> values_of(const Doubles& array) {
  return std::vector<double>(array.data(), array.data() + array.size());
}

// MyoGen's calc_sfaps (and shift_sfaps, calc_muap with delays) on float64 arrays of the
// /inputs shapes (checked in portasim/sfap.py), as `portasim sfap` computes them.
py::dict sfap_calc(const Doubles& fiber_centers, const Doubles& endplate_z,
                   const Doubles& conduction_velocity, const Doubles& diameter,
                   const Doubles& electrode_positions, const Doubles& nerve_paths,
                   const py::dict& o) {
  namespace sfap = portasim::sfap;
  sfap::HostInputs in;
  in.n_fibers = static_cast<std::size_t>(endplate_z.size());
  in.n_electrodes = static_cast<std::size_t>(electrode_positions.size() / 3);
  in.fiber_centers = values_of(fiber_centers);
  in.endplate_z = values_of(endplate_z);
  in.conduction_velocity = values_of(conduction_velocity);
  in.diameter = values_of(diameter);
  in.nerve_paths = values_of(nerve_paths);
  in.electrode_positions = values_of(electrode_positions);
  in.left_mm = 0;
  in.right_mm = o["muscle_length_mm"].cast<double>();
  in.dt_s = o["dt_s"].cast<double>();
  in.fs_hz = 1.0 / in.dt_s;
  in.dz_mm = o["dz_mm"].cast<double>();
  in.min_radial_dist_mm = o["min_radial_dist_mm"].cast<double>();  // NaN: the mean diameter
  sfap::JobSpec spec;
  spec.dz_mm = in.dz_mm;  // validated by name (--dz) before anything runs
  spec.inputs = std::move(in);
  spec.delays = o["delays"].cast<bool>();
  spec.corrected_source = o["corrected_source"].cast<bool>();
  spec.dz_weighted = o["dz_weighted"].cast<bool>();
  spec.jitter_sd_ms = o["jitter_sd_s"].cast<double>() * 1e3;
  if (spec.jitter_sd_ms > 0) spec.jitter_seed = o["jitter_seed"].cast<std::uint64_t>();
  spec.keep_result = true;
  sfap::validate(spec);
  const Exec& exec = instance();
  sfap::JobReport report;
  {
    py::gil_scoped_release release;
    report = sfap::run_job(exec, spec);
  }
  const auto& r = report.result;
  py::dict d;
  d["t"] = array_of(r.t);
  d["sfaps_pre_shift"] = array_or_none(r.sfaps_pre_shift);
  d["sfaps_post_shift"] = array_or_none(r.sfaps_post_shift);
  d["sfaps_jittered"] = array_or_none(r.sfaps_jittered);
  d["muap"] = array_or_none(r.muap);
  d["delays_s"] = array_of(r.delays_s);
  d["dz_mm"] = r.dz_mm;
  d["min_radial_dist_mm"] = r.min_radial_dist_mm;
  d["seconds"] = report.summary.seconds;
  d["warnings"] = report.summary.warnings;
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
  m.def("life_step", &life_step, py::arg("grid"), py::arg("generations"), py::arg("boundary"),
        py::arg("engine"));
  m.def("hh_simulate", &hh_simulate, py::arg("options"));
  m.def("sfap_calc", &sfap_calc);
}
