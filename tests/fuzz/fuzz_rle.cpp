// libFuzzer target: Life RLE pattern text (portasim::life::parse_rle, behind --pattern).
#include <cstdint>

#include "fuzz_input.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/patterns.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace portasim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const life::HostGrid grid = life::parse_rle(text, "fuzz.rle");
    PORTASIM_FUZZ_CHECK(grid.width >= 0 && grid.height >= 0);
    PORTASIM_FUZZ_CHECK(grid.cells.size() == static_cast<std::size_t>(grid.width * grid.height));
    for (auto c : grid.cells) PORTASIM_FUZZ_CHECK(c <= 1);
    // Placing it in a grid of its own size at the origin must work and keep every cell.
    if (grid.width > 0 && grid.height > 0) {
      const life::HostGrid placed = life::place(grid, grid.height, grid.width, 0, 0);
      PORTASIM_FUZZ_CHECK(placed.cells == grid.cells);
    }
  } catch (const Error&) {
    // Refused with a message: what bad input must get.
  }
  return 0;
}
