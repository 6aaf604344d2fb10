#include "failure.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>

#include "exit_codes.hpp"
#include "interrupt.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"

namespace portasim::cli {

namespace {

// Kokkos appends a call stack to its messages; the first line says what failed.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

int out_of_memory(const std::string& command, const std::string& detail) {
  std::cerr << "portasim: error: out of memory" << (detail.empty() ? "" : ": " + detail) << "\n"
            << "portasim: hint: " << memory_hint(command) << "\n";
  return exit_out_of_memory;
}

}  // namespace

std::string memory_hint(const std::string& command) {
  if (command == "hh")
    return "simulate fewer neurons per run (--neurons; split the batch into several runs), record "
           "less "
           "(--record spikes or none, a larger --every) or use --precision f32";
  if (command == "life")
    return "use a smaller grid (--width/--height) or fewer generations per chunk (--chunk-size), "
           "and "
           "--engine bits / --packed for 8x less memory per grid";
  if (command == "sfap")
    return "split the motor unit into smaller input files (fewer fibers or electrodes per run), or "
           "use a "
           "coarser --dz or a lower --fs";
  if (command == "toolkit")
    return "use smaller sizes (--n, --rows/--cols, --matrix-n, --svd-n) or --precision f32; "
           "PORTASIM_POOL_LIMIT caps the memory pool";
  return "run a smaller problem, or split it into smaller chunks";
}

int report_current_exception(const std::string& command) noexcept {
  try {
    try {
      throw;
    } catch (const Interrupted& e) {
      std::cerr << "portasim: " << e.what() << "\n";
      return 128 + e.signal();
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::out_of_memory) return out_of_memory(command, e.what());
      std::cerr << "portasim: error: " << e.what() << "\n";
      return exit_code_for(e.kind());
    } catch (const std::bad_alloc& e) {
      return out_of_memory(command, std::string("host allocation failed (") + e.what() + ")");
    } catch (const std::exception& e) {
      const std::string message = e.what();
      if (compat::is_allocation_failure(e)) return out_of_memory(command, first_line(message));
      std::cerr << "portasim: internal error: " << first_line(message) << "\n";
      return exit_internal;
    } catch (...) {
      std::cerr << "portasim: internal error: unknown exception\n";
      return exit_internal;
    }
  } catch (...) {
    return exit_internal;  // printing failed (e.g. no memory left for the message)
  }
}

}  // namespace portasim::cli
