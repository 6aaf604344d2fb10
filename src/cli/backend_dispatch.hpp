#pragma once
// Runs a generic callable on an instance of the execution space the user named
// (--backend serial|openmp|cuda|default), among those this build enables.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cctype>
#include <string>

#include "portasim/core/error.hpp"
#include "portasim/core/execution_spaces.hpp"

namespace portasim::cli {

inline std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

inline std::string enabled_backend_names() {
  std::string names;
#define PORTASIM_CLI_NAME(SPACE) names += (names.empty() ? "" : ", ") + lower_case(SPACE::name());
  PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_CLI_NAME)
#undef PORTASIM_CLI_NAME
  return names;
}

template <class Work>
int dispatch_backend(const std::string& requested, Work&& work) {
  const std::string name = lower_case(requested);
  if (name.empty() || name == "default") return work(Kokkos::DefaultExecutionSpace());
#define PORTASIM_CLI_DISPATCH(SPACE) \
  if (name == lower_case(SPACE::name())) return work(SPACE());
  PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_CLI_DISPATCH)
#undef PORTASIM_CLI_DISPATCH
  throw_error(ErrorKind::invalid_argument,
              "--backend '" + requested + "' is not enabled in this build (enabled: default, " +
                  enabled_backend_names() + ")");
}

}  // namespace portasim::cli
