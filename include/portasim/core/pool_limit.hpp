#pragma once
// How much a memory pool may hold: nothing (no limit), a number of bytes, or a fraction of
// the memory of its space (device memory for device pools, physical memory for host ones),
// like CuPy's set_limit(size=...) / set_limit(fraction=...) and CUPY_GPU_MEMORY_LIMIT.
// PORTASIM_POOL_LIMIT sets the limit of every pool built without an explicit one.

#include <cstddef>
#include <string>
#include <string_view>

namespace portasim {

class PoolLimit {
 public:
  // No limit.
  PoolLimit() = default;
  static PoolLimit none() { return {}; }
  static PoolLimit bytes(std::size_t count);
  // 0 < share <= 1 of the space's memory.
  static PoolLimit fraction(double share);

  // Strict parser of the environment variable's forms; anything else throws
  // Error(invalid_argument) naming `source` and the accepted forms:
  //   "none"                    no limit
  //   "1073741824"              bytes (a positive integer)
  //   "512KiB" "4GiB" "1.5TiB"  binary units KiB, MiB, GiB, TiB (also B)
  //   "500MB" "4GB"             decimal units kB/KB, MB, GB, TB
  //   "50%" "12.5%"             percent of the space's memory, in (0, 100]
  // Units are case-insensitive; no spaces, signs or exponents.
  static PoolLimit parse(std::string_view text, std::string_view source = "pool limit");

  bool unlimited() const noexcept { return m_kind == Kind::unlimited; }
  bool is_fraction() const noexcept { return m_kind == Kind::fraction; }
  // The limit in bytes for a space of `space_bytes` memory; SIZE_MAX when unlimited.
  std::size_t resolve(std::size_t space_bytes) const noexcept;
  // "none", "4 GiB" or "50 % of memory".
  std::string describe() const;

 private:
  enum class Kind { unlimited, bytes, fraction };
  Kind m_kind = Kind::unlimited;
  std::size_t m_bytes = 0;
  double m_fraction = 0;
};

inline constexpr const char* pool_limit_variable = "PORTASIM_POOL_LIMIT";

// The limit PORTASIM_POOL_LIMIT asks for (no limit when unset); throws on a bad value.
PoolLimit pool_limit_from_environment();

// "1.50 GiB" (binary units, three significant decimals at most); for messages.
std::string format_bytes(std::size_t bytes);

namespace impl {
// The message of an allocation a pool refused: what was asked, what is in use and held,
// the limit and where it came from, the space's free memory when known, and what to do.
std::string pool_exhausted_message(std::string_view pool, std::size_t requested, std::size_t used,
                                   std::size_t held, const PoolLimit& limit,
                                   std::size_t limit_bytes, bool limit_hit,
                                   std::size_t space_free_bytes);
}  // namespace impl

}  // namespace portasim
