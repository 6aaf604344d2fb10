#include "portasim/hh/stimulus_file.hpp"

#include <cmath>
#include <tuple>
#include <utility>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"

namespace portasim::hh {

namespace {

// FILE.h5:/dataset -> (FILE.h5, /dataset); FILE.h5 -> (FILE.h5, /stimulus).
std::pair<std::string, std::string> split_spec(const std::string& spec) {
  if (const auto colon = spec.rfind(".h5:"); colon != std::string::npos)
    return {spec.substr(0, colon + 3), spec.substr(colon + 4)};
  return {spec, "/stimulus"};
}

}  // namespace

std::string stimulus_file_path(const std::string& spec) { return split_spec(spec).first; }

template <class Scalar>
StimulusFile<Scalar> read_stimulus_file(const std::string& spec, std::int64_t steps,
                                        std::int64_t neurons) {
  StimulusFile<Scalar> s;
  std::tie(s.path, s.dataset) = split_spec(spec);
  const std::string where = "stimulus '" + s.dataset + "' in '" + s.path + "'";
  require(!s.dataset.empty(), "--stimulus-file '" + spec + "' names an empty dataset");
  const io::H5File input = io::H5File::open_read(s.path);
  require(input.exists(s.dataset), where + " does not exist");
  s.shape = input.shape(s.dataset);
  require(s.shape.size() == 1 || s.shape.size() == 2,
          where + " has shape " + io::format_shape(s.shape) +
              ": it must be 1-D (shared) or 2-D (steps, neurons)");
  const auto length_ok = [steps](std::size_t n) {
    return static_cast<std::int64_t>(n) == steps || static_cast<std::int64_t>(n) == steps + 1;
  };
  const std::string expected_steps = std::to_string(steps) + " or " + std::to_string(steps + 1);
  if (s.shape.size() == 1) {
    require(length_ok(s.shape[0]), where + " has " + std::to_string(s.shape[0]) +
                                       " samples, expected n_steps = " + expected_steps +
                                       " (round(--t-ms / --dt-ms), +1)");
  } else {
    require(length_ok(s.shape[0]) && static_cast<std::int64_t>(s.shape[1]) == neurons,
            where + " has shape " + io::format_shape(s.shape) + ", expected (" + expected_steps +
                ", " + std::to_string(neurons) + ") for --neurons " + std::to_string(neurons));
  }
  s.values = input.read<Scalar>(s.dataset, &s.shape);
  for (Scalar v : s.values)
    require(std::isfinite(static_cast<double>(v)), where + " has a non-finite value");
  return s;
}

template StimulusFile<float> read_stimulus_file<float>(const std::string&, std::int64_t,
                                                       std::int64_t);
template StimulusFile<double> read_stimulus_file<double>(const std::string&, std::int64_t,
                                                         std::int64_t);

}  // namespace portasim::hh
