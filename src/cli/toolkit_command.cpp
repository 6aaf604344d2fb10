// `portasim toolkit`: the seed examples of the GPU toolkit (shared/specs/toolkit.md), checked
// and timed on one backend, their results in one HDF5 file. A thin shell over
// toolkit::run_job: parse the options, build the job spec, run it, print the report.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <type_traits>

#include "backend_dispatch.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/toolkit/job.hpp"
#include "progress.hpp"

namespace portasim::cli {

namespace {

namespace tk = portasim::toolkit;

struct ToolkitOptions {
  tk::JobSpec spec;
  std::string precision = "f32";
  std::string backend = "default";
  bool quiet = false;
  bool progress = false;
};

std::string format_bytes(double bytes) {
  char buffer[64];
  if (bytes >= 1 << 30) std::snprintf(buffer, sizeof buffer, "%.2f GiB", bytes / (1 << 30));
  else if (bytes >= 1 << 20) std::snprintf(buffer, sizeof buffer, "%.2f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10) std::snprintf(buffer, sizeof buffer, "%.2f KiB", bytes / (1 << 10));
  else std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
  return buffer;
}

void print_report(const tk::JobReport& r) {
  const tk::JobSpec& s = r.spec;
  std::printf("portasim toolkit: %s on %s (n = %lld, %lld x %lld, matmul %lld^3, svd %lld^2, "
              "%lld softplus points)\n",
              r.precision.c_str(), r.summary.backend.c_str(), static_cast<long long>(s.n),
              static_cast<long long>(s.rows), static_cast<long long>(s.cols),
              static_cast<long long>(s.matrix_n), static_cast<long long>(s.svd_n),
              static_cast<long long>(s.softplus_points));
  std::printf("  %-22s %12s %12s %12s %14s\n", "benchmark (device)", "mean ms", "min ms", "std ms",
              "rate");
  for (const tk::Timing& t : r.timings) {
    const TimingStats d = t.result.device();
    char rate[32] = "";
    if (!t.rate_unit.empty())
      std::snprintf(rate, sizeof rate, "%.4g %s", t.rate(), t.rate_unit.c_str());
    std::printf("  %-22s %12.4f %12.4f %12.4f %14s\n", t.result.name.c_str(), d.mean_ms, d.min_ms,
                d.std_ms, rate);
  }
  std::printf("  softplus over [-%g, %g]: max relative error %.3g; naive log(1 + e^x): %lld of "
              "%lld values not finite\n",
              s.softplus_range, s.softplus_range, r.softplus_max_relative_error,
              static_cast<long long>(r.softplus_naive_non_finite),
              static_cast<long long>(s.softplus_points));
  for (const tk::Check& c : r.checks)
    std::printf("  %-4s %-52s %.3g (bound %.3g)\n", c.ok() ? "ok" : "FAIL", c.what.c_str(), c.value,
                c.bound);
  for (const auto& note : r.summary.warnings) std::printf("  note: %s\n", note.c_str());
  const PoolStatistics& p = r.pool;
  std::printf("  pool: %s in %zu blocks in use, %s held, %zu cached blocks, %zu hits, %zu misses\n",
              format_bytes(static_cast<double>(p.used_bytes)).c_str(), p.used_blocks,
              format_bytes(static_cast<double>(p.total_bytes)).c_str(), p.free_blocks, p.hits,
              p.misses);
  if (!r.summary.output_path.empty()) std::printf("  wrote %s\n", r.summary.output_path.c_str());
  std::fflush(stdout);
}

template <class ExecutionSpace>
int run_toolkit(const ToolkitOptions& o) {
  JobContext context;
  context.comm = mpi::Communicator::world();  // more than one rank is refused
  context.guard_temporary = [](const std::string& path) {
    return std::static_pointer_cast<void>(std::make_shared<RemoveOnInterrupt>(path));
  };
  if (o.progress) context.progress = progress_printer("toolkit");
  // A non-default instance: up to Kokkos 3.7 the default CUDA instance is the legacy stream.
  InstancePool<ExecutionSpace> instances(1);
  const tk::JobReport report = tk::run_job(instances[0], o.spec, context);
  if (!o.quiet) print_report(report);
  const std::size_t failed = report.checks_failed();
  if (failed == 0) return 0;
  for (const tk::Check& c : report.checks)
    if (!c.ok())
      std::cerr << "portasim: check failed: " << c.what << " = " << c.value << " > " << c.bound
                << "\n";
  throw_error(ErrorKind::internal, std::to_string(failed) + " of " +
                                       std::to_string(report.checks.size()) + " checks failed on " +
                                       report.summary.backend + " (results kept in " +
                                       report.summary.output_path + ")");
}

}  // namespace

void add_toolkit_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ToolkitOptions>();
  tk::JobSpec& s = o->spec;
  s.output_path = "toolkit.h5";
  auto* c = app.add_subcommand(
      "toolkit",
      "GPU-toolkit examples (elementwise, softplus, L2 norms, matmul three ways, trace, SVD), "
      "checked and timed");
  auto option = [c](const std::string& name, auto& value, const std::string& help) {
    return c->add_option(name, value, help)->capture_default_str();
  };
  option("--n", s.n, "Elements of the 1-D examples (squared difference, x1*x2+B, L2 norm)");
  option("--rows", s.rows, "Rows of the 2-D array of the L2 norms along an axis");
  option("--cols", s.cols, "Columns of that array");
  option("--matrix-n", s.matrix_n, "Matmul size n (n x n times n x n) and the trace's matrix");
  option("--svd-n", s.svd_n, "SVD of an n x n matrix (0: skip)");
  option("--softplus-points", s.softplus_points, "Points of the softplus example");
  option("--softplus-range", s.softplus_range, "Softplus over [-R, R]");
  option("--precision", o->precision, "Floating-point precision")
      ->check(CLI::IsMember({"f32", "f64"}));
  option("--repeat", s.repeat, "Timed runs per benchmark");
  option("--warmup", s.warmup, "Untimed runs before them");
  option("--max-seconds", s.max_seconds, "Stop repeating a benchmark after this long");
  option("--seed", s.seed, "Seed of the input values");
  option("--output", s.output_path, "HDF5 output file");
  option("--backend", o->backend, "Execution space: default, or one of " + enabled_backend_names());
  c->add_flag("--progress", o->progress, "Show progress on stderr (after each benchmark)");
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o] {
    o->spec.precision = o->precision == "f64" ? tk::Precision::f64 : tk::Precision::f32;
    action = [o] {
      tk::validate(o->spec);
      return dispatch_backend(o->backend, [&](const auto& exec) {
        return run_toolkit<std::decay_t<decltype(exec)>>(*o);
      });
    };
  });
}

}  // namespace portasim::cli
