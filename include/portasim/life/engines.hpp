#pragma once
// B3/S23 on the device, every kernel on the given instance.
// step_bytes: one byte per cell; any width and height, including tori narrower than 3 cells
//   (np.roll semantics: a neighbour may be counted more than once). Rows whose width is a
//   multiple of 8 take a SWAR path, eight cells per 64-bit word, with identical results.
// step_bits: 64 cells per word, neighbour counts by bitwise adders; width % 64 == 0.
// Both step every row, or only a RowRange of them.
// advance_bytes / advance_bits: several generations of a whole grid, one or two per pass
//   (impl/two_generations.hpp), with results equal to stepping them one by one.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/bit_packing.hpp"
#include "portasim/life/grid.hpp"
#include "portasim/life/impl/grid_index.hpp"
#include "portasim/life/impl/two_generations.hpp"
#include "portasim/life/impl/word_strip.hpp"
#include "portasim/life/rules.hpp"

namespace portasim::life {

// Rows [first, last) of a generation (last < 0: to the end). The neighbours outside the
// range are read as usual, so a grid can be stepped in parts, e.g. the rows that need no
// halo while the halo is in flight, then the rest.
struct RowRange {
  std::int64_t first = 0, last = -1;

  // The range in a grid of `height` rows, `last` resolved; `step` names the caller in the
  // error when the range lies outside the grid (the message is built only then: this runs
  // every generation).
  RowRange within(std::int64_t height, const char* step) const {
    const RowRange r{first, last < 0 ? height : last};
    if (r.first < 0 || r.first > r.last || r.last > height)
      require(false, std::string(step) + ": rows " + std::to_string(r.first) + ".." +
                         std::to_string(r.last) + " outside a grid of " + std::to_string(height) +
                         " rows");
    return r;
  }
};

namespace impl {

// One cell per thread, any shape.
template <class InView, class OutView>
struct StepCells {
  InView in;
  OutView out;
  std::int64_t height, width;
  bool torus;
  std::int64_t first_row;  // cell 0 of the launch is (first_row, 0)

  KOKKOS_INLINE_FUNCTION std::uint8_t at(std::int64_t y, std::int64_t x) const {
    if (torus) return in(wrap(y, height), wrap(x, width));
    return (y < 0 || y >= height || x < 0 || x >= width) ? std::uint8_t(0) : in(y, x);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t cell) const {
    std::int64_t y, x;
    split_index(cell, width, y, x);
    y += first_row;
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (dy != 0 || dx != 0) n += at(y + dy, x + dx);
    out(y, x) = next_cell(in(y, x), n);
  }
};

// One generation of a word engine: a thread steps its strip of rows of one word column.
// Rule gives a row's sum of each cell and its two horizontal neighbours, and the next state
// of a word from the sums of the rows above, at and below it.
template <class Rule, class InView, class OutView>
struct StepWords {
  WordStrip<InView> strip;  // (height, words)
  OutView out;
  std::int64_t first_row, last_row;  // the rows written: strips start at first_row

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t y0, k;
    const int rows = strip_of(index, strip.words, first_row, last_row, y0, k);
    Words w[strip_rows + 2];
    strip.template load_rows<strip_rows>(w, y0, rows, strip.columns(k));
    typename Rule::Sum sums[strip_rows + 2];
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows + 2; ++i) sums[i] = Rule::row_sum(w[i]);
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows; ++i)
      if (i < rows) out(y0 + i, k) = Rule::next(w[i + 1].centre, sums[i], sums[i + 1], sums[i + 2]);
  }
};

// Eight cells per word through 64-bit loads, SWAR (width % 8 == 0, width >= 8).
struct ByteRule {
  using Sum = std::uint64_t;
  KOKKOS_INLINE_FUNCTION static Sum row_sum(const Words& w) { return byte_row_sum(w); }
  KOKKOS_INLINE_FUNCTION static std::uint64_t next(std::uint64_t alive, Sum above, Sum here,
                                                   Sum below) {
    return next_bytes(alive, above + here + below - alive);
  }
};

// 64 cells per word, bit-sliced (width % 64 == 0).
struct BitRule {
  using Sum = RowSum;
  KOKKOS_INLINE_FUNCTION static Sum row_sum(const Words& w) {
    return life::row_sum(lefts(w), w.centre, rights(w));
  }
  KOKKOS_INLINE_FUNCTION static std::uint64_t next(std::uint64_t alive, const Sum& above,
                                                   const Sum& here, const Sum& below) {
    return next_bits(alive, above, here, below);
  }
};

