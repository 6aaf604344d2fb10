#pragma once
// Each sub-command of `portasim` registers itself on the top-level app and returns the
// action to run once parsing succeeded and the Kokkos runtime is up.

#include <CLI/CLI.hpp>

#include <functional>

namespace portasim::cli {

using Action = std::function<int()>;

// Every add_*_command appends the sub-command and stores its action for dispatch.
void add_info_command(CLI::App& app, Action& action);
void add_hh_command(CLI::App& app, Action& action);
void add_life_command(CLI::App& app, Action& action);
void add_sfap_command(CLI::App& app, Action& action);
void add_sfap_input_command(CLI::App& app, Action& action);
void add_toolkit_command(CLI::App& app, Action& action);

}  // namespace portasim::cli
