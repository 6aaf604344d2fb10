// Pattern and grid files: .npy and RLE readers, and placement.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/life/patterns.hpp"

namespace test_life_patterns {

namespace fs = std::filesystem;

inline fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("portasim_life_" + name + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const portasim::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TEST_CATEGORY, life_npy_round_trip_and_validation) {
  const fs::path dir = scratch("npy");
  const std::vector<std::uint8_t> data{0, 1, 1, 0, 1, 0,
                                       1, 1, 1, 0, 0, 0};  // two 2 x 3 generations
  portasim::life::write_npy((dir / "g.npy").string(), data.data(), {2, 2, 3});
  const auto header = portasim::life::read_npy_header((dir / "g.npy").string());
  EXPECT_EQ(header.shape, (std::vector<std::int64_t>{2, 2, 3}));
  EXPECT_EQ(header.data_offset % 64, 0);
  const auto last = portasim::life::read_npy((dir / "g.npy").string());
  EXPECT_EQ(last.height, 2);
  EXPECT_EQ(last.width, 3);
  EXPECT_EQ(last.cells, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0}));

  auto write_raw = [&](const std::string& name, const std::string& bytes) {
    std::ofstream((dir / name).string(), std::ios::binary) << bytes;
    return (dir / name).string();
  };
  auto npy = [](const std::string& dict, const std::string& payload) {
    std::string header = dict;
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    return std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xFF) +
           char(header.size() >> 8) + header + payload;
  };
  EXPECT_NE(
      error_of([&] { portasim::life::read_npy(write_raw("a.npy", "hello")); }).find("bad magic"),
      std::string::npos);
  EXPECT_NE(error_of([&] {
              portasim::life::read_npy(write_raw(
                  "b.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                               std::string(32, '\0'))));
            }).find("not uint8"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              portasim::life::read_npy(write_raw(
                  "c.npy", npy("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 2), }",
                               std::string(4, '\0'))));
            }).find("Fortran"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              portasim::life::read_npy(write_raw(
                  "d.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4, 4), }",
                               std::string(3, '\0'))));
            }).find("shorter"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              portasim::life::read_npy(write_raw(
                  "e.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2), }",
                               std::string("\x01\x07", 2))));
            }).find("other than 0 or 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              portasim::life::read_npy(write_raw(
                  "f.npy", npy("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }",
                               std::string(5, '\0'))));
            }).find("is not (H, W)"),
            std::string::npos);
  const std::string missing =
      error_of([&] { portasim::life::read_npy((dir / "missing.npy").string()); });
  EXPECT_NE(missing.find("missing.npy"), std::string::npos) << missing;
  fs::remove_all(dir);
}

TEST(TEST_CATEGORY, life_rle_parsing) {
  const auto glider = portasim::life::parse_rle(
      "#N Glider\n#C a comment\nx = 3, y = 3, rule = B3/S23\nbob$2bo$3o!\n");
  EXPECT_EQ(glider.height, 3);
  EXPECT_EQ(glider.width, 3);
  EXPECT_EQ(glider.cells, (std::vector<std::uint8_t>{0, 1, 0, 0, 0, 1, 1, 1, 1}));
  // Runs across lines, trailing dead cells omitted, empty rows via a count before $.
  const auto spaced = portasim::life::parse_rle("x = 4, y = 4\n2o$\n2$3bo!");
  EXPECT_EQ(spaced.cells,
            (std::vector<std::uint8_t>{1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_NE(error_of([] {
              portasim::life::parse_rle("x = 3, y = 3, rule = B36/S23\nbo!");
            }).find("not B3/S23"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              portasim::life::parse_rle("x = 3, y = 3\nbob$2bo$3o");
            }).find("not terminated"),
            std::string::npos);
  EXPECT_NE(error_of([] { portasim::life::parse_rle("x = 2, y = 1\n3o!"); }).find("outside"),
            std::string::npos);
  EXPECT_NE(error_of([] { portasim::life::parse_rle("bob$2bo!"); }).find("header"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { portasim::life::parse_rle("x = 3, y = 3\nbqb!"); }).find("unknown cell tag"),
      std::string::npos);
}

TEST(TEST_CATEGORY, life_pattern_placement) {
  const auto glider = portasim::life::parse_rle("x = 3, y = 3\nbob$2bo$3o!");
  const auto grid = portasim::life::place(glider, 5, 6, 2, 3);
  EXPECT_EQ(grid.at(2, 4), 1);
  EXPECT_EQ(grid.at(4, 3), 1);
  int population = 0;
  for (auto c : grid.cells) population += c;
  EXPECT_EQ(population, 5);
  EXPECT_THROW(portasim::life::place(glider, 5, 6, 3, 3), portasim::Error);
  EXPECT_THROW(portasim::life::place(glider, 5, 6, 0, -1), portasim::Error);
}

}  // namespace test_life_patterns
