#pragma once
// A whole HH job, as `portasim hh` runs it and as a program or the Python package can: the
// stimulus (generated, or from an HDF5 file), per-neuron values (an HDF5 file), the neurons
// split over the ranks of the context's communicator, traces streamed to the HDF5 output
// and to a caller's sink, and a report of the figures the command prints.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/job.hpp"
#include "portasim/hh/simulation.hpp"
#include "portasim/hh/stimulus.hpp"

namespace portasim::hh {

struct JobSpec {
  // Neurons, T, dt, integrator, what to record, run-wide parameters and initial state.
  // config.progress is ignored: the context's progress is used.
  Config config;
  // The current, unless stimulus_file is given. first_neuron / total_neurons are set by the
  // job for each rank.
  GeneratedStimulus generated;
  // The amplitude (uA/cm^2) of every neuron of the whole population in place of the
  // generated linspace (the rest of `generated` still applies); empty for the linspace.
  std::vector<double> amplitudes;
  std::string stimulus_file;       // FILE.h5 (dataset /stimulus) or FILE.h5:/dataset
  std::string initial_state_file;  // per-neuron values (neuron_values_file.hpp)
  // Run-wide fields the caller set on purpose (by their flags): one that the initial-state
  // file also sets is refused, since the file's values would silently win.
  std::vector<NeuronField> fields_set;
  std::string output_path;   // HDF5, written atomically on the root; empty for none
  bool keep_result = false;  // the whole result, on the host, in the report (root)
};

template <class Scalar>
struct JobReport {
  JobSummary summary;
  std::int64_t neurons = 0, steps = 0;
  double neuron_steps_per_second = 0;
  bool spikes_detected = false;
  std::int64_t spikes = 0, neurons_firing = 0, spikes_dropped = 0;
  // Means over the neurons where the statistic exists; NaN where none has it.
  double mean_rate_hz = 0, mean_isi_ms = 0, mean_isi_cv = 0;
  std::string stimulus;                      // a description of the current
  Result<Scalar, Kokkos::HostSpace> result;  // with keep_result, on the root
};

// Checks the spec without reading any file; throws portasim::Error (invalid_argument) whose
// message names the option as the command line spells it (--neurons, --t-ms / --dt-ms, ...).
// Sizes that cannot be represented are refused here, before anything is allocated.
void validate(const JobSpec& spec);

// Runs the job on `exec` over context.comm (every rank calls it). Recorded traces go to the
// output file and to `traces` (on the root, whole-population chunks). The stimulus and
// initial-state files are inputs: an output that is one of them is refused.
template <class Scalar, class ExecutionSpace>
JobReport<Scalar> run_job(const ExecutionSpace& exec, const JobSpec& spec,
                          const JobContext& context = {}, TraceSink<Scalar>* traces = nullptr);

#define PORTASIM_HH_DECLARE_JOB(SCALAR, SPACE)                                           \
  extern template JobReport<SCALAR> run_job<SCALAR, SPACE>(const SPACE&, const JobSpec&, \
                                                           const JobContext&, TraceSink<SCALAR>*);
#define PORTASIM_HH_DECLARE_JOB_BOTH(SPACE) \
  PORTASIM_HH_DECLARE_JOB(float, SPACE) PORTASIM_HH_DECLARE_JOB(double, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_HH_DECLARE_JOB_BOTH)

}  // namespace portasim::hh
