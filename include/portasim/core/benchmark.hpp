#pragma once
// Run a piece of work repeatedly and report host and device time, the portable form of
// cupyx.profiler.benchmark. Host time is what the calling thread spends in the callable
// (launch cost on a GPU); device time is the instance's time between events around it.

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"

namespace portasim {

struct TimingStats {
  std::size_t count = 0;
  double mean_ms = 0;
  double std_ms = 0;  // population standard deviation, as NumPy's std()
  double min_ms = 0;
  double max_ms = 0;

  static TimingStats of(const std::vector<double>& samples_ms);
};

struct BenchmarkOptions {
  int n_repeat = 100;
  int n_warmup = 10;
  // Stop repeating once this much wall time went by (at least one timed run happens).
  double max_duration_s = std::numeric_limits<double>::infinity();
};

struct BenchmarkResult {
  std::string name;
  std::vector<double> host_ms;
  std::vector<double> device_ms;

  TimingStats host() const { return TimingStats::of(host_ms); }
  TimingStats device() const { return TimingStats::of(device_ms); }
  // One line like cupyx's: "name : CPU: mean +- std (min, max) us  GPU: ..."
  std::string summary() const;
};

template <class ExecutionSpace, class Work>
BenchmarkResult benchmark(const std::string& name, const ExecutionSpace& exec, Work&& work,
                          const BenchmarkOptions& options = {}) {
  require(options.n_repeat > 0, "benchmark n_repeat must be > 0");
  require(options.n_warmup >= 0, "benchmark n_warmup must be >= 0");
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < options.n_warmup; ++i) work();
  exec.fence();

  BenchmarkResult result;
  result.name = name;
  result.host_ms.reserve(static_cast<std::size_t>(options.n_repeat));
  result.device_ms.reserve(static_cast<std::size_t>(options.n_repeat));
  Event<ExecutionSpace> start, stop;
  const auto began = clock::now();
  for (int i = 0; i < options.n_repeat; ++i) {
    start.record(exec);
    const auto t0 = clock::now();
    work();
    const auto t1 = clock::now();
    stop.record(exec);
    result.device_ms.push_back(elapsed_ms(start, stop));
    result.host_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (std::chrono::duration<double>(clock::now() - began).count() >= options.max_duration_s)
      break;
  }
  return result;
}

}  // namespace portasim
