// `portasim life`: Game of Life with the streaming output pipeline, options and defaults of
// the Python tool it replaces (100 x 100, 100 steps, chunks of 10, simulation.npy, random).
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
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
#include "portasim/distributed/life.hpp"
#include "portasim/life/outputs.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/life/simulation.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

struct LifeOptions {
  std::int64_t width = 100;
  std::int64_t height = 100;
  std::int64_t steps = 100;
  std::int64_t chunk_size = 10;
  std::string output = "simulation.npy";
  std::optional<std::uint64_t> seed;
  double density = 0.5;
  std::string boundary = "torus";
  std::string format;  // npy, or h5; default from the output's extension
  std::string pattern;
  std::string pattern_offset;  // "Y,X"; default: centred
  std::string initial;         // .npy or .h5 grid to start from
  std::int64_t every = 1;
  std::string engine = "byte";
  bool packed = false;
  bool resume = false;
  std::string backend = "default";
  bool quiet = false;
  bool progress = false;
  std::string mpi_output = "gathered";  // under mpirun: gathered or per-rank files
  bool device_aware_mpi = false;
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
  InterruptibleSink(life::ChunkSink& sink, std::string resume_hint)
      : m_sink(sink), m_hint(std::move(resume_hint)) {}
  void write(const life::Chunk& chunk) override {
    m_sink.write(chunk);
    if (const int signal = interrupt_requested())
      throw Interrupted(signal, std::string("stopped by ") + signal_name(signal) +
                                    " after generation " + std::to_string(chunk.last_generation) +
                                    "; " + m_hint);
  }

 private:
  life::ChunkSink& m_sink;
  std::string m_hint;
};

// --progress: the fraction of the generations done, after each chunk is written (on the rank
// that writes; `sink` may be null where a rank writes nothing).
class ProgressSink : public life::ChunkSink {
 public:
  ProgressSink(life::ChunkSink* sink, std::int64_t steps, bool report)
      : m_sink(sink), m_steps(steps), m_report(report ? progress_printer("life") : nullptr) {}
  void write(const life::Chunk& chunk) override {
    if (m_sink) m_sink->write(chunk);
    if (m_report)
      m_report(m_steps > 0
                   ? static_cast<double>(chunk.last_generation) / static_cast<double>(m_steps)
                   : 1.0);
  }

