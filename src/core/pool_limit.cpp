#include "portasim/core/pool_limit.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "portasim/core/error.hpp"

namespace portasim {

PoolLimit PoolLimit::bytes(std::size_t count) {
  require(count > 0, "a pool limit of 0 bytes allows nothing; use PoolLimit::none() for no limit");
  PoolLimit limit;
  limit.m_kind = Kind::bytes;
  limit.m_bytes = count;
  return limit;
}

PoolLimit PoolLimit::fraction(double share) {
  require(std::isfinite(share) && share > 0 && share <= 1,
          "a pool limit fraction must be in (0, 1], got " + std::to_string(share));
  PoolLimit limit;
  limit.m_kind = Kind::fraction;
  limit.m_fraction = share;
  return limit;
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

PoolLimit PoolLimit::parse(std::string_view text, std::string_view source) {
  auto fail = [&](const std::string& why) -> PoolLimit {
    throw_error(ErrorKind::invalid_argument,
                std::string(source) + " '" + std::string(text) + "' is not a valid limit (" + why +
                    "); use 'none', a byte count such as 1073741824, a size with a unit such as "
                    "512MiB, 4GiB or 500MB, or a percentage of the memory such as 50%");
  };
  if (text.empty()) return fail("empty");
  if (lower(text) == "none") return none();

  // Number: digits, optionally one '.' followed by digits.
  std::size_t pos = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  const std::size_t integer_digits = pos;
  std::size_t fraction_digits = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      ++pos;
      ++fraction_digits;
    }
    if (fraction_digits == 0) return fail("a '.' must be followed by digits");
  }
  if (integer_digits == 0) return fail("it must start with a digit");
  if (integer_digits > 20) return fail("the number is too large");
  const std::string number(text.substr(0, pos));
  const std::string unit = lower(text.substr(pos));
  const double value = std::strtod(number.c_str(), nullptr);

  if (unit == "%") {
    if (!(value > 0 && value <= 100)) return fail("a percentage must be in (0, 100]");
    return fraction(value / 100.0);
  }
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "kib") scale = 1024.0;
  else if (unit == "mib") scale = 1024.0 * 1024.0;
  else if (unit == "gib") scale = 1024.0 * 1024.0 * 1024.0;
  else if (unit == "tib") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  else return fail("unknown unit '" + std::string(text.substr(pos)) + "'");

  if (scale == 1) {
    if (fraction_digits > 0) return fail("a byte count must be a whole number");
    errno = 0;
    const unsigned long long count = std::strtoull(number.c_str(), nullptr, 10);
    if (errno == ERANGE || count > std::numeric_limits<std::size_t>::max())
      return fail("the number is too large");
    if (count == 0) return fail("a limit of 0 bytes allows nothing; use 'none' for no limit");
    return bytes(static_cast<std::size_t>(count));
  }
  const double total = std::floor(value * scale);
  if (!(total >= 1)) return fail("the limit is below one byte");
  if (total >= 1.8e19) return fail("the number is too large");
  return bytes(static_cast<std::size_t>(total));
}

std::size_t PoolLimit::resolve(std::size_t space_bytes) const noexcept {
  switch (m_kind) {
    case Kind::unlimited: return std::numeric_limits<std::size_t>::max();
    case Kind::bytes: return m_bytes;
    case Kind::fraction:
      return static_cast<std::size_t>(std::floor(m_fraction * static_cast<double>(space_bytes)));
  }
  return std::numeric_limits<std::size_t>::max();
}

std::string PoolLimit::describe() const {
  switch (m_kind) {
    case Kind::unlimited: return "none";
    case Kind::bytes: return format_bytes(m_bytes);
    case Kind::fraction: {
      std::ostringstream out;
      out << m_fraction * 100 << " % of memory";
      return out.str();
    }
  }
  return "none";
}

PoolLimit pool_limit_from_environment() {
  const char* value = std::getenv(pool_limit_variable);
  if (value == nullptr) return PoolLimit::none();
  return PoolLimit::parse(value, pool_limit_variable);
}

std::string format_bytes(std::size_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  std::ostringstream out;
  if (unit == 0) out << bytes << " B";
  else {
    out.precision(value < 10 ? 3 : value < 100 ? 4 : 5);
    out << value << " " << units[unit];
  }
  return out.str();
}

namespace impl {

std::string pool_exhausted_message(std::string_view pool, std::size_t requested, std::size_t used,
                                   std::size_t held, const PoolLimit& limit,
                                   std::size_t limit_bytes, bool limit_hit,
                                   std::size_t space_free_bytes) {
  std::ostringstream out;
  out << pool << ": cannot allocate " << format_bytes(requested) << " (" << requested
      << " bytes): " << format_bytes(used) << " in use, " << format_bytes(held) << " held";
  if (!limit.unlimited())
    out << ", limit " << format_bytes(limit_bytes) << " (" << limit.describe() << ")";
  if (limit_hit) out << "; the request exceeds the pool limit";
  else out << "; the memory space is exhausted";
  if (space_free_bytes > 0) out << " (" << format_bytes(space_free_bytes) << " free in the space)";
  out << ". Allocate in smaller chunks, release blocks you no longer need (free_all_blocks() "
         "returns cached ones)";
  if (limit_hit) out << ", or raise the limit (" << pool_limit_variable << ", e.g. 8GiB or 75%)";
  out << ".";
  return out.str();
}

}  // namespace impl

}  // namespace portasim
