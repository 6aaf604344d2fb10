#pragma once
// Options that a run would accept and then silently ignore are refused instead: a user who
// gives --every with --record spikes expects thinned traces and gets none. Each refusal
// names the option given and the option that makes it meaningless.

#include <CLI/CLI.hpp>

#include <string>

#include "portasim/core/error.hpp"

namespace portasim::cli {

// Throws ErrorKind::invalid_argument "OPTION has no effect BECAUSE" when `command` was
// given `option` on its command line (a default does not count).
inline void refuse_if_given(const CLI::App& command, const std::string& option,
                            const std::string& because) {
  require(command.count(option) == 0, option + " has no effect " + because);
}

}  // namespace portasim::cli
