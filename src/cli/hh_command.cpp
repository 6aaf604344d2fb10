// `portasim hh`: batched Hodgkin-Huxley neurons from the command line.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "ignored_options.hpp"
#include "interrupt.hpp"
#include "portasim/core/checked_size.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/distributed/hh.hpp"
#include "portasim/hh/hdf5_output.hpp"
#include "portasim/hh/neuron_values_file.hpp"
#include "portasim/hh/simulation.hpp"
#include "portasim/hh/stimulus_file.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

struct HHOptions {
  std::int64_t neurons = 1000;
  double t_ms = 50.0;
  double dt_ms = 0.01;
  std::string amplitude = "10";
  double step_on_ms = 0.0;
  double step_off_ms = std::numeric_limits<double>::infinity();
  double pulse_period_ms = 0.0;
  double pulse_width_ms = 0.0;
  double ramp_per_ms = 0.0;
  double noise_sd = 0.0;
  std::string stimulus_file;
  std::string initial_state;  // per-neuron fields (hh::NeuronValuesFile)
  hh::Parameters parameters;  // run-wide membrane parameters and initial state (flags)
  hh::InitialState initial;
  std::vector<hh::NeuronField> fields_given;  // by their flags
  std::string record = "spikes";
  int every = 1;
  double threshold_mv = 0.0;
  int max_spikes = 0;
  std::string precision = "f32";
  std::string integrator = "rk4";
  double rtol = 1e-6;
  double atol = 1e-6;
  std::uint64_t seed = 0;
  std::string output = "hh.h5";
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
  if (colon == std::string::npos) {
    const double a = parse(text);
    return {a, a};
  }
  return {parse(text.substr(0, colon)), parse(text.substr(colon + 1))};
}

hh::Trace trace_of(const std::string& record) {
  if (record == "v") return hh::Trace::v;
  if (record == "all") return hh::Trace::all;
  return hh::Trace::none;
}

hh::Integrator integrator_of(const std::string& name) {
  if (name == "euler") return hh::Integrator::euler;
  if (name == "rush-larsen") return hh::Integrator::rush_larsen;
  if (name == "rk45") return hh::Integrator::rk45;
  return hh::Integrator::rk4;
}

// The flag of a per-neuron field's run-wide value.
const char* flag_of(hh::NeuronField field) {
  constexpr const char* flags[hh::neuron_field_count] = {
      "--v0-mv", "--m0",     "--h0",   "--n0",  "--capacitance", "--g-na",
      "--g-k",   "--g-leak", "--e-na", "--e-k", "--e-leak"};
  return flags[static_cast<int>(field)];
}

// The fields of --initial-state on this rank's neurons (all of them without MPI), in
// exec's memory space; a field also given by its flag is refused (the file would win).
template <class ExecutionSpace>
hh::NeuronValues<typename ExecutionSpace::memory_space> upload_initial_state(
    const ExecutionSpace& exec, const HHOptions& o, const mpi::Block& block,
    std::map<std::string, std::string>& attributes) {
  hh::NeuronValues<typename ExecutionSpace::memory_space> values;
  if (o.initial_state.empty()) return values;
  const hh::NeuronValuesFile file = hh::read_neuron_values_file(o.initial_state, o.neurons);
  std::string names;
  for (hh::NeuronField f : hh::all_neuron_fields) {
    if (!file.has(f)) continue;
    for (hh::NeuronField given : o.fields_given)
      require(given != f, std::string(flag_of(f)) + " has no effect with --initial-state '" +
                              o.initial_state + "', which sets /" + to_string(f) + " per neuron");
    Kokkos::View<double*, typename ExecutionSpace::memory_space> device(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("hh_") + to_string(f)),
        static_cast<std::size_t>(block.size()));
    Kokkos::deep_copy(exec, device,
                      Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          file[f].data() + block.begin, static_cast<std::size_t>(block.size())));
    values[f] = device;
    names += (names.empty() ? "" : ", ") + std::string(to_string(f));
  }
  exec.fence();  // the host values go out of scope with `file`
  attributes["initial_state"] = "file " + o.initial_state + ": " + names;
  return values;
}

// The mean of the defined values (the per-neuron statistics are NaN where a neuron has too
// few spikes), formatted with its unit; "none" when no neuron has one, never "nan".
std::string defined_mean(const std::vector<double>& values, const char* unit) {
  double sum = 0;
  std::size_t count = 0;
  for (double v : values)
    if (!std::isnan(v)) {
      sum += v;
      ++count;
    }
  if (count == 0) return "none";
  return human_number(sum / static_cast<double>(count)) + unit;
}

