// The toolkit job (toolkit::run_job): the seed examples that `portasim toolkit` runs, from a
// library caller, at tiny sizes in both precisions. Every example is timed and passes its
// checks; the report's figures follow from facts outside the job (where exp overflows, what
// the file's inputs give on the host); the file is written atomically with every group; and
// validation names the command-line options.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "harness/error_message.hpp"
#include "harness/recording_context.hpp"
#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/toolkit/job.hpp"

namespace test_toolkit_job {

namespace tk = portasim::toolkit;
using portasim::testing::error_message;

inline tk::JobSpec tiny_spec(tk::Precision precision) {
  tk::JobSpec spec;
  spec.n = 1000;
  spec.rows = 12;
  spec.cols = 9;
  spec.matrix_n = 16;
  spec.svd_n = 8;
  spec.softplus_points = 101;  // x = -1000, -980, ..., 1000
  spec.precision = precision;
  spec.repeat = 2;
  spec.warmup = 0;
  spec.seed = 7;
  return spec;
}

template <class Exec>
bool svd_available() {
#if defined(PORTASIM_HAS_LAPACKE)
  return true;
#else
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
#endif
}

// The benchmarks the job must have timed, in order.
template <class Exec>
std::vector<std::string> expected_benchmarks(const tk::JobSpec& spec) {
  std::vector<std::string> names{"squared_difference", "multiply_add", "l2_norm",  "l2_norm_double",
                                 "l2_norm_rows",       "l2_norm_cols", "softplus", "softplus_naive",
                                 "matmul_naive",       "matmul_tiled"};
#if defined(PORTASIM_ENABLE_KERNELS)
  names.push_back("matmul_blas");
#endif
  names.push_back("trace");
  if (spec.svd_n > 0 && svd_available<Exec>()) names.push_back("svd");
  names.push_back("pool_allocate_free");
  return names;
}

// Points x_i = -R + 2 R i / (P - 1) where e^x overflows Scalar: x > log(max).
template <class Scalar>
std::int64_t overflowing_points(const tk::JobSpec& spec) {
  const double threshold = std::log(static_cast<double>(std::numeric_limits<Scalar>::max()));
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < spec.softplus_points; ++i) {
    const double x = -spec.softplus_range + 2 * spec.softplus_range * static_cast<double>(i) /
                                                static_cast<double>(spec.softplus_points - 1);
    count += static_cast<Scalar>(x) > threshold;
  }
  return count;
}

template <class Exec, class Scalar>
void check_report(const tk::JobReport& report, const tk::JobSpec& spec) {
  EXPECT_EQ(report.summary.backend, Exec::name());
  EXPECT_EQ(report.precision, sizeof(Scalar) == 4 ? "float32" : "float64");
  const std::vector<std::string> expected = expected_benchmarks<Exec>(spec);
  ASSERT_EQ(report.timings.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const tk::Timing& t = report.timings[i];
    EXPECT_EQ(t.result.name, expected[i]);
    const portasim::TimingStats d = t.result.device();
    EXPECT_EQ(d.count, 2u) << t.result.name;
    EXPECT_LE(d.min_ms, d.mean_ms) << t.result.name;
    EXPECT_LE(d.mean_ms, d.max_ms) << t.result.name;
    if (!t.rate_unit.empty()) EXPECT_GT(t.rate(), 0) << t.result.name;
  }
  // Elementwise 2, norms 4, softplus 2, each pair of matmul kinds and each kind against the
  // host, the trace, and 3 of the SVD where it runs.
  std::size_t kinds = 0;
  for (const std::string& name : expected) kinds += name.rfind("matmul_", 0) == 0;
  EXPECT_EQ(report.checks.size(), 8 + kinds * (kinds - 1) / 2 + kinds + 1 +
                                      (spec.svd_n > 0 && svd_available<Exec>() ? 3 : 0));
  for (const tk::Check& c : report.checks)
    EXPECT_TRUE(c.ok()) << c.what << " = " << c.value << " > " << c.bound;
  EXPECT_EQ(report.checks_failed(), 0u);
  EXPECT_EQ(report.softplus_naive_non_finite, overflowing_points<Scalar>(spec));
  EXPECT_GT(report.softplus_naive_non_finite, 0);
  EXPECT_LT(report.softplus_max_relative_error, 8 * std::numeric_limits<Scalar>::epsilon());
  // Every block back in the pool; the timed allocations were served from its cache.
  EXPECT_EQ(report.pool.used_bytes, 0u);
  EXPECT_GE(report.pool.hits, static_cast<std::size_t>(spec.repeat));
  EXPECT_GE(report.pool.misses, 1u);
}

