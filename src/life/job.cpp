// The Life job (life/job.hpp) and its explicit instantiations on every enabled space.
#include "portasim/life/job.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <functional>
#include <memory>
#include <random>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/human_number.hpp"
#include "portasim/core/input_protection.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/life/outputs.hpp"

namespace portasim::life {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void refuse(bool given, const std::string& option, const std::string& because) {
  require(!given, option + " has no effect " + because);
}

}  // namespace

std::string output_format(const JobSpec& spec) {
  return !spec.format.empty() ? spec.format : (ends_with(spec.output_path, ".h5") ? "h5" : "npy");
}

void validate(const JobSpec& spec) {
  const Config& c = spec.config;
  validate(c);
  require(spec.format.empty() || spec.format == "npy" || spec.format == "h5",
          "--format must be npy or h5, got '" + spec.format + "'");
  // A sink in memory takes any recorded generations; .npy chunk files only whole ones.
  require(
      spec.output_path.empty() || output_format(spec) == "h5" || (c.every == 1 && !c.packed_output),
      "--every and --packed need --format h5 (.npy chunk files hold every generation, one byte "
      "per cell)");
  const int starts =
      !spec.pattern.empty() + !spec.initial_path.empty() + spec.initial_grid.has_value();
  require(starts <= 1, "give --pattern or --initial, not both");
  for (const auto& [given, option] :
       {std::pair{!spec.pattern.empty(), "--pattern"},
        std::pair{!spec.initial_path.empty(), "--initial"},
        std::pair{spec.initial_grid.has_value(), "an initial grid"}}) {
    refuse(given && spec.density.has_value(), "--density",
           std::string("with ") + option + ": the grid is not random");
    refuse(given && spec.seed.has_value(), "--seed",
           std::string("with ") + option + ": the grid is not random");
  }
  refuse(spec.pattern_offset.has_value() && spec.pattern.empty(), "--pattern-offset",
         "without --pattern");
  if (spec.density) require_in_range("--density", *spec.density, 0.0, 1.0);
  if (spec.initial_grid)
    require(spec.initial_grid->height == c.height && spec.initial_grid->width == c.width &&
                spec.initial_grid->cells.size() == static_cast<std::size_t>(c.height * c.width),
            "the initial grid is " + std::to_string(spec.initial_grid->height) + " x " +
                std::to_string(spec.initial_grid->width) + ", but --height/--width ask for " +
                std::to_string(c.height) + " x " + std::to_string(c.width));
  require(!(spec.rank_output == RankOutput::per_rank && spec.resume),
          "--resume needs --mpi-output gathered");
}

namespace {

std::pair<std::int64_t, std::int64_t> pattern_corner(const JobSpec& spec, const HostGrid& pattern) {
  if (spec.pattern_offset) return *spec.pattern_offset;
  return {(spec.config.height - pattern.height) / 2, (spec.config.width - pattern.width) / 2};
}

// The initial grid the spec names, read on the root; none for a random grid.
std::optional<HostGrid> read_initial_grid(const JobSpec& spec, std::string& description) {
  const Config& c = spec.config;
  if (!spec.pattern.empty()) {
    const HostGrid pattern =
        ends_with(spec.pattern, ".npy") ? read_npy(spec.pattern) : read_rle(spec.pattern);
    const auto [y, x] = pattern_corner(spec, pattern);
    description = "pattern " + spec.pattern + " at " + std::to_string(y) + "," + std::to_string(x);
    return place(pattern, c.height, c.width, y, x);
  }
  if (!spec.initial_path.empty()) {
    HostGrid grid = ends_with(spec.initial_path, ".h5") ? read_grid_h5(spec.initial_path)
                                                        : read_npy(spec.initial_path);
    require(grid.height == c.height && grid.width == c.width,
            "--initial '" + spec.initial_path + "' is " + std::to_string(grid.height) + " x " +
                std::to_string(grid.width) + ", but --height/--width ask for " +
                std::to_string(c.height) + " x " + std::to_string(c.width));
    description = "grid " + spec.initial_path;
    return grid;
  }
  if (spec.initial_grid) {
    description = "grid in memory";
    return spec.initial_grid;
  }
  return std::nullopt;
}

// The output files of this rank: .npy chunk files or one HDF5 file, with the point an
// interrupted run resumes from.
struct OutputFiles {
  std::unique_ptr<NpyChunkFiles> npy;
  std::unique_ptr<H5ChunkFile> h5;
  std::optional<ResumePoint> resume_point;
  std::string written;  // for people

