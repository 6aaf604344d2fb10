#pragma once
// The words a thread of the word engines reads: a strip of rows of one word column, with
// the word on each side, for the byte engine's eight cells per word and the bit engine's 64.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/compat.hpp"
#include "portasim/life/impl/grid_index.hpp"

namespace portasim::life::impl {

// One row's words around column k: the word to its left, its own and the one to its right.
struct Words {
  std::uint64_t left, centre, right;
};

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

  // Row y, which lies in the grid.
  KOKKOS_INLINE_FUNCTION Words load_inside(std::int64_t y, const Columns& c) const {
    return {c.has_left ? in(y, c.left) : std::uint64_t(0), in(y, c.k),
            c.has_right ? in(y, c.right) : std::uint64_t(0)};
  }
  // Row y of the grid or beyond it.
  KOKKOS_INLINE_FUNCTION Words load(std::int64_t y, const Columns& c) const {
    if (torus) y = wrap(y, height);
    else if (y < 0 || y >= height) return {0, 0, 0};
    return load_inside(y, c);
  }

  // Rows y0 - 1 .. y0 + rows (rows <= Rows) into w; the rest of w is 0. Every load comes
  // before any arithmetic on them, so that all are in flight at once (each row's load sits
  // behind a branch, which the compiler does not move later loads across). Nearly every
  // strip is whole and has all of its rows inside the grid: it reads them without the
  // per-row wrap and bounds checks.
  template <int Rows>
  KOKKOS_INLINE_FUNCTION void load_rows(Words (&w)[Rows + 2], std::int64_t y0, int rows,
                                        const Columns& c) const {
    if (rows == Rows && y0 >= 1 && y0 + Rows < height) {
      PORTASIM_UNROLL
      for (int i = 0; i < Rows + 2; ++i) w[i] = load_inside(y0 - 1 + i, c);
    } else {
      PORTASIM_UNROLL
      for (int i = 0; i < Rows + 2; ++i) w[i] = i < rows + 2 ? load(y0 - 1 + i, c) : Words{0, 0, 0};
    }
  }
};

}  // namespace portasim::life::impl
