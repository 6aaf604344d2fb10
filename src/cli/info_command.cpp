#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "portasim/core/build_info.hpp"
#include "portasim/core/error.hpp"

namespace portasim::cli {

void add_info_command(CLI::App& app, Action& action) {
  auto* command = app.add_subcommand("info", "Backends, devices, versions and build options");
  auto json = std::make_shared<bool>(false);
  auto output = std::make_shared<std::string>();
  command->add_flag("--json", *json, "Print one JSON object instead of text");
  command->add_option("--output", *output, "Also write the JSON object to this file");
  command->callback([&action, json, output] {
    action = [json, output] {
      const auto build = build_info();
      const auto devices = device_properties();
      if (*json) print_info_json(std::cout, build, devices);
      else print_info(std::cout, build, devices);
      if (!output->empty()) {
        std::ofstream file(*output);
        require(bool(file), "cannot open '" + *output + "' for writing", ErrorKind::io);
        print_info_json(file, build, devices);
        require(bool(file), "failed writing '" + *output + "'", ErrorKind::io);
      }
      return 0;
    };
  });
}

}  // namespace portasim::cli