  ChunkSink* sink() const {
    return npy ? static_cast<ChunkSink*>(npy.get()) : static_cast<ChunkSink*>(h5.get());
  }
};

std::string rank_suffix(const mpi::Communicator& comm) {
  char text[32];
  std::snprintf(text, sizeof(text), ".rank%04d", comm.rank());
  return text;
}

// Refuses (exit 2) an output that would replace --pattern or --initial: FILE.h5 and its
// temporary, or for .npy output every chunk file of BASE already on disk (a chunk this run
// writes replaces the file of its name).
void require_inputs_spared(const JobSpec& spec, const std::string& h5_path,
                           const std::string& npy_base_name) {
  std::vector<io::NamedPath> inputs;
  if (!spec.pattern.empty()) inputs.push_back({"--pattern", spec.pattern});
  if (!spec.initial_path.empty()) inputs.push_back({"--initial", spec.initial_path});
  if (inputs.empty()) return;
  std::vector<io::NamedPath> outputs;
  if (output_format(spec) == "h5") {
    outputs.push_back({"--output", h5_path});
  } else {
    for (const NpyChunkOnDisk& chunk : npy_chunks_on_disk(npy_base_name))
      outputs.push_back({"--output '" + spec.output_path + "' chunk file", chunk.path});
  }
  io::require_inputs_spared(outputs, inputs);
}

OutputFiles open_output(const JobSpec& spec, const mpi::Communicator& comm,
                        const H5RunDescription& description, std::int64_t rows) {
  OutputFiles files;
  const bool per_rank = spec.rank_output == RankOutput::per_rank;
  const std::string suffix = per_rank ? rank_suffix(comm) : std::string();
  const std::string& out = spec.output_path;
  const std::string h5_path =
      per_rank ? (ends_with(out, ".h5") ? out.substr(0, out.size() - 3) : out) + suffix + ".h5"
               : out;
  const std::string base = npy_base(out) + suffix;
  require_inputs_spared(spec, h5_path, base);
  if (output_format(spec) == "npy") {
    if (spec.resume) files.resume_point = find_npy_resume_point(base);
    {
      io::AtomicOutput probe(npy_chunk_path(base, 0, 0));  // the folder must be writable
    }
    files.npy = std::make_unique<NpyChunkFiles>(base);
    files.written = per_rank ? "per-rank files " + npy_base(out) + ".rank*_*.npy" : base + "_*.npy";
  } else {
    Config file_config = spec.config;
    file_config.height = rows;  // per rank: its own rows
    files.h5 = std::make_unique<H5ChunkFile>(h5_path, file_config, description, spec.resume);
    files.resume_point = files.h5->resume_point();
    files.written = per_rank ? "per-rank files " + out : h5_path;
  }
  return files;
}

// Hands each chunk to several sinks in turn, then reports progress.
class FanOutSink : public ChunkSink {
 public:
  FanOutSink(std::vector<ChunkSink*> sinks, std::function<void(const Chunk&)> after)
      : m_sinks(std::move(sinks)), m_after(std::move(after)) {}
  void write(const Chunk& chunk) override {
    for (ChunkSink* sink : m_sinks)
      if (sink) sink->write(chunk);
    if (m_after) m_after(chunk);
  }
  bool empty() const {
    for (ChunkSink* sink : m_sinks)
      if (sink) return false;
    return true;
  }

 private:
  std::vector<ChunkSink*> m_sinks;
  std::function<void(const Chunk&)> m_after;
};

}  // namespace

namespace {

// The point found in the output, once it fits the spec: the grid and generation to go on from.
void accept_resume_point(const ResumePoint& point, const Config& config, JobReport& report,
                         std::optional<HostGrid>& start) {
  require(point.grid.height == config.height && point.grid.width == config.width,
          "cannot resume from '" + point.source + "': its grid is " +
              std::to_string(point.grid.height) + " x " + std::to_string(point.grid.width));
  require(point.generation <= config.steps,
          "cannot resume: '" + point.source + "' is already past --steps");
  report.resumed_after = point.generation;
  report.resumed_from = point.source;
  start = point.grid;
}

// This rank's rows of the initial grid on the device: the root's grid sent to every rank,
// or drawn at random (the same cells for any number of ranks).
template <class ExecutionSpace>
ByteGrid<typename ExecutionSpace::memory_space> initial_rows(const ExecutionSpace& exec,
                                                             const mpi::Communicator& comm,
                                                             const JobSpec& spec,
                                                             std::optional<HostGrid>& start,
                                                             std::uint64_t seed) {
  const Config& c = spec.config;
  const mpi::Block rows = rows_of_rank(comm, c.height);
  ByteGrid<typename ExecutionSpace::memory_space> initial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::life::initial")),
      rows.size(), c.width);
  std::int64_t have_grid = start.has_value();
  comm.broadcast(&have_grid, sizeof(have_grid));
  if (have_grid) {
    std::vector<std::uint8_t> cells =
        start ? std::move(start->cells)
              : std::vector<std::uint8_t>(static_cast<std::size_t>(c.height * c.width));
    comm.broadcast(cells.data(), cells.size());
    Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace,
                 Kokkos::MemoryUnmanaged>
        host(cells.data() + rows.begin * c.width, rows.size(), c.width);
    Kokkos::deep_copy(exec, initial, host);
    exec.fence();  // before `cells` goes
  } else {
    fill_random(exec, initial, spec.density.value_or(0.5), seed, rows.begin);
  }
  return initial;
}

