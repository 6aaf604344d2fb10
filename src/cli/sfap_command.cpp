// `portasim sfap`: SFAPs (and the MUAP) of a motor unit from an HDF5 input in the layout of the
// reference files (docs/formats.md), written to an HDF5 output. A thin shell over
// sfap::run_job: parse the options, build the job spec, run it, print the report.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/sfap/job.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

struct SfapOptions {
  sfap::JobSpec spec;
  double dz_mm = 0, fs_hz = 0;  // copied into the spec when given
  std::uint64_t jitter_seed = 0;
  std::string backend = "default";
  bool progress = false;
  bool quiet = false;
};

void print_report(const sfap::JobReport& r) {
  std::cout << "portasim sfap: " << r.fibers << " fibers x " << r.electrodes
            << " electrodes, Nt = " << r.nt << " (dt = " << human_number(r.dt_s)
            << " s), dz = " << human_number(r.dz_mm) << " mm, N_z <= " << r.n_z_max << ", on "
            << r.summary.backend
            << (r.summary.ranks > 1 ? " x " + std::to_string(r.summary.ranks) + " MPI ranks"
                                    : std::string())
            << "\n";
  std::string variant = "no delays";
  if (r.delays)
    variant = r.jitter_sd_ms > 0
                  ? "with delays and MUAP (jitter sd " + human_number(r.jitter_sd_ms) + " ms)"
                  : "with delays and MUAP";
  std::cout << "  sfaps shape (" << r.nt << ", " << r.electrodes << ", " << r.fibers << "), "
            << variant << ", time " << human_number(r.summary.seconds) << " s\n";
  for (const std::string& warning : r.summary.warnings)
    std::cout << "  warning: " << warning << "\n";
  std::cout << "  wrote " << r.summary.output_path << "\n";
}

template <class ExecutionSpace>
int run_sfap(const ExecutionSpace& exec, const SfapOptions& o) {
  JobContext context;
  context.comm = mpi::Communicator::world();  // under mpirun: the fibers split over the ranks
  // No resume for SFAP: an interrupted run keeps nothing.
  context.guard_temporary = [](const std::string& path) {
    return std::static_pointer_cast<void>(std::make_shared<RemoveOnInterrupt>(path));
  };
  if (o.progress) context.progress = progress_printer("sfap");
  sfap::JobSpec spec = o.spec;
  spec.keep_result = false;  // the file is the output
  const sfap::JobReport report = sfap::run_job(exec, spec, context);
  if (!o.quiet && context.comm.is_root()) print_report(report);
  return 0;
}

}  // namespace

void add_sfap_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<SfapOptions>();
  sfap::JobSpec& s = o->spec;
  s.output_path = "sfap.h5";
  auto* c = app.add_subcommand(
      "sfap", "Single-fiber action potentials of intramuscular EMG (MyoGen's calc_sfaps)");
  c->add_option("--input", s.input_path,
                "HDF5 input with the /inputs layout of the SFAP reference files")
      ->required();
  c->add_option("--output", s.output_path, "HDF5 output file")->capture_default_str();
  auto* dz = c->add_option("--dz", o->dz_mm, "Spatial step in mm (overrides /inputs dz_mm)");
  auto* fs =
      c->add_option("--fs", o->fs_hz, "Sampling rate in Hz (overrides /inputs fs_Hz and dt_s)");
  auto* delays = c->add_flag("--no-delays", "Skip the nerve-path delays and the MUAP");
  c->add_flag("--corrected-source", s.corrected_source,
              "Physically corrected mirror-symmetric source (not MyoGen)");
  c->add_flag("--dz-weighted", s.dz_weighted,
              "Weight the projection by dz (SFAPs in mV, dz independent; not MyoGen)");
  c->add_option("--jitter-sd-ms", s.jitter_sd_ms,
                "MUAP jitter: each fiber's SFAP shifted by a further N(0, sd) ms (0 = off)")
      ->capture_default_str();
  auto* seed = c->add_option(
      "--jitter-seed", o->jitter_seed,
      "Seed of the jitter draws (keyed by seed and fiber: the same on any rank count)");
  c->add_option("--backend", o->backend,
                "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  c->add_flag("--progress", o->progress, "Show progress on stderr");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o, dz, fs, delays, seed] {
    o->spec.delays = delays->count() == 0;
    if (dz->count() > 0) o->spec.dz_mm = o->dz_mm;
    if (fs->count() > 0) o->spec.fs_hz = o->fs_hz;
    if (seed->count() > 0) o->spec.jitter_seed = o->jitter_seed;
    action = [o] {
      sfap::validate(o->spec);
      return dispatch_backend(o->backend, [&](const auto& exec) { return run_sfap(exec, *o); });
    };
  });
}

}  // namespace portasim::cli
