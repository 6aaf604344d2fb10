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

// The bit-sliced rule against the one-cell rule on all 512 neighbourhoods, one per bit of
// a word: bit i of the nine boards is bit j of i, for j = 0..8.
TEST(TEST_CATEGORY, life_bit_rule_matches_the_cell_rule_on_every_neighbourhood) {
  using portasim::life::row_sum;
  for (int word = 0; word < 8; ++word) {
    std::uint64_t board[9] = {};
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 9; ++j)
        if (((64 * word + i) >> j) & 1) board[j] |= std::uint64_t(1) << i;
    // board 4 is the cell itself; 0-2 the row above, 3 and 5 beside it, 6-8 below.
    const std::uint64_t next = portasim::life::next_bits(
        board[4], row_sum(board[0], board[1], board[2]), row_sum(board[3], board[4], board[5]),
        row_sum(board[6], board[7], board[8]));
    for (int i = 0; i < 64; ++i) {
      const int pattern = 64 * word + i;
      int neighbours = 0;
      for (int j = 0; j < 9; ++j) neighbours += j != 4 && ((pattern >> j) & 1);
      const auto alive = static_cast<std::uint8_t>((pattern >> 4) & 1);
      ASSERT_EQ((next >> i) & 1, portasim::life::next_cell(alive, neighbours))
          << "pattern " << pattern;
    }
  }
}

template <class Exec>
void engines_match_reference_on_every_shape() {
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {1, 1}, {1, 2}, {2, 1},   {2, 2},   {2, 3},  {3, 3},  {1, 8},   {2, 8},
      {5, 7}, {8, 8}, {16, 24}, {17, 19}, {3, 64}, {1, 64}, {40, 128}};
  for (Boundary boundary : {Boundary::torus, Boundary::dead})
    for (const auto& [h, w] : shapes) {
      const HostGrid start =
          portasim::testing::random_host_grid(h, w, 0.4, static_cast<std::uint64_t>(h * 1000 + w));
      HostGrid expected = start;
      for (int g = 0; g < 12; ++g) expected = reference_step(expected, boundary);
      EXPECT_EQ(run_engine<Exec>(start, Engine::bytes, boundary, 12).cells, expected.cells)
          << "bytes " << h << " x " << w << " " << portasim::life::to_string(boundary);
      if (w % 64 == 0)
        EXPECT_EQ(run_engine<Exec>(start, Engine::bits, boundary, 12).cells, expected.cells)
            << "bits " << h << " x " << w << " " << portasim::life::to_string(boundary);
    }
}
TEST(TEST_CATEGORY, life_engines_match_reference_on_every_shape) {
  engines_match_reference_on_every_shape<TEST_EXECSPACE>();
}

// Several generations in one call, one, two or the backend's choice per pass, against the
// reference after every count from 0 to 5 and after 12: on shapes whose strips end inside the
// grid, tori of one and two rows (rows two generations away lie periods off), one and two words
// per row (the words beside a word are the word itself or one other), and byte grids the SWAR
// path cannot read as words.
template <class Exec>
void engines_advance_two_generations_per_pass() {
  using portasim::life::GenerationsPerPass;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {1, 8},   {2, 8},   {1, 64},   {2, 64},   {3, 64}, {5, 7},  {9, 16},
      {13, 64}, {17, 19}, {21, 128}, {40, 192}, {8, 24}, {11, 8}, {64, 64}};
  for (Boundary boundary : {Boundary::torus, Boundary::dead})
    for (const auto& [h, w] : shapes) {
      const HostGrid start =
          portasim::testing::random_host_grid(h, w, 0.45, static_cast<std::uint64_t>(h * 4099 + w));
      std::vector<HostGrid> expected{start};
      for (int g = 0; g < 12; ++g) expected.push_back(reference_step(expected.back(), boundary));
      for (auto per_pass :
           {GenerationsPerPass::two, GenerationsPerPass::one, GenerationsPerPass::automatic})
        for (std::int64_t n : {0, 1, 2, 3, 4, 5, 12}) {
          const auto name = std::to_string(h) + " x " + std::to_string(w) + " " +
                            portasim::life::to_string(boundary) + ", " + std::to_string(n) +
                            " generations, per pass " + std::to_string(static_cast<int>(per_pass));
          const auto& want = expected[static_cast<std::size_t>(n)].cells;
          using portasim::testing::advance_engine;
          EXPECT_EQ(advance_engine<Exec>(start, Engine::bytes, boundary, n, per_pass).cells, want)
              << "bytes " << name;
          if (w % 64 == 0)
            EXPECT_EQ(advance_engine<Exec>(start, Engine::bits, boundary, n, per_pass).cells, want)
                << "bits " << name;
        }
    }
}
TEST(TEST_CATEGORY, life_engines_advance_two_generations_per_pass) {
  engines_advance_two_generations_per_pass<TEST_EXECSPACE>();
}

