#pragma once
// One exception type for everything portasim refuses or fails at, with a kind that front
// ends map to exit codes, and checks whose messages name the offending parameter.

#include <stdexcept>
#include <string>
#include <string_view>

namespace portasim {

enum class ErrorKind {
  invalid_argument,  // the caller asked for something meaningless (bad size, NaN, ...)
  io,                // a file could not be read, written or parsed
  out_of_memory,     // a device or pool allocation failed or hit its limit
  backend,           // the CUDA runtime or Kokkos reported a failure
  internal           // a broken invariant of portasim itself
};

const char* to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const noexcept { return m_kind; }

 private:
  ErrorKind m_kind;
};

[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

// Checks of user-facing parameters; `name` is what the user typed or sees (e.g. "--dt-ms").
void require(bool condition, std::string_view message,
             ErrorKind kind = ErrorKind::invalid_argument);
void require_finite(std::string_view name, double value);
void require_positive(std::string_view name, double value);
void require_non_negative(std::string_view name, double value);
void require_in_range(std::string_view name, double value, double low, double high);

}  // namespace portasim
