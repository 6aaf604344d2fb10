// The toolkit job (toolkit/job.hpp): validation, the run of the seed examples
// (seed_examples.hpp) in order, the pool example, the file's timings, pool statistics and
// root attributes, and the explicit instantiations on every enabled space.
#include "portasim/toolkit/job.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "portasim/core/checked_size.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "seed_examples.hpp"

namespace portasim::toolkit {

double Timing::rate() const {
  const double ms = result.device().mean_ms;
  if (rate_unit.empty() || ms <= 0) return 0;
  return rate_unit == "TFLOP/s" ? work / (ms * 1e-3) * 1e-12 : work / (ms * 1e-3) * 1e-9;
}

std::size_t JobReport::checks_failed() const {
  std::size_t failed = 0;
  for (const Check& c : checks) failed += !c.ok();
  return failed;
}

void validate(const JobSpec& spec) {
  require(spec.n > 0, "--n must be > 0, got " + std::to_string(spec.n));
  require(spec.rows > 0, "--rows must be > 0, got " + std::to_string(spec.rows));
  require(spec.cols > 0, "--cols must be > 0, got " + std::to_string(spec.cols));
  require(spec.matrix_n > 0, "--matrix-n must be > 0, got " + std::to_string(spec.matrix_n));
  require(spec.svd_n >= 0, "--svd-n must be >= 0, got " + std::to_string(spec.svd_n));
  require(spec.matrix_n <= (std::int64_t(1) << 31) - 1 && spec.svd_n <= (std::int64_t(1) << 31) - 1,
          "--matrix-n and --svd-n must be < 2^31 (the BLAS and LAPACK index type)");
  require(spec.softplus_points > 0,
          "--softplus-points must be > 0, got " + std::to_string(spec.softplus_points));
  require_finite("--softplus-range", spec.softplus_range);
  require_non_negative("--softplus-range", spec.softplus_range);
  require(spec.precision == Precision::f32 || spec.precision == Precision::f64,
          "--precision must be f32 or f64");
  require(spec.repeat > 0, "--repeat must be > 0, got " + std::to_string(spec.repeat));
  require(spec.warmup >= 0, "--warmup must be >= 0, got " + std::to_string(spec.warmup));
  require(!std::isnan(spec.max_seconds) && spec.max_seconds > 0, "--max-seconds must be > 0");
  // The bytes of every example's arrays, before anything is allocated.
  const std::int64_t elem = spec.precision == Precision::f64 ? 8 : 4;
  checked_product("--n", {spec.n, 4, elem});
  checked_product("--rows x --cols", {spec.rows, spec.cols, elem});
  checked_product("--matrix-n", {spec.matrix_n, spec.matrix_n * 5, elem});
  checked_product("--svd-n", {spec.svd_n, spec.svd_n * 3 + 1, elem});
  checked_product("--softplus-points", {spec.softplus_points, 3, elem});
}

namespace {

void write_pool(io::H5File& file, const PoolStatistics& stats) {
  file.create_group("/pool");
  file.write_attribute("/pool", "used_bytes", static_cast<std::uint64_t>(stats.used_bytes));
  file.write_attribute("/pool", "total_bytes", static_cast<std::uint64_t>(stats.total_bytes));
  file.write_attribute("/pool", "used_blocks", static_cast<std::uint64_t>(stats.used_blocks));
  file.write_attribute("/pool", "free_blocks", static_cast<std::uint64_t>(stats.free_blocks));
  file.write_attribute("/pool", "hits", static_cast<std::uint64_t>(stats.hits));
  file.write_attribute("/pool", "misses", static_cast<std::uint64_t>(stats.misses));
  file.write_attribute("/pool", "limit_bytes", static_cast<std::uint64_t>(stats.limit_bytes));
}

// One group per benchmark: samples as datasets, statistics as attributes.
void write_timings(io::H5File& file, const std::vector<Timing>& timings) {
  for (std::size_t i = 0; i < timings.size(); ++i) {
    const Timing& t = timings[i];
    const std::string group = "/timings/" + t.result.name;
    file.write(group + "/device_ms", t.result.device_ms);
    file.write(group + "/host_ms", t.result.host_ms);
    const TimingStats d = t.result.device(), h = t.result.host();
    file.write_attribute(group, "index", static_cast<std::int64_t>(i));
    file.write_attribute(group, "count", static_cast<std::int64_t>(d.count));
    file.write_attribute(group, "device_mean_ms", d.mean_ms);
    file.write_attribute(group, "device_std_ms", d.std_ms);
    file.write_attribute(group, "device_min_ms", d.min_ms);
    file.write_attribute(group, "device_max_ms", d.max_ms);
    file.write_attribute(group, "host_mean_ms", h.mean_ms);
    file.write_attribute(group, "host_std_ms", h.std_ms);
    file.write_attribute(group, "host_min_ms", h.min_ms);
    file.write_attribute(group, "host_max_ms", h.max_ms);
    file.write_attribute(group, "rate", t.rate());
    file.write_attribute(group, "rate_unit", t.rate_unit);
  }
}

void write_root(io::H5File& file, const JobReport& report) {
  file.write_attribute("/", "generator", "portasim toolkit");
  file.write_attribute("/", "backend", report.summary.backend);
  file.write_attribute("/", "precision", report.precision);
  file.write_attribute("/", "checks", static_cast<std::int64_t>(report.checks.size()));
  file.write_attribute("/", "checks_failed", static_cast<std::int64_t>(report.checks_failed()));
  file.write_attribute("/", "repeat", static_cast<std::int64_t>(report.spec.repeat));
  file.write_attribute("/", "warmup", static_cast<std::int64_t>(report.spec.warmup));
  file.write_attribute("/", "seed", static_cast<std::int64_t>(report.spec.seed));
}

// Every example in order, then the pool's own: the allocate and free of an n-element
// temporary, served from the cache.
template <class Scalar, class ExecutionSpace>
void run_examples(seed::SeedRun<Scalar, ExecutionSpace>& run) {
  seed::run_elementwise(run);
  seed::run_axis_norms(run);
  seed::run_softplus(run);
  seed::run_matmul(run);
  seed::run_svd(run);
  const auto n = static_cast<std::size_t>(run.spec.n);
  run.time("pool_allocate_free", 0, "", [&] {
    auto temporary = run.vector("--n", n);
    temporary.reset();
  });
  run.report.pool = run.pool.statistics();
}

template <class Scalar, class ExecutionSpace>
void run_in(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context,
            JobReport& report) {
  report.precision = std::is_same<Scalar, float>::value ? "float32" : "float64";
  std::unique_ptr<io::AtomicOutput> output;
  std::shared_ptr<void> guard;
  if (!spec.output_path.empty()) {
    output = std::make_unique<io::AtomicOutput>(spec.output_path);  // fails now if unwritable
    guard = context.guard(output->temporary_path());
  }
  // HDF5 finishes a file only when its last handle closes: closed (reset) before the commit.
  std::optional<io::H5File> file;
  if (output) file.emplace(io::H5File::create(output->temporary_path()));
  const auto start = std::chrono::steady_clock::now();
  {
    seed::SeedRun<Scalar, ExecutionSpace> run(exec, spec, context, file ? &*file : nullptr, report);
    run_examples(run);
  }
  report.summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!file) return;
  write_pool(*file, report.pool);
  write_timings(*file, report.timings);
  write_root(*file, report);
  file->flush();
  file.reset();
  output->commit();
  report.summary.output_path = spec.output_path;
}

}  // namespace

template <class ExecutionSpace>
JobReport run_job(const ExecutionSpace& exec, const JobSpec& spec, const JobContext& context) {
  validate(spec);
  require(context.comm.size() <= 1,
          "portasim toolkit runs in one process: start it without mpirun");
  JobReport report;
  report.summary.backend = ExecutionSpace::name();
  report.spec = spec;
  if (spec.precision == Precision::f64) run_in<double>(exec, spec, context, report);
  else run_in<float>(exec, spec, context, report);
  return report;
}

#define PORTASIM_TOOLKIT_INSTANTIATE_JOB(SPACE) \
  template JobReport run_job<SPACE>(const SPACE&, const JobSpec&, const JobContext&);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_INSTANTIATE_JOB)

}  // namespace portasim::toolkit
