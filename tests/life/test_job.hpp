// The Life job (life::run_job): what `portasim life` runs, from a library caller. Its
// generations are the host reference's, chunks reach the caller's sink and the file, the
// final grid and progress come back, and validation names the command-line options.
#include <gtest/gtest.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/error_message.hpp"
#include "harness/recording_context.hpp"
#include "life_test_support.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/life/job.hpp"

namespace life_job_test {

namespace life = portasim::life;
using portasim::testing::error_message;

// Every recorded generation, as the caller's sink received it.
struct Recorded : life::ChunkSink {
  std::vector<std::int64_t> generations;
  std::vector<life::HostGrid> grids;
  void write(const life::Chunk& chunk) override {
    const std::int64_t grid_bytes = chunk.height * chunk.row_bytes;
    for (std::int64_t i = 0; i < chunk.count; ++i) {
      generations.push_back(chunk.generations[i]);
      life::HostGrid grid{chunk.height, chunk.row_bytes, {}};
      grid.cells.assign(chunk.data + i * grid_bytes, chunk.data + (i + 1) * grid_bytes);
      grids.push_back(grid);
    }
  }
};

template <class Exec>
void job_matches_the_reference() {
  life::JobSpec spec;
  spec.config.width = 37;
  spec.config.height = 23;
  spec.config.steps = 12;
  spec.config.chunk_size = 5;
  spec.config.every = 2;
  spec.config.boundary = life::Boundary::dead;
  spec.density = 0.4;
  spec.seed = 11;
  spec.keep_final_grid = true;
  spec.output_path =
      std::string("life_job_") + Exec::name() + "_" + std::to_string(::getpid()) + ".h5";
  portasim::testing::RecordingContext front_end;
  const auto& progress = front_end.progress;
  const portasim::JobContext& context = front_end.context;
  Recorded recorded;
  life::GenerationsInMemory in_memory;
  life::ChunkCallback both([&](const life::Chunk& chunk) {
    recorded.write(chunk);
    in_memory.write(chunk);
  });
  const life::JobReport report = life::run_job(Exec(), spec, context, &both);

  life::HostGrid expected = portasim::testing::random_host_grid(23, 37, 0.4, 11);
  const std::vector<std::int64_t> generations{0, 2, 4, 6, 8, 10, 12};
  ASSERT_EQ(recorded.generations, generations);
  EXPECT_EQ(in_memory.generations, generations);
  EXPECT_EQ(in_memory.height, 23);
  EXPECT_EQ(in_memory.row_bytes, 37);
  ASSERT_EQ(in_memory.data.size(), generations.size() * 23 * 37);
  for (std::int64_t g = 0, k = 0; g <= 12; ++g) {
    if (g % 2 == 0) {
      EXPECT_EQ(recorded.grids[k].cells, expected.cells) << "generation " << g;
      EXPECT_TRUE(std::equal(expected.cells.begin(), expected.cells.end(),
                             in_memory.data.begin() + k * 23 * 37))
          << "generation " << g << " in memory";
      ++k;
    }
    if (g < 12) expected = portasim::testing::reference_step(expected, life::Boundary::dead);
  }
  ASSERT_TRUE(report.final_grid.has_value());
  EXPECT_EQ(report.final_grid->cells, expected.cells);
  std::int64_t population = 0;
  for (auto cell : expected.cells) population += cell;
  EXPECT_EQ(report.stats.final_population, population);
  EXPECT_EQ(report.stats.chunks, 3);
  EXPECT_EQ(report.seed, 11u);
  EXPECT_NE(report.initial.find("seed 11"), std::string::npos) << report.initial;
  EXPECT_EQ(report.summary.ranks, 1);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 1.0);
  const auto file = portasim::io::H5File::open_read(spec.output_path);
  EXPECT_EQ(file.read<std::int64_t>("/generation_index"), generations);
  std::remove(spec.output_path.c_str());
}

TEST(TEST_CATEGORY, life_job_matches_the_reference) { job_matches_the_reference<TEST_EXECSPACE>(); }

// A grid from memory, stepped with no output file: a glider moves one cell diagonally every
// four generations.
template <class Exec>
void job_steps_a_grid_in_memory() {
  life::JobSpec spec;
  spec.config.width = 64;
  spec.config.height = 10;
  spec.config.steps = 8;
  spec.config.engine = life::Engine::bits;
  spec.output_path.clear();
  spec.keep_final_grid = true;
  life::HostGrid grid{10, 64, std::vector<std::uint8_t>(640, 0)};
  for (auto [y, x] : {std::pair{0, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}})
    grid.cells[static_cast<std::size_t>(y * 64 + x)] = 1;
  spec.initial_grid = grid;
  const life::JobReport report = life::run_job(Exec(), spec);
  ASSERT_TRUE(report.final_grid.has_value());
  life::HostGrid moved{10, 64, std::vector<std::uint8_t>(640, 0)};
  for (auto [y, x] : {std::pair{2, 3}, {3, 4}, {4, 2}, {4, 3}, {4, 4}})
    moved.cells[static_cast<std::size_t>(y * 64 + x)] = 1;
  EXPECT_EQ(report.final_grid->cells, moved.cells);
  EXPECT_EQ(report.stats.final_population, 5);
  EXPECT_TRUE(report.written.empty());
}

TEST(TEST_CATEGORY, life_job_steps_a_grid_in_memory) {
  job_steps_a_grid_in_memory<TEST_EXECSPACE>();
}

TEST(TEST_CATEGORY, life_job_validates_by_option_names) {
  const auto message = [](auto change) {
    life::JobSpec spec;
    change(spec);
    return error_message([&] { life::validate(spec); });
  };
  EXPECT_NE(message([](life::JobSpec& s) { s.config.width = 0; }).find("--width must be > 0"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.output_path = "run.npy";
              s.config.every = 2;
            }).find("--format h5"),
            std::string::npos);
  // A sink in memory (no file) takes every other generation.
  life::JobSpec in_memory;
  in_memory.config.every = 2;
  EXPECT_NO_THROW(life::validate(in_memory));
  EXPECT_NE(message([](life::JobSpec& s) {
              s.pattern = "glider.rle";
              s.seed = 1;
            }).find("--seed has no effect with --pattern"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.initial_path = "grid.npy";
              s.density = 0.2;
            }).find("--density has no effect with --initial"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.pattern_offset = std::pair{1, 1};
            }).find("--pattern-offset has no effect without --pattern"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) { s.density = 1.5; }).find("--density"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.pattern = "a.rle";
              s.initial_path = "b.npy";
            }).find("not both"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.rank_output = life::RankOutput::per_rank;
              s.resume = true;
            }).find("--resume needs --mpi-output gathered"),
            std::string::npos);
  EXPECT_NE(message([](life::JobSpec& s) {
              s.initial_grid = life::HostGrid{3, 3, {}};
            }).find("the initial grid is 3 x 3"),
            std::string::npos);
  life::validate(life::JobSpec());  // the defaults are valid
}

}  // namespace life_job_test