// The file's groups, and its stored inputs and results checked on the host.
template <class Scalar>
void check_file(const std::string& path, const tk::JobReport& report) {
  const auto file = portasim::io::H5File::open_read(path);
  EXPECT_EQ(file.read_string_attribute("/", "generator"), "portasim toolkit");
  EXPECT_EQ(file.read_string_attribute("/", "precision"), report.precision);
  EXPECT_EQ(file.read_attribute<std::int64_t>("/", "checks_failed"), 0);
  EXPECT_EQ(file.read_attribute<std::int64_t>("/", "checks"),
            static_cast<std::int64_t>(report.checks.size()));
  const auto x1 = file.read_1d<double>("/elementwise/x1", 1000);
  const auto x2 = file.read_1d<double>("/elementwise/x2", 1000);
  const auto sq = file.read_1d<double>("/elementwise/squared_difference", 1000);
  const auto y = file.read_1d<double>("/elementwise/multiply_add", 1000);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (std::size_t i = 0; i < x1.size(); ++i) {
    ASSERT_LT(std::fabs(x1[i]), 0.5 + 1e-12) << i;
    ASSERT_NEAR(sq[i], (x1[i] - x2[i]) * (x1[i] - x2[i]), 4 * eps * sq[i] + 1e-300) << i;
    ASSERT_NEAR(y[i], x1[i] * x2[i] + 2.0, 4 * eps * std::fabs(y[i])) << i;
  }
  const auto x = file.read_1d<double>("/softplus/x", 101);
  EXPECT_EQ(x.front(), -1000.0);
  EXPECT_EQ(x.back(), 1000.0);
  EXPECT_EQ(file.shape("/reduction/row_norms"), std::vector<std::size_t>{12});
  EXPECT_EQ(file.shape("/reduction/col_norms"), std::vector<std::size_t>{9});
  EXPECT_TRUE(file.exists("/matmul/max_abs_difference"));
  EXPECT_TRUE(file.exists("/svd"));
  EXPECT_TRUE(file.has_attribute("/pool", "hits"));
  for (const tk::Timing& t : report.timings)
    EXPECT_EQ(file.read<double>("/timings/" + t.result.name + "/device_ms").size(), 2u)
        << t.result.name;
}

template <class Exec, class Scalar>
void job_runs_every_example(tk::Precision precision) {
  Exec exec;
  tk::JobSpec spec = tiny_spec(precision);
  portasim::testing::RecordingContext recorded;
  const auto& progress = recorded.progress;
  const auto& temporaries = recorded.temporaries;
  const portasim::JobContext& context = recorded.context;
  const tk::JobReport report = tk::run_job(exec, spec, context);
  check_report<Exec, Scalar>(report, spec);
  EXPECT_TRUE(report.summary.output_path.empty());
  EXPECT_TRUE(temporaries.empty());  // no output file, no temporary
  ASSERT_EQ(progress.size(), report.timings.size());
  for (std::size_t i = 1; i < progress.size(); ++i) EXPECT_GT(progress[i], progress[i - 1]);
  EXPECT_EQ(progress.back(), 1.0);

  // With an output file: written through a temporary, which the hook is told about.
  // A name of its own: CTest runs the backends and thread counts side by side.
  const std::string output = std::string("toolkit_job_") + Exec::name() + "_" +
                             std::to_string(sizeof(Scalar)) + "_" + std::to_string(::getpid()) +
                             ".h5";
  spec.output_path = output;
  const tk::JobReport written = tk::run_job(exec, spec, context);
  EXPECT_EQ(written.summary.output_path, output);
  ASSERT_EQ(temporaries.size(), 1u);
  EXPECT_NE(temporaries[0], output);
  EXPECT_FALSE(std::ifstream(temporaries[0]).good());
  check_report<Exec, Scalar>(written, spec);
  check_file<Scalar>(output, written);
  std::remove(output.c_str());
}

TEST(TEST_CATEGORY, toolkit_job_runs_every_example_float) {
  job_runs_every_example<TEST_EXECSPACE, float>(tk::Precision::f32);
}

TEST(TEST_CATEGORY, toolkit_job_runs_every_example_double) {
  job_runs_every_example<TEST_EXECSPACE, double>(tk::Precision::f64);
}

// --svd-n 0 skips the SVD and says so.
TEST(TEST_CATEGORY, toolkit_job_skips_the_svd) {
  tk::JobSpec spec = tiny_spec(tk::Precision::f32);
  spec.svd_n = 0;
  const tk::JobReport report = tk::run_job(TEST_EXECSPACE(), spec);
  for (const tk::Timing& t : report.timings) EXPECT_NE(t.result.name, "svd");
  bool noted = false;
  for (const std::string& w : report.summary.warnings) noted |= w == "svd skipped (--svd-n 0)";
  EXPECT_TRUE(noted);
  EXPECT_EQ(report.checks_failed(), 0u);
}

TEST(TEST_CATEGORY, toolkit_job_validates_by_option_names) {
  const auto message_of = [](const tk::JobSpec& spec) {
    return error_message([&] { tk::validate(spec); });
  };
  const tk::JobSpec good = tiny_spec(tk::Precision::f32);
  EXPECT_NO_THROW(tk::validate(good));
  tk::JobSpec spec = good;
  spec.n = 0;
  EXPECT_NE(message_of(spec).find("--n must be > 0"), std::string::npos);
  spec = good;
  spec.cols = -1;
  EXPECT_NE(message_of(spec).find("--cols must be > 0"), std::string::npos);
  spec = good;
  spec.svd_n = -1;
  EXPECT_NE(message_of(spec).find("--svd-n must be >= 0"), std::string::npos);
  spec = good;
  spec.matrix_n = std::int64_t(1) << 32;
  EXPECT_NE(message_of(spec).find("--matrix-n and --svd-n must be < 2^31"), std::string::npos);
  spec = good;
  spec.softplus_range = std::nan("");
  EXPECT_NE(message_of(spec).find("--softplus-range"), std::string::npos);
  spec = good;
  spec.max_seconds = 0;
  EXPECT_NE(message_of(spec).find("--max-seconds must be > 0"), std::string::npos);
  spec = good;
  spec.n = std::int64_t(1) << 61;  // 4 arrays of 4 bytes: past int64
  EXPECT_NE(message_of(spec).find("--n is too large"), std::string::npos);
  // Refused before anything is run or written.
  spec.output_path = "toolkit_job_refused.h5";
  EXPECT_NE(error_message([&] { tk::run_job(TEST_EXECSPACE(), spec); }).find("--n"),
            std::string::npos);
  EXPECT_FALSE(std::ifstream(spec.output_path).good());
}

}  // namespace test_toolkit_job