 private:
  life::ChunkSink* m_sink;
  std::int64_t m_steps;
  std::function<void(double)> m_report;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// npy or h5: as given, else from the output's extension.
std::string output_format(const LifeOptions& o) {
  return !o.format.empty() ? o.format : (ends_with(o.output, ".h5") ? "h5" : "npy");
}

// The run's configuration from the options, checked before anything runs (single-process
// and MPI runs alike).
life::Config validated_config(const LifeOptions& o) {
  life::Config config;
  config.width = o.width;
  config.height = o.height;
  config.steps = o.steps;
  config.chunk_size = o.chunk_size;
  config.boundary = o.boundary == "dead" ? life::Boundary::dead : life::Boundary::torus;
  config.engine = o.engine == "bits" ? life::Engine::bits : life::Engine::bytes;
  config.every = o.every;
  config.packed_output = o.packed;
  require(output_format(o) == "h5" || (o.every == 1 && !o.packed),
          "--every and --packed need --format h5 (.npy chunk files hold every generation, one byte "
          "per cell)");
  // Sizes named by their options first; life::validate repeats them for library callers.
  require(o.width <= (std::int64_t(1) << 31) && o.height <= (std::int64_t(1) << 31),
          "grid too large: --width and --height are at most 2^31");
  require(o.steps < std::numeric_limits<std::int64_t>::max(), "--steps must be less than 2^63 - 1");
  const std::int64_t row_bytes = o.packed ? o.width / 8 : o.width;
  checked_product("--chunk-size x --height x --width bytes of a chunk",
                  {o.chunk_size, o.height, row_bytes});
  checked_product("recorded generations (--steps / --every + 1) x --height x --width bytes",
                  {o.steps / o.every + 1, o.height, row_bytes});
  life::validate(config);
  require(!(o.pattern.size() && o.initial.size()), "give --pattern or --initial, not both");
  return config;
}

// Refuses (exit 2) an output that would replace --pattern or --initial: FILE.h5 and its
// temporary, or for .npy output every chunk file of BASE already on disk (a chunk this run
// writes replaces the file of its name).
void require_inputs_spared(const LifeOptions& o, const std::string& output_path) {
  std::vector<io::NamedPath> inputs;
  if (!o.pattern.empty()) inputs.push_back({"--pattern", o.pattern});
  if (!o.initial.empty()) inputs.push_back({"--initial", o.initial});
  if (inputs.empty()) return;
  std::vector<io::NamedPath> outputs;
  if (output_format(o) == "h5") {
    outputs.push_back({"--output", output_path});
  } else {
    for (const life::NpyChunkOnDisk& chunk : life::npy_chunks_on_disk(life::npy_base(output_path)))
      outputs.push_back({"--output '" + o.output + "' chunk file", chunk.path});
  }
  io::require_inputs_spared(outputs, inputs);
}

// The generation a run resumes after, once the point found in the output fits the options.
std::int64_t accept_resume_point(const life::ResumePoint& point, const LifeOptions& o) {
  require(point.grid.height == o.height && point.grid.width == o.width,
          "cannot resume from '" + point.source + "': its grid is " +
              std::to_string(point.grid.height) + " x " + std::to_string(point.grid.width));
  require(point.generation <= o.steps,
          "cannot resume: '" + point.source + "' is already past --steps");
  if (!o.quiet)
    std::cout << "portasim life: resuming after generation " << point.generation << " from "
              << point.source << "\n";
  return point.generation;
}

// Under mpirun (any number of ranks): rows split over the ranks (distributed::run_life).
// Gathered output (the default) is written by rank 0 and is identical to a single-rank run's;
// --mpi-output per-rank writes each rank's rows to BASE.rankRRRR_*.npy (or STEM.rankRRRR.h5).
template <class ExecutionSpace>
int run_life_mpi(const ExecutionSpace& exec, const LifeOptions& o, const mpi::Communicator& comm) {
  using memory_space = typename ExecutionSpace::memory_space;
  const life::Config config = validated_config(o);
  const std::string format = output_format(o);
  require(o.height >= comm.size(), "--height " + std::to_string(o.height) + " is less than the " +
                                       std::to_string(comm.size()) + " MPI ranks");
  const bool per_rank = o.mpi_output == "per-rank";
  require(!(per_rank && o.resume), "--resume needs --mpi-output gathered");
  const mpi::Block rows = distributed::life_rows(comm, o.height);

  // Rank 0 reads every file (pattern, initial grid, resume point) and sends the grid out.
  std::int64_t start_generation = 0, have_grid = 0;
  std::vector<std::uint8_t> grid;
  std::string initial_description;
  std::uint64_t seed = 0;
  if (o.pattern.empty() && o.initial.empty()) {
    require_in_range("--density", o.density, 0.0, 1.0);
    seed = o.seed ? *o.seed : std::random_device{}();
    comm.broadcast(&seed, sizeof(seed));
    initial_description =
        "random, density " + human_number(o.density, 6) + ", seed " + std::to_string(seed);
  }
  std::unique_ptr<life::NpyChunkFiles> npy;
  std::unique_ptr<life::H5ChunkFile> h5;
  life::ChunkSink* sink = nullptr;
  const std::string rank_suffix = [&] {
    char text[32];
    std::snprintf(text, sizeof(text), ".rank%04d", comm.rank());
    return std::string(text);
  }();
  const std::string h5_path =
      !per_rank
          ? o.output
          : (ends_with(o.output, ".h5") ? o.output.substr(0, o.output.size() - 3) : o.output) +
                rank_suffix + ".h5";
  if (comm.is_root() || per_rank) {
    require_inputs_spared(o, format == "npy"
                                 ? life::npy_base(o.output) + (per_rank ? rank_suffix : "") + ".npy"
                                 : h5_path);
    std::optional<life::HostGrid> start;
    if (comm.is_root() && !o.pattern.empty()) {
      const life::HostGrid pattern =
          ends_with(o.pattern, ".npy") ? life::read_npy(o.pattern) : life::read_rle(o.pattern);
      std::int64_t y = (o.height - pattern.height) / 2, x = (o.width - pattern.width) / 2;
      if (!o.pattern_offset.empty()) std::tie(y, x) = parse_offset(o.pattern_offset);
      start = life::place(pattern, o.height, o.width, y, x);
      initial_description =
          "pattern " + o.pattern + " at " + std::to_string(y) + "," + std::to_string(x);
    } else if (comm.is_root() && !o.initial.empty()) {
      start =
          ends_with(o.initial, ".h5") ? life::read_grid_h5(o.initial) : life::read_npy(o.initial);
      require(start->height == o.height && start->width == o.width,
              "--initial '" + o.initial + "' is " + std::to_string(start->height) + " x " +
                  std::to_string(start->width) + ", but --height/--width ask for " +
                  std::to_string(o.height) + " x " + std::to_string(o.width));
      initial_description = "grid " + o.initial;
    }
    std::optional<life::ResumePoint> resume_point;
    life::Config file_config = config;
    if (per_rank) file_config.height = rows.size();
    if (format == "npy") {
      const std::string base = life::npy_base(o.output) + (per_rank ? rank_suffix : "");
      if (o.resume) resume_point = life::find_npy_resume_point(base);
      {
        io::AtomicOutput probe(life::npy_chunk_path(base, 0, 0));  // the folder must be writable
      }
      npy = std::make_unique<life::NpyChunkFiles>(base);
      sink = npy.get();
    } else {
      life::H5RunDescription description{
          o.boundary,          o.engine,  o.seed ? std::to_string(*o.seed) : std::to_string(seed),
          initial_description, o.density, o.chunk_size};
      h5 = std::make_unique<life::H5ChunkFile>(h5_path, file_config, description, o.resume);
      resume_point = h5->resume_point();
      sink = h5.get();
    }
    if (resume_point) {
      start_generation = accept_resume_point(*resume_point, o);
      start = resume_point->grid;
    }
    if (comm.is_root() && start) {
      have_grid = 1;
      grid = std::move(start->cells);
    }
  }
  comm.broadcast(&have_grid, sizeof(have_grid));
  comm.broadcast(&start_generation, sizeof(start_generation));
  life::ByteGrid<memory_space> initial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::life::initial")),
      rows.size(), o.width);
  if (have_grid) {
    grid.resize(static_cast<std::size_t>(o.height * o.width));
    comm.broadcast(grid.data(), grid.size());
    Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryUnmanaged>
        host(grid.data() + rows.begin * o.width, rows.size(), o.width);
    Kokkos::deep_copy(exec, initial, host);
  } else {
    distributed::fill_random_rows(exec, initial, rows.begin, o.density, seed);
  }
  exec.fence();

