// The HH job (hh::run_job): what `portasim hh` runs, from a library caller. Its result is
// simulate()'s bit for bit, traces reach the caller's sink and the file, the report's
// figures are the result's, and validation names the command-line options.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/error_message.hpp"
#include "harness/recording_context.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/hh/job.hpp"

namespace hh_job_test {

namespace hh = portasim::hh;

using portasim::testing::error_message;

template <class Exec>
void job_is_simulate() {
  using memory_space = typename Exec::memory_space;
  Exec exec;
  hh::JobSpec spec;
  spec.config.neurons = 6;
  spec.config.t_ms = 40;
  spec.config.trace = hh::Trace::v;
  spec.config.every = 20;
  spec.generated.amplitude_first = 0;
  spec.generated.amplitude_last = 15;
  spec.keep_result = true;
  // A name of its own: CTest runs the backends and thread counts side by side.
  spec.output_path =
      std::string("hh_job_") + Exec::name() + "_" + std::to_string(::getpid()) + ".h5";
  portasim::testing::RecordingContext recorded;
  const auto& progress = recorded.progress;
  const auto& temporaries = recorded.temporaries;
  const portasim::JobContext& context = recorded.context;
  hh::TraceInMemory<float> traces;
  const auto report = hh::run_job<float>(exec, spec, context, &traces);

  hh::TraceInMemory<float> direct_traces;
  const auto direct = hh::simulate<float>(
      exec, spec.config, hh::Stimulus<float, memory_space>::generate(spec.generated),
      &direct_traces);
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), direct.v);
  const auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), direct.spike_count);
  std::int64_t spikes = 0;
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(report.result.v(k), v(k)) << k;
    EXPECT_EQ(report.result.spike_count(k), count(k)) << k;
    spikes += count(k);
  }
  EXPECT_EQ(traces.v, direct_traces.v);
  EXPECT_EQ(report.spikes, spikes);
  EXPECT_GT(report.neurons_firing, 0);
  EXPECT_LT(report.neurons_firing, 6);  // neuron 0 has no current
  EXPECT_EQ(report.neurons, 6);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 1.0);
  ASSERT_EQ(temporaries.size(), 1u);
  EXPECT_FALSE(std::ifstream(temporaries[0]).good());
  const auto file = portasim::io::H5File::open_read(spec.output_path);
  EXPECT_EQ(file.read<float>("/V"), traces.v);
  std::remove(spec.output_path.c_str());
}

TEST(TEST_CATEGORY, hh_job_is_simulate_with_its_sinks) { job_is_simulate<TEST_EXECSPACE>(); }

TEST(TEST_CATEGORY, hh_job_validates_by_option_names) {
  hh::JobSpec spec;
  spec.config.neurons = 0;
  EXPECT_NE(error_message([&] { hh::validate(spec); }).find("--neurons must be > 0"),
            std::string::npos);
  spec.config.neurons = 2;
  spec.config.t_ms = 1e300;
  spec.config.dt_ms = 1e-300;
  EXPECT_NE(error_message([&] { hh::validate(spec); }).find("--t-ms / --dt-ms"), std::string::npos);
  spec.config.t_ms = 10;
  spec.config.dt_ms = 0.01;
  spec.config.parameters.g_k = -1;
  EXPECT_NE(error_message([&] { hh::validate(spec); }).find("--g-k must be finite and >= 0"),
            std::string::npos);
  spec.config.parameters.g_k = 36;
  spec.generated.noise_sd = -1;
  EXPECT_NE(error_message([&] { hh::validate(spec); }).find("--noise-sd"), std::string::npos);
  spec.generated.noise_sd = 0;
  EXPECT_NO_THROW(hh::validate(spec));
}

}  // namespace hh_job_test
