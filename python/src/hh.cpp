// portasim.hh: the job of `portasim hh` (hh::run_job) with its result and traces as NumPy
// arrays; portasim/hh.py shapes them into the documented result.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "interrupt.hpp"
#include "portasim/hh/job.hpp"
#include "session.hpp"

namespace portasim::python {

namespace {

namespace hh = portasim::hh;

// The HH job with its result and traces as NumPy arrays (portasim/hh.py shapes them).
template <class Scalar>
py::dict hh_run(const portasim::hh::JobSpec& spec) {
  const Exec& exec = instance();
  hh::TraceInMemory<Scalar> traces;
  hh::JobReport<Scalar> report;
  JobContext context;
  context.progress = [](double) { stop_if_interrupted(); };  // about 20 times a run
  {
    py::gil_scoped_release release;
    report = hh::run_job<Scalar>(exec, spec, context, &traces);
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
  if (!options["amplitudes"].is_none()) {
    const auto amplitudes =
        options["amplitudes"]
            .cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
    spec.amplitudes.assign(amplitudes.data(), amplitudes.data() + amplitudes.size());
  }
  spec.output_path = options["output"].cast<std::string>();
  spec.keep_result = true;
  hh::validate(spec);
  return options["precision"].cast<std::string>() == "f64" ? hh_run<double>(spec)
                                                           : hh_run<float>(spec);
}

}  // namespace

void register_hh(py::module_& m) { m.def("hh_simulate", &hh_simulate, py::arg("options")); }

}  // namespace portasim::python