// Whether the SWAR path can read a byte grid's rows as words: contiguous rows, a multiple of
// 8 cells wide, on an 8-byte boundary.
template <class ByteView>
bool byte_rows_are_words(const ByteView& grid) {
  const std::int64_t width = static_cast<std::int64_t>(grid.extent(1));
  return width % 8 == 0 && width >= 8 && rows_hold_aligned_words(grid) &&
         (grid.extent(0) < 2 || static_cast<std::int64_t>(grid.stride(0)) == width);
}

// The byte grid as (height, width / 8) words of type Word (byte_rows_are_words holds): const
// words for a grid that is only read.
template <class Word, class ByteView>
auto byte_words(const ByteView& grid) {
  static_assert(std::is_const_v<Word> || !std::is_const_v<typename ByteView::value_type>,
                "a grid of const cells is read only");
  return Kokkos::View<Word**, Kokkos::LayoutRight, typename ByteView::memory_space,
                      Kokkos::MemoryTraits<Kokkos::Unmanaged>>(reinterpret_cast<Word*>(grid.data()),
                                                               grid.extent(0), grid.extent(1) / 8);
}

// The launch over a grid's flat index, with any further policy traits (launch bounds).
template <class ExecutionSpace, class... Traits>
using GridPolicy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>, Traits...>;

// Threads of a word engine over rows [first, last) of `words` columns: one per strip of
// `rows` rows.
inline std::int64_t strip_threads(std::int64_t first, std::int64_t last, std::int64_t words,
                                  int rows = strip_rows) {
  return (last - first + rows - 1) / rows * words;
}

// Two generations of a whole grid in one pass: `out` (not `in`) = the generation after next.
// The bound of three blocks of 256 threads per multiprocessor caps the kernel's registers:
// left to itself the compiler keeps more live than that allows, and the pass then waits on
// its loads.
template <class ExecutionSpace, class InView, class OutView>
void step_bits_twice(const ExecutionSpace& exec, Boundary boundary, const InView& in,
                     const OutView& out) {
  const std::int64_t height = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t words = static_cast<std::int64_t>(in.extent(1));
  using policy = GridPolicy<ExecutionSpace, Kokkos::LaunchBounds<256, 3>>;
  // Each thread copies its strip's View: unmanaged, so that no copy counts a reference.
  const Kokkos::View<typename InView::const_data_type, typename InView::array_layout,
                     typename InView::device_type, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
      in_words = in;
  Kokkos::parallel_for("portasim::life::step_bits_twice",
                       policy(exec, 0, strip_threads(0, height, words, edge_word_rows)),
                       StepBitsTwice<decltype(in_words), OutView>{
                           {in_words, height, words, boundary == Boundary::torus}, out});
}

// The same for a byte grid whose rows are words (byte_rows_are_words), in strips of
// byte_window_rows rows; two blocks of 256 threads per multiprocessor leave the longer strip
// the registers it holds without spilling.
template <class ExecutionSpace, class InView, class OutView>
void step_byte_words_twice(const ExecutionSpace& exec, Boundary boundary, const InView& in,
                           const OutView& out) {
  const auto in_words = byte_words<const std::uint64_t>(in);
  const auto out_words = byte_words<std::uint64_t>(out);
  const std::int64_t height = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t words = static_cast<std::int64_t>(in_words.extent(1));
  using policy = GridPolicy<ExecutionSpace, Kokkos::LaunchBounds<256, 2>>;
  Kokkos::parallel_for("portasim::life::step_bytes_twice",
                       policy(exec, 0, strip_threads(0, height, words, byte_window_rows)),
                       StepByteWordsTwice<decltype(in_words), decltype(out_words)>{
                           {in_words, height, words, boundary == Boundary::torus}, out_words});
}

}  // namespace impl

template <class ExecutionSpace, class InView, class OutView>
void step_bytes(const ExecutionSpace& exec, Boundary boundary, const InView& in, const OutView& out,
                RowRange rows = {}) {
  const std::int64_t height = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t width = static_cast<std::int64_t>(in.extent(1));
  const auto [first, last] = rows.within(height, "life::step_bytes");
  if (first == last) return;
  using policy = impl::GridPolicy<ExecutionSpace>;
  const bool torus = boundary == Boundary::torus;
  if (impl::byte_rows_are_words(in) && impl::byte_rows_are_words(out)) {
    const auto in_words = impl::byte_words<const std::uint64_t>(in);
    const auto out_words = impl::byte_words<std::uint64_t>(out);
    const std::int64_t words = width / 8;
    Kokkos::parallel_for("portasim::life::step_bytes_swar",
                         policy(exec, 0, impl::strip_threads(first, last, words)),
                         impl::StepWords<impl::ByteRule, decltype(in_words), decltype(out_words)>{
                             {in_words, height, words, torus}, out_words, first, last});
  } else {
    Kokkos::parallel_for("portasim::life::step_bytes", policy(exec, 0, (last - first) * width),
                         impl::StepCells<InView, OutView>{in, out, height, width, torus, first});
  }
}

