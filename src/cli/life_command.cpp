// `portasim life`: Game of Life with the streaming output pipeline, options and defaults of
// the Python tool it replaces (100 x 100, 100 steps, chunks of 10, simulation.npy, random).
// A thin shell over life::run_job: parse the options, build the job spec, run it, print the
// report. Under mpirun the same job splits the grid into row blocks over the ranks.
#include <iostream>
#include <memory>
#include <string>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/life/job.hpp"
#include "portasim/life/outputs.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

struct LifeOptions {
  life::JobSpec spec;
  std::string boundary = "torus", engine = "byte", pattern_offset, mpi_output = "gathered";
  double density = 0.5;
  std::uint64_t seed = 0;
  std::string backend = "default";
  bool quiet = false, progress = false;
};

std::pair<std::int64_t, std::int64_t> parse_offset(const std::string& text) {
  const auto comma = text.find(',');
  require(comma != std::string::npos, "--pattern-offset '" + text + "' is not Y,X");
  try {
    std::size_t used_y = 0, used_x = 0;
    const std::int64_t y = std::stoll(text.substr(0, comma), &used_y);
    const std::int64_t x = std::stoll(text.substr(comma + 1), &used_x);
    require(used_y == comma && used_x == text.size() - comma - 1,
            "--pattern-offset '" + text + "' is not Y,X");
    return {y, x};
  } catch (const std::logic_error&) {
    throw_error(ErrorKind::invalid_argument, "--pattern-offset '" + text + "' is not Y,X");
  }
}

// Stops the run after the chunk that was written when SIGINT/SIGTERM arrived: every chunk
// before is complete on disk (and flushed), which is what --resume continues from.
class InterruptibleSink : public life::ChunkSink {
 public:
  explicit InterruptibleSink(std::string resume_hint) : m_hint(std::move(resume_hint)) {}
  void write(const life::Chunk& chunk) override {
    if (const int signal = interrupt_requested())
      throw Interrupted(signal, std::string("stopped by ") + signal_name(signal) +
                                    " after generation " + std::to_string(chunk.last_generation) +
                                    "; " + m_hint);
  }

 private:
  std::string m_hint;
};

void print_report(const life::JobReport& r, const life::JobSpec& s, const LifeOptions& o) {
  const life::RunStats& stats = r.stats;
  if (r.resumed_after)
    std::cout << "portasim life: resuming after generation " << *r.resumed_after << " from "
              << r.resumed_from << "\n";
  std::cout << "portasim life: " << s.config.height << " x " << s.config.width << " " << o.boundary
            << ", generations " << stats.first_generation << ".." << stats.last_generation << ", "
            << o.engine << " engine on " << r.summary.backend
            << (r.summary.ranks > 1
                    ? " x " + std::to_string(r.summary.ranks) + " MPI ranks (row blocks)"
                    : std::string())
            << " (" << r.initial << ")\n";
  std::cout << "  final population " << stats.final_population << "\n";
  std::cout << "  time " << human_number(stats.seconds) << " s (+ "
            << human_number(stats.setup_seconds) << " s setup), "
            << human_number(stats.cells_per_second()) << " cells/s (including output), "
            << stats.chunks << " chunks; compute" << (r.summary.ranks > 1 ? " and halo " : " ")
            << human_number(stats.compute_seconds) << " s, copy"
            << (r.summary.ranks > 1 ? " and gather " : " ") << human_number(stats.copy_seconds)
            << " s, write " << human_number(stats.write_seconds) << " s, overlap "
            << human_number(stats.overlap_ratio()) << "\n";
  if (!r.written.empty()) std::cout << "  wrote " << r.written << "\n";
}

template <class ExecutionSpace>
int run_life(const ExecutionSpace& exec, const LifeOptions& o) {
  JobContext context;
  context.comm = mpi::Communicator::world();  // under mpirun: row blocks over the ranks
  if (o.progress) context.progress = progress_printer("life");
  const life::JobSpec& spec = o.spec;
  // One process stops cleanly between chunks; every chunk written so far is kept for --resume.
  std::unique_ptr<CooperativeInterrupt> cooperative;
  std::unique_ptr<InterruptibleSink> interruptible;
  if (context.comm.size() == 1) {
    cooperative = std::make_unique<CooperativeInterrupt>();
    interruptible = std::make_unique<InterruptibleSink>(
        (life::output_format(spec) == "npy"
             ? "the chunk files " + life::npy_base(spec.output_path) + "_*.npy"
             : "'" + io::temporary_path_of(spec.output_path) + "'") +
        " hold every generation so far; continue with the same options and --resume");
  }
  const life::JobReport report = life::run_job(exec, spec, context, interruptible.get());
  if (!o.quiet && context.comm.is_root()) print_report(report, spec, o);
  return 0;
}

}  // namespace

