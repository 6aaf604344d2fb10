// The HH job (hh/job.hpp) and its explicit instantiations for both precisions on every
// enabled space.
#include "portasim/hh/job.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/distributed/hh.hpp"
#include "portasim/hh/hdf5_output.hpp"
#include "portasim/hh/neuron_values_file.hpp"
#include "portasim/hh/stimulus_file.hpp"

namespace portasim::hh {

void validate(const JobSpec& spec) {
  const Config& c = spec.config;
  require(c.neurons > 0, "--neurons must be > 0, got " + std::to_string(c.neurons));
  require_positive("--dt-ms", c.dt_ms);
  require_positive("--t-ms", c.t_ms);
  require(c.t_ms >= c.dt_ms, "--t-ms must be >= --dt-ms (at least one step)");
  const std::int64_t steps =
      checked_step_count("--t-ms / --dt-ms", c.t_ms, c.dt_ms, max_step_count);
  require(c.every >= 1, "--every must be >= 1, got " + std::to_string(c.every));
  require_finite("--threshold-mv", c.threshold_mv);
  require(c.max_spikes_per_neuron >= 0, "--max-spikes must be >= 0");
  require(c.max_spikes_per_neuron > 0 || c.t_ms * 0.4 < std::numeric_limits<int>::max() - 2,
          "--t-ms is too long for the default spike capacity (400 Hz over --t-ms): give "
          "--max-spikes");
  const std::int64_t traces = c.trace == Trace::all ? 4 : c.trace == Trace::v ? 1 : 0;
  checked_product(
      "--neurons x samples (--t-ms / --dt-ms / --every + 1) x traces of --record x 8 bytes",
      {c.neurons, steps / c.every + 1, traces, 8});
  require(c.trace_chunk_bytes > 0, "trace chunk size must be > 0 bytes");
  if (c.integrator == Integrator::rk45) {
    require_positive("--rtol", c.relative_tolerance);
    require_positive("--atol", c.absolute_tolerance);
  }
  Parameters parameters = c.parameters;
  InitialState initial = c.initial;
  for (NeuronField f : all_neuron_fields) {
    const double value = scalar_of(parameters, initial, f);
    if (!is_allowed_value(f, value)) {
      std::ostringstream message;
      message << option_of(f) << " must be " << allowed_values(f) << ", got " << value;
      throw_error(ErrorKind::invalid_argument, message.str());
    }
  }
  if (!spec.amplitudes.empty()) {
    require(spec.stimulus_file.empty(), "per-neuron amplitudes have no effect with --stimulus");
    require(static_cast<std::int64_t>(spec.amplitudes.size()) == c.neurons,
            "amplitudes: " + std::to_string(spec.amplitudes.size()) + " values for " +
                std::to_string(c.neurons) + " neurons");
    for (double a : spec.amplitudes) require_finite("amplitudes", a);
  }
  if (spec.stimulus_file.empty()) {
    const GeneratedStimulus& g = spec.generated;
    require_finite("--amplitude", g.amplitude_first);
    require_finite("--amplitude", g.amplitude_last);
    require_finite("--step-on-ms", g.step_on_ms);
    require(!std::isnan(g.step_off_ms), "--step-off-ms must not be NaN");
    require_finite("--noise-sd", g.noise_sd);
    require_non_negative("--noise-sd", g.noise_sd);
  }
}

namespace {

template <class Scalar, class MemorySpace>
struct StimulusOfRank {
  Stimulus<Scalar, MemorySpace> stimulus;
  std::string description;
};

// The current of this rank's neurons `block` (all of them on one rank), in exec's space.
template <class Scalar, class ExecutionSpace>
StimulusOfRank<Scalar, typename ExecutionSpace::memory_space> make_stimulus(
    const ExecutionSpace& exec, const JobSpec& spec, const mpi::Block& block) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::int64_t neurons = spec.config.neurons;
  StimulusOfRank<Scalar, memory_space> out;
  if (!spec.stimulus_file.empty()) {
    const auto file =
        read_stimulus_file<Scalar>(spec.stimulus_file, step_count(spec.config), neurons);
    const auto& shape = file.shape;
    // This rank's columns of a (steps, neurons) file; the shared trace as it is.
    std::vector<Scalar> columns;
    if (shape.size() == 2) {
      columns.reserve(shape[0] * static_cast<std::size_t>(block.size()));
      for (std::size_t i = 0; i < shape[0]; ++i) {
        const auto row = file.values.begin() + static_cast<std::ptrdiff_t>(i * shape[1]);
        columns.insert(columns.end(), row + block.begin, row + block.end);
      }
    }
    if (shape.size() == 1) {
      Kokkos::View<Scalar*, memory_space> trace(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "stimulus"), shape[0]);
      Kokkos::deep_copy(exec, trace,
                        Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            file.values.data(), shape[0]));
      out.stimulus = Stimulus<Scalar, memory_space>::shared_trace(trace);
    } else {
      const auto width = static_cast<std::size_t>(block.size());
      Kokkos::View<Scalar**, Kokkos::LayoutRight, memory_space> traces(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "stimulus"), shape[0], width);
      Kokkos::deep_copy(exec, traces,
                        Kokkos::View<const Scalar**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                     Kokkos::MemoryUnmanaged>(columns.data(), shape[0], width));
      out.stimulus = Stimulus<Scalar, memory_space>::per_neuron_trace(traces);
    }
    exec.fence();  // the host values (file, columns) go out of scope
    out.description = "file " + spec.stimulus_file;
    return out;
  }
  GeneratedStimulus g = spec.generated;
  g.first_neuron = block.begin;
  g.total_neurons = neurons;
  out.stimulus = Stimulus<Scalar, memory_space>::generate(g);
  std::ostringstream text;
  if (!spec.amplitudes.empty()) {
    Kokkos::View<double*, memory_space> amplitudes(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "amplitudes"), block.size());
    Kokkos::deep_copy(exec, amplitudes,
                      Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          spec.amplitudes.data() + block.begin, block.size()));
    exec.fence();  // spec's host values may go before the copy would run
    out.stimulus.amplitudes = amplitudes;
    const auto [low, high] = std::minmax_element(spec.amplitudes.begin(), spec.amplitudes.end());
    text << "generated: per-neuron amplitudes " << *low << ".." << *high;
  } else {
    text << "generated: amplitude " << g.amplitude_first;
    if (g.amplitude_last != g.amplitude_first) text << ":" << g.amplitude_last;
  }
  text << " uA/cm^2, on " << g.step_on_ms << " ms, off " << g.step_off_ms << " ms, pulse period "
       << g.pulse_period_ms << " ms width " << g.pulse_width_ms << " ms, ramp " << g.ramp_per_ms
       << " per ms, noise sd " << g.noise_sd << ", seed " << g.seed;
  out.description = text.str();
  return out;
}

