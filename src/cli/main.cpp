// `portasim`: one program, one sub-command per module.
#include <CLI/CLI.hpp>

#include "portasim/config.hpp"
#if defined(PORTASIM_ENABLE_HDF5)
#include <hdf5.h>
#endif

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "failure.hpp"
#include "interrupt.hpp"
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
#if defined(PORTASIM_ENABLE_HDF5)
  // Every file is closed by its owner before main returns. HDF5's own clean-up at exit would
  // only retry a file whose last flush failed (a full disk) and print "infinite loop closing
  // library" over the clear error already given.
  H5dont_atexit();
#endif
  // Kokkos answers an un-prefixed --help with its own banner of flags before portasim's help:
  // the help flags are kept from Kokkos and handed to the command line parser after it.
  bool help = false;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) help = true;
    else argv[kept++] = argv[i];
  }
  argv[kept] = nullptr;
  argc = kept;
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(argc, argv);  // a bad PORTASIM_DEVICE or local-rank variable throws
  } catch (const Error& e) {
    std::cerr << "portasim: error: " << e.what() << "\n";
    return cli::exit_code_for(e.kind());
  }

  CLI::App app{
      "portasim: Hodgkin-Huxley, Game of Life, SFAP and GPU-toolkit simulations on Kokkos"};
  app.set_version_flag("--version", std::string("portasim ") + PORTASIM_VERSION_STRING);
  app.require_subcommand(1);
  cli::Action action;
  cli::add_info_command(app, action);
  cli::add_hh_command(app, action);
  cli::add_life_command(app, action);
  cli::add_sfap_command(app, action);
  cli::add_sfap_input_command(app, action);
  cli::add_toolkit_command(app, action);

  static char help_flag[] = "--help";
  if (help) {  // argv has room: at least one flag was taken out above
    argv[argc++] = help_flag;
    argv[argc] = nullptr;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : cli::exit_invalid_argument;
  }
  const std::string command =
      app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name();
  cli::install_interrupt_handlers();
  try {
    return action ? action() : cli::exit_internal;
  } catch (...) {
    const int code = cli::report_current_exception(command);
    // Under mpirun the other ranks may be waiting on this one: end them all.
    if (mpi::world_size() > 1) mpi::abort_world(code);
    return code;
  }
}
