// The engines against the host reference, and the classic patterns.
#include <gtest/gtest.h>

#include "life/life_test_support.hpp"

namespace test_life_rules {

using portasim::life::Boundary;
using portasim::life::Engine;
using portasim::life::HostGrid;
using portasim::testing::reference_step;
using portasim::testing::run_engine;

inline HostGrid from_rows(const std::vector<std::string>& rows) {
  HostGrid g;
  g.height = static_cast<std::int64_t>(rows.size());
  g.width = static_cast<std::int64_t>(rows[0].size());
  for (const auto& r : rows)
    for (char c : r) g.cells.push_back(c == 'o');
  return g;
}

template <class Exec>
void engines_match_reference_on_every_shape() {
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 3}, {1, 8}, {2, 8},
                                                          {5, 7}, {8, 8}, {16, 24}, {17, 19}, {3, 64}, {1, 64}, {40, 128}};
  for (Boundary boundary : {Boundary::torus, Boundary::dead})
    for (const auto& [h, w] : shapes) {
      const HostGrid start = portasim::testing::random_host_grid(h, w, 0.4, static_cast<std::uint64_t>(h * 1000 + w));
      HostGrid expected = start;
      for (int g = 0; g < 12; ++g) expected = reference_step(expected, boundary);
      EXPECT_EQ(run_engine<Exec>(start, Engine::bytes, boundary, 12).cells, expected.cells)
          << "bytes " << h << " x " << w << " " << portasim::life::to_string(boundary);
      if (w % 64 == 0)
        EXPECT_EQ(run_engine<Exec>(start, Engine::bits, boundary, 12).cells, expected.cells)
            << "bits " << h << " x " << w << " " << portasim::life::to_string(boundary);
    }
}
TEST(TEST_CATEGORY, life_engines_match_reference_on_every_shape) { engines_match_reference_on_every_shape<TEST_EXECSPACE>(); }

template <class Exec>
void classic_patterns() {
  for (Engine engine : {Engine::bytes, Engine::bits}) {
    auto pad = [](std::vector<std::string> rows) {  // into an 8 x 64 field at (2, 2)
      std::vector<std::string> field(8, std::string(64, '.'));
      for (std::size_t r = 0; r < rows.size(); ++r) field[r + 2].replace(2, rows[r].size(), rows[r]);
      return from_rows(field);
    };
    const HostGrid block = pad({"oo", "oo"});
    EXPECT_EQ(run_engine<Exec>(block, engine, Boundary::torus, 5).cells, block.cells) << "block is still";
    const HostGrid beehive = pad({".oo.", "o..o", ".oo."});
    EXPECT_EQ(run_engine<Exec>(beehive, engine, Boundary::dead, 5).cells, beehive.cells) << "beehive is still";
    const HostGrid blinker = pad({"ooo"});
    HostGrid shifted = pad({});  // the vertical phase: column 3, rows 1..3
    for (int r = -1; r <= 1; ++r) shifted.cells[static_cast<std::size_t>((2 + r) * 64 + 3)] = 1;
    EXPECT_EQ(run_engine<Exec>(blinker, engine, Boundary::torus, 1).cells, shifted.cells) << "blinker phase 2";
    EXPECT_EQ(run_engine<Exec>(blinker, engine, Boundary::torus, 2).cells, blinker.cells) << "blinker period 2";
    const HostGrid lonely = pad({"o"});
    EXPECT_EQ(run_engine<Exec>(lonely, engine, Boundary::torus, 1).cells, pad({}).cells) << "a lone cell dies";
    const HostGrid crowded = pad({"ooo", "ooo", "ooo"});  // centre has 8 neighbours: dies
    EXPECT_EQ(run_engine<Exec>(crowded, engine, Boundary::dead, 1).at(3, 3), 0);
    const HostGrid birth = pad({"o.o", "...", ".o."});  // (3,3) has exactly 3 neighbours: born
    EXPECT_EQ(run_engine<Exec>(birth, engine, Boundary::dead, 1).at(3, 3), 1);
  }
}
TEST(TEST_CATEGORY, life_classic_patterns) { classic_patterns<TEST_EXECSPACE>(); }

// A glider moves one cell down and right every 4 generations, and on a 64 x 64 torus comes
// back to where it started after 256.
template <class Exec>
void glider_translates_and_wraps() {
  std::vector<std::string> field(64, std::string(64, '.'));
  field[1].replace(2, 1, "o");
  field[2].replace(3, 1, "o");
  field[3].replace(1, 3, "ooo");
  const HostGrid glider = from_rows(field);
  for (Engine engine : {Engine::bytes, Engine::bits}) {
    const HostGrid after4 = run_engine<Exec>(glider, engine, Boundary::torus, 4);
    for (std::int64_t y = 0; y < 64; ++y)
      for (std::int64_t x = 0; x < 64; ++x)
        ASSERT_EQ(after4.at((y + 1) % 64, (x + 1) % 64), glider.at(y, x)) << portasim::life::to_string(engine);
    EXPECT_EQ(run_engine<Exec>(glider, engine, Boundary::torus, 256).cells, glider.cells) << "wrap-around";
  }
}
TEST(TEST_CATEGORY, life_glider_translates_and_wraps) { glider_translates_and_wraps<TEST_EXECSPACE>(); }

}  // namespace test_life_rules
