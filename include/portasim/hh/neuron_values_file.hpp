#pragma once
// Per-neuron initial state and membrane parameters read from an HDF5 file (`portasim hh
// --initial-state FILE.h5`), on the host. Layout (docs/formats.md): datasets at the root
// named after hh::NeuronField (v0, m0, h0, n0, capacitance, g_na, g_k, g_leak, e_na, e_k,
// e_leak), each 1-D with one value per neuron; any subset, at least one.

#include <cstdint>
#include <string>
#include <vector>

#include "portasim/hh/parameters.hpp"

namespace portasim::hh {

struct NeuronValuesFile {
  std::string path;
  std::vector<double> fields[neuron_field_count];  // empty where the file has no such dataset

  bool has(NeuronField f) const { return !fields[static_cast<int>(f)].empty(); }
  const std::vector<double>& operator[](NeuronField f) const { return fields[static_cast<int>(f)]; }
};

// Reads and checks the file for a run of `neurons` neurons: every dataset at the root is a
// known field, 1-D with `neurons` values, each allowed (hh::is_allowed_value). Throws
// portasim::Error naming the file, the dataset and the problem (io when it cannot be read).
NeuronValuesFile read_neuron_values_file(const std::string& path, std::int64_t neurons);

}  // namespace portasim::hh
