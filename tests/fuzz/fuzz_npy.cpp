// libFuzzer target: NumPy .npy grid files (portasim::life::read_npy, behind --pattern X.npy,
// --initial X.npy and --resume of .npy chunk files).
#include <cstdint>
#include <unistd.h>

#include "fuzz_input.hpp"
#include "portasim/core/error.hpp"
#include "portasim/life/patterns.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace portasim;
  static const std::string path = fuzz::scratch_path(".npy");
  fuzz::write_file(path, data, size);
  try {
    const life::NpyHeader header = life::read_npy_header(path);
    PORTASIM_FUZZ_CHECK(header.data_offset >= 10);
    const life::HostGrid grid = life::read_npy(path);
    PORTASIM_FUZZ_CHECK(grid.width > 0 && grid.height > 0);
    PORTASIM_FUZZ_CHECK(grid.cells.size() == static_cast<std::size_t>(grid.width * grid.height));
    PORTASIM_FUZZ_CHECK(static_cast<std::size_t>(header.data_offset) + grid.cells.size() <= size);
    for (auto c : grid.cells) PORTASIM_FUZZ_CHECK(c <= 1);
  } catch (const Error&) {
  }
  ::unlink(path.c_str());
  return 0;
}
