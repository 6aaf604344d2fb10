// `portasim sfap`: SFAPs (and the MUAP) of a motor unit from an HDF5 input in the layout of the
// reference files (shared/reference/sfap), written to an HDF5 output.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "ignored_options.hpp"
#include "interrupt.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/distributed/sfap.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/hdf5_io.hpp"

namespace portasim::cli {

namespace sfap_cli {

struct SfapOptions {
  std::string input;
  std::string output = "sfap.h5";
  double dz_mm = std::nan("");
  double fs_hz = std::nan("");
  bool no_delays = false;
  bool corrected_source = false;
  bool dz_weighted = false;
  double jitter_sd_ms = 0.0;
  std::uint64_t jitter_seed = 0;
  std::string backend = "default";
  bool quiet = false;
};

template <class ExecutionSpace>
int run_sfap(const ExecutionSpace& exec, const SfapOptions& o) {
  io::require_inputs_spared({{"--output", o.output}}, {{"--input", o.input}});
  const io::H5File input = io::H5File::open_read(o.input);
  const sfap::HostInputs host = sfap::read_inputs(input, "/inputs", !o.no_delays);
  sfap::Options options = sfap::options_from(host, sfap::Options{});
  if (!std::isnan(o.dz_mm)) options.dz_mm = o.dz_mm;
  if (!std::isnan(o.fs_hz)) {
    options.fs_hz = o.fs_hz;
    options.dt_s = 0;
  }
  require(std::isfinite(options.dz_mm) && options.dz_mm > 0,
          "dz must be finite and > 0 (--dz or attribute /inputs dz_mm), got " +
              std::to_string(options.dz_mm));
  const double dt = options.dt_s > 0 ? options.dt_s : 1.0 / options.fs_hz;
  require(std::isfinite(dt) && dt > 0,
          "fs must be finite and > 0 (--fs or attribute /inputs fs_Hz/dt_s)");
  options.apply_delays = !o.no_delays;
  options.corrected_source = o.corrected_source;
  options.dz_weighted = o.dz_weighted;
  options.jitter_sd_s = o.jitter_sd_ms * 1e-3;
  options.jitter_seed = o.jitter_seed;

  // Under mpirun: this rank's block of the fibers; rank 0 gathers and writes.
  const mpi::Communicator comm = mpi::Communicator::world();
  const bool split =
      mpi::active();  // under mpirun, even on one rank: the same code path at every size
  if (split) {
    require(static_cast<std::int64_t>(host.n_fibers) >= comm.size(),
            std::to_string(host.n_fibers) + " fibers cannot be split over " +
                std::to_string(comm.size()) + " MPI ranks");
    const mpi::Block block =
        distributed::sfap_fibers(comm, static_cast<std::int64_t>(host.n_fibers));
    options.first_fiber = block.begin;
    options.fiber_count = block.size();
  }
  std::unique_ptr<io::AtomicOutput> output_file;
  if (comm.is_root()) output_file = std::make_unique<io::AtomicOutput>(o.output);
  // No resume for SFAP: an interrupted run keeps nothing.
  std::unique_ptr<RemoveOnInterrupt> remove_if_interrupted;
  if (output_file)
    remove_if_interrupted = std::make_unique<RemoveOnInterrupt>(output_file->temporary_path());
  const auto inputs = sfap::upload(exec, host);
  exec.fence();
  const auto start = std::chrono::steady_clock::now();
  const auto result = sfap::compute(exec, inputs, options);
  exec.fence();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto host_result =
      split ? distributed::gather_result(comm, sfap::to_host(result),
                                         static_cast<std::int64_t>(host.n_fibers))
            : sfap::to_host(result);
  const double slowest = comm.max(seconds);
  if (!comm.is_root()) return 0;
  io::AtomicOutput& output = *output_file;
  {
    io::H5File file = io::H5File::create(output.temporary_path());
    sfap::write_result(file, host_result);
    file.write_attribute("/", "generator", "portasim sfap");
    file.write_attribute("/", "backend", std::string(ExecutionSpace::name()));
    file.write_attribute("/", "input", o.input);
    file.write_attribute("/outputs", "corrected_source",
                         static_cast<std::int8_t>(o.corrected_source));
    file.write_attribute("/outputs", "dz_weighted", static_cast<std::int8_t>(o.dz_weighted));
    if (o.jitter_sd_ms > 0) {
      file.write_attribute("/outputs", "jitter_sd_s", options.jitter_sd_s);
      file.write_attribute("/outputs", "jitter_seed", static_cast<std::int64_t>(o.jitter_seed));
    }
    if (split) file.write_attribute("/", "mpi_ranks", static_cast<std::int64_t>(comm.size()));
    file.flush();
  }
  output.commit();
  if (!o.quiet) {
    std::cout << "portasim sfap: " << host_result.n_fibers << " fibers x "
              << host_result.n_electrodes << " electrodes, Nt = " << host_result.nt
              << " (dt = " << human_number(host_result.dt_s)
              << " s), dz = " << human_number(host_result.dz_mm)
              << " mm, N_z <= " << host_result.n_z_max << ", on " << ExecutionSpace::name()
              << (split ? " x " + std::to_string(comm.size()) + " MPI ranks" : std::string())
              << "\n";
    std::cout << "  sfaps shape (" << host_result.nt << ", " << host_result.n_electrodes << ", "
              << host_result.n_fibers << "), "
              << (o.no_delays ? "no delays"
                  : o.jitter_sd_ms > 0
                      ? "with delays and MUAP (jitter sd " + human_number(o.jitter_sd_ms) + " ms)"
                      : "with delays and MUAP")
              << ", time " << human_number(slowest) << " s\n";
    std::cout << "  wrote " << o.output << "\n";
  }
  return 0;
}

}  // namespace sfap_cli

void add_sfap_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<sfap_cli::SfapOptions>();
  auto* c = app.add_subcommand(
      "sfap", "Single-fiber action potentials of intramuscular EMG (MyoGen's calc_sfaps)");
  c->add_option("--input", o->input,
                "HDF5 input with the /inputs layout of the SFAP reference files")
      ->required();
  c->add_option("--output", o->output, "HDF5 output file")->capture_default_str();
  auto* dz_option = c->add_option("--dz", o->dz_mm, "Spatial step in mm (overrides /inputs dz_mm)");
  auto* fs_option =
      c->add_option("--fs", o->fs_hz, "Sampling rate in Hz (overrides /inputs fs_Hz and dt_s)");
  c->add_flag("--no-delays", o->no_delays, "Skip the nerve-path delays and the MUAP");
  c->add_flag("--corrected-source", o->corrected_source,
              "Physically corrected mirror-symmetric source (not MyoGen)");
  c->add_flag("--dz-weighted", o->dz_weighted,
              "Weight the projection by dz (SFAPs in mV, dz independent; not MyoGen)");
  c->add_option("--jitter-sd-ms", o->jitter_sd_ms,
                "MUAP jitter: each fiber's SFAP shifted by a further N(0, sd) ms (0 = off)")
      ->capture_default_str();
  c->add_option("--jitter-seed", o->jitter_seed,
                "Seed of the jitter draws (keyed by seed and fiber: the same on any rank count)")
      ->capture_default_str();
  c->add_option("--backend", o->backend,
                "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o, c, dz_option, fs_option] {
    const bool dz_given = dz_option->count() > 0, fs_given = fs_option->count() > 0;
    action = [o, c, dz_given, fs_given] {
      require(std::isfinite(o->jitter_sd_ms) && o->jitter_sd_ms >= 0,
              "--jitter-sd-ms must be finite and >= 0");
      if (o->no_delays) refuse_if_given(*c, "--jitter-sd-ms", "with --no-delays (no MUAP)");
      if (!(o->jitter_sd_ms > 0))
        refuse_if_given(*c, "--jitter-seed", "without --jitter-sd-ms > 0");
      if (dz_given) require(std::isfinite(o->dz_mm) && o->dz_mm > 0, "--dz must be finite and > 0");
      if (fs_given) require(std::isfinite(o->fs_hz) && o->fs_hz > 0, "--fs must be finite and > 0");
      return dispatch_backend(o->backend,
                              [&](const auto& exec) { return sfap_cli::run_sfap(exec, *o); });
    };
  });
}

}  // namespace portasim::cli
