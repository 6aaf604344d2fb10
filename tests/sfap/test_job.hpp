// The SFAP job (sfap::run_job): what `portasim sfap` runs, from a library caller. Its result
// is compute()'s, bit for bit; it writes the file atomically, tells the progress and temporary
// hooks, refuses to write over its input, and validates options by their command-line names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "harness/error_message.hpp"
#include "harness/recording_context.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/sfap/hdf5_io.hpp"
#include "portasim/sfap/job.hpp"
#include "portasim/sfap/motor_unit.hpp"

namespace test_sfap_job {

namespace ps = portasim::sfap;

inline ps::HostInputs unit() {
  ps::MotorUnitSpec spec;
  spec.fibers = 7;
  spec.electrodes = 3;
  spec.muscle_length_mm = 24.0;
  spec.electrode_start_mm = {0.0, 0.4, 10.0};
  return ps::make_motor_unit(spec);
}

inline std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

using portasim::testing::error_message;

template <class Exec>
void job_is_compute_and_writes_its_file() {
  Exec exec;
  ps::JobSpec spec;
  spec.inputs = unit();
  spec.jitter_sd_ms = 0.04;
  spec.jitter_seed = 5;
  portasim::testing::RecordingContext recorded;
  const auto& progress = recorded.progress;
  const auto& temporaries = recorded.temporaries;
  const portasim::JobContext& context = recorded.context;
  const ps::JobReport report = ps::run_job(exec, spec, context);

  ps::Options options = ps::options_from(*spec.inputs, ps::Options{});
  options.jitter_sd_s = 0.04e-3;
  options.jitter_seed = 5;
  const auto direct = ps::to_host(ps::compute(exec, ps::upload(exec, *spec.inputs), options));
  ASSERT_EQ(report.result.muap.span(), direct.muap.span());
  for (std::size_t i = 0; i < direct.muap.span(); ++i)
    ASSERT_EQ(report.result.muap.data()[i], direct.muap.data()[i]) << i;
  EXPECT_EQ(report.fibers, 7);
  EXPECT_EQ(report.electrodes, 3);
  EXPECT_EQ(report.nt, direct.nt);
  EXPECT_EQ(report.summary.ranks, 1);
  EXPECT_TRUE(report.summary.output_path.empty());
  EXPECT_TRUE(temporaries.empty());  // no output file, no temporary
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), 0.0);
  EXPECT_EQ(progress.back(), 1.0);

  // With an output file: written through a temporary, which the hook is told about.
  // A name of its own: CTest runs the backends and thread counts side by side.
  const std::string output =
      std::string("sfap_job_") + Exec::name() + "_" + std::to_string(::getpid()) + ".h5";
  spec.output_path = output;
  spec.keep_result = false;
  const ps::JobReport written = ps::run_job(exec, spec, context);
  EXPECT_EQ(written.summary.output_path, output);
  EXPECT_EQ(written.result.muap.span(), 0u);
  ASSERT_EQ(temporaries.size(), 1u);
  EXPECT_NE(temporaries[0], output);
  EXPECT_FALSE(std::ifstream(temporaries[0]).good());
  EXPECT_EQ(portasim::io::H5File::open_read(output).read<double>("/outputs/muap"),
            std::vector<double>(direct.muap.data(), direct.muap.data() + direct.muap.span()));

  // The output file as the input of another job: refused, the file left as it was.
  {
    auto writable = portasim::io::H5File::open_read_write(output);
    ps::write_inputs(writable, *spec.inputs);
  }
  const std::string before = bytes_of(output);
  ps::JobSpec over;
  over.input_path = output;
  over.output_path = "./" + output;
  const std::string message = error_message([&] { ps::run_job(exec, over); });
  EXPECT_NE(message.find("--output"), std::string::npos) << message;
  EXPECT_NE(message.find("--input"), std::string::npos) << message;
  EXPECT_EQ(bytes_of(output), before);
  std::remove(output.c_str());
}

TEST(TEST_CATEGORY, sfap_job_is_compute_and_writes_its_file) {
  job_is_compute_and_writes_its_file<TEST_EXECSPACE>();
}

TEST(TEST_CATEGORY, sfap_job_validates_by_option_names) {
  ps::JobSpec spec;
  EXPECT_NE(error_message([&] { ps::validate(spec); }).find("--input"), std::string::npos);
  spec.inputs = unit();
  spec.dz_mm = 0.0;
  EXPECT_NE(error_message([&] { ps::validate(spec); }).find("--dz must be finite and > 0"),
            std::string::npos);
  spec.dz_mm.reset();
  spec.jitter_seed = 3;
  EXPECT_NE(error_message([&] { ps::validate(spec); }).find("--jitter-seed has no effect"),
            std::string::npos);
  spec.jitter_sd_ms = 0.1;
  spec.delays = false;
  EXPECT_NE(error_message([&] { ps::validate(spec); }).find("--jitter-sd-ms has no effect"),
            std::string::npos);
  spec.delays = true;
  EXPECT_NO_THROW(ps::validate(spec));
}

}  // namespace test_sfap_job
