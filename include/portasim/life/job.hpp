#pragma once
// A whole Game of Life job, as `portasim life` runs it and as a program or the Python
// package can: the initial grid (a pattern placed on an empty grid, a grid from a file or
// from memory, or random), the grid split into row blocks over the ranks of the context's
// communicator, recorded generations streamed to the output files (.npy chunk files or one
// HDF5 file) and to a caller's sink, resuming an interrupted run, and a report of the
// figures the command prints.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/job.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

struct JobSpec {
  // Width, height, steps, chunk size, boundary, engine, every, packed output.
  Config config;
  // The initial grid: at most one of pattern, initial_path and initial_grid; random without.
  std::string pattern;  // an RLE pattern file, or a 2-D .npy
  // Top-left corner (y, x) of the pattern; centred when not given.
  std::optional<std::pair<std::int64_t, std::int64_t>> pattern_offset;
  std::string initial_path;              // a .npy grid, or an HDF5 file's /generations
  std::optional<HostGrid> initial_grid;  // a grid in memory (read on the root)
  std::optional<double> density;         // of the random grid; 0.5 when not given
  std::optional<std::uint64_t> seed;     // of the random grid; drawn when not given
  // The output: BASE.npy (chunk files BASE_*.npy) or FILE.h5, written on the root (on every
  // rank with per_rank output, as BASE.rankRRRR_*.npy or STEM.rankRRRR.h5); empty for none.
  std::string output_path;
  std::string format;   // "npy" or "h5"; empty: h5 for a .h5 output, else npy
  bool resume = false;  // continue an interrupted run from its last complete chunk
  RankOutput rank_output = RankOutput::gathered;
  bool device_aware_mpi = false;
  bool keep_final_grid = false;  // the last generation, whole, in the report (root)
};

struct JobReport {
  JobSummary summary;
  RunStats stats;
  std::string initial;     // a description of the initial grid, for people
  std::uint64_t seed = 0;  // of the random grid (the one drawn when none was given)
  std::optional<std::int64_t> resumed_after;  // the generation a resumed run continued from
  std::string resumed_from;                   // the file it was read from
  std::string written;                        // what was written, for people
  std::optional<HostGrid> final_grid;         // with keep_final_grid, on the root
};

// The output format a spec writes: its format, else from the output's extension.
std::string output_format(const JobSpec& spec);

// Checks the spec without reading any file; throws portasim::Error (invalid_argument) whose
// message names the option as the command line spells it (--width, --every, --seed, ...).
// Options the run would ignore are refused with the option that makes them meaningless.
void validate(const JobSpec& spec);

// Runs the job on `exec` over context.comm (every rank calls it). Recorded generations go to
// the output files and to `chunks` (on the root whole grids, or each rank's rows with
// per_rank output); context.progress gets the fraction done after each chunk is written.
// Over several ranks both are called from the thread that writes, not the caller's. Inputs
// are never overwritten: an output that is the pattern or initial file is refused.
template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context = {},
                  ChunkSink* chunks = nullptr);

#define PORTASIM_LIFE_DECLARE_JOB(SPACE)                                                    \
  extern template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&, \
                                           ChunkSink*);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_LIFE_DECLARE_JOB)

}  // namespace portasim::life
