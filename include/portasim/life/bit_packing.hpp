#pragma once
// Byte grid (height, width) <-> word grid (height, width / 64), width % 64 == 0: cell
// 64k + j of a row is bit j of word k, and a byte counts as live when it is not 0.
//
// Both kernels run over flat ranges whose fastest index walks along a row, so the threads
// of a warp touch consecutive memory on every backend (a two-dimensional MDRangePolicy
// puts its first index, the row, on a GPU's fastest thread index). A thread handles eight
// cells as one 64-bit word of bytes where the byte rows are 8-byte aligned, and byte by
// byte where they are not.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/life/grid.hpp"
#include "portasim/life/impl/grid_index.hpp"

namespace portasim::life {

namespace impl {

// Eight cells move as one 64-bit word with cell i in byte i: memory order on a
// little-endian machine, which every supported host and GPU is.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bit packing assumes little-endian words");

// Eight cells as eight bytes, cell i in byte i (memory order on a little-endian machine)
// <-> bit i of a byte.
//
// Spreading: the byte copied into every byte position, byte i keeps its bit i, and adding
// 0x7f per byte (no carry: a byte holds at most 0x80) moves "not zero" to the byte's top bit.
KOKKOS_INLINE_FUNCTION std::uint64_t spread_bits_to_bytes(std::uint64_t eight_bits) {
  const std::uint64_t one_bit_per_byte =
      (eight_bits * 0x0101010101010101ull) & 0x8040201008040201ull;
  return ((one_bit_per_byte + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
}

// Gathering: byte i's top bit says "not zero" (its low seven bits plus 0x7f carry into the
// top bit, never past it), and the multiply lands bit 0 of byte i at bit 56 + i with no
// two partial products on the same bit.
KOKKOS_INLINE_FUNCTION std::uint64_t gather_bytes_to_bits(std::uint64_t eight_bytes) {
  const std::uint64_t live =
      ((((eight_bytes & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | eight_bytes) >> 7) &
      0x0101010101010101ull;
  return (live * 0x0102040810204080ull) >> 56;
}

// True when every row of `bytes` starts on an 8-byte boundary and holds its cells
// contiguously, so eight cells can move as one 64-bit access.
template <class ByteView>
bool rows_hold_aligned_words(const ByteView& bytes) {
  static_assert(sizeof(typename ByteView::value_type) == 1, "a byte grid holds one byte per cell");
  return reinterpret_cast<std::uintptr_t>(bytes.data()) % sizeof(std::uint64_t) == 0 &&
         (bytes.extent(0) < 2 || bytes.stride(0) % sizeof(std::uint64_t) == 0) &&
         (bytes.extent(1) < 2 || bytes.stride(1) == 1);
}

template <class ByteView, class WordView>
struct PackBits {
  ByteView bytes;
  WordView words;
  std::int64_t words_per_row;
  bool aligned;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t y, k;
    split_index(index, words_per_row, y, k);
    std::uint64_t word = 0;
    for (int part = 0; part < 8; ++part) {
      const std::int64_t x = 64 * k + 8 * part;
      std::uint64_t eight = 0;
      if (aligned) {
        eight = *reinterpret_cast<const std::uint64_t*>(&bytes(y, x));
      } else {
        for (int i = 0; i < 8; ++i) eight |= std::uint64_t(bytes(y, x + i)) << (8 * i);
      }
      word |= gather_bytes_to_bits(eight) << (8 * part);
    }
    words(y, k) = word;
  }
};

template <class WordView, class ByteView>
struct UnpackBits {
  WordView words;
  ByteView bytes;
  std::int64_t groups_per_row;  // groups of eight cells
  bool aligned;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t y, group;
    split_index(index, groups_per_row, y, group);
    const std::uint64_t eight_bits = (words(y, group / 8) >> (8 * (group % 8))) & 0xffu;
    const std::uint64_t eight = spread_bits_to_bytes(eight_bits);
    const std::int64_t x = 8 * group;
    if (aligned) {
      *reinterpret_cast<std::uint64_t*>(&bytes(y, x)) = eight;
    } else {
      for (int i = 0; i < 8; ++i) bytes(y, x + i) = static_cast<std::uint8_t>(eight >> (8 * i));
    }
  }
};

template <class ByteView, class WordView>
void require_packing_shapes(const ByteView& bytes, const WordView& words, const char* what) {
  require(bytes.extent(0) == words.extent(0) && bytes.extent(1) == 64 * words.extent(1),
          std::string(what) + ": a " + std::to_string(bytes.extent(0)) + " x " +
              std::to_string(bytes.extent(1)) + " byte grid needs " +
              std::to_string(bytes.extent(0)) + " x " + std::to_string(bytes.extent(1) / 64) +
              " words and a width that is a multiple of 64, got " +
              std::to_string(words.extent(0)) + " x " + std::to_string(words.extent(1)));
}

}  // namespace impl

template <class ExecutionSpace, class ByteView, class WordView>
void pack_bits(const ExecutionSpace& exec, const ByteView& bytes, const WordView& words) {
  impl::require_packing_shapes(bytes, words, "life::pack_bits");
  const std::int64_t words_per_row = static_cast<std::int64_t>(words.extent(1));
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("portasim::life::pack_bits",
                       policy(exec, 0, static_cast<std::int64_t>(words.extent(0)) * words_per_row),
                       impl::PackBits<ByteView, WordView>{bytes, words, words_per_row,
                                                          impl::rows_hold_aligned_words(bytes)});
}

template <class ExecutionSpace, class WordView, class ByteView>
void unpack_bits(const ExecutionSpace& exec, const WordView& words, const ByteView& bytes) {
  impl::require_packing_shapes(bytes, words, "life::unpack_bits");
  const std::int64_t groups_per_row = static_cast<std::int64_t>(bytes.extent(1)) / 8;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("portasim::life::unpack_bits",
                       policy(exec, 0, static_cast<std::int64_t>(bytes.extent(0)) * groups_per_row),
                       impl::UnpackBits<WordView, ByteView>{words, bytes, groups_per_row,
                                                            impl::rows_hold_aligned_words(bytes)});
}

}  // namespace portasim::life