// The amplitude of every neuron of the whole run (NumPy's linspace, endpoint included), for
// the output file. Built on the root after the run: a population too large for memory then
// fails at its first device allocation, with the out-of-memory error that names --neurons,
// instead of in a host vector that an overcommitting host grants and later cannot back.
std::vector<double> amplitude_sweep(const GeneratedStimulus& g, std::int64_t neurons) {
  std::vector<double> amplitudes(static_cast<std::size_t>(neurons));
  for (std::size_t k = 0; k < amplitudes.size(); ++k)
    amplitudes[k] = neurons > 1 ? g.amplitude_first + (g.amplitude_last - g.amplitude_first) *
                                                          static_cast<double>(k) /
                                                          static_cast<double>(neurons - 1)
                                : g.amplitude_first;
  return amplitudes;
}

// The initial-state file's fields on this rank's neurons, in exec's memory space.
template <class ExecutionSpace>
NeuronValues<typename ExecutionSpace::memory_space> upload_neuron_values(const ExecutionSpace& exec,
                                                                         const JobSpec& spec,
                                                                         const mpi::Block& block,
                                                                         std::string& description) {
  NeuronValues<typename ExecutionSpace::memory_space> values;
  if (spec.initial_state_file.empty()) return values;
  const NeuronValuesFile file =
      read_neuron_values_file(spec.initial_state_file, spec.config.neurons);
  std::string names;
  for (NeuronField f : all_neuron_fields) {
    if (!file.has(f)) continue;
    for (NeuronField given : spec.fields_set)
      require(given != f, std::string(option_of(f)) + " has no effect with --initial-state '" +
                              spec.initial_state_file + "', which sets /" + to_string(f) +
                              " per neuron");
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
  description = "file " + spec.initial_state_file + ": " + names;
  return values;
}

// Hands each chunk to every sink it holds.
template <class Scalar>
class FanOutSink : public TraceSink<Scalar> {
 public:
  void add(TraceSink<Scalar>* sink) {
    if (sink) m_sinks.push_back(sink);
  }
  void consume(const TraceChunk<Scalar>& chunk) override {
    for (TraceSink<Scalar>* sink : m_sinks) sink->consume(chunk);
  }

 private:
  std::vector<TraceSink<Scalar>*> m_sinks;
};

// The HDF5 output, on the root: written as a temporary (told to the context's hook) that
// replaces the output only once complete; traces stream into it while the run goes on.
template <class Scalar>
class OutputFile {
 public:
  OutputFile(const std::string& path, const Config& config, const JobContext& context)
      : m_output(path), m_guard(context.guard(m_output.temporary_path())),
        m_file(std::make_unique<io::H5File>(io::H5File::create(m_output.temporary_path()))) {
    if (config.trace != Trace::none)
      m_traces = std::make_unique<Hdf5TraceSink<Scalar>>(*m_file, config.trace, config.neurons);
  }

  TraceSink<Scalar>* traces() { return m_traces.get(); }

  void finish(const Config& config, const Result<Scalar, Kokkos::HostSpace>& whole,
              const std::map<std::string, std::string>& attributes,
              const std::vector<double>& amplitudes) {
    write_result(*m_file, config, whole, attributes);
    if (!amplitudes.empty()) m_file->write("/stimulus/amplitude", amplitudes);
    m_file->flush();
    // HDF5 finishes a file only when its last handle closes: closed before the rename.
    m_traces.reset();
    m_file.reset();
    m_output.commit();
  }

 private:
  io::AtomicOutput m_output;
  std::shared_ptr<void> m_guard;
  std::unique_ptr<io::H5File> m_file;
  std::unique_ptr<Hdf5TraceSink<Scalar>> m_traces;
};

// The mean of the values that exist (the per-neuron statistics are NaN where a neuron has
// too few spikes); NaN when none does.
double mean_of_defined(const Kokkos::View<double*, Kokkos::HostSpace>& values) {
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t k = 0; k < values.extent(0); ++k)
    if (!std::isnan(values(k))) {
      sum += values(k);
      ++count;
    }
  return count > 0 ? sum / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
}