// The whole last generation on the root, from every rank's rows.
template <class ExecutionSpace>
HostGrid gather_grid(const ExecutionSpace& exec, const mpi::Communicator& comm,
                     const Config& config,
                     const ByteGrid<typename ExecutionSpace::memory_space>& rows) {
  const auto host = host_mirror_and_copy(exec, rows, "portasim::life::final_host");
  HostGrid grid{config.height, config.width, {}};
  if (comm.is_root()) grid.cells.resize(static_cast<std::size_t>(config.height * config.width));
  comm.gatherv(host.data(), host.span(), grid.cells.data(),
               bytes_of_rank_rows(comm, config.height, config.width));
  return grid;
}

}  // namespace

template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context,
                  ChunkSink* chunks) {
  using memory_space = typename ExecutionSpace::memory_space;
  validate(spec);
  const mpi::Communicator& comm = context.comm;
  const Config& config = spec.config;
  require(!spec.device_aware_mpi || comm.is_mpi(),
          "--device-aware-mpi has no effect outside mpirun (a single process sends nothing)");
  require(config.height >= comm.size(), "--height " + std::to_string(config.height) +
                                            " is less than the " + std::to_string(comm.size()) +
                                            " MPI ranks");
  const bool per_rank = spec.rank_output == RankOutput::per_rank;
  const std::int64_t rows = rows_of_rank(comm, config.height).size();

  JobReport report;
  const bool random = spec.pattern.empty() && spec.initial_path.empty() && !spec.initial_grid;
  if (random) {
    report.seed = spec.seed ? *spec.seed : std::random_device{}();
    comm.broadcast(&report.seed, sizeof(report.seed));
    report.initial = "random, density " + human_number(spec.density.value_or(0.5), 6) + ", seed " +
                     std::to_string(report.seed);
  }
  // The root reads every input (pattern, initial grid, resume point), fully validated before
  // any output is touched, and sends the grid out.
  std::optional<HostGrid> start;
  if (comm.is_root()) start = read_initial_grid(spec, report.initial);
  OutputFiles files;
  if (!spec.output_path.empty() && (comm.is_root() || per_rank)) {
    const H5RunDescription description{to_string(config.boundary),
                                       to_string(config.engine),
                                       std::to_string(spec.seed.value_or(report.seed)),
                                       report.initial,
                                       spec.density.value_or(0.5),
                                       config.chunk_size};
    files = open_output(spec, comm, description, per_rank ? rows : config.height);
    if (files.resume_point) accept_resume_point(*files.resume_point, config, report, start);
  }
  std::int64_t start_generation = report.resumed_after.value_or(0);
  comm.broadcast(&start_generation, sizeof(start_generation));
  const auto initial = initial_rows(exec, comm, spec, start, report.seed);

  const std::int64_t steps = config.steps;
  FanOutSink sinks({files.npy || files.h5 ? files.sink() : nullptr, chunks},
                   [&context, steps](const Chunk& chunk) {
                     context.report_progress(steps > 0
                                                 ? static_cast<double>(chunk.last_generation) /
                                                       static_cast<double>(steps)
                                                 : 1.0);
                   });
  ByteGrid<memory_space> final_rows;
  if (spec.keep_final_grid)
    final_rows = ByteGrid<memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::life::final")), rows,
        config.width);
  report.stats =
      run(exec, comm, config, initial, start_generation, sinks.empty() ? nullptr : &sinks,
          RankOptions{spec.rank_output, spec.device_aware_mpi},
          spec.keep_final_grid ? &final_rows : nullptr);
  if (files.h5) files.h5->finish();
  comm.barrier();
  if (spec.keep_final_grid) {
    HostGrid grid = gather_grid(exec, comm, config, final_rows);
    if (comm.is_root()) report.final_grid = std::move(grid);
  }
  report.written = files.written;
  report.summary.backend = ExecutionSpace::name();
  report.summary.ranks = comm.size();
  report.summary.seconds = report.stats.seconds;
  report.summary.output_path = spec.output_path;
  return report;
}

#define PORTASIM_LIFE_INSTANTIATE_JOB(SPACE) \
  template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&, ChunkSink*);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_LIFE_INSTANTIATE_JOB)

}  // namespace portasim::life
