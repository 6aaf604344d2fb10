#pragma once
// What `portasim` prints and returns for an exception that ended a command: portasim::Error
// by its kind, an interrupt by its signal, and an allocation failure (host std::bad_alloc, or
// a Kokkos allocation failure, compat::is_allocation_failure) as out of memory with a hint
// how to make the command smaller. Everything else is an internal error.

#include <string>

namespace portasim::cli {

// Call inside a catch block; `command` is the sub-command that ran ("hh", "life", ...).
int report_current_exception(const std::string& command) noexcept;

// How to make `command` need less memory, for the out-of-memory message.
std::string memory_hint(const std::string& command);

}  // namespace portasim::cli
