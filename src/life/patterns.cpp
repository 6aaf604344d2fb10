#include "portasim/life/patterns.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#if defined(PORTASIM_ENABLE_HDF5)
#include "portasim/core/hdf5_file.hpp"
#endif

namespace portasim::life {

namespace {

[[noreturn]] void bad_file(const std::string& path, const std::string& problem) {
  throw_error(ErrorKind::invalid_argument, "'" + path + "': " + problem);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(bool(in), "cannot open '" + path + "' for reading", ErrorKind::io);
  std::ostringstream text;
  text << in.rdbuf();
  require(!in.bad(), "failed reading '" + path + "'", ErrorKind::io);
  return text.str();
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The value of `key` in the header dict, e.g. 'descr': '|u1' -> "'|u1'".
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const auto at = header.find("'" + key + "'");
  if (at == std::string::npos) bad_file(path, "npy header has no '" + key + "'");
  auto colon = header.find(':', at);
  if (colon == std::string::npos) bad_file(path, "malformed npy header");
  std::size_t start = colon + 1;
  while (start < header.size() && header[start] == ' ') ++start;
  std::size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) bad_file(path, "malformed npy shape");
    return header.substr(start, end - start + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

}  // namespace

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(bool(in), "cannot open '" + path + "' for reading", ErrorKind::io);
  char preamble[10];
  in.read(preamble, 10);
  if (in.gcount() < 10 || std::string(preamble, 6) != "\x93NUMPY")
    bad_file(path, "not a NumPy .npy file (bad magic)");
  const int major = static_cast<unsigned char>(preamble[6]);
  std::int64_t header_length = 0, offset = 0;
  if (major == 1) {
    header_length =
        static_cast<unsigned char>(preamble[8]) | (static_cast<unsigned char>(preamble[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    char more[2];
    in.read(more, 2);
    if (in.gcount() < 2) bad_file(path, "truncated npy header");
    header_length = static_cast<std::int64_t>(static_cast<unsigned char>(preamble[8])) |
                    (static_cast<std::int64_t>(static_cast<unsigned char>(preamble[9])) << 8) |
                    (static_cast<std::int64_t>(static_cast<unsigned char>(more[0])) << 16) |
                    (static_cast<std::int64_t>(static_cast<unsigned char>(more[1])) << 24);
    offset = 12;
  } else {
    bad_file(path, "unsupported npy version " + std::to_string(major));
  }
  if (header_length <= 0 || header_length > (1 << 20))
    bad_file(path, "implausible npy header length");
  std::string header(static_cast<std::size_t>(header_length), '\0');
  in.read(header.data(), header_length);
  if (in.gcount() < header_length) bad_file(path, "truncated npy header");

  const std::string descr = dict_value(header, "descr", path);
  if (descr != "'|u1'" && descr != "'<u1'" && descr != "'u1'" && descr != "'|b1'")
    bad_file(path, "npy dtype " + descr + " is not uint8 or bool");
  if (dict_value(header, "fortran_order", path) != "False")
    bad_file(path, "npy array is in Fortran order, expected C order");
  const std::string shape = dict_value(header, "shape", path);
  NpyHeader result;
  std::string number;
  for (char c : shape) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      number += c;
      // Larger extents than 2^40 are nonsense for a grid and would overflow products below.
      if (number.size() > 13)
        bad_file(path, "npy shape " + shape + " has an implausibly large extent");
    } else if (!number.empty()) {
      result.shape.push_back(std::stoll(number));
      number.clear();
      if (c != ')' && c != ',' && c != ' ') bad_file(path, "malformed npy shape " + shape);
    } else if (c != '(' && c != ')' && c != ',' && c != ' ') {
      bad_file(path, "malformed npy shape " + shape);
    }
  }
  result.data_offset = offset + header_length;
  return result;
}

HostGrid read_npy(const std::string& path) {
  const NpyHeader header = read_npy_header(path);
  if (header.shape.size() != 2 && header.shape.size() != 3)
    bad_file(path,
             "npy shape " + shape_text(header.shape) + " is not (H, W) or (generations, H, W)");
  for (auto extent : header.shape)
    if (extent <= 0)
      bad_file(path, "npy shape " + shape_text(header.shape) + " has an empty dimension");
  HostGrid grid;
  grid.height = header.shape[header.shape.size() - 2];
  grid.width = header.shape.back();
  const std::int64_t generations = header.shape.size() == 3 ? header.shape[0] : 1;
  const std::string bytes = read_all(path);
  // Each extent is below 2^44 (13 digits), so compare by division: products could overflow.
  const std::int64_t available = static_cast<std::int64_t>(bytes.size()) - header.data_offset;
  if (available < 0 || grid.height > available / grid.width ||
      generations > available / (grid.height * grid.width) ||
      available < generations * grid.height * grid.width)
    bad_file(path, "npy data is shorter than its shape " + shape_text(header.shape) + " says");
  const std::int64_t cells = grid.height * grid.width;
  if (static_cast<std::int64_t>(bytes.size()) < header.data_offset + generations * cells)
    bad_file(path, "npy data is shorter than its shape " + shape_text(header.shape) + " says");
  const char* last = bytes.data() + header.data_offset + (generations - 1) * cells;
  grid.cells.assign(last, last + cells);
  for (auto c : grid.cells)
    if (c > 1) bad_file(path, "npy grid has a value other than 0 or 1");
  return grid;
}

void write_npy(const std::string& path, const std::uint8_t* data,
               const std::vector<std::int64_t>& shape) {
  std::string header =
      "{'descr': '|u1', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // Pad so that magic (6) + version (2) + length (2) + header ends on a 64-byte boundary.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  require(file != nullptr, "cannot open '" + path + "' for writing: " + std::strerror(errno),
          ErrorKind::io);
  const unsigned char preamble[10] = {0x93,
                                      'N',
                                      'U',
                                      'M',
                                      'P',
                                      'Y',
                                      1,
                                      0,
                                      static_cast<unsigned char>(header.size() & 0xFF),
                                      static_cast<unsigned char>(header.size() >> 8)};
  errno = 0;
  bool ok = std::fwrite(preamble, 1, 10, file) == 10 &&
            std::fwrite(header.data(), 1, header.size(), file) == header.size() &&
            std::fwrite(data, 1, static_cast<std::size_t>(count), file) ==
                static_cast<std::size_t>(count) &&
            std::fflush(file) == 0;
  int error = ok ? 0 : errno;
  if (std::fclose(file) != 0 && ok) {  // buffered data that did not fit shows only here
    ok = false;
    error = errno;
  }
  require(ok, "cannot write '" + path + "': " + (error ? std::strerror(error) : "short write"),
          ErrorKind::io);
}

HostGrid parse_rle(const std::string& text, const std::string& source) {
  constexpr std::int64_t max_rle_cells = std::int64_t(1) << 28;
  std::istringstream in(text);
  std::string line;
  std::int64_t width = -1, height = -1;
  std::string body;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (width < 0) {
      // Header: x = W, y = H, rule = ...
      std::string compact;
      for (char c : line)
        if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
      auto value_of = [&](const std::string& key) -> std::string {
        const auto at = compact.find(key + "=");
        if (at == std::string::npos) return {};
        const auto end = compact.find(',', at);
        return compact.substr(at + key.size() + 1, end == std::string::npos
                                                       ? std::string::npos
                                                       : end - at - key.size() - 1);
      };
      const std::string x = value_of("x"), y = value_of("y");
      if (x.empty() || y.empty() || compact.rfind("x=", 0) != 0)
        bad_file(source, "RLE header line 'x = W, y = H' missing (got '" + line + "')");
      try {
        std::size_t used_x = 0, used_y = 0;
        width = std::stoll(x, &used_x);
        height = std::stoll(y, &used_y);
        if (used_x != x.size() || used_y != y.size())
          throw std::invalid_argument("trailing characters");
      } catch (const std::exception&) {
        bad_file(source, "RLE header has a non-numeric size: '" + line + "'");
      }
      if (width < 0 || height < 0) bad_file(source, "RLE size must not be negative");
      // Pattern collections hold patterns of at most a few thousand cells a side; a larger
      // size is a typo or a hostile file, and must not turn into a huge allocation (found by
      // fuzzing: "x = 100000000, y = 20" allocated a byte per cell before anything was checked).
      if (width > max_rle_cells || height > max_rle_cells ||
          (width > 0 && height > max_rle_cells / width))
        bad_file(source,
                 "RLE size " + std::to_string(width) + " x " + std::to_string(height) +
                     " is too large (at most 2^28 cells; use a .npy or HDF5 grid for larger ones)");
      std::string rule = value_of("rule");
      for (auto& c : rule) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (!rule.empty() && rule != "B3/S23" && rule != "23/3")
        bad_file(source, "RLE rule '" + value_of("rule") + "' is not B3/S23 (Conway's Life)");
      continue;
    }
    body += line.substr(first);
  }
  if (width < 0) bad_file(source, "RLE header line 'x = W, y = H' missing");
  HostGrid grid;
  grid.width = width;
  grid.height = height;
  grid.cells.assign(static_cast<std::size_t>(width * height), 0);
  std::int64_t y = 0, x = 0, run = 0;
  bool ended = false;
  for (char c : body) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      run = run * 10 + (c - '0');
      if (run > (std::int64_t(1) << 40)) bad_file(source, "RLE run length too large");
      continue;
    }
    const std::int64_t count = run > 0 ? run : 1;
    run = 0;
    if (c == '!') {
      ended = true;
      break;
    } else if (c == '$') {
      y = std::min(y + count, height);  // rows past the end matter only if a cell follows
      x = 0;
    } else if (c == 'b' || c == 'o') {
      if (x + count > width || y >= height)
        bad_file(source, "RLE pattern runs outside its declared size " + std::to_string(width) +
                             " x " + std::to_string(height));
      if (c == 'o')
        std::fill_n(grid.cells.begin() + static_cast<std::ptrdiff_t>(y * width + x), count,
                    std::uint8_t{1});
      x += count;
    } else {
      bad_file(source, std::string("RLE has an unknown cell tag '") + c +
                           "' (only b, o, $ and ! are Life)");
    }
  }
  if (!ended) bad_file(source, "RLE pattern is not terminated by '!'");
  return grid;
}

