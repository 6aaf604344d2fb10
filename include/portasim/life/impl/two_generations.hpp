#pragma once
// Two generations in one pass of the word engines. A thread reads its strip of rows of one
// word column two rows beyond each end, forms the next generation on the strip and on one row
// beyond each end, and from those the generation after, which it writes. The grid is read and
// written once for two generations, which halves the memory traffic of the word engines where
// it bounds them; docs/design/life-pipeline.md has the measurements.
//
// The second generation of a word's cells reads the first generation of one cell beyond the
// word on each side. Each of those reads three columns of the grid. The bit engine gathers the
// six columns around the word's two ends into an "edge word" stepped beside the word: in it
// the two cells beyond the word have both of their row neighbours beside them, and its other
// places are never read. The byte engine steps a window of the word's cells and two beyond
// each end, as bits.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/life/bit_packing.hpp"
#include "portasim/life/impl/grid_index.hpp"
#include "portasim/life/impl/word_strip.hpp"
#include "portasim/life/rules.hpp"

namespace portasim::life::impl {

// Bits, 64 cells per word: bits 0..2 of the edge word are the columns 64k - 2 .. 64k, and bits
// 3..5 the columns 64k + 63 .. 64k + 65, so bits 1 and 4 are the cells beyond the word. Six
// cells fit a 32-bit word; GPUs do each 64-bit logic operation as two 32-bit ones.
KOKKOS_INLINE_FUNCTION std::uint32_t bit_edges(const Words& w) {
  return (w.left_high >> 30) | static_cast<std::uint32_t>(w.centre & 1) << 2 |
         static_cast<std::uint32_t>(w.centre >> 63) << 3 | (w.right_low & 3) << 4;
}
constexpr std::uint32_t bit_edge_left = 1u << 1, bit_edge_right = 1u << 4;

// A word and the cells beyond it from its edge word, as the Words that lefts() and rights()
// read: bit 31 of `left_high` and bit 0 of `right_low`.
KOKKOS_INLINE_FUNCTION Words bits_with_edges(std::uint64_t centre, std::uint32_t edges) {
  return {edges << 30, centre, edges >> 4};
}

// Bytes, 8 cells per word, are stepped as bits: the word's eight cells and the two beyond
// each end become a 12-cell window, bit 2 + i holding column 8k + i for i = -2 .. 9, which
// the bit-sliced rule steps with a few 32-bit operations per row (the SWAR rule needs two
// exact compares of eight bytes per word and row). The first generation holds for bits 1 .. 10 of
// the window, the second for bits 2 .. 9, the word's own cells. Cells are 0 or 1, as every engine
// takes them.
KOKKOS_INLINE_FUNCTION std::uint32_t byte_window(const Words& w) {
  // Byte i's bit 0 lands on bit 56 + i, and no two partial products share a bit.
  const auto cells = static_cast<std::uint32_t>((w.centre * 0x0102040810204080ull) >> 56);
  return ((w.left_high >> 16) & 1u) | ((w.left_high >> 23) & 2u) | cells << 2 |
         (w.right_low & 1u) << 10 | ((w.right_low >> 8) & 1u) << 11;
}
constexpr std::uint32_t window_left = 1u << 1, window_right = 1u << 10;

// Rows per thread of the two-generation passes. The byte windows' arithmetic is light enough
// that longer strips, which read and step fewer rows beyond their ends, win over more threads.
constexpr int edge_word_rows = strip_rows;
constexpr int byte_window_rows = 2 * strip_rows;

// The strip of rows a thread steps twice: rows y0 - 2 .. y0 + Rows + 1 of its column.
// The first generation of a row outside a dead border is dead, whatever its neighbours are,
// and so are the cells beyond the grid's first and last columns.
template <class InView, int Rows>
struct TwoGenerationStrip {
  static_assert(!InView::traits::is_managed,
                "each thread copies the strip: a managed View would count every copy");
  WordStrip<InView> strip;
  std::int64_t y0, k;
  int rows;                  // rows written: Rows, fewer in the last strip
  bool crosses_dead_border;  // whether a first-generation row lies beyond a dead border
  typename WordStrip<InView>::Columns columns;
  Words w[Rows + 4];

  KOKKOS_INLINE_FUNCTION TwoGenerationStrip(const WordStrip<InView>& s, std::int64_t index)
      : strip(s) {
    rows = strip_of<Rows>(index, strip.words, 0, strip.height, y0, k);
    crosses_dead_border = !strip.torus && (y0 < 1 || y0 + Rows + 1 > strip.height);
    columns = strip.columns(k);
    strip.template load_rows<Rows, 2>(w, y0, rows, columns);
  }

