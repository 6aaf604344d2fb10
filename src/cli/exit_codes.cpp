#include "exit_codes.hpp"

namespace portasim::cli {

int exit_code_for(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::invalid_argument: return exit_invalid_argument;
    case ErrorKind::io: return exit_io;
    case ErrorKind::out_of_memory: return exit_out_of_memory;
    case ErrorKind::backend: return exit_backend;
    case ErrorKind::internal: return exit_internal;
  }
  return exit_internal;
}

}  // namespace portasim::cli