HostGrid read_rle(const std::string& path) { return parse_rle(read_all(path), path); }

HostGrid read_grid_h5(const std::string& path, const std::string& dataset) {
#if defined(PORTASIM_ENABLE_HDF5)
  const io::H5File file = io::H5File::open_read(path);
  std::vector<std::size_t> shape = file.shape(dataset);
  if (shape.size() != 2 && shape.size() != 3)
    bad_file(path, "dataset '" + dataset + "' is not 2-D (H, W) or 3-D (generations, H, W)");
  if (file.has_attribute(dataset, "packed") &&
      file.read_attribute<std::int64_t>(dataset, "packed") != 0)
    bad_file(path, "dataset '" + dataset +
                       "' is bit-packed; unpack it (numpy.unpackbits, bitorder='little') first");
  const auto values = file.read<std::uint8_t>(dataset, &shape);
  HostGrid grid;
  grid.height = static_cast<std::int64_t>(shape[shape.size() - 2]);
  grid.width = static_cast<std::int64_t>(shape.back());
  if (grid.height <= 0 || grid.width <= 0 || (shape.size() == 3 && shape[0] == 0))
    bad_file(path, "dataset '" + dataset + "' is empty");
  const std::size_t cells = static_cast<std::size_t>(grid.height * grid.width);
  grid.cells.assign(values.end() - static_cast<std::ptrdiff_t>(cells), values.end());
  for (auto c : grid.cells)
    if (c > 1) bad_file(path, "dataset '" + dataset + "' has a value other than 0 or 1");
  return grid;
#else
  (void)dataset;
  bad_file(path, "this portasim was built without HDF5");
#endif
}