template <class Scalar>
void fill_figures(JobReport<Scalar>& report, const Config& config,
                  const Result<Scalar, Kokkos::HostSpace>& whole) {
  report.neurons = config.neurons;
  report.steps = whole.steps;
  report.neuron_steps_per_second = whole.neuron_steps_per_second();
  report.spikes_detected = config.detect_spikes;
  if (!config.detect_spikes) return;
  for (std::size_t k = 0; k < whole.spike_count.extent(0); ++k) {
    report.spikes += whole.spike_count(k);
    report.neurons_firing += whole.spike_count(k) > 0;
  }
  report.spikes_dropped = whole.spikes_dropped;
  report.mean_rate_hz = mean_of_defined(whole.firing_rate_hz);
  report.mean_isi_ms = mean_of_defined(whole.mean_isi_ms);
  report.mean_isi_cv = mean_of_defined(whole.isi_cv);
  if (whole.spikes_dropped > 0)
    report.summary.warnings.push_back(std::to_string(whole.spikes_dropped) +
                                      " spike times did not fit --max-spikes per neuron; "
                                      "counts are complete");
}

}  // namespace

template <class Scalar, class ExecutionSpace>
JobReport<Scalar> run_job(const ExecutionSpace& exec, const JobSpec& spec,
                          const JobContext& context, TraceSink<Scalar>* traces) {
  validate(spec);  // simulate() checks the Config again for its library callers
  Config config = spec.config;
  config.progress = nullptr;
  std::vector<io::NamedPath> inputs;
  if (!spec.stimulus_file.empty())
    inputs.push_back({"--stimulus-file", stimulus_file_path(spec.stimulus_file)});
  if (!spec.initial_state_file.empty())
    inputs.push_back({"--initial-state", spec.initial_state_file});
  if (!spec.output_path.empty())
    io::require_inputs_spared({{"--output", spec.output_path}}, inputs);

  // Under an MPI communicator (even of one rank: the same code path at every size) this
  // rank's block of the neurons; traces and results are gathered on the root.
  const mpi::Communicator& comm = context.comm;
  const bool split = comm.is_mpi();
  const mpi::Block block =
      split ? distributed::hh_neurons(comm, config.neurons) : mpi::Block{0, config.neurons};
  const auto stimulus = make_stimulus<Scalar>(exec, spec, block);
  std::string initial_state;
  const auto per_neuron = upload_neuron_values(exec, spec, block, initial_state);
  if (context.progress && comm.is_root()) config.progress = context.progress;
  const Config local = split ? distributed::hh_local_config(comm, config, sizeof(Scalar)) : config;

  std::map<std::string, std::string> attributes{{"backend", ExecutionSpace::name()},
                                                {"stimulus", stimulus.description}};
  if (!initial_state.empty()) attributes["initial_state"] = initial_state;
  if (split) attributes["mpi_ranks"] = std::to_string(comm.size());
  // The root's sinks: the output file (when asked for) and the caller's.
  std::unique_ptr<OutputFile<Scalar>> file;
  if (comm.is_root() && !spec.output_path.empty())
    file = std::make_unique<OutputFile<Scalar>>(spec.output_path, config, context);
  FanOutSink<Scalar> root_sink;
  if (file) root_sink.add(file->traces());
  root_sink.add(traces);
  distributed::GatheredTraceSink<Scalar> gathered(comm, config.neurons, &root_sink);
  TraceSink<Scalar>* sink = nullptr;
  if (config.trace != Trace::none)
    sink = split ? static_cast<TraceSink<Scalar>*>(&gathered) : &root_sink;
  const auto result = simulate<Scalar>(exec, local, stimulus.stimulus, sink, per_neuron);
  // On one rank this is a host copy of the result; on many, the gathered whole on the root.
  const Result<Scalar, Kokkos::HostSpace> whole = distributed::gather_result(exec, comm, result);

  JobReport<Scalar> report;
  report.summary.backend = ExecutionSpace::name();
  report.summary.ranks = comm.size();
  report.summary.seconds = whole.seconds;
  report.stimulus = stimulus.description;
  if (!comm.is_root()) {
    comm.barrier();
    return report;
  }
  if (file) {
    file->finish(config, whole, attributes,
                 !spec.amplitudes.empty()     ? spec.amplitudes
                 : spec.stimulus_file.empty() ? amplitude_sweep(spec.generated, config.neurons)
                                              : std::vector<double>());
    report.summary.output_path = spec.output_path;
  }
  fill_figures(report, config, whole);
  if (spec.keep_result) report.result = whole;
  comm.barrier();
  return report;
}

#define PORTASIM_HH_INSTANTIATE_JOB(SCALAR, SPACE)                                \
  template JobReport<SCALAR> run_job<SCALAR, SPACE>(const SPACE&, const JobSpec&, \
                                                    const JobContext&, TraceSink<SCALAR>*);
#define PORTASIM_HH_INSTANTIATE_JOB_BOTH(SPACE) \
  PORTASIM_HH_INSTANTIATE_JOB(float, SPACE) PORTASIM_HH_INSTANTIATE_JOB(double, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_HH_INSTANTIATE_JOB_BOTH)

}  // namespace portasim::hh
