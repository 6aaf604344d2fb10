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

// 64 cells at once: the eight neighbour bitboards are summed with full and half adders into
// ones, twos and a "four or more" flag, then the rule is one bitwise expression.
KOKKOS_INLINE_FUNCTION std::uint64_t next_bits(std::uint64_t alive, std::uint64_t up_left,
                                               std::uint64_t up, std::uint64_t up_right,
                                               std::uint64_t left, std::uint64_t right,
                                               std::uint64_t down_left, std::uint64_t down,
                                               std::uint64_t down_right) {
  auto full_add = [](std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t& sum,
                     std::uint64_t& carry) {
    const std::uint64_t ab = a ^ b;
    sum = ab ^ c;
    carry = (a & b) | (ab & c);
  };
  std::uint64_t top_ones, top_twos, bottom_ones, bottom_twos;
  full_add(up_left, up, up_right, top_ones, top_twos);
  full_add(down_left, down, down_right, bottom_ones, bottom_twos);
  const std::uint64_t side_ones = left ^ right, side_twos = left & right;
  std::uint64_t ones, twos_carry;
  full_add(top_ones, bottom_ones, side_ones, ones, twos_carry);
  std::uint64_t twos_partial, fours_a;
  full_add(top_twos, bottom_twos, side_twos, twos_partial, fours_a);
  const std::uint64_t twos = twos_partial ^ twos_carry;
  const std::uint64_t fours_b = twos_partial & twos_carry;
  const std::uint64_t four_or_more = fours_a | fours_b;
  return ~four_or_more & twos & (ones | alive);
}

// Portable population count (no intrinsics, so one code path on every backend).
KOKKOS_INLINE_FUNCTION int popcount64(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

}  // namespace portasim::life
