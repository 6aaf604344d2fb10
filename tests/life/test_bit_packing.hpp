// Packing byte grids into words and back, against a host loop, on aligned and unaligned
// byte rows (the kernels move eight cells as one word only where rows allow it).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "life/life_test_support.hpp"

namespace test_life_bit_packing {

namespace life = portasim::life;

// Bytes of every kind a caller may hand over: 0, 1 and other non-zero values.
inline std::uint8_t byte_at(std::int64_t y, std::int64_t x) {
  const std::uint8_t values[] = {0, 1, 0, 2, 0x80, 0, 0xff, 0x7f, 1, 0, 0, 0x40};
  const std::uint64_t h = static_cast<std::uint64_t>(y * 7919 + x * 104729) * 0x9e3779b97f4a7c15ull;
  return values[(h >> 40) % (sizeof(values) / sizeof(values[0]))];
}

// Packs rows x 128 cells held in a buffer whose rows start `offset` bytes in and are
// `pitch` bytes apart, unpacks them into the same kind of buffer, and checks both ways.
template <class Exec>
void packs_and_unpacks(std::int64_t rows, std::int64_t offset, std::int64_t pitch) {
  using memory = typename Exec::memory_space;
  using byte_view = Kokkos::View<std::uint8_t**, Kokkos::LayoutStride, memory,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::int64_t width = 128, words = width / 64;
  Exec exec;
  Kokkos::View<std::uint8_t*, memory> source("source", offset + rows * pitch),
      target("target", offset + rows * pitch);
  auto host_source = Kokkos::create_mirror_view(source);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < width; ++x) host_source(offset + y * pitch + x) = byte_at(y, x);
  Kokkos::deep_copy(source, host_source);
  const Kokkos::LayoutStride layout(rows, pitch, width, 1);
  const byte_view bytes_in(source.data() + offset, layout),
      bytes_out(target.data() + offset, layout);
  life::WordGrid<memory> packed("packed", rows, words);

  life::pack_bits(exec, bytes_in, packed);
  life::unpack_bits(exec, packed, bytes_out);
  exec.fence();

  auto host_packed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  auto host_target = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), target);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t k = 0; k < words; ++k) {
      std::uint64_t expected = 0;
      for (int j = 0; j < 64; ++j) expected |= std::uint64_t(byte_at(y, 64 * k + j) != 0) << j;
      ASSERT_EQ(host_packed(y, k), expected) << "row " << y << " word " << k;
    }
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < width; ++x)
      ASSERT_EQ(host_target(offset + y * pitch + x), byte_at(y, x) != 0 ? 1 : 0)
          << "row " << y << " column " << x << " (offset " << offset << ", pitch " << pitch << ")";
  // Bytes between the rows are not the grid's: nothing may be written there.
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = width; x < pitch; ++x)
      ASSERT_EQ(host_target(offset + y * pitch + x), 0) << "padding of row " << y;
}

TEST(TEST_CATEGORY, life_bit_packing_on_aligned_rows) {
  packs_and_unpacks<TEST_EXECSPACE>(5, 0, 128);
  packs_and_unpacks<TEST_EXECSPACE>(3, 8, 136);
}

TEST(TEST_CATEGORY, life_bit_packing_on_unaligned_rows) {
  packs_and_unpacks<TEST_EXECSPACE>(4, 3, 128);  // every row starts 3 bytes past a word
  packs_and_unpacks<TEST_EXECSPACE>(4, 0, 131);  // rows after the first are not aligned
}

}  // namespace test_life_bit_packing
