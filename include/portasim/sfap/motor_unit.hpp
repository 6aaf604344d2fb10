#pragma once
// A motor unit drawn from a few physiological parameters, in the /inputs layout that
// `portasim sfap` reads (input_file.hpp): fiber centres uniform over a circular territory,
// end-plate positions, conduction velocities and diameters normal (redrawn until they are
// inside their valid range), nerve paths normal around their means, and a line of point
// electrodes. Draws come from the counter-based generator (core/counter_rng.hpp), so a seed
// gives the same motor unit on every machine and backend.

#include <array>
#include <cstdint>
#include <limits>

#include "portasim/sfap/input_file.hpp"

namespace portasim::sfap {

struct MotorUnitSpec {
  std::int64_t fibers = 20;
  std::array<double, 2> territory_centre_mm{0.0, 0.0};  // (x, y)
  double territory_radius_mm = 1.0;
  double muscle_length_mm = 30.0;  // fibers run from z = 0 to z = muscle_length_mm
  double endplate_mean_mm = std::numeric_limits<double>::quiet_NaN();  // NaN: mid-muscle
  double endplate_sd_mm = 1.0;
  double velocity_mean_mm_per_s = 4000.0;
  double velocity_sd_mm_per_s = 500.0;
  double diameter_mean_mm = 0.05;
  double diameter_sd_mm = 0.005;
  std::array<double, 2> nerve_path_mean_mm{2.5, 2.5};  // (p0, p1): axon and terminal branch
  double nerve_path_sd_mm = 1.0;
  std::int64_t electrodes = 4;
  double electrode_spacing_mm = 2.0;
  std::array<double, 3> electrode_start_mm{0.0, 0.0, 15.0};  // the first electrode
  std::array<double, 3> electrode_direction{0.0, 0.0, 1.0};  // normalised on use
  double dt_s = 1.0 / 10240.0;
  double dz_mm = 0.1;
  double min_radial_dist_mm = std::numeric_limits<double>::quiet_NaN();  // NaN: mean diameter
  std::uint64_t seed = 42;
};

// Throws portasim::Error (invalid_argument) naming the parameter that is out of range.
void validate(const MotorUnitSpec& spec);

// The motor unit of `spec` (validated first).
HostInputs make_motor_unit(const MotorUnitSpec& spec);

// Writes `inputs` as group `group` (datasets and attributes read_inputs reads back).
void write_inputs(io::H5File& file, const HostInputs& inputs, const std::string& group = "/inputs");

}  // namespace portasim::sfap
