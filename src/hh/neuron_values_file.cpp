#include "portasim/hh/neuron_values_file.hpp"

#include <cstddef>
#include <sstream>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"

namespace portasim::hh {

namespace {

std::string known_fields() {
  std::string names;
  for (NeuronField f : all_neuron_fields)
    names += (names.empty() ? "" : ", ") + std::string(to_string(f));
  return names;
}

bool is_field(const std::string& name) {
  for (NeuronField f : all_neuron_fields)
    if (name == to_string(f)) return true;
  return false;
}

}  // namespace

NeuronValuesFile read_neuron_values_file(const std::string& path, std::int64_t neurons) {
  NeuronValuesFile file;
  file.path = path;
  const io::H5File input = io::H5File::open_read(path);
  const std::string where = "--initial-state '" + path + "'";
  // A misspelt name would otherwise be ignored silently and the run-wide value used.
  for (const std::string& name : input.members("/"))
    require(is_field(name), where + " has '/" + name + "', which is not one of " + known_fields());
  bool any = false;
  for (NeuronField f : all_neuron_fields) {
    const std::string dataset = std::string("/") + to_string(f);
    if (!input.exists(dataset)) continue;
    const std::vector<std::size_t> shape = input.shape(dataset);
    require(shape.size() == 1 && static_cast<std::int64_t>(shape[0]) == neurons,
            where + ": '" + dataset + "' has shape " + io::format_shape(shape) + ", expected (" +
                std::to_string(neurons) + ",) for --neurons " + std::to_string(neurons));
    std::vector<double>& values = file.fields[static_cast<int>(f)];
    values = input.read<double>(dataset);
    for (std::size_t k = 0; k < values.size(); ++k)
      if (!is_allowed_value(f, values[k])) {
        std::ostringstream message;
        message << where << ": '" << dataset << "' of neuron " << k << " is " << values[k]
                << ", it must be " << allowed_values(f);
        throw_error(ErrorKind::invalid_argument, message.str());
      }
    any = true;
  }
  require(any, where + " has none of the datasets " + known_fields());
  return file;
}

}  // namespace portasim::hh
