// The SFAP job (sfap/job.hpp) and its explicit instantiations on every enabled space.
#include "portasim/sfap/job.hpp"

#include <chrono>
#include <cmath>
#include <memory>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/distributed/sfap.hpp"
#include "portasim/sfap/hdf5_io.hpp"

namespace portasim::sfap {

void validate(const JobSpec& spec) {
  require(!spec.input_path.empty() || spec.inputs.has_value(),
          "--input: a motor unit is needed (an HDF5 file, or inputs in memory)");
  if (spec.dz_mm)
    require(std::isfinite(*spec.dz_mm) && *spec.dz_mm > 0, "--dz must be finite and > 0");
  if (spec.fs_hz)
    require(std::isfinite(*spec.fs_hz) && *spec.fs_hz > 0, "--fs must be finite and > 0");
  require(std::isfinite(spec.jitter_sd_ms) && spec.jitter_sd_ms >= 0,
          "--jitter-sd-ms must be finite and >= 0");
  require(spec.delays || spec.jitter_sd_ms == 0,
          "--jitter-sd-ms has no effect with --no-delays (no MUAP)");
  require(!spec.jitter_seed || spec.jitter_sd_ms > 0,
          "--jitter-seed has no effect without --jitter-sd-ms > 0");
}

Options options_of(const JobSpec& spec, const HostInputs& host) {
  Options options = options_from(host, Options{});
  if (spec.dz_mm) options.dz_mm = *spec.dz_mm;
  if (spec.fs_hz) {
    options.fs_hz = *spec.fs_hz;
    options.dt_s = 0;
  }
  require(std::isfinite(options.dz_mm) && options.dz_mm > 0,
          "dz must be finite and > 0 (--dz or attribute /inputs dz_mm), got " +
              std::to_string(options.dz_mm));
  const double dt = options.dt_s > 0 ? options.dt_s : 1.0 / options.fs_hz;
  require(std::isfinite(dt) && dt > 0,
          "fs must be finite and > 0 (--fs or attribute /inputs fs_Hz/dt_s)");
  options.apply_delays = spec.delays;
  options.corrected_source = spec.corrected_source;
  options.dz_weighted = spec.dz_weighted;
  options.jitter_sd_s = spec.jitter_sd_ms * 1e-3;
  options.jitter_seed = spec.jitter_seed.value_or(0);
  return options;
}

namespace {

void write_output(const std::string& path, const std::string& backend, const JobSpec& spec,
                  const Options& options, const Result<Kokkos::HostSpace>& result, int ranks,
                  bool split) {
  io::H5File file = io::H5File::create(path);
  write_result(file, result);
  file.write_attribute("/", "generator", "portasim sfap");
  file.write_attribute("/", "backend", backend);
  file.write_attribute("/", "input", spec.input_path.empty() ? "memory" : spec.input_path);
  file.write_attribute("/outputs", "corrected_source",
                       static_cast<std::int8_t>(spec.corrected_source));
  file.write_attribute("/outputs", "dz_weighted", static_cast<std::int8_t>(spec.dz_weighted));
  if (spec.jitter_sd_ms > 0) {
    file.write_attribute("/outputs", "jitter_sd_s", options.jitter_sd_s);
    file.write_attribute("/outputs", "jitter_seed", static_cast<std::int64_t>(options.jitter_seed));
  }
  if (split) file.write_attribute("/", "mpi_ranks", static_cast<std::int64_t>(ranks));
  file.flush();
}

}  // namespace

template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context) {
  validate(spec);
  const mpi::Communicator& comm = context.comm;
  if (!spec.output_path.empty() && !spec.input_path.empty())
    io::require_inputs_spared({{"--output", spec.output_path}}, {{"--input", spec.input_path}});
  HostInputs host;
  if (!spec.input_path.empty())
    host = read_inputs(io::H5File::open_read(spec.input_path), "/inputs", spec.delays);
  else host = *spec.inputs;
  Options options = options_of(spec, host);

  // Split over the ranks of an MPI communicator (even one rank: the same code path at every
  // size): this rank's block of the fibers, gathered on the root.
  const bool split = comm.is_mpi();
  const auto fibers = static_cast<std::int64_t>(host.n_fibers);
  if (split) {
    require(fibers >= comm.size(), std::to_string(fibers) + " fibers cannot be split over " +
                                       std::to_string(comm.size()) + " MPI ranks");
    const mpi::Block block = distributed::sfap_fibers(comm, fibers);
    options.first_fiber = block.begin;
    options.fiber_count = block.size();
  }
  std::unique_ptr<io::AtomicOutput> output;
  std::shared_ptr<void> guard;
  if (comm.is_root() && !spec.output_path.empty()) {
    output = std::make_unique<io::AtomicOutput>(spec.output_path);
    guard = context.guard(output->temporary_path());
  }
  context.report_progress(0.0);
  const auto inputs = upload(exec, host);
  exec.fence();
  const auto start = std::chrono::steady_clock::now();
  const auto result = compute(exec, inputs, options);
  exec.fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Result<Kokkos::HostSpace> whole =
      split ? distributed::gather_result(comm, to_host(exec, result), fibers)
            : to_host(exec, result);
  JobReport report;
  report.summary.backend = ExecutionSpace::name();
  report.summary.ranks = comm.size();
  report.summary.seconds = comm.max(seconds);
  if (!comm.is_root()) return report;
  if (output) {
    write_output(output->temporary_path(), report.summary.backend, spec, options, whole,
                 comm.size(), split);
    output->commit();
    report.summary.output_path = spec.output_path;
  }
  context.report_progress(1.0);
  report.fibers = whole.n_fibers;
  report.electrodes = whole.n_electrodes;
  report.nt = whole.nt;
  report.n_z_max = whole.n_z_max;
  report.dt_s = whole.dt_s;
  report.dz_mm = whole.dz_mm;
  report.delays = spec.delays;
  report.jitter_sd_ms = spec.jitter_sd_ms;
  if (spec.keep_result) report.result = std::move(whole);
  return report;
}

#define PORTASIM_SFAP_INSTANTIATE_JOB(SPACE) \
  template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_SFAP_INSTANTIATE_JOB)

}  // namespace portasim::sfap
