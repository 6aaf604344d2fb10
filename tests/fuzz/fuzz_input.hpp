#pragma once
// Shared by the fuzz targets: reading structured values off the fuzzer's bytes (a small
// stand-in for clang's FuzzedDataProvider, so that the targets also build with GCC for the
// corpus replay tests), and the rule every target enforces: bad input may only ever end in
// portasim::Error; anything else (another exception, a crash, a sanitizer report) is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace portasim::fuzz {

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
  bool empty() const { return m_at >= m_size; }
  std::uint8_t byte() { return empty() ? 0 : m_data[m_at++]; }
  // A value in [low, high], from as few bytes as the range needs.
  std::int64_t in_range(std::int64_t low, std::int64_t high) {
    const std::uint64_t span = static_cast<std::uint64_t>(high - low);
    std::uint64_t value = 0;
    for (std::uint64_t covered = 0; covered < span && !empty(); covered = (covered << 8) | 0xFF)
      value = (value << 8) | byte();
    return low + static_cast<std::int64_t>(span == UINT64_MAX ? value : value % (span + 1));
  }
  double real() {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | byte();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  std::string rest() {
    std::string text(reinterpret_cast<const char*>(m_data + m_at), m_size - std::min(m_at, m_size));
    m_at = m_size;
    return text;
  }

 private:
  const std::uint8_t* m_data;
  std::size_t m_size;
  std::size_t m_at = 0;
};

// A scratch file per process (fuzzers may run in parallel), in TMPDIR or /tmp.
inline std::string scratch_path(const char* suffix) {
  const char* folder = std::getenv("TMPDIR");
  return std::string(folder && *folder ? folder : "/tmp") + "/portasim_fuzz_" +
         std::to_string(::getpid()) + suffix;
}

inline void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (size && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
}

// A broken invariant of an accepted input: a crash, so that the fuzzer keeps the input.
#define PORTASIM_FUZZ_CHECK(condition)                                                            \
  do {                                                                                            \
    if (!(condition)) {                                                                           \
      std::fprintf(stderr, "%s:%d: accepted input breaks: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)

}  // namespace portasim::fuzz
