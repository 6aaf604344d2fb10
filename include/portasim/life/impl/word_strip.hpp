#pragma once
// The words a thread of the word engines reads: a strip of rows of one word column, with the
// halves of the words on each side that hold its neighbours, for the byte engine's eight
// cells per word and the bit engine's 64.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/life/impl/grid_index.hpp"

namespace portasim::life::impl {

// One row around word column k: its own word, and of the words beside it only the halves
// that hold its neighbours, the upper half of the word to its left (columns next to the
// word's first cell) and the lower half of the word to its right. A thread holds all of its
// strip's rows at once, so every register a row does not need counts.
struct Words {
  std::uint32_t left_high;
  std::uint64_t centre;
  std::uint32_t right_low;
};

// The neighbours of a word's cells within its row.
// Bits (bit i is column 64 k + i): the cells at x - 1 of the word's 64 x, and at x + 1.
KOKKOS_INLINE_FUNCTION std::uint64_t lefts(const Words& w) {
  return (w.centre << 1) | (w.left_high >> 31);
}
KOKKOS_INLINE_FUNCTION std::uint64_t rights(const Words& w) {
  return (w.centre >> 1) | (std::uint64_t(w.right_low) << 63);
}
// Bytes: the sum of a cell and its two horizontal neighbours, per byte (little-endian: byte j
// is column 8k + j, so the left neighbour of byte 0 is the top byte of the word before).
KOKKOS_INLINE_FUNCTION std::uint64_t byte_row_sum(const Words& w) {
  return ((w.centre << 8) | (w.left_high >> 24)) + w.centre +
         ((w.centre >> 8) | (std::uint64_t(w.right_low) << 56));
}

// Rows per thread in the word engines. A thread loads its strip's rows of one word column
// and the words beside them first, so that it has many loads in flight, resolves the
// neighbour columns once, and forms each row's sum once for the three output rows that read
// it. docs/design/life-pipeline.md says why 8.
constexpr int strip_rows = 8;

// The strip of `index` (its first row y0 and word column k) in strips of Rows rows, and its
// number of rows.
template <int Rows = strip_rows>
KOKKOS_INLINE_FUNCTION int strip_of(std::int64_t index, std::int64_t words, std::int64_t first_row,
                                    std::int64_t last_row, std::int64_t& y0, std::int64_t& k) {
  std::int64_t strip;
  split_index(index, words, strip, k);
  y0 = first_row + strip * Rows;
  return static_cast<int>(y0 + Rows < last_row ? Rows : last_row - y0);
}

// Rows of `in` (height x words) around column k, wrapped on a torus, read as 0 beyond a
// dead border.
template <class InView>
struct WordStrip {
  InView in;
  std::int64_t height, words;
  bool torus;

  // The columns beside k, resolved once per thread.
  struct Columns {
    std::int64_t k, left, right;
    bool has_left, has_right;
  };

  KOKKOS_INLINE_FUNCTION Columns columns(std::int64_t k) const {
    const std::int64_t left = torus ? wrap(k - 1, words) : k - 1;
    const std::int64_t right = torus ? wrap(k + 1, words) : k + 1;
    return {k, left, right, left >= 0, right < words};
  }

  // Row y, which lies in the grid. Only the halves beside the word are kept of its neighbours
  // (compilers load just those halves).
  KOKKOS_INLINE_FUNCTION Words load_inside(std::int64_t y, const Columns& c) const {
    return {c.has_left ? static_cast<std::uint32_t>(in(y, c.left) >> 32) : 0u, in(y, c.k),
            c.has_right ? static_cast<std::uint32_t>(in(y, c.right)) : 0u};
  }
  // Row y of the grid or beyond it.
  KOKKOS_INLINE_FUNCTION Words load(std::int64_t y, const Columns& c) const {
    if (torus) y = wrap_any(y, height);
    else if (y < 0 || y >= height) return {0, 0, 0};
    return load_inside(y, c);
  }

  // Rows y0 - Halo .. y0 + rows - 1 + Halo (rows <= Rows) into w; the rest of w is 0. Every
  // load comes before any arithmetic on them, so that all are in flight at once (each row's
  // load sits behind a branch, which the compiler does not move later loads across). Nearly
  // every strip is whole and has all of its rows inside the grid: it reads them without the
  // per-row wrap and bounds checks.
  template <int Rows, int Halo = 1>
  KOKKOS_INLINE_FUNCTION void load_rows(Words (&w)[Rows + 2 * Halo], std::int64_t y0, int rows,
                                        const Columns& c) const {
    if (rows == Rows && y0 >= Halo && y0 + Rows + Halo <= height) {
      PORTASIM_UNROLL
      for (int i = 0; i < Rows + 2 * Halo; ++i) w[i] = load_inside(y0 - Halo + i, c);
    } else {
      PORTASIM_UNROLL
      for (int i = 0; i < Rows + 2 * Halo; ++i)
        w[i] = i < rows + 2 * Halo ? load(y0 - Halo + i, c) : Words{0, 0, 0};
    }
  }
};

}  // namespace portasim::life::impl