// The two-generation kernels themselves, called directly (advance_bytes would step one
// generation at a time, unseen, where a grid's rows cannot be read as words).
template <class Exec>
void two_generation_kernels_match_two_steps() {
  using memory = typename Exec::memory_space;
  Exec exec;
  for (Boundary boundary : {Boundary::torus, Boundary::dead})
    for (const auto& [h, w] : {std::pair<std::int64_t, std::int64_t>{37, 64},
                               std::pair<std::int64_t, std::int64_t>{3, 128}}) {
      const HostGrid start = portasim::testing::random_host_grid(h, w, 0.4, 77);
      const HostGrid want = reference_step(reference_step(start, boundary), boundary);
      const auto cells = portasim::testing::to_device<memory>(start);
      portasim::life::ByteGrid<memory> next("next", h, w);
      portasim::life::impl::step_byte_words_twice(exec, boundary, cells, next);
      exec.fence();
      EXPECT_EQ(portasim::testing::to_host_grid(next).cells, want.cells) << "bytes " << h;
      portasim::life::WordGrid<memory> words("words", h, w / 64), next_words("next", h, w / 64);
      portasim::life::pack_bits(exec, cells, words);
      portasim::life::impl::step_bits_twice(exec, boundary, words, next_words);
      portasim::life::unpack_bits(exec, next_words, next);
      exec.fence();
      EXPECT_EQ(portasim::testing::to_host_grid(next).cells, want.cells) << "bits " << h;
    }
}
TEST(TEST_CATEGORY, life_two_generation_kernels_match_two_steps) {
  two_generation_kernels_match_two_steps<TEST_EXECSPACE>();
}