  // Whether first-generation row j (grid row y0 - 1 + j) lies beyond a dead border. Decided
  // once per strip first: only the first and last strips of a column have such rows.
  KOKKOS_INLINE_FUNCTION bool dead_row(int j) const {
    const std::int64_t y = y0 - 1 + j;
    return crosses_dead_border && (y < 0 || y >= strip.height);
  }
};

// The kernels below walk the strip once, in order: input row i gives its row sums; with
// three of those, first-generation row i - 2 and its row sums; with three of those, output row
// i - 4. Only the last few rows' values stay live, which keeps the thread's registers to the
// loaded rows and a window of sums (the loads all come first, see WordStrip::load_rows).

// 64 cells per word, bit-sliced, two generations (width % 64 == 0).
template <class InView, class OutView, int Rows = edge_word_rows>
struct StepBitsTwice {
  WordStrip<InView> strip;  // (height, width / 64)
  OutView out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const TwoGenerationStrip<InView, Rows> s(strip, index);
    const std::uint32_t edge_mask =
        (s.columns.has_left ? bit_edge_left : 0u) | (s.columns.has_right ? bit_edge_right : 0u);
    RowSum sums[Rows + 4], next_sums[Rows + 2];
    RowSumOf<std::uint32_t> edge_sums[Rows + 4];
    std::uint32_t edges[Rows + 4];
    std::uint64_t next[Rows + 2];
    PORTASIM_UNROLL
    for (int i = 0; i < Rows + 4; ++i) {
      sums[i] = row_sum(lefts(s.w[i]), s.w[i].centre, rights(s.w[i]));
      edges[i] = bit_edges(s.w[i]);
      edge_sums[i] = row_sum<std::uint32_t>(edges[i] << 1, edges[i], edges[i] >> 1);
      if (i < 2) continue;
      const int j = i - 2;  // first generation, grid row y0 - 1 + j
      const std::uint64_t centre = next_bits(s.w[j + 1].centre, sums[j], sums[j + 1], sums[j + 2]);
      const std::uint32_t edge =
          next_bits(edges[j + 1], edge_sums[j], edge_sums[j + 1], edge_sums[j + 2]) & edge_mask;
      const Words row = s.dead_row(j) ? Words{0u, 0, 0u} : bits_with_edges(centre, edge);
      next[j] = row.centre;
      next_sums[j] = row_sum(lefts(row), row.centre, rights(row));
      if (j < 2) continue;
      const int o = j - 2;  // second generation, grid row y0 + o
      if (o < s.rows)
        out(s.y0 + o, s.k) =
            next_bits(next[o + 1], next_sums[o], next_sums[o + 1], next_sums[o + 2]);
    }
  }
};

// Eight cells per word through 64-bit loads, two generations stepped as bits in 12-cell
// windows (width % 8 == 0, width >= 8).
template <class InView, class OutView, int Rows = byte_window_rows>
struct StepByteWordsTwice {
  WordStrip<InView> strip;  // the grid as words: (height, width / 8)
  OutView out;

  KOKKOS_INLINE_FUNCTION static RowSumOf<std::uint32_t> window_sum(std::uint32_t window) {
    return row_sum<std::uint32_t>(window << 1, window, window >> 1);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    const TwoGenerationStrip<InView, Rows> s(strip, index);
    const std::uint32_t edge_mask =
        ~((s.columns.has_left ? 0u : window_left) | (s.columns.has_right ? 0u : window_right));
    std::uint32_t windows[Rows + 4], next[Rows + 2];
    RowSumOf<std::uint32_t> sums[Rows + 4], next_sums[Rows + 2];
    PORTASIM_UNROLL
    for (int i = 0; i < Rows + 4; ++i) {
      windows[i] = byte_window(s.w[i]);
      sums[i] = window_sum(windows[i]);
      if (i < 2) continue;
      const int j = i - 2;  // first generation, grid row y0 - 1 + j
      next[j] = s.dead_row(j)
                    ? 0u
                    : next_bits(windows[j + 1], sums[j], sums[j + 1], sums[j + 2]) & edge_mask;
      next_sums[j] = window_sum(next[j]);
      if (j < 2) continue;
      const int o = j - 2;  // second generation, grid row y0 + o
      if (o < s.rows) {
        const std::uint32_t cells =
            next_bits(next[o + 1], next_sums[o], next_sums[o + 1], next_sums[o + 2]) >> 2;
        out(s.y0 + o, s.k) = spread_bits_to_bytes(cells & 0xFFu);
      }
    }
  }
};

}  // namespace portasim::life::impl