template <class Scalar, class MemorySpace>
void print_hh_summary(const HHOptions& o, const hh::Config& config,
                      const hh::Result<Scalar, MemorySpace>& result, const char* space, int ranks);

// The neurons of this rank (distributed::hh_local_config), traces and results gathered to
// rank 0, which writes the single-rank file layout.
template <class Scalar, class ExecutionSpace>
int run_hh_split(const ExecutionSpace& exec, const mpi::Communicator& comm, const HHOptions& o,
                 const hh::Config& config,
                 const hh::Stimulus<Scalar, typename ExecutionSpace::memory_space>& stimulus,
                 const hh::NeuronValues<typename ExecutionSpace::memory_space>& per_neuron,
                 std::map<std::string, std::string> attributes,
                 const std::vector<double>& amplitudes) {
  const hh::Config local = distributed::hh_local_config(comm, config, sizeof(Scalar));
  attributes["mpi_ranks"] = std::to_string(comm.size());
  std::unique_ptr<io::AtomicOutput> output;
  std::unique_ptr<io::H5File> file;
  std::unique_ptr<hh::Hdf5TraceSink<Scalar>> root_sink;
  std::unique_ptr<RemoveOnInterrupt> remove_if_interrupted;  // no resume: nothing to keep
  if (comm.is_root()) {
    output = std::make_unique<io::AtomicOutput>(o.output);
    remove_if_interrupted = std::make_unique<RemoveOnInterrupt>(output->temporary_path());
    file = std::make_unique<io::H5File>(io::H5File::create(output->temporary_path()));
    if (config.trace != hh::Trace::none)
      root_sink = std::make_unique<hh::Hdf5TraceSink<Scalar>>(*file, config.trace, config.neurons);
  }
  distributed::GatheredTraceSink<Scalar> sink(comm, config.neurons, root_sink.get());
  const auto local_result = hh::simulate<Scalar>(
      exec, local, stimulus, config.trace != hh::Trace::none ? &sink : nullptr, per_neuron);
  const auto result = distributed::gather_result(comm, local_result);
  if (comm.is_root()) {
    hh::write_result(*file, config, result, attributes);
    if (!amplitudes.empty()) file->write("/stimulus/amplitude", amplitudes);
    file->flush();
    root_sink.reset();
    file.reset();
    output->commit();
    if (!o.quiet) print_hh_summary(o, config, result, ExecutionSpace::name(), comm.size());
  }
  comm.barrier();
  return 0;
}

// One summary for single-process runs (ranks 0) and MPI runs.
template <class Scalar, class MemorySpace>
void print_hh_summary(const HHOptions& o, const hh::Config& config,
                      const hh::Result<Scalar, MemorySpace>& result, const char* space, int ranks) {
  std::cout << "portasim hh: " << o.neurons << " neurons x " << result.steps
            << " steps (T = " << human_number(o.t_ms) << " ms, dt = " << human_number(o.dt_ms)
            << " ms), " << hh::to_string(config.integrator) << ", "
            << (std::is_same_v<Scalar, float> ? "float32" : "float64") << " on " << space
            << (ranks > 0 ? " x " + std::to_string(ranks) + " MPI ranks" : std::string()) << "\n";
  std::cout << "  time " << human_number(result.seconds) << " s, "
            << human_number(result.neuron_steps_per_second()) << " neuron-steps/s\n";
  if (config.detect_spikes) {
    std::int64_t total = 0, firing = 0;
    for (const std::int32_t count : hh::host_copy<std::int32_t>(result.spike_count)) {
      total += count;
      firing += count > 0;
    }
    std::cout << "  spikes " << total << " (threshold " << human_number(o.threshold_mv) << " mV), "
              << firing << " of " << o.neurons << " neurons fired, mean rate "
              << defined_mean(hh::host_copy<double>(result.firing_rate_hz), " Hz") << ", mean ISI "
              << defined_mean(hh::host_copy<double>(result.mean_isi_ms), " ms") << ", mean ISI CV "
              << defined_mean(hh::host_copy<double>(result.isi_cv), "") << "\n";
    if (result.spikes_dropped > 0)
      std::cout << "  warning: " << result.spikes_dropped
                << " spike times did not fit --max-spikes per neuron; counts are complete\n";
  }
  std::cout << "  wrote " << o.output << "\n";
}

