#include "portasim/core/error.hpp"

#include <cmath>
#include <sstream>

namespace portasim {

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid argument";
    case ErrorKind::io: return "I/O error";
    case ErrorKind::out_of_memory: return "out of memory";
    case ErrorKind::backend: return "backend error";
    case ErrorKind::internal: return "internal error";
  }
  return "error";
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(message), m_kind(kind) {}

void throw_error(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

void require(bool condition, std::string_view message, ErrorKind kind) {
  if (!condition) throw_error(kind, std::string(message));
}

namespace {
std::string format_value(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}
}  // namespace

void require_finite(std::string_view name, double value) {
  if (!std::isfinite(value))
    throw_error(ErrorKind::invalid_argument,
                std::string(name) + " must be a finite number, got " + format_value(value));
}

void require_positive(std::string_view name, double value) {
  require_finite(name, value);
  if (!(value > 0))
    throw_error(ErrorKind::invalid_argument,
                std::string(name) + " must be > 0, got " + format_value(value));
}

void require_non_negative(std::string_view name, double value) {
  require_finite(name, value);
  if (!(value >= 0))
    throw_error(ErrorKind::invalid_argument,
                std::string(name) + " must be >= 0, got " + format_value(value));
}

void require_in_range(std::string_view name, double value, double low, double high) {
  require_finite(name, value);
  if (!(value >= low && value <= high))
    throw_error(ErrorKind::invalid_argument, std::string(name) + " must be in [" +
                                                 format_value(low) + ", " + format_value(high) +
                                                 "], got " + format_value(value));
}

}  // namespace portasim
