#pragma once
// Conway's B3/S23 rule in the three forms the engines use: one cell, eight cells in the
// bytes of a 64-bit word (SWAR), and 64 cells as the bits of a word (bit-sliced adders).
// Shared by every backend and by the tests.

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace portasim::life {

// A cell is born with exactly 3 live neighbours and survives with 2 or 3.
KOKKOS_INLINE_FUNCTION std::uint8_t next_cell(std::uint8_t alive, int neighbours) {
  return static_cast<std::uint8_t>(neighbours == 3 || (alive && neighbours == 2));
}

namespace impl {

KOKKOS_INLINE_FUNCTION constexpr std::uint64_t bytes_of(std::uint8_t b) {
  return 0x0101010101010101ull * b;
}

// 0x01 in each byte of x that equals `value` (bytes hold 0..8), 0x00 elsewhere; exact, no
// borrow crosses a byte.
KOKKOS_INLINE_FUNCTION std::uint64_t bytes_equal(std::uint64_t x, std::uint8_t value) {
  const std::uint64_t t = x ^ bytes_of(value);
  const std::uint64_t low7 = bytes_of(0x7F);
  const std::uint64_t zero_high = ~(((t & low7) + low7) | t | low7);
  return zero_high >> 7;
}

}  // namespace impl

// Eight cells at once: `alive` and `neighbours` hold one cell per byte (0/1 and 0..8).
KOKKOS_INLINE_FUNCTION std::uint64_t next_bytes(std::uint64_t alive, std::uint64_t neighbours) {
  return impl::bytes_equal(neighbours, 3) | (alive & impl::bytes_equal(neighbours, 2));
}

// 64 cells at once, bit-sliced. Each row of the 3 x 3 block around a cell is summed once,
// as the count of (left, centre, right) in two bitboards, and every output row adds three
// such row sums. The block's total counts the cell itself, so the rule reads: live next when
// the total is 3, or when it is 4 and the cell is live. The word type is the engines' 64-bit
// word, or a 32-bit one where a word holds only a few cells (the edge words and byte windows of
// the two-generation passes).
template <class Word>
struct RowSumOf {
  Word ones, twos;  // per bit: count = ones + 2 twos (0..3)
};
using RowSum = RowSumOf<std::uint64_t>;

template <class Word>
KOKKOS_INLINE_FUNCTION RowSumOf<Word> row_sum(Word left, Word centre, Word right) {
  const Word left_centre = left ^ centre;
  return {static_cast<Word>(left_centre ^ right),
          static_cast<Word>((left & centre) | (left_centre & right))};
}

template <class Word>
KOKKOS_INLINE_FUNCTION Word next_bits(Word alive, const RowSumOf<Word>& above,
                                      const RowSumOf<Word>& here, const RowSumOf<Word>& below) {
  // total = ones + 2 T, with T = x + carry + 2 y the count of the weight-2 bits.
  const Word ones_ab = above.ones ^ below.ones;
  const Word ones = ones_ab ^ here.ones;
  const Word carry = (above.ones & below.ones) | (ones_ab & here.ones);
  const Word twos_ab = above.twos ^ below.twos;
  const Word x = twos_ab ^ here.twos;
  const Word y = (above.twos & below.twos) | (twos_ab & here.twos);
  const Word one_of = x ^ carry;
  // total 3: ones set and T == 1 (one of x and carry, no y); total 4: ones clear and
  // T == 2 (x == carry, and y set exactly when they are 0).
  const Word three = ones & one_of & ~y;
  const Word four = ~ones & ~one_of & (x ^ y);
  return three | (alive & four);
}

// Portable population count (no intrinsics, so one code path on every backend).
KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

}  // namespace portasim::life
