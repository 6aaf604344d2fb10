#pragma once
// A stimulus read from an HDF5 file for the `portasim hh` command: host-only (no Kokkos), so
// that the validation can be fuzzed on its own (tests/fuzz). The trace is 1-D (n_steps or
// n_steps + 1 samples, shared by every neuron) or 2-D (n_steps or n_steps + 1, neurons).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace portasim::hh {

template <class Scalar>
struct StimulusFile {
  std::string path;     // the HDF5 file
  std::string dataset;  // "/stimulus" unless the spec named another
  std::vector<std::size_t> shape;
  std::vector<Scalar> values;  // row-major
};

// The file a `spec` reads: FILE.h5 of FILE.h5 or FILE.h5:/dataset.
std::string stimulus_file_path(const std::string& spec);

// `spec` is FILE.h5 (dataset /stimulus) or FILE.h5:/dataset. Checks everything the
// simulation would refuse later (rank, length against `steps`, neuron count, finite values)
// so that a bad file fails before any output is created; throws portasim::Error naming the
// file, the dataset and the problem (io when the file cannot be read).
template <class Scalar>
StimulusFile<Scalar> read_stimulus_file(const std::string& spec, std::int64_t steps,
                                        std::int64_t neurons);

}  // namespace portasim::hh
