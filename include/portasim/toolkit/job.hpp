#pragma once
// The toolkit's seed examples as a job, as `portasim toolkit` runs them and as a program or
// the Python package can: each example (elementwise, L2 norms, softplus, matmul three ways,
// trace, SVD, the memory pool) computed with the toolkit's functions on one backend, checked
// against a host reference within a worst-case rounding bound, and timed with benchmark();
// every array comes from the caching memory pool. Results, timings and pool statistics go
// to one HDF5 file (docs/formats.md; scripts/plot_toolkit.py draws it) and to the report.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "portasim/core/benchmark.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/job.hpp"
#include "portasim/core/pooled_view.hpp"

namespace portasim::toolkit {

enum class Precision { f32, f64 };

struct JobSpec {
  std::int64_t n = 1 << 20;  // elements of the 1-D examples
  std::int64_t rows = 512;   // the 2-D array of the L2 norms along an axis
  std::int64_t cols = 512;
  std::int64_t matrix_n = 256;  // matmul n x n x n and the trace
  std::int64_t svd_n = 128;     // the SVD's n x n matrix; 0 skips the SVD
  std::int64_t softplus_points = 2001;
  // Softplus over [-R, R]: the naive formula overflows from 88.7 in float.
  double softplus_range = 1000;
  Precision precision = Precision::f32;
  int repeat = 20;         // timed calls per benchmark
  int warmup = 3;          // untimed calls before them
  double max_seconds = 2;  // stop repeating a benchmark after this long
  std::uint32_t seed = 1;  // of the input values
  // The HDF5 output, written as OUTPUT.partial and renamed when complete; empty for none.
  std::string output_path;
};

// One check of an example against its host reference: `value` (an error, a difference or a
// count) must not exceed `bound`.
struct Check {
  std::string what;
  double value = 0;
  double bound = 0;
  bool ok() const { return value <= bound; }  // false for NaN
};

// One benchmark: its samples and what one call moves or computes.
struct Timing {
  BenchmarkResult result;
  double work = 0;        // bytes or flops per call
  std::string rate_unit;  // "GB/s", "TFLOP/s" or empty
  // work over the mean device time, in rate_unit; 0 without a unit.
  double rate() const;
};

struct JobReport {
  JobSummary summary;           // warnings: the examples skipped and the checks left out, and why
  JobSpec spec;                 // the spec the job ran
  std::string precision;        // "float32" or "float64"
  std::vector<Timing> timings;  // one per benchmark, in the order they ran
  std::vector<Check> checks;    // in the order they ran
  double softplus_max_relative_error = 0;
  std::int64_t softplus_naive_non_finite = 0;  // of the naive log(1 + e^x)
  PoolStatistics pool;                         // after the last example

  std::size_t checks_failed() const;
};

// Checks the spec without allocating; throws portasim::Error (invalid_argument) whose message
// names the option as the command line spells it (--n, --rows, --matrix-n, ...). Sizes whose
// bytes cannot be represented are refused here.
void validate(const JobSpec& spec);

// Runs every example on `exec` in this process: a context whose communicator has more than
// one rank is refused. A failed check does not throw: the report and the file say which.
template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context = {});

#define PORTASIM_TOOLKIT_DECLARE_JOB(SPACE) \
  extern template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_DECLARE_JOB)

}  // namespace portasim::toolkit