  distributed::LifeOptions options;
  options.output = per_rank ? distributed::LifeOutput::per_rank : distributed::LifeOutput::gathered;
  options.device_aware_mpi = o.device_aware_mpi;
  ProgressSink with_progress(sink, o.steps, o.progress && comm.is_root());
  const life::RunStats stats = distributed::run_life(exec, comm, config, initial, start_generation,
                                                     sink ? &with_progress : nullptr, options);
  if (h5) h5->finish();
  comm.barrier();

  if (!o.quiet && comm.is_root()) {
    std::cout << "portasim life: " << o.height << " x " << o.width << " " << o.boundary
              << ", generations " << stats.first_generation << ".." << stats.last_generation << ", "
              << o.engine << " engine on " << ExecutionSpace::name() << " x " << comm.size()
              << " MPI ranks (row blocks)\n";
    std::cout << "  final population " << stats.final_population << "\n";
    std::cout << "  time " << human_number(stats.seconds) << " s (+ "
              << human_number(stats.setup_seconds) << " s setup), "
              << human_number(stats.cells_per_second())
              << " cells/s (including output); compute and halo "
              << human_number(stats.compute_seconds) << " s, gather "
              << human_number(stats.copy_seconds) << " s, write "
              << human_number(stats.write_seconds) << " s\n";
    std::cout << "  wrote " << (per_rank ? "per-rank files " : "")
              << (npy ? life::npy_base(o.output) + (per_rank ? ".rank*" : "") + "_*.npy" : o.output)
              << "\n";
  }
  return 0;
}