template <class ExecutionSpace, class InView, class OutView>
void step_bits(const ExecutionSpace& exec, Boundary boundary, const InView& in, const OutView& out,
               RowRange rows = {}) {
  const std::int64_t height = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t words = static_cast<std::int64_t>(in.extent(1));
  const auto [first, last] = rows.within(height, "life::step_bits");
  if (first == last) return;
  Kokkos::parallel_for(
      "portasim::life::step_bits",
      impl::GridPolicy<ExecutionSpace>(exec, 0, impl::strip_threads(first, last, words)),
      impl::StepWords<impl::BitRule, InView, OutView>{
          {in, height, words, boundary == Boundary::torus}, out, first, last});
}

// How many generations one pass of advance_bytes / advance_bits steps. A pass of two reads
// and writes the grid once for two generations, but forms the first of them on two more rows
// and around the word's ends (impl/two_generations.hpp): it pays where the grid's traffic and
// the launches bound a pass and its arithmetic does not. `automatic` takes two on GPUs and one
// on host backends, whose cores the engines' arithmetic bounds
// (docs/design/life-pipeline.md has the measurements).
enum class GenerationsPerPass { automatic, one, two };

namespace impl {
template <class ExecutionSpace>
bool two_per_pass(GenerationsPerPass per_pass) {
  if (per_pass != GenerationsPerPass::automatic) return per_pass == GenerationsPerPass::two;
  // Host backends run where host memory is: Serial, OpenMP, Threads.
  return !Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
}

// Pairs of generations through `twice` while `pairs`, the rest through `once`; the handles
// swap after every pass, so `current` ends with the result.
template <class Grid, class Twice, class Once>
void advance_grid(Grid& current, Grid& other, std::int64_t generations, bool pairs,
                  const Twice& twice, const Once& once) {
  for (; pairs && generations >= 2; generations -= 2) {
    twice(current, other);
    std::swap(current, other);
  }
  for (; generations > 0; --generations) {
    once(current, other);
    std::swap(current, other);
  }
}
}  // namespace impl

// Advances the whole grid in `current` by `generations` generations, with `other` (a distinct
// grid of the same shape) as the second buffer: on return `current` holds the result, and the
// two handles have been swapped as needed. The result equals stepping the generations one by
// one, however many a pass steps (for bytes, two only where the rows are words).
template <class ExecutionSpace, class Grid>
void advance_bits(const ExecutionSpace& exec, Boundary boundary, Grid& current, Grid& other,
                  std::int64_t generations,
                  GenerationsPerPass per_pass = GenerationsPerPass::automatic) {
  impl::advance_grid(
      current, other, generations, impl::two_per_pass<ExecutionSpace>(per_pass),
      [&](const Grid& in, const Grid& out) { impl::step_bits_twice(exec, boundary, in, out); },
      [&](const Grid& in, const Grid& out) { step_bits(exec, boundary, in, out); });
}

template <class ExecutionSpace, class Grid>
void advance_bytes(const ExecutionSpace& exec, Boundary boundary, Grid& current, Grid& other,
                   std::int64_t generations,
                   GenerationsPerPass per_pass = GenerationsPerPass::automatic) {
  const bool pairs = impl::two_per_pass<ExecutionSpace>(per_pass) &&
                     impl::byte_rows_are_words(current) && impl::byte_rows_are_words(other);
  impl::advance_grid(
      current, other, generations, pairs,
      [&](const Grid& in, const Grid& out) {
        impl::step_byte_words_twice(exec, boundary, in, out);
      },
      [&](const Grid& in, const Grid& out) { step_bytes(exec, boundary, in, out); });
}

template <class ExecutionSpace, class ByteView>
std::int64_t population_of_bytes(const ExecutionSpace& exec, const ByteView& grid) {
  std::int64_t population = 0;
  const std::int64_t width = static_cast<std::int64_t>(grid.extent(1));
  Kokkos::parallel_reduce(
      "portasim::life::population",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, std::int64_t(grid.extent(0)) * width),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum) {
        sum += grid(i / width, i % width) != 0;
      },
      population);
  exec.fence();
  return population;
}

template <class ExecutionSpace, class WordView>
std::int64_t population_of_words(const ExecutionSpace& exec, const WordView& grid) {
  std::int64_t population = 0;
  const std::int64_t words = static_cast<std::int64_t>(grid.extent(1));
  Kokkos::parallel_reduce(
      "portasim::life::population_bits",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, std::int64_t(grid.extent(0)) * words),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& sum) {
        sum += popcount64(grid(i / words, i % words));
      },
      population);
  exec.fence();
  return population;
}

}  // namespace portasim::life
