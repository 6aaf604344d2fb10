#pragma once
// Initial grids on the host: NumPy .npy files (uint8 or bool, 2-D, or 3-D with the last
// generation taken), HDF5 datasets, and Life RLE pattern files, the standard format of
// pattern collections. Every reader validates fully and throws portasim::Error naming the
// file and the problem.

#include <cstdint>
#include <string>
#include <vector>

namespace portasim::life {

struct HostGrid {
  std::int64_t height = 0;
  std::int64_t width = 0;
  std::vector<std::uint8_t> cells;  // row-major, 0/1

  std::uint8_t at(std::int64_t y, std::int64_t x) const {
    return cells[static_cast<std::size_t>(y * width + x)];
  }
};

// .npy: header check (magic, version 1.0-3.0, '|u1'/'<u1'/'|b1', C order), shape (H, W) or
// (G, H, W) (then the last generation), values 0/1.
HostGrid read_npy(const std::string& path);
// Writes uint8 data of the given shape (C order) as .npy version 1.0.
void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::int64_t>& shape);
// Shape and data offset of an .npy file, for readers that want only part of it.
struct NpyHeader {
  std::vector<std::int64_t> shape;
  std::int64_t data_offset = 0;
};
NpyHeader read_npy_header(const std::string& path);

// RLE: '#' lines, then "x = W, y = H[, rule = B3/S23]", then runs of b (dead), o (alive),
// $ (end of row), terminated by '!'. Other rules are refused.
HostGrid read_rle(const std::string& path);
HostGrid parse_rle(const std::string& text, const std::string& source = "RLE text");

// HDF5: a 2-D uint8 dataset, or the last generation of a 3-D one (default "/generations").
HostGrid read_grid_h5(const std::string& path, const std::string& dataset = "/generations");

// Places `pattern` into an empty height x width grid with its top-left corner at (y, x);
// throws if it does not fit.
HostGrid place(const HostGrid& pattern, std::int64_t height, std::int64_t width, std::int64_t y,
               std::int64_t x);

}  // namespace portasim::life