template <class Scalar, class ExecutionSpace>
int run_hh(const ExecutionSpace& exec, const HHOptions& o) {
  using memory_space = typename ExecutionSpace::memory_space;
  hh::Config config;
  config.neurons = o.neurons;
  config.t_ms = o.t_ms;
  config.dt_ms = o.dt_ms;
  config.integrator = integrator_of(o.integrator);
  config.relative_tolerance = o.rtol;
  config.absolute_tolerance = o.atol;
  config.trace = trace_of(o.record);
  config.every = o.every;
  config.detect_spikes = o.record != "none";
  config.threshold_mv = o.threshold_mv;
  config.max_spikes_per_neuron = o.max_spikes;
  config.parameters = o.parameters;
  config.initial = o.initial;
  hh::validate(config);
  std::vector<io::NamedPath> inputs;
  if (!o.stimulus_file.empty())
    inputs.push_back({"--stimulus-file", hh::stimulus_file_path(o.stimulus_file)});
  if (!o.initial_state.empty()) inputs.push_back({"--initial-state", o.initial_state});
  io::require_inputs_spared({{"--output", o.output}}, inputs);
  // Under mpirun: this rank's block of the neurons; rank 0 gathers and writes.
  const mpi::Communicator comm = mpi::Communicator::world();
  const bool split =
      mpi::active();  // under mpirun, even on one rank: the same code path at every size
  const mpi::Block block = distributed::hh_neurons(comm, o.neurons);

  // The stimulus: a file, or generated on the device.
  hh::Stimulus<Scalar, memory_space> stimulus;
  std::map<std::string, std::string> attributes{{"backend", ExecutionSpace::name()}};
  std::vector<double> amplitudes;
  if (!o.stimulus_file.empty()) {
    const auto file =
        hh::read_stimulus_file<Scalar>(o.stimulus_file, hh::step_count(config), config.neurons);
    const auto& shape = file.shape;
    const auto& values = file.values;
    if (shape.size() == 1) {
      Kokkos::View<Scalar*, memory_space> trace(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "stimulus"), shape[0]);
      Kokkos::deep_copy(exec, trace,
                        Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            values.data(), shape[0]));
      stimulus = hh::Stimulus<Scalar, memory_space>::shared_trace(trace);
    } else if (shape.size() == 2) {
      std::vector<Scalar> columns;  // this rank's neurons of a split run
      const Scalar* data = values.data();
      std::size_t width = shape[1];
      if (split) {
        require(static_cast<std::int64_t>(shape[1]) == o.neurons,
                "stimulus '" + file.dataset + "' in '" + file.path + "' has " +
                    std::to_string(shape[1]) + " neurons, expected " + std::to_string(o.neurons));
        width = static_cast<std::size_t>(block.size());
        for (std::size_t i = 0; i < shape[0]; ++i)
          columns.insert(columns.end(),
                         values.begin() + static_cast<std::ptrdiff_t>(i * shape[1] + block.begin),
                         values.begin() + static_cast<std::ptrdiff_t>(i * shape[1] + block.end));
        data = columns.data();
      }
      Kokkos::View<Scalar**, Kokkos::LayoutRight, memory_space> traces(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "stimulus"), shape[0], width);
      Kokkos::deep_copy(exec, traces,
                        Kokkos::View<const Scalar**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                     Kokkos::MemoryUnmanaged>(data, shape[0], width));
      stimulus = hh::Stimulus<Scalar, memory_space>::per_neuron_trace(traces);
    }
    exec.fence();
    attributes["stimulus"] = "file " + o.stimulus_file;
  } else {
    hh::GeneratedStimulus g;
    std::tie(g.amplitude_first, g.amplitude_last) = parse_amplitude(o.amplitude);
    g.step_on_ms = o.step_on_ms;
    g.step_off_ms = o.step_off_ms;
    g.pulse_period_ms = o.pulse_period_ms;
    g.pulse_width_ms = o.pulse_width_ms;
    g.ramp_per_ms = o.ramp_per_ms;
    g.noise_sd = o.noise_sd;
    g.seed = o.seed;
    g.first_neuron = block.begin;
    g.total_neurons = o.neurons;
    require_finite("--step-on-ms", g.step_on_ms);
    require(!std::isnan(g.step_off_ms), "--step-off-ms must not be NaN");
    require_finite("--noise-sd", g.noise_sd);
    require_non_negative("--noise-sd", g.noise_sd);
    stimulus = hh::Stimulus<Scalar, memory_space>::generate(g);
    amplitudes.resize(static_cast<std::size_t>(o.neurons));
    for (std::size_t k = 0; k < amplitudes.size(); ++k)
      amplitudes[k] = o.neurons > 1 ? g.amplitude_first + (g.amplitude_last - g.amplitude_first) *
                                                              static_cast<double>(k) /
                                                              static_cast<double>(o.neurons - 1)
                                    : g.amplitude_first;
    std::ostringstream description;
    description << "generated: amplitude " << o.amplitude << " uA/cm^2, on " << g.step_on_ms
                << " ms, off " << g.step_off_ms << " ms, pulse period " << g.pulse_period_ms
                << " ms width " << g.pulse_width_ms << " ms, ramp " << g.ramp_per_ms
                << " per ms, noise sd " << g.noise_sd << ", seed " << g.seed;
    attributes["stimulus"] = description.str();
  }

  const double neuron_steps =
      static_cast<double>(o.neurons) * static_cast<double>(hh::step_count(config));
  if (o.progress || (isatty(STDERR_FILENO) && neuron_steps >= 5e9 && !o.quiet))
    config.progress = progress_printer("hh");

  const mpi::Block neurons_here = split ? block : mpi::Block{0, o.neurons};
  const auto per_neuron = upload_initial_state(exec, o, neurons_here, attributes);
  if (split)
    return run_hh_split<Scalar>(exec, comm, o, config, stimulus, per_neuron, attributes,
                                amplitudes);

  // Everything goes to a temporary file that replaces the output only when complete.
  io::AtomicOutput output(o.output);
  const RemoveOnInterrupt remove_if_interrupted(
      output.temporary_path());  // no resume: nothing to keep
  hh::Result<Scalar, memory_space> result;
  {
    io::H5File file = io::H5File::create(output.temporary_path());
    std::unique_ptr<hh::Hdf5TraceSink<Scalar>> sink;
    if (config.trace != hh::Trace::none)
      sink = std::make_unique<hh::Hdf5TraceSink<Scalar>>(file, config.trace, config.neurons);
    result = hh::simulate<Scalar>(exec, config, stimulus, sink.get(), per_neuron);
    hh::write_result(file, config, result, attributes);
    if (!amplitudes.empty()) file.write("/stimulus/amplitude", amplitudes);
    file.flush();
  }
  output.commit();

  if (!o.quiet) print_hh_summary(o, config, result, ExecutionSpace::name(), 0);
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
  if (!o.stimulus_file.empty())
    for (const char* option : {"--amplitude", "--step-on-ms", "--step-off-ms", "--pulse-period-ms",
                               "--pulse-width-ms", "--ramp-per-ms", "--noise-sd", "--seed"})
      refuse_if_given(c, option, "with --stimulus-file: the stimulus comes from the file");
}

