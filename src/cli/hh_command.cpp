// `portasim hh`: batched Hodgkin-Huxley neurons from the command line. A thin shell over
// hh::run_job: parse the options into a job spec, refuse options the run would ignore, run
// the job, print its report.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "ignored_options.hpp"
#include "interrupt.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/hh/job.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

struct HHOptions {
  hh::JobSpec spec;
  std::string amplitude = "10";  // A, or A0:A1 over the neurons
  std::string record = "spikes";
  std::string precision = "f32";
  std::string integrator = "rk4";
  std::string backend = "default";
  bool progress = false;
  bool quiet = false;
};

// "A" or "A0:A1" (a linspace over the neurons).
std::pair<double, double> parse_amplitude(const std::string& text) {
  auto parse = [&](const std::string& part) {
    char* end = nullptr;
    const double value = std::strtod(part.c_str(), &end);
    require(!part.empty() && end == part.c_str() + part.size(),
            "--amplitude '" + text + "' is not a number or a range A0:A1");
    require_finite("--amplitude", value);
    return value;
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) return {parse(text), parse(text)};
  return {parse(text.substr(0, colon)), parse(text.substr(colon + 1))};
}

// A statistic with its unit, or "none" when no neuron has it.
std::string statistic(double value, const char* unit) {
  return std::isnan(value) ? "none" : human_number(value) + unit;
}

// The figures of a finished job: one summary for one rank and many.
template <class Scalar>
void print_report(const hh::JobSpec& spec, const hh::JobReport<Scalar>& r) {
  const hh::Config& c = spec.config;
  std::cout << "portasim hh: " << r.neurons << " neurons x " << r.steps
            << " steps (T = " << human_number(c.t_ms) << " ms, dt = " << human_number(c.dt_ms)
            << " ms), " << hh::to_string(c.integrator) << ", "
            << (std::is_same_v<Scalar, float> ? "float32" : "float64") << " on "
            << r.summary.backend
            << (r.summary.ranks > 1 || mpi::active()
                    ? " x " + std::to_string(r.summary.ranks) + " MPI ranks"
                    : std::string())
            << "\n";
  std::cout << "  time " << human_number(r.summary.seconds) << " s, "
            << human_number(r.neuron_steps_per_second) << " neuron-steps/s\n";
  if (r.spikes_detected)
    std::cout << "  spikes " << r.spikes << " (threshold " << human_number(c.threshold_mv)
              << " mV), " << r.neurons_firing << " of " << r.neurons << " neurons fired, mean rate "
              << statistic(r.mean_rate_hz, " Hz") << ", mean ISI "
              << statistic(r.mean_isi_ms, " ms") << ", mean ISI CV " << statistic(r.mean_isi_cv, "")
              << "\n";
  for (const std::string& warning : r.summary.warnings)
    std::cout << "  warning: " << warning << "\n";
  std::cout << "  wrote " << r.summary.output_path << "\n";
}

template <class Scalar, class ExecutionSpace>
int run_hh(const ExecutionSpace& exec, const HHOptions& o) {
  JobContext context;
  context.comm = mpi::Communicator::world();  // under mpirun: the neurons split over the ranks
  context.guard_temporary = [](const std::string& path) {  // no resume: nothing to keep
    return std::static_pointer_cast<void>(std::make_shared<RemoveOnInterrupt>(path));
  };
  const hh::Config& c = o.spec.config;
  const double neuron_steps = static_cast<double>(c.neurons) * (c.t_ms / c.dt_ms);
  if (o.progress || (isatty(STDERR_FILENO) && neuron_steps >= 5e9 && !o.quiet))
    context.progress = progress_printer("hh");
  const auto report = hh::run_job<Scalar>(exec, o.spec, context);
  if (!o.quiet && context.comm.is_root()) print_report(o.spec, report);
  return 0;
}

}  // namespace

// Options the run would ignore, refused with the option that makes them meaningless.
void refuse_ignored_options(const CLI::App& c, const HHOptions& o) {
  if (o.record == "spikes" || o.record == "none")
    refuse_if_given(c, "--every",
                    "with --record " + o.record + ": it thins the traces of --record v or all");
  if (o.record == "none")
    for (const char* option : {"--threshold-mv", "--max-spikes"})
      refuse_if_given(c, option, "with --record none: no spikes are detected");
  if (o.integrator != "rk45")
    for (const char* option : {"--rtol", "--atol"})
      refuse_if_given(c, option,
                      "with --integrator " + o.integrator + ": only rk45 adapts its step");
  if (c.count("--pulse-period-ms") == 0)
    refuse_if_given(c, "--pulse-width-ms", "without --pulse-period-ms (no pulse train)");
  if (!o.spec.stimulus_file.empty())
    for (const char* option : {"--amplitude", "--step-on-ms", "--step-off-ms", "--pulse-period-ms",
                               "--pulse-width-ms", "--ramp-per-ms", "--noise-sd", "--seed"})
      refuse_if_given(c, option, "with --stimulus-file: the stimulus comes from the file");
}

