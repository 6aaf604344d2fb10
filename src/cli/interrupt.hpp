#pragma once
// SIGINT and SIGTERM in `portasim`. Two ways to stop, chosen by what the running command can
// keep:
//  - Commands that stream chunks (life) check interrupt_requested() at each chunk boundary
//    and throw Interrupted once the chunk in hand is written and flushed, so that the output
//    is left complete up to that chunk and resumable (--resume). A second signal stops at
//    once, as below.
//  - Otherwise the handler removes the registered temporary file (an AtomicOutput that would
//    never be committed) and exits at once.
// Either way the exit status is 128 + the signal number (130 for SIGINT, 143 for SIGTERM),
// as shells report a process killed by that signal.

#include <exception>
#include <string>

namespace portasim::cli {

void install_interrupt_handlers();

// The signal that asked a cooperative command to stop, or 0.
int interrupt_requested() noexcept;

// While one exists, the first SIGINT/SIGTERM only sets interrupt_requested().
class CooperativeInterrupt {
 public:
  CooperativeInterrupt() noexcept;
  ~CooperativeInterrupt();
  CooperativeInterrupt(const CooperativeInterrupt&) = delete;
  CooperativeInterrupt& operator=(const CooperativeInterrupt&) = delete;
};

// While one exists, an immediate stop removes `path` first (one path at a time).
class RemoveOnInterrupt {
 public:
  explicit RemoveOnInterrupt(const std::string& path) noexcept;
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;
};

// Thrown by a cooperative command at a chunk boundary; main() prints what() and exits with
// 128 + signal.
class Interrupted : public std::exception {
 public:
  Interrupted(int signal, std::string message) : m_signal(signal), m_message(std::move(message)) {}
  int signal() const noexcept { return m_signal; }
  const char* what() const noexcept override { return m_message.c_str(); }

 private:
  int m_signal;
  std::string m_message;
};

const char* signal_name(int signal) noexcept;

}  // namespace portasim::cli
