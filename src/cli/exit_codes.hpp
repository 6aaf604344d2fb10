#pragma once
// Exit status of `portasim`, documented in README.md.

#include "portasim/core/error.hpp"

namespace portasim::cli {

enum ExitCode : int {
  exit_success = 0,
  exit_invalid_argument =
      2,        // bad option value or bad input file content (also CLI11 parse errors)
  exit_io = 3,  // a file could not be read or written
  exit_out_of_memory = 4,
  exit_backend = 5,
  exit_internal = 70,
};

int exit_code_for(ErrorKind kind) noexcept;

}  // namespace portasim::cli
