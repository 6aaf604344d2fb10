// `portasim`: one program, one sub-command per module.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/runtime.hpp"

int main(int argc, char* argv[]) {
  using namespace portasim;
  // Kokkos takes its own flags (--kokkos-threads, --kokkos-device-id, ...) out of argv first.
  // Unbound threads, the OpenMP default, stated so that Kokkos 3.4 does not warn about it;
  // an OMP_PROC_BIND the user set wins.
  setenv("OMP_PROC_BIND", "false", /*overwrite=*/0);
  Runtime runtime(argc, argv);

  CLI::App app{"portasim: Hodgkin-Huxley, Game of Life, SFAP and GPU-toolkit simulations on Kokkos"};
  app.set_version_flag("--version", std::string("portasim ") + PORTASIM_VERSION_STRING);
  app.require_subcommand(1);
  cli::Action action;
  cli::add_info_command(app, action);
  cli::add_hh_command(app, action);
  cli::add_life_command(app, action);
  cli::add_sfap_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::exit_invalid_argument;
  }
  try {
    return action ? action() : cli::exit_internal;
  } catch (const Error& e) {
    std::cerr << "portasim: error: " << e.what() << "\n";
    // Under mpirun the other ranks may be waiting on this one: end them all.
    if (mpi::world_size() > 1) mpi::abort_world(cli::exit_code_for(e.kind()));
    return cli::exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "portasim: internal error: " << e.what() << "\n";
    if (mpi::world_size() > 1) mpi::abort_world(cli::exit_internal);
    return cli::exit_internal;
  }
}
