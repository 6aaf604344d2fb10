// The streaming pipeline: chunks, formats, resume, backends, and a known pattern fact.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

#include "life/life_test_support.hpp"
#include "portasim/life/outputs.hpp"

namespace test_life_pipeline {

using portasim::life::Boundary;
using portasim::life::Config;
using portasim::life::Engine;
using portasim::life::HostGrid;
using portasim::testing::ChunksInMemory;

template <class Exec>
portasim::life::RunStats run_to_memory(const Config& config, const HostGrid& start,
                                       ChunksInMemory& sink, std::int64_t start_generation = 0,
                                       HostGrid* final_grid = nullptr) {
  using memory = typename Exec::memory_space;
  const auto initial = portasim::testing::to_device<memory>(start);
  portasim::life::ByteGrid<memory> last("last", config.height, config.width);
  const auto stats = portasim::life::run(Exec(), config, initial, start_generation, &sink, &last);
  if (final_grid) *final_grid = portasim::testing::to_host_grid(last);
  return stats;
}

// Chunks concatenated equal a direct simulation, including a short last chunk; the chunk
// boundaries and generation numbers are the Python tool's.
// 23 generations of 24 x 128 in chunks of 10: chunks 0, 1-10, 11-20 and a short 21-23.
inline Config four_chunk_config(Engine engine) {
  Config config;
  config.height = 24;
  config.width = 128;
  config.steps = 23;
  config.chunk_size = 10;
  config.engine = engine;
  return config;
}

template <class Exec>
void chunks_equal_direct_run(Engine engine) {
  const Config config = four_chunk_config(engine);
  const HostGrid start = portasim::testing::random_host_grid(config.height, config.width, 0.35, 99);
  ChunksInMemory sink;
  HostGrid final_grid;
  const auto stats = run_to_memory<Exec>(config, start, sink, 0, &final_grid);
  EXPECT_EQ(sink.chunks, 4);
  EXPECT_EQ(sink.firsts, (std::vector<std::int64_t>{0, 1, 11, 21}));
  EXPECT_EQ(sink.lasts, (std::vector<std::int64_t>{0, 10, 20, 23}));
  ASSERT_EQ(sink.grids.size(), 24u);
  HostGrid expected = start;
  for (std::int64_t g = 0; g <= 23; ++g) {
    EXPECT_EQ(sink.generations[static_cast<std::size_t>(g)], g);
    ASSERT_EQ(sink.grids[static_cast<std::size_t>(g)], expected.cells) << "generation " << g;
    expected = portasim::testing::reference_step(expected, Boundary::torus);
  }
  EXPECT_EQ(final_grid.cells, sink.grids.back());
  std::int64_t population = 0;
  for (auto c : sink.grids.back()) population += c;
  EXPECT_EQ(stats.final_population, population);
  EXPECT_EQ(stats.chunks, 3);
}
TEST(TEST_CATEGORY, life_chunks_equal_direct_run_bytes) {
  chunks_equal_direct_run<TEST_EXECSPACE>(Engine::bytes);
}
TEST(TEST_CATEGORY, life_chunks_equal_direct_run_bits) {
  chunks_equal_direct_run<TEST_EXECSPACE>(Engine::bits);
}

// .npy chunk files are the same, byte for byte, whether each one's writeback starts while
// the run goes on or not, and a run resumes from either.
template <class Exec>
void npy_chunk_files_with_and_without_writeback_agree() {
  namespace fs = std::filesystem;
  const Config config = four_chunk_config(Engine::bits);
  using memory = typename Exec::memory_space;
  const HostGrid start = portasim::testing::random_host_grid(config.height, config.width, 0.35, 7);
  const auto initial = portasim::testing::to_device<memory>(start);
  const fs::path folder =
      fs::temp_directory_path() / ("portasim_life_writeback_" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::string cached = (folder / "cached").string(), written = (folder / "written").string();
  {
    portasim::life::NpyChunkFiles files(cached, /*start_writeback=*/false),
        early(written, /*start_writeback=*/true);
    portasim::life::run(Exec(), config, initial, 0, &files);
    portasim::life::run(Exec(), config, initial, 0, &early);
    EXPECT_EQ(early.files_written(), 4);
  }
  const auto bytes_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  for (const auto& [first, last] : {std::pair{0, 0}, {1, 10}, {11, 20}, {21, 23}}) {
    const std::string a = portasim::life::npy_chunk_path(cached, first, last),
                      b = portasim::life::npy_chunk_path(written, first, last);
    ASSERT_TRUE(fs::exists(b)) << b;
    EXPECT_EQ(bytes_of(a), bytes_of(b)) << b;
  }
  const auto resume = portasim::life::find_npy_resume_point(written);
  ASSERT_TRUE(resume.has_value());
  EXPECT_EQ(resume->generation, 23);
  fs::remove_all(folder);
}
TEST(TEST_CATEGORY, life_npy_chunk_files_with_and_without_writeback_agree) {
  npy_chunk_files_with_and_without_writeback_agree<TEST_EXECSPACE>();
}

// Every k-th generation, packed or not, from either engine: the same grids.
template <class Exec>
void every_and_packed_outputs_agree() {
  Config config;
  config.height = 16;
  config.width = 64;
  config.steps = 30;
  config.chunk_size = 7;
  config.boundary = Boundary::dead;
  const HostGrid start = portasim::testing::random_host_grid(config.height, config.width, 0.5, 5);
  ChunksInMemory all;
  run_to_memory<Exec>(config, start, all);
  for (Engine engine : {Engine::bytes, Engine::bits})
    for (bool packed : {false, true}) {
      config.engine = engine;
      config.packed_output = packed;
      config.every = 3;
      ChunksInMemory thinned;
      run_to_memory<Exec>(config, start, thinned);
      ASSERT_EQ(thinned.grids.size(), 11u);  // 0, 3, ..., 30
      for (std::size_t i = 0; i < thinned.grids.size(); ++i) {
        EXPECT_EQ(thinned.generations[i], static_cast<std::int64_t>(3 * i));
        EXPECT_EQ(thinned.grids[i], all.grids[3 * i])
            << "engine " << portasim::life::to_string(engine) << " packed " << packed;
      }
    }
}
TEST(TEST_CATEGORY, life_every_and_packed_outputs_agree) {
  every_and_packed_outputs_agree<TEST_EXECSPACE>();
}

// The chunk buffers (device slots and pinned host slots) hold the generations a chunk
// records, ceil(chunk_size / every) grids, not chunk_size: a run that records every 1000th
// generation in chunks of 1000 needs one grid per slot.
struct ChunkAllocations {
  static std::uint64_t& largest() {
    static std::uint64_t bytes = 0;
    return bytes;
  }
  static void on_allocate(Kokkos::Profiling::SpaceHandle, const char* label, const void*,
                          std::uint64_t size) {
    if (std::string(label).rfind("portasim::life::chunk", 0) == 0)
      largest() = std::max(largest(), size);
  }
};

template <class Exec>
void chunk_buffers_hold_recorded_generations() {
  namespace tools = Kokkos::Tools::Experimental;
  Config config;
  config.height = 32;
  config.width = 64;
  config.steps = 40;
  const HostGrid start = portasim::testing::random_host_grid(config.height, config.width, 0.5, 3);
  const std::uint64_t grid_bytes = 32 * 64;
  for (const auto& [chunk_size, every, grids] : {std::tuple{20, 20, 1}, std::tuple{20, 1, 20},
                                                 std::tuple{20, 3, 7}, std::tuple{10, 40, 1}}) {
    config.chunk_size = chunk_size;
    config.every = every;
    ChunkAllocations::largest() = 0;
    tools::set_allocate_data_callback(ChunkAllocations::on_allocate);
    ChunksInMemory recorded;
    run_to_memory<Exec>(config, start, recorded);
    tools::set_allocate_data_callback(nullptr);
    EXPECT_EQ(ChunkAllocations::largest(), grids * grid_bytes)
        << "chunk size " << chunk_size << ", every " << every;
    EXPECT_EQ(recorded.grids.size(), static_cast<std::size_t>(40 / every + 1));
  }
}
TEST(TEST_CATEGORY, life_chunk_buffers_hold_recorded_generations) {
  chunk_buffers_hold_recorded_generations<TEST_EXECSPACE>();
}

// A run resumed from the last complete chunk equals the uninterrupted run.
template <class Exec>
void resume_equals_uninterrupted() {
  Config config;
  config.height = 20;
  config.width = 72;
  config.steps = 47;
  config.chunk_size = 10;
  const HostGrid start = portasim::testing::random_host_grid(config.height, config.width, 0.4, 11);
  ChunksInMemory whole;
  run_to_memory<Exec>(config, start, whole);
  HostGrid at30 = start;
  at30.cells = whole.grids[30];
  ChunksInMemory resumed;
  const auto stats = run_to_memory<Exec>(config, at30, resumed, 30);
  EXPECT_EQ(resumed.firsts, (std::vector<std::int64_t>{31, 41}));
  ASSERT_EQ(resumed.grids.size(), 17u);
  for (std::size_t i = 0; i < resumed.grids.size(); ++i)
    EXPECT_EQ(resumed.grids[i], whole.grids[31 + i]);
  EXPECT_EQ(stats.first_generation, 30);

  // Resumed at a generation that is neither a chunk's end nor recorded, recording every
  // third: the run advances straight to each recorded generation, on every backend's pass.
  Config every_third = config;
  every_third.every = 3;
  HostGrid at31 = start;
  at31.cells = whole.grids[31];
  ChunksInMemory thirds;
  run_to_memory<Exec>(every_third, at31, thirds, 31);
  EXPECT_EQ(thirds.firsts, (std::vector<std::int64_t>{32, 41}));
  EXPECT_EQ(thirds.generations, (std::vector<std::int64_t>{33, 36, 39, 42, 45}));
  ASSERT_EQ(thirds.grids.size(), thirds.generations.size());
  for (std::size_t i = 0; i < thirds.grids.size(); ++i)
    EXPECT_EQ(thirds.grids[i], whole.grids[static_cast<std::size_t>(thirds.generations[i])])
        << "generation " << thirds.generations[i];
}
TEST(TEST_CATEGORY, life_resume_equals_uninterrupted) {
  resume_equals_uninterrupted<TEST_EXECSPACE>();
}

// Backends and engines agree byte for byte after many generations, with the random
// initial grid generated on each backend.
template <class Exec>
void backends_and_engines_agree() {
  Config config;
  config.height = 96;
  config.width = 192;
  config.steps = 200;
  config.chunk_size = 50;
  auto final_of = [&](auto exec, Engine engine) {
    using space = decltype(exec);
    using memory = typename space::memory_space;
    Config c = config;
    c.engine = engine;
    portasim::life::ByteGrid<memory> initial("initial", c.height, c.width),
        last("last", c.height, c.width);
    portasim::life::fill_random(exec, initial, 0.3, 2024);
    portasim::life::run(exec, c, initial, 0, nullptr, &last);
    return portasim::testing::to_host_grid(last);
  };
  const HostGrid reference = final_of(Kokkos::Serial(), Engine::bytes);
  EXPECT_EQ(final_of(Exec(), Engine::bytes).cells, reference.cells);
  EXPECT_EQ(final_of(Exec(), Engine::bits).cells, reference.cells);
  HostGrid host_reference =
      portasim::testing::random_host_grid(config.height, config.width, 0.3, 2024);
  for (int g = 0; g < 200; ++g)
    host_reference = portasim::testing::reference_step(host_reference, Boundary::torus);
  EXPECT_EQ(reference.cells, host_reference.cells);
}
TEST(TEST_CATEGORY, life_backends_and_engines_agree) {
  backends_and_engines_agree<TEST_EXECSPACE>();
}

// The R-pentomino reaches population 116 at generation 1103 and stays there, on a torus
// large enough (512 x 512) that its escaping gliders do not collide.
template <class Exec>
void r_pentomino_stabilises_at_116() {
  const HostGrid r =
      portasim::life::parse_rle("x = 3, y = 3, rule = B3/S23\nb2o$2ob$bo!", "R-pentomino");
  const HostGrid start = portasim::life::place(r, 512, 512, 255, 255);
  for (Engine engine : {Engine::bits, Engine::bytes}) {
    Config config;
    config.height = config.width = 512;
    config.engine = engine;
    config.chunk_size = 100;
    const auto initial = portasim::testing::to_device<typename Exec::memory_space>(start);
    auto population_at = [&](std::int64_t generation) {
      config.steps = generation;
      return portasim::life::run(Exec(), config, initial, 0, nullptr).final_population;
    };
    EXPECT_NE(population_at(1102), 116) << "not yet at 1102";
    EXPECT_EQ(population_at(1103), 116) << portasim::life::to_string(engine);
    EXPECT_EQ(population_at(1110), 116)
        << "stable after 1103: " << portasim::life::to_string(engine);
  }
}
TEST(TEST_CATEGORY, life_r_pentomino_stabilises_at_116) {
  r_pentomino_stabilises_at_116<TEST_EXECSPACE>();
}

template <class Exec>
void bad_configs_are_rejected() {
  using memory = typename Exec::memory_space;
  const auto grid =
      portasim::testing::to_device<memory>(portasim::testing::random_host_grid(8, 100, 0.5, 1));
  auto rejects = [&](auto change) {
    Config c;
    c.height = 8;
    c.width = 100;
    change(c);
    EXPECT_THROW(portasim::life::run(Exec(), c, grid, 0, nullptr), portasim::Error);
  };
  rejects([](Config& c) { c.chunk_size = 0; });
  rejects([](Config& c) { c.steps = -1; });
  rejects([](Config& c) { c.engine = Engine::bits; });  // 100 is not a multiple of 64
  rejects([](Config& c) { c.packed_output = true; });
  rejects([](Config& c) { c.width = 99; });  // the initial grid is 8 x 100
  rejects([](Config& c) { c.every = 0; });
}
TEST(TEST_CATEGORY, life_bad_configs_are_rejected) { bad_configs_are_rejected<TEST_EXECSPACE>(); }

}  // namespace test_life_pipeline
