#pragma once
// One generation of B3/S23 on the device, every kernel on the given instance.
// step_bytes: one byte per cell; any width and height, including tori narrower than 3 cells
//   (np.roll semantics: a neighbour may be counted more than once). Rows whose width is a
//   multiple of 8 take a SWAR path, eight cells per 64-bit word, with identical results.
// step_bits: 64 cells per word, neighbour counts by bitwise adders; width % 64 == 0.
// Both step every row, or only a RowRange of them.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/bit_packing.hpp"
#include "portasim/life/grid.hpp"
#include "portasim/life/impl/grid_index.hpp"
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

// Rows per thread in the word engines. A thread loads its strip's rows of one word column
// and the words beside them first, so that it has many loads in flight, resolves the
// neighbour columns once, and forms each row's sum once for the three output rows that read
// it. docs/design/life-pipeline.md says why 8.
constexpr int strip_rows = 8;

// The strip of `index` (its first row y0 and word column k) and its number of rows.
KOKKOS_INLINE_FUNCTION int strip_of(std::int64_t index, std::int64_t words, std::int64_t first_row,
                                    std::int64_t last_row, std::int64_t& y0, std::int64_t& k) {
  std::int64_t strip;
  split_index(index, words, strip, k);
  y0 = first_row + strip * strip_rows;
  return static_cast<int>(y0 + strip_rows < last_row ? strip_rows : last_row - y0);
}

// Eight cells per word through 64-bit loads (width % 8 == 0, width >= 8).
template <class InView, class OutView>
struct StepByteWords {
  WordStrip<InView> strip;  // the grid as words: (height, width / 8)
  OutView out;
  std::int64_t first_row, last_row;  // the rows written: strips start at first_row

  // Sum of a cell and its two horizontal neighbours, per byte (little-endian: byte j is
  // column 8k + j, so the left neighbour of byte 0 is the top byte of the word before).
  KOKKOS_INLINE_FUNCTION static std::uint64_t byte_row_sum(const Words& w) {
    return ((w.centre << 8) | (w.left >> 56)) + w.centre + ((w.centre >> 8) | (w.right << 56));
  }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t y0, k;
    const int rows = strip_of(index, strip.words, first_row, last_row, y0, k);
    Words w[strip_rows + 2];
    strip.template load_rows<strip_rows>(w, y0, rows, strip.columns(k));
    std::uint64_t sums[strip_rows + 2];
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows + 2; ++i) sums[i] = byte_row_sum(w[i]);
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows; ++i)
      if (i < rows)
        out(y0 + i, k) =
            next_bytes(w[i + 1].centre, sums[i] + sums[i + 1] + sums[i + 2] - w[i + 1].centre);
  }
};

// 64 cells per word, bit-sliced (width % 64 == 0).
template <class InView, class OutView>
struct StepBits {
  WordStrip<InView> strip;  // (height, width / 64)
  OutView out;
  std::int64_t first_row, last_row;  // the rows written: strips start at first_row

  // The cells at x - 1 of the 64 x of the word (bit i is column 64 k + i), and at x + 1.
  KOKKOS_INLINE_FUNCTION static std::uint64_t lefts(const Words& w) {
    return (w.centre << 1) | (w.left >> 63);
  }
  KOKKOS_INLINE_FUNCTION static std::uint64_t rights(const Words& w) {
    return (w.centre >> 1) | (w.right << 63);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t y0, k;
    const int rows = strip_of(index, strip.words, first_row, last_row, y0, k);
    Words w[strip_rows + 2];
    strip.template load_rows<strip_rows>(w, y0, rows, strip.columns(k));
    RowSum sums[strip_rows + 2];
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows + 2; ++i)
      sums[i] = row_sum(lefts(w[i]), w[i].centre, rights(w[i]));
    PORTASIM_UNROLL
    for (int i = 0; i < strip_rows; ++i)
      if (i < rows) out(y0 + i, k) = next_bits(w[i + 1].centre, sums[i], sums[i + 1], sums[i + 2]);
  }
};

}  // namespace impl

template <class ExecutionSpace, class InView, class OutView>
void step_bytes(const ExecutionSpace& exec, Boundary boundary, const InView& in, const OutView& out,
                RowRange rows = {}) {
  const std::int64_t height = static_cast<std::int64_t>(in.extent(0));
  const std::int64_t width = static_cast<std::int64_t>(in.extent(1));
  const auto [first, last] = rows.within(height, "life::step_bytes");
  if (first == last) return;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const bool torus = boundary == Boundary::torus;
  // The SWAR path reads the rows as words: contiguous rows on an 8-byte boundary.
  const auto word_rows = [width](const auto& grid) {
    return impl::rows_hold_aligned_words(grid) &&
           (grid.extent(0) < 2 || static_cast<std::int64_t>(grid.stride(0)) == width);
  };
  if (width % 8 == 0 && width >= 8 && word_rows(in) && word_rows(out)) {
    using memory = typename InView::memory_space;
    const std::int64_t words = width / 8;
    Kokkos::View<const std::uint64_t**, Kokkos::LayoutRight, memory,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        in_words(reinterpret_cast<const std::uint64_t*>(in.data()), height, words);
    Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, memory,
                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        out_words(reinterpret_cast<std::uint64_t*>(out.data()), height, words);
    const std::int64_t strips = (last - first + impl::strip_rows - 1) / impl::strip_rows;
    Kokkos::parallel_for("portasim::life::step_bytes_swar", policy(exec, 0, strips * words),
                         impl::StepByteWords<decltype(in_words), decltype(out_words)>{
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
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t strips = (last - first + impl::strip_rows - 1) / impl::strip_rows;
  Kokkos::parallel_for("portasim::life::step_bits", policy(exec, 0, strips * words),
                       impl::StepBits<InView, OutView>{
                           {in, height, words, boundary == Boundary::torus}, out, first, last});
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
