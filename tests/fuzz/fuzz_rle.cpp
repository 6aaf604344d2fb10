// libFuzzer target: Life RLE pattern text (portasim::life::parse_rle, behind --pattern).
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_input.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/patterns.hpp"

namespace {
// Eight cells per step: a header may declare 2^28 cells, and a per-cell loop under the
// fuzzer's instrumentation alone took seconds for that (libFuzzer's timeout is 10 s).
bool only_zeros_and_ones(const std::vector<std::uint8_t>& cells) {
  std::size_t i = 0;
  for (; i + 8 <= cells.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, cells.data() + i, sizeof word);
    if (word & 0xFEFEFEFEFEFEFEFEull) return false;
  }
  for (; i < cells.size(); ++i)
    if (cells[i] > 1) return false;
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace portasim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const life::HostGrid grid = life::parse_rle(text, "fuzz.rle");
    PORTASIM_FUZZ_CHECK(grid.width >= 0 && grid.height >= 0);
    PORTASIM_FUZZ_CHECK(grid.cells.size() == static_cast<std::size_t>(grid.width * grid.height));
    PORTASIM_FUZZ_CHECK(only_zeros_and_ones(grid.cells));
    // Placing it in a grid of its own size at the origin must work and keep every cell. Up to
    // 2^22 cells: beyond, the copy and the comparison only slow the fuzzer down (patterns of
    // up to 2^28 cells ran at a few inputs per second), and placing is row copies anyway.
    if (grid.width > 0 && grid.height > 0 && grid.width * grid.height <= (std::int64_t(1) << 22)) {
      const life::HostGrid placed = life::place(grid, grid.height, grid.width, 0, 0);
      PORTASIM_FUZZ_CHECK(placed.cells == grid.cells);
    }
  } catch (const Error&) {
    // Refused with a message: what bad input must get.
  }
  return 0;
}
