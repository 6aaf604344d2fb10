#pragma once
// A poor man's kernel profiler for the benchmarks (PORTASIM_KERNEL_PROFILE=1): Kokkos Tools
// callbacks fence around every kernel and deep_copy and time them, and time the host gaps
// in between (allocations, host synchronisation), then print the largest totals at exit.
// Fencing changes the overlap it measures: use it to find where time goes, not for figures.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace portasim_bench {

class KernelProfile {
 public:
  static void enable() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(begin);
    tools::set_end_parallel_for_callback(end);
    tools::set_begin_parallel_reduce_callback(begin);
    tools::set_end_parallel_reduce_callback(end);
    tools::set_begin_parallel_scan_callback(begin);
    tools::set_end_parallel_scan_callback(end);
    tools::set_begin_deep_copy_callback(begin_copy);
    tools::set_end_deep_copy_callback(end_copy);
    state().last = clock::now();
  }

  static void report(std::FILE* out = stderr) {
    std::vector<std::pair<std::string, Entry>> rows(state().totals.begin(), state().totals.end());
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    double all = 0;
    for (const auto& r : rows) all += r.second.seconds;
    std::fprintf(out, "\n%-90s %10s %8s %6s\n", "kernel profile (fenced)", "total ms", "calls",
                 "share");
    for (std::size_t i = 0; i < rows.size() && i < 25; ++i)
      std::fprintf(out, "%-90.90s %10.3f %8lld %5.1f%%\n", rows[i].first.c_str(),
                   rows[i].second.seconds * 1e3, static_cast<long long>(rows[i].second.calls),
                   100.0 * rows[i].second.seconds / all);
  }

 private:
  using clock = std::chrono::steady_clock;
  struct Entry {
    double seconds = 0;
    long long calls = 0;
  };
  struct State {
    std::map<std::string, Entry> totals;
    std::string current, previous = "(start)";
    clock::time_point started, last;
  };
  static State& state() {
    static State s;
    return s;
  }
  static void add(const std::string& name, double seconds) {
    auto& e = state().totals[name];
    e.seconds += seconds;
    ++e.calls;
  }
  static void open(const std::string& name) {
    Kokkos::fence();
    State& s = state();
    const auto now = clock::now();
    add("[host] before " + name, std::chrono::duration<double>(now - s.last).count());
    s.current = name;
    s.started = now;
  }
  static void close() {
    Kokkos::fence();
    State& s = state();
    const auto now = clock::now();
    add(s.current, std::chrono::duration<double>(now - s.started).count());
    s.previous = s.current;
    s.last = now;
  }
  static void begin(const char* name, uint32_t, uint64_t*) { open(name); }
  static void end(uint64_t) { close(); }
  static void begin_copy(Kokkos::Tools::SpaceHandle, const char* dst, const void*,
                         Kokkos::Tools::SpaceHandle, const char* src, const void*, uint64_t bytes) {
    open(std::string("deep_copy ") + src + " -> " + dst + " (" + std::to_string(bytes >> 10) +
         " KiB)");
  }
  static void end_copy() { close(); }
};

}  // namespace portasim_bench
