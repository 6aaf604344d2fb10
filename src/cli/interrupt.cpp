#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace portasim::cli {

namespace {

volatile sig_atomic_t g_requested = 0;
volatile sig_atomic_t g_cooperative = 0;
volatile sig_atomic_t g_have_path = 0;
char g_path[4096];

void write_stderr(const char* text) noexcept {
  // write(2) is async-signal-safe; its result cannot be acted on here.
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, std::strlen(text));
}

extern "C" void on_signal(int signal) {
  if (g_cooperative && !g_requested) {
    g_requested = signal;
    write_stderr(
        signal == SIGINT
            ? "\nportasim: SIGINT: stopping after the chunk in progress (again to stop now)\n"
            : "\nportasim: SIGTERM: stopping after the chunk in progress (again to stop now)\n");
    return;
  }
  if (g_have_path) ::unlink(g_path);
  write_stderr(signal == SIGINT ? "\nportasim: interrupted (SIGINT); incomplete output removed\n"
                                : "\nportasim: terminated (SIGTERM); incomplete output removed\n");
  ::_exit(128 + signal);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a chunk write in progress goes on
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

int interrupt_requested() noexcept { return g_requested; }

CooperativeInterrupt::CooperativeInterrupt() noexcept { g_cooperative = 1; }
CooperativeInterrupt::~CooperativeInterrupt() { g_cooperative = 0; }

RemoveOnInterrupt::RemoveOnInterrupt(const std::string& path) noexcept {
  g_have_path = 0;
  if (path.size() >= sizeof g_path) return;  // too long to keep: the file stays (as .partial)
  std::memcpy(g_path, path.c_str(), path.size() + 1);
  g_have_path = 1;
}
RemoveOnInterrupt::~RemoveOnInterrupt() { g_have_path = 0; }

const char* signal_name(int signal) noexcept {
  return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace portasim::cli