void add_life_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<LifeOptions>();
  life::JobSpec& s = o->spec;
  life::Config& c = s.config;
  s.output_path = "simulation.npy";
  auto* cmd = app.add_subcommand("life", "Game of Life (B3/S23) with a streaming output pipeline");
  cmd->add_option("--width", c.width, "Grid width")->capture_default_str();
  cmd->add_option("--height", c.height, "Grid height")->capture_default_str();
  cmd->add_option("--steps", c.steps, "Generations after generation 0")->capture_default_str();
  cmd->add_option("--chunk-size", c.chunk_size, "Generations per chunk (per output file)")
      ->capture_default_str();
  cmd->add_option("--output", s.output_path, "Output: BASE.npy (chunk files BASE_*.npy) or FILE.h5")
      ->capture_default_str();
  auto* seed =
      cmd->add_option("--seed", o->seed, "Seed of the random initial grid (default: random)");
  auto* density =
      cmd->add_option("--density", o->density, "Fraction of live cells in the random initial grid")
          ->capture_default_str();
  cmd->add_option("--boundary", o->boundary, "Torus (wrap around) or dead border")
      ->check(CLI::IsMember({"torus", "dead"}))
      ->capture_default_str();
  cmd->add_option("--format", s.format, "npy or h5 (default: from the output's extension)")
      ->check(CLI::IsMember({"npy", "h5"}));
  cmd->add_option("--pattern", s.pattern, "Start from an RLE pattern file (or a 2-D .npy)");
  auto* offset = cmd->add_option("--pattern-offset", o->pattern_offset,
                                 "Top-left corner Y,X of the pattern (default: centred)");
  cmd->add_option("--initial", s.initial_path,
                  "Start from a grid in a .npy file or an HDF5 file (/generations)");
  cmd->add_option("--every", c.every, "Write every k-th generation (h5)")->capture_default_str();
  cmd->add_option("--engine", o->engine,
                  "byte: one byte per cell; bits: 64 cells per word (width % 64 == 0)")
      ->check(CLI::IsMember({"byte", "bits"}))
      ->capture_default_str();
  cmd->add_flag("--packed", c.packed_output,
                "Write 8 cells per byte (h5; numpy.unpackbits(..., bitorder='little'))");
  cmd->add_flag("--resume", s.resume, "Continue an interrupted run from its last complete chunk");
  cmd->add_option("--backend", o->backend,
                  "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  cmd->add_flag("--progress", o->progress, "Show progress on stderr (after each chunk)");
  cmd->add_flag("--quiet", o->quiet, "Print nothing on success");
  cmd->add_option("--mpi-output", o->mpi_output,
                  "Under mpirun: gathered (rank 0 writes the single-rank files) or per-rank")
      ->check(CLI::IsMember({"gathered", "per-rank"}))
      ->capture_default_str();
  cmd->add_flag("--device-aware-mpi", s.device_aware_mpi,
                "Under mpirun: hand device pointers to a CUDA-aware MPI (no host staging)");
  cmd->callback([&action, o, seed, density, offset] {
    life::JobSpec& spec = o->spec;
    spec.config.boundary = o->boundary == "dead" ? life::Boundary::dead : life::Boundary::torus;
    spec.config.engine = o->engine == "bits" ? life::Engine::bits : life::Engine::bytes;
    spec.rank_output =
        o->mpi_output == "per-rank" ? life::RankOutput::per_rank : life::RankOutput::gathered;
    if (seed->count() > 0) spec.seed = o->seed;
    if (density->count() > 0) spec.density = o->density;
    const bool offset_given = offset->count() > 0;
    action = [o, offset_given] {
      if (offset_given) o->spec.pattern_offset = parse_offset(o->pattern_offset);
      life::validate(o->spec);
      return dispatch_backend(o->backend, [&](const auto& exec) { return run_life(exec, *o); });
    };
  });
}

}  // namespace portasim::cli
