#pragma once
// Index arithmetic shared by the Life kernels that run over flat ranges of a grid.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace portasim::life::impl {

// i modulo n for i in [-n, 2n): one period off at most.
KOKKOS_INLINE_FUNCTION std::int64_t wrap(std::int64_t i, std::int64_t n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

// i modulo n for any i: a row two generations away on a torus of one row lies two periods off.
KOKKOS_INLINE_FUNCTION std::int64_t wrap_any(std::int64_t i, std::int64_t n) {
  i %= n;
  return i < 0 ? i + n : i;
}

// (row, column) of a flat index; 32-bit division when it fits, which GPUs do several times
// faster than 64-bit division.
KOKKOS_INLINE_FUNCTION void split_index(std::int64_t index, std::int64_t columns, std::int64_t& row,
                                        std::int64_t& column) {
  if (index < (std::int64_t(1) << 32) && columns < (std::int64_t(1) << 32)) {
    const std::uint32_t r = static_cast<std::uint32_t>(index) / static_cast<std::uint32_t>(columns);
    row = r;
    column = index - static_cast<std::int64_t>(r) * columns;
  } else {
    row = index / columns;
    column = index % columns;
  }
}

}  // namespace portasim::life::impl