HostGrid place(const HostGrid& pattern, std::int64_t height, std::int64_t width, std::int64_t y,
               std::int64_t x) {
  // Written so that no sum can overflow: offsets come straight from the command line.
  require(y >= 0 && x >= 0 && pattern.height <= height && pattern.width <= width &&
              y <= height - pattern.height && x <= width - pattern.width,
          "pattern of " + std::to_string(pattern.height) + " x " + std::to_string(pattern.width) +
              " at offset " + std::to_string(y) + "," + std::to_string(x) + " does not fit the " +
              std::to_string(height) + " x " + std::to_string(width) + " grid");
  HostGrid grid;
  grid.height = height;
  grid.width = width;
  grid.cells.assign(static_cast<std::size_t>(height * width), 0);
  // Row copies: a pattern may have 2^28 cells, and a per-cell loop over them is too slow
  // under the fuzzers' sanitizers (libFuzzer's per-input timeout).
  for (std::int64_t r = 0; r < pattern.height; ++r) {
    const auto row = pattern.cells.begin() + static_cast<std::ptrdiff_t>(r * pattern.width);
    std::copy(row, row + static_cast<std::ptrdiff_t>(pattern.width),
              grid.cells.begin() + static_cast<std::ptrdiff_t>((y + r) * width + x));
  }
  return grid;
}

}  // namespace portasim::life
