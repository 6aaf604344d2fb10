#pragma once
// Contiguous block partition of n items over ranks: the first n % size ranks take one more.

#include <cstdint>

namespace portasim::mpi {

struct Block {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const noexcept { return end - begin; }
};

inline Block block_of(std::int64_t n, int rank, int size) {
  const std::int64_t base = n / size, extra = n % size, r = rank;
  const std::int64_t begin = r * base + (r < extra ? r : extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

}  // namespace portasim::mpi
