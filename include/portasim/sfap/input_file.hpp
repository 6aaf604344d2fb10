#pragma once
// Reading and checking the /inputs group of an SFAP input file (the layout of
// shared/reference/sfap, see hdf5_io.hpp): host-only (no Kokkos), so that the validation can
// be fuzzed on its own (tests/fuzz).

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "portasim/core/hdf5_file.hpp"

namespace portasim::sfap {

struct HostInputs {
  std::size_t n_fibers = 0, n_electrodes = 0;
  std::vector<double> fiber_centers;        // N x 2
  std::vector<double> endplate_z;           // N
  std::vector<double> conduction_velocity;  // N
  std::vector<double> diameter;             // N
  std::vector<double> nerve_paths;          // N x 2 (empty when absent and not needed)
  std::vector<double> electrode_positions;  // Ne x 3
  double left_mm = 0, right_mm = 0;
  double dt_s = std::numeric_limits<double>::quiet_NaN();
  double fs_hz = std::numeric_limits<double>::quiet_NaN();
  double dz_mm = std::numeric_limits<double>::quiet_NaN();
  double min_radial_dist_mm = std::numeric_limits<double>::quiet_NaN();  // NaN: not given
};

// Reads and checks group `group` (shapes, finiteness, positivity); throws portasim::Error
// naming the dataset or attribute (invalid_argument for bad content, io for unreadable).
HostInputs read_inputs(const io::H5File& file, const std::string& group = "/inputs",
                       bool need_nerve_paths = true);

}  // namespace portasim::sfap