template <class ExecutionSpace>
int run_life(const ExecutionSpace& exec, const LifeOptions& o) {
  if (const auto comm = mpi::Communicator::world(); mpi::active() || o.mpi_output == "per-rank")
    return run_life_mpi(exec, o, comm);
  using memory_space = typename ExecutionSpace::memory_space;
  const life::Config config = validated_config(o);
  const std::string format = output_format(o);
  require_inputs_spared(o, o.output);

  // The initial grid, fully validated before any output is touched.
  std::optional<life::HostGrid> start;
  std::string initial_description;
  std::uint64_t seed = 0;
  if (!o.pattern.empty()) {
    const life::HostGrid pattern =
        ends_with(o.pattern, ".npy") ? life::read_npy(o.pattern) : life::read_rle(o.pattern);
    std::int64_t y = (o.height - pattern.height) / 2, x = (o.width - pattern.width) / 2;
    if (!o.pattern_offset.empty()) std::tie(y, x) = parse_offset(o.pattern_offset);
    start = life::place(pattern, o.height, o.width, y, x);
    initial_description =
        "pattern " + o.pattern + " at " + std::to_string(y) + "," + std::to_string(x);
  } else if (!o.initial.empty()) {
    start = ends_with(o.initial, ".h5") ? life::read_grid_h5(o.initial) : life::read_npy(o.initial);
    require(start->height == o.height && start->width == o.width,
            "--initial '" + o.initial + "' is " + std::to_string(start->height) + " x " +
                std::to_string(start->width) + ", but --height/--width ask for " +
                std::to_string(o.height) + " x " + std::to_string(o.width));
    initial_description = "grid " + o.initial;
  } else {
    require_in_range("--density", o.density, 0.0, 1.0);
    seed = o.seed ? *o.seed : std::random_device{}();
    initial_description =
        "random, density " + human_number(o.density, 6) + ", seed " + std::to_string(seed);
  }

  // The sink, and where a resumed run starts.
  std::unique_ptr<life::NpyChunkFiles> npy;
  std::unique_ptr<life::H5ChunkFile> h5;
  std::optional<life::ResumePoint> resume_point;
  life::ChunkSink* sink = nullptr;
  if (format == "npy") {
    const std::string base = life::npy_base(o.output);
    if (o.resume) resume_point = life::find_npy_resume_point(base);
    {
      io::AtomicOutput probe(life::npy_chunk_path(base, 0, 0));  // the folder must be writable
    }
    npy = std::make_unique<life::NpyChunkFiles>(base);
    sink = npy.get();
  } else {
    life::H5RunDescription description{
        o.boundary,          o.engine,  o.seed ? std::to_string(*o.seed) : std::to_string(seed),
        initial_description, o.density, o.chunk_size};
    h5 = std::make_unique<life::H5ChunkFile>(o.output, config, description, o.resume);
    resume_point = h5->resume_point();
    sink = h5.get();
  }
  std::int64_t start_generation = 0;
  if (resume_point) {
    start_generation = accept_resume_point(*resume_point, o);
    start = resume_point->grid;
  }

  life::ByteGrid<memory_space> initial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::life::initial")),
      o.height, o.width);
  if (start) {
    Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryUnmanaged>
        host(start->cells.data(), o.height, o.width);
    Kokkos::deep_copy(exec, initial, host);
  } else {
    life::fill_random(exec, initial, o.density, seed);
  }
  exec.fence();

  const CooperativeInterrupt stop_at_chunk_boundary;
  InterruptibleSink interruptible(
      *sink, (npy ? "the chunk files " + life::npy_base(o.output) + "_*.npy"
                  : "'" + h5->partial_path() + "'") +
                 " hold every generation so far; continue with the same options and --resume");
  ProgressSink with_progress(&interruptible, o.steps, o.progress);
  const life::RunStats stats = life::run(exec, config, initial, start_generation, &with_progress);
  if (h5) h5->finish();

  if (!o.quiet) {
    std::cout << "portasim life: " << o.height << " x " << o.width << " " << o.boundary
              << ", generations " << stats.first_generation << ".." << stats.last_generation << ", "
              << o.engine << " engine on " << ExecutionSpace::name() << " (" << initial_description
              << ")\n";
    std::cout << "  final population " << stats.final_population << "\n";
    std::cout << "  time " << human_number(stats.seconds) << " s (+ "
              << human_number(stats.setup_seconds) << " s setup), "
              << human_number(stats.cells_per_second()) << " cells/s (including output), "
              << stats.chunks << " chunks; compute " << human_number(stats.compute_seconds)
              << " s, copy " << human_number(stats.copy_seconds) << " s, write "
              << human_number(stats.write_seconds) << " s, overlap "
              << human_number(stats.overlap_ratio()) << "\n";
    std::cout << "  wrote " << (npy ? life::npy_base(o.output) + "_*.npy" : o.output) << "\n";
  }
  return 0;
}

}  // namespace

