#include "portasim/core/benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace portasim {

TimingStats TimingStats::of(const std::vector<double>& samples_ms) {
  TimingStats stats;
  stats.count = samples_ms.size();
  if (samples_ms.empty()) return stats;
  const double n = static_cast<double>(samples_ms.size());
  stats.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / n;
  double squares = 0;
  for (double x : samples_ms) squares += (x - stats.mean_ms) * (x - stats.mean_ms);
  stats.std_ms = std::sqrt(squares / n);
  const auto [lo, hi] = std::minmax_element(samples_ms.begin(), samples_ms.end());
  stats.min_ms = *lo;
  stats.max_ms = *hi;
  return stats;
}

std::string BenchmarkResult::summary() const {
  auto part = [](const char* label, const TimingStats& s) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "%s: %10.3f us +/- %8.3f (min: %10.3f / max: %10.3f) us",
                  label, s.mean_ms * 1e3, s.std_ms * 1e3, s.min_ms * 1e3, s.max_ms * 1e3);
    return std::string(buffer);
  };
  return name + " : " + part("host", host()) + "   " + part("device", device());
}

}  // namespace portasim
