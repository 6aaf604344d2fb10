#pragma once
// A whole SFAP job, as `portasim sfap` runs it and as a program or the Python package can:
// take a motor unit (an HDF5 file or memory), validate the options once, compute on one rank
// or split the fibers over the ranks of the context's communicator, and deliver the result
// to its sinks: the HDF5 output file (written atomically on the root) and the report.

#include <cstdint>
#include <optional>
#include <string>

#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/job.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/input_file.hpp"

namespace portasim::sfap {

struct JobSpec {
  // The motor unit: the /inputs group of an HDF5 file, or `inputs` when input_path is empty.
  std::string input_path;
  std::optional<HostInputs> inputs;
  // Overrides of the input's attributes; empty keeps the input's value (or the default).
  std::optional<double> dz_mm;
  std::optional<double> fs_hz;
  bool delays = true;  // nerve-path delays and the MUAP
  bool corrected_source = false;
  bool dz_weighted = false;
  double jitter_sd_ms = 0.0;                 // MUAP jitter, 0 = off
  std::optional<std::uint64_t> jitter_seed;  // 0 when not given
  // The HDF5 output, written on the root as OUTPUT.partial and renamed when complete; empty
  // for none.
  std::string output_path;
  // Keep the whole result in the report (on the root).
  bool keep_result = true;
};

struct JobReport {
  JobSummary summary;
  std::int64_t fibers = 0, electrodes = 0, nt = 0, n_z_max = 0;
  double dt_s = 0, dz_mm = 0;
  bool delays = true;
  double jitter_sd_ms = 0;
  Result<Kokkos::HostSpace> result;  // on the root with keep_result; empty elsewhere
};

// Checks the spec without reading any file; throws portasim::Error (invalid_argument) whose
// message names the option as the command line spells it (--dz, --jitter-sd-ms, ...).
void validate(const JobSpec& spec);

// The computation's options of a job: the input's attributes (dt, dz, the minimum radial
// distance), then the spec's overrides; throws for a dz or dt that is not finite and > 0.
// Only the scalars of `inputs` are read.
Options options_of(const JobSpec& spec, const HostInputs& inputs);

// Runs the job on `exec` over context.comm (every rank calls it). Inputs are never
// overwritten: an output that is the input file by any path is refused before anything is
// written.
template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context = {});

#define PORTASIM_SFAP_DECLARE_JOB(SPACE) \
  extern template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_SFAP_DECLARE_JOB)

}  // namespace portasim::sfap