void add_life_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<LifeOptions>();
  auto* c = app.add_subcommand("life", "Game of Life (B3/S23) with a streaming output pipeline");
  c->add_option("--width", o->width, "Grid width")->capture_default_str();
  c->add_option("--height", o->height, "Grid height")->capture_default_str();
  c->add_option("--steps", o->steps, "Generations after generation 0")->capture_default_str();
  c->add_option("--chunk-size", o->chunk_size, "Generations per chunk (per output file)")
      ->capture_default_str();
  c->add_option("--output", o->output, "Output: BASE.npy (chunk files BASE_*.npy) or FILE.h5")
      ->capture_default_str();
  c->add_option("--seed", o->seed, "Seed of the random initial grid (default: random)");
  c->add_option("--density", o->density, "Fraction of live cells in the random initial grid")
      ->capture_default_str();
  c->add_option("--boundary", o->boundary, "Torus (wrap around) or dead border")
      ->check(CLI::IsMember({"torus", "dead"}))
      ->capture_default_str();
  c->add_option("--format", o->format, "npy or h5 (default: from the output's extension)")
      ->check(CLI::IsMember({"npy", "h5"}));
  c->add_option("--pattern", o->pattern, "Start from an RLE pattern file (or a 2-D .npy)");
  c->add_option("--pattern-offset", o->pattern_offset,
                "Top-left corner Y,X of the pattern (default: centred)");
  c->add_option("--initial", o->initial,
                "Start from a grid in a .npy file or an HDF5 file (/generations)");
  c->add_option("--every", o->every, "Write every k-th generation (h5)")->capture_default_str();
  c->add_option("--engine", o->engine,
                "byte: one byte per cell; bits: 64 cells per word (width % 64 == 0)")
      ->check(CLI::IsMember({"byte", "bits"}))
      ->capture_default_str();
  c->add_flag("--packed", o->packed,
              "Write 8 cells per byte (h5; numpy.unpackbits(..., bitorder='little'))");
  c->add_flag("--resume", o->resume, "Continue an interrupted run from its last complete chunk");
  c->add_option("--backend", o->backend,
                "Execution space: default, or one of " + enabled_backend_names())
      ->capture_default_str();
  c->add_flag("--progress", o->progress, "Show progress on stderr (after each chunk)");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->add_option("--mpi-output", o->mpi_output,
                "Under mpirun: gathered (rank 0 writes the single-rank files) or per-rank")
      ->check(CLI::IsMember({"gathered", "per-rank"}))
      ->capture_default_str();
  c->add_flag("--device-aware-mpi", o->device_aware_mpi,
              "Under mpirun: hand device pointers to a CUDA-aware MPI (no host staging)");
  c->callback([&action, o, c] {
    action = [o, c] {
      // Options the run would ignore, refused with the option that makes them meaningless.
      for (const char* start : {"--pattern", "--initial"})
        if (c->count(start) > 0)
          for (const char* option : {"--density", "--seed"})
            refuse_if_given(*c, option, std::string("with ") + start + ": the grid is not random");
      if (c->count("--pattern") == 0) refuse_if_given(*c, "--pattern-offset", "without --pattern");
      if (!mpi::active())
        refuse_if_given(*c, "--device-aware-mpi",
                        "outside mpirun (a single process sends nothing)");
      require(o->width > 0, "--width must be > 0, got " + std::to_string(o->width));
      require(o->height > 0, "--height must be > 0, got " + std::to_string(o->height));
      require(o->steps >= 0, "--steps must be >= 0, got " + std::to_string(o->steps));
      require(o->chunk_size > 0, "--chunk-size must be > 0, got " + std::to_string(o->chunk_size));
      require(o->every > 0, "--every must be > 0, got " + std::to_string(o->every));
      require(o->engine != "bits" || o->width % 64 == 0,
              "--engine bits needs a --width that is a multiple of 64, got " +
                  std::to_string(o->width));
      return dispatch_backend(o->backend, [&](const auto& exec) { return run_life(exec, *o); });
    };
  });
}

}  // namespace portasim::cli