// The spec's parts that the options give indirectly: names, ranges and given flags.
void complete_spec(const CLI::App& c, HHOptions& o) {
  hh::Config& config = o.spec.config;
  config.integrator = hh::integrator_named(o.integrator);
  hh::set_record(config, o.record);
  if (o.spec.stimulus_file.empty())
    std::tie(o.spec.generated.amplitude_first, o.spec.generated.amplitude_last) =
        parse_amplitude(o.amplitude);
  o.spec.fields_set.clear();
  for (hh::NeuronField f : hh::all_neuron_fields)
    if (c.count(hh::option_of(f)) > 0) o.spec.fields_set.push_back(f);
}

void add_hh_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<HHOptions>();
  hh::Config& config = o->spec.config;
  hh::GeneratedStimulus& g = o->spec.generated;
  config.neurons = 1000;
  o->spec.output_path = "hh.h5";
  auto* c = app.add_subcommand("hh", "Batched Hodgkin-Huxley neurons (RK4, one neuron per thread)");
  auto option = [c](const std::string& name, auto& value, const std::string& help) {
    return c->add_option(name, value, help)->capture_default_str();
  };
  option("--neurons", config.neurons, "Number of neurons (> 0)");
  option("--t-ms", config.t_ms, "Simulated time T in ms");
  option("--dt-ms", config.dt_ms, "Time step in ms; n_steps = round(T/dt)");
  option("--amplitude", o->amplitude,
         "DC amplitude in uA/cm^2: A, or A0:A1 spread over the neurons");
  option("--step-on-ms", g.step_on_ms, "Current switches on at this time");
  c->add_option("--step-off-ms", g.step_off_ms,
                "Current switches off at this time (default: never)");
  option("--pulse-period-ms", g.pulse_period_ms, "Pulse train period (0: no train)");
  option("--pulse-width-ms", g.pulse_width_ms, "Pulse width within each period");
  option("--ramp-per-ms", g.ramp_per_ms, "Linear ramp added after step-on, uA/cm^2 per ms");
  option("--noise-sd", g.noise_sd, "Gaussian current noise per step, uA/cm^2");
  c->add_option("--stimulus-file", o->spec.stimulus_file,
                "HDF5 file with the stimulus (dataset /stimulus, or FILE.h5:/dataset): 1-D shared, "
                "or 2-D (steps, neurons)");
  c->add_option("--initial-state", o->spec.initial_state_file,
                "HDF5 file of per-neuron values: datasets v0, m0, h0, n0, capacitance, g_na, "
                "g_k, g_leak, e_na, e_k, e_leak (any subset, one value per neuron)");
  option("--v0-mv", config.initial.v0, "Initial membrane potential, mV");
  for (auto [flag, gate] : {std::pair{"--m0", &config.initial.m0},
                            {"--h0", &config.initial.h0},
                            {"--n0", &config.initial.n0}})
    c->add_option(flag, *gate, "Initial gate in [0, 1] (default: steady state at V0)");
  option("--capacitance", config.parameters.capacitance, "Membrane capacitance, uF/cm^2");
  option("--g-na", config.parameters.g_na, "Sodium conductance, mS/cm^2");
  option("--g-k", config.parameters.g_k, "Potassium conductance, mS/cm^2");
  option("--g-leak", config.parameters.g_leak, "Leak conductance, mS/cm^2");
  option("--e-na", config.parameters.e_na, "Sodium reversal potential, mV");
  option("--e-k", config.parameters.e_k, "Potassium reversal potential, mV");
  option("--e-leak", config.parameters.e_leak, "Leak reversal potential, mV");
  option("--record", o->record, "What to record")
      ->check(CLI::IsMember({"none", "v", "all", "spikes"}));
  option("--every", config.every, "Record every k-th step");
  option("--threshold-mv", config.threshold_mv, "Spike threshold (upward crossing)");
  option("--max-spikes", config.max_spikes_per_neuron,
         "Spike times stored per neuron (0: enough for 400 Hz)");
  option("--precision", o->precision, "Floating-point precision")
      ->check(CLI::IsMember({"f32", "f64"}));
  option("--integrator", o->integrator, "Time integrator")
      ->check(CLI::IsMember({"euler", "rk4", "rush-larsen", "rk45"}));
  option("--rtol", config.relative_tolerance, "rk45 relative tolerance");
  option("--atol", config.absolute_tolerance, "rk45 absolute tolerance");
  option("--seed", g.seed, "Seed of the noise");
  option("--output", o->spec.output_path, "HDF5 output file");
  option("--backend", o->backend, "Execution space: default, or one of " + enabled_backend_names());
  c->add_flag("--progress", o->progress,
              "Show progress on stderr (automatic for long runs on a terminal)");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o, c] {
    action = [o, c] {
      refuse_ignored_options(*c, *o);
      complete_spec(*c, *o);
      hh::validate(o->spec);
      return dispatch_backend(o->backend, [&](const auto& exec) {
        return o->precision == "f64" ? run_hh<double>(exec, *o) : run_hh<float>(exec, *o);
      });
    };
  });
}

}  // namespace portasim::cli