void add_hh_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<HHOptions>();
  auto* c = app.add_subcommand("hh", "Batched Hodgkin-Huxley neurons (RK4, one neuron per thread)");
  c->add_option("--neurons", o->neurons, "Number of neurons (> 0)")->capture_default_str();
  c->add_option("--t-ms", o->t_ms, "Simulated time T in ms")->capture_default_str();
  c->add_option("--dt-ms", o->dt_ms, "Time step in ms; n_steps = round(T/dt)")
      ->capture_default_str();
  c->add_option("--amplitude", o->amplitude,
                "DC amplitude in uA/cm^2: A, or A0:A1 spread over the neurons")
      ->capture_default_str();
  c->add_option("--step-on-ms", o->step_on_ms, "Current switches on at this time")
      ->capture_default_str();
  c->add_option("--step-off-ms", o->step_off_ms,
                "Current switches off at this time (default: never)");
  c->add_option("--pulse-period-ms", o->pulse_period_ms, "Pulse train period (0: no train)")
      ->capture_default_str();
  c->add_option("--pulse-width-ms", o->pulse_width_ms, "Pulse width within each period")
      ->capture_default_str();
  c->add_option("--ramp-per-ms", o->ramp_per_ms, "Linear ramp added after step-on, uA/cm^2 per ms")
      ->capture_default_str();
  c->add_option("--noise-sd", o->noise_sd, "Gaussian current noise per step, uA/cm^2")
      ->capture_default_str();
  c->add_option("--stimulus-file", o->stimulus_file,
                "HDF5 file with the stimulus (dataset /stimulus, or FILE.h5:/dataset): 1-D shared, "
                "or 2-D (steps, neurons)");
  c->add_option("--initial-state", o->initial_state,
                "HDF5 file of per-neuron values: datasets v0, m0, h0, n0, capacitance, g_na, "
                "g_k, g_leak, e_na, e_k, e_leak (any subset, one value per neuron)");
  c->add_option("--v0-mv", o->initial.v0, "Initial membrane potential, mV")->capture_default_str();
  c->add_option("--m0", o->initial.m0, "Initial m gate in [0, 1] (default: steady state at V0)");
  c->add_option("--h0", o->initial.h0, "Initial h gate in [0, 1] (default: steady state at V0)");
  c->add_option("--n0", o->initial.n0, "Initial n gate in [0, 1] (default: steady state at V0)");
  c->add_option("--capacitance", o->parameters.capacitance, "Membrane capacitance, uF/cm^2")
      ->capture_default_str();
  c->add_option("--g-na", o->parameters.g_na, "Sodium conductance, mS/cm^2")->capture_default_str();
  c->add_option("--g-k", o->parameters.g_k, "Potassium conductance, mS/cm^2")
      ->capture_default_str();
  c->add_option("--g-leak", o->parameters.g_leak, "Leak conductance, mS/cm^2")
      ->capture_default_str();
  c->add_option("--e-na", o->parameters.e_na, "Sodium reversal potential, mV")
      ->capture_default_str();
  c->add_option("--e-k", o->parameters.e_k, "Potassium reversal potential, mV")
      ->capture_default_str();
  c->add_option("--e-leak", o->parameters.e_leak, "Leak reversal potential, mV")
      ->capture_default_str();
  c->add_option("--record", o->record, "What to record")
      ->check(CLI::IsMember({"none", "v", "all", "spikes"}))
      ->capture_default_str();
  c->add_option("--every", o->every, "Record every k-th step")->capture_default_str();
  c->add_option("--threshold-mv", o->threshold_mv, "Spike threshold (upward crossing)")
      ->capture_default_str();
  c->add_option("--max-spikes", o->max_spikes,
                "Spike times stored per neuron (0: enough for 400 Hz)")
      ->capture_default_str();
  c->add_option("--precision", o->precision, "Floating-point precision")
      ->check(CLI::IsMember({"f32", "f64"}))
      ->capture_default_str();
  c->add_option("--integrator", o->integrator, "Time integrator")
      ->check(CLI::IsMember({"euler", "rk4", "rush-larsen", "rk45"}))
      ->capture_default_str();
  c->add_option("--rtol", o->rtol, "rk45 relative tolerance")->capture_default_str();
  c->add_option("--atol", o->atol, "rk45 absolute tolerance")->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the noise")->capture_default_str();
  c->add_option("--output", o->output, "HDF5 output file")->capture_default_str();
  c->add_option("--backend", o->backend,
                "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  c->add_flag("--progress", o->progress,
              "Show progress on stderr (automatic for long runs on a terminal)");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o, c] {
    action = [o, c] {
      refuse_ignored_options(*c, *o);
      o->fields_given.clear();
      for (hh::NeuronField f : hh::all_neuron_fields) {
        if (c->count(flag_of(f)) == 0) continue;
        const double value = hh::scalar_of(o->parameters, o->initial, f);
        if (!hh::is_allowed_value(f, value)) {
          std::ostringstream message;
          message << flag_of(f) << " must be " << hh::allowed_values(f) << ", got " << value;
          throw_error(ErrorKind::invalid_argument, message.str());
        }
        o->fields_given.push_back(f);
      }
      require(o->neurons > 0, "--neurons must be > 0, got " + std::to_string(o->neurons));
      require_positive("--dt-ms", o->dt_ms);
      require_positive("--t-ms", o->t_ms);
      require(o->t_ms >= o->dt_ms, "--t-ms must be >= --dt-ms (at least one step)");
      const std::int64_t steps =
          checked_step_count("--t-ms / --dt-ms", o->t_ms, o->dt_ms, hh::max_step_count);
      require(o->every >= 1, "--every must be >= 1, got " + std::to_string(o->every));
      require_finite("--threshold-mv", o->threshold_mv);
      require(o->max_spikes >= 0, "--max-spikes must be >= 0");
      require(o->max_spikes > 0 || o->t_ms * 0.4 < std::numeric_limits<int>::max() - 2,
              "--t-ms is too long for the default spike capacity (400 Hz over --t-ms): give "
              "--max-spikes");
      const std::int64_t traces = o->record == "all" ? 4 : o->record == "v" ? 1 : 0;
      checked_product(
          "--neurons x samples (--t-ms / --dt-ms / --every + 1) x traces of --record x 8 bytes",
          {o->neurons, steps / o->every + 1, traces, 8});
      return dispatch_backend(o->backend, [&](const auto& exec) {
        return o->precision == "f64" ? run_hh<double>(exec, *o) : run_hh<float>(exec, *o);
      });
    };
  });
}

}  // namespace portasim::cli