// A generation stepped in row ranges (as the distributed run does around its halo exchange)
// equals one stepped whole, for ranges that split strips of 8 rows anywhere.
template <class Exec>
void engines_step_in_row_ranges() {
  using portasim::life::RowRange;
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {17, 19}, {16, 24}, {21, 128}, {9, 64}, {3, 64}};
  for (Boundary boundary : {Boundary::torus, Boundary::dead})
    for (const auto& [h, w] : shapes) {
      const HostGrid start =
          portasim::testing::random_host_grid(h, w, 0.4, static_cast<std::uint64_t>(h * 7919 + w));
      HostGrid expected = start;
      for (int g = 0; g < 9; ++g) expected = reference_step(expected, boundary);
      const std::vector<RowRange> parts = {RowRange{2, h - 1}, RowRange{0, 1}, RowRange{1, 2},
                                           RowRange{h - 1, h}, RowRange{h, h}};
      EXPECT_EQ(run_engine<Exec>(start, Engine::bytes, boundary, 9, parts).cells, expected.cells)
          << "bytes " << h << " x " << w << " " << portasim::life::to_string(boundary);
      if (w % 64 == 0)
        EXPECT_EQ(run_engine<Exec>(start, Engine::bits, boundary, 9, parts).cells, expected.cells)
            << "bits " << h << " x " << w << " " << portasim::life::to_string(boundary);
    }
  // Rows outside the range are left alone.
  using memory = typename Exec::memory_space;
  Exec exec;
  const auto in =
      portasim::testing::to_device<memory>(portasim::testing::random_host_grid(20, 64, 0.4, 5));
  portasim::life::ByteGrid<memory> out("out", 20, 64);
  portasim::life::WordGrid<memory> words_in("words_in", 20, 1), words_out("words_out", 20, 1);
  Kokkos::deep_copy(out, std::uint8_t(7));
  Kokkos::deep_copy(words_out, ~std::uint64_t(0) - 1);
  portasim::life::step_bytes(exec, Boundary::torus, in, out, RowRange{3, 12});
  portasim::life::pack_bits(exec, in, words_in);
  portasim::life::step_bits(exec, Boundary::torus, words_in, words_out, RowRange{3, 12});
  exec.fence();
  const auto out_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  const auto words_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), words_out);
  for (int y = 0; y < 20; ++y) {
    const bool inside = y >= 3 && y < 12;
    int sevens = 0;
    for (int x = 0; x < 64; ++x) sevens += out_host(y, x) == 7;
    EXPECT_EQ(sevens, inside ? 0 : 64) << "bytes row " << y;
    EXPECT_EQ(words_host(y, 0) == ~std::uint64_t(0) - 1, !inside) << "bits row " << y;
  }
  const HostGrid grid = portasim::testing::random_host_grid(4, 64, 0.4, 3);
  EXPECT_THROW(run_engine<Exec>(grid, Engine::bytes, Boundary::torus, 1, {RowRange{0, 5}}),
               std::exception);
  EXPECT_THROW(run_engine<Exec>(grid, Engine::bits, Boundary::torus, 1, {RowRange{3, 2}}),
               std::exception);
}
TEST(TEST_CATEGORY, life_engines_step_in_row_ranges) {
  engines_step_in_row_ranges<TEST_EXECSPACE>();
}

template <class Exec>
void classic_patterns() {
  for (Engine engine : {Engine::bytes, Engine::bits}) {
    auto pad = [](std::vector<std::string> rows) {  // into an 8 x 64 field at (2, 2)
      std::vector<std::string> field(8, std::string(64, '.'));
      for (std::size_t r = 0; r < rows.size(); ++r)
        field[r + 2].replace(2, rows[r].size(), rows[r]);
      return from_rows(field);
    };
    const HostGrid block = pad({"oo", "oo"});
    EXPECT_EQ(run_engine<Exec>(block, engine, Boundary::torus, 5).cells, block.cells)
        << "block is still";
    const HostGrid beehive = pad({".oo.", "o..o", ".oo."});
    EXPECT_EQ(run_engine<Exec>(beehive, engine, Boundary::dead, 5).cells, beehive.cells)
        << "beehive is still";
    const HostGrid blinker = pad({"ooo"});
    HostGrid shifted = pad({});  // the vertical phase: column 3, rows 1..3
    for (int r = -1; r <= 1; ++r) shifted.cells[static_cast<std::size_t>((2 + r) * 64 + 3)] = 1;
    EXPECT_EQ(run_engine<Exec>(blinker, engine, Boundary::torus, 1).cells, shifted.cells)
        << "blinker phase 2";
    EXPECT_EQ(run_engine<Exec>(blinker, engine, Boundary::torus, 2).cells, blinker.cells)
        << "blinker period 2";
    const HostGrid lonely = pad({"o"});
    EXPECT_EQ(run_engine<Exec>(lonely, engine, Boundary::torus, 1).cells, pad({}).cells)
        << "a lone cell dies";
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
        ASSERT_EQ(after4.at((y + 1) % 64, (x + 1) % 64), glider.at(y, x))
            << portasim::life::to_string(engine);
    EXPECT_EQ(run_engine<Exec>(glider, engine, Boundary::torus, 256).cells, glider.cells)
        << "wrap-around";
  }
}
TEST(TEST_CATEGORY, life_glider_translates_and_wraps) {
  glider_translates_and_wraps<TEST_EXECSPACE>();
}

}  // namespace test_life_rules
