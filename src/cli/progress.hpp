#pragma once
// `--progress`: the fraction of a job done, on stderr, rewritten in place.

#include <cstdio>
#include <functional>
#include <string>

namespace portasim::cli {

inline std::function<void(double)> progress_printer(const std::string& command) {
  return [command](double fraction) {
    std::fprintf(stderr, "\r[portasim %s] %5.1f %%", command.c_str(), 100.0 * fraction);
    std::fflush(stderr);
    if (fraction >= 1.0) std::fprintf(stderr, "\n");
  };
}

}  // namespace portasim::cli
