// The motor-unit builder: its draws stay in their ranges, follow their parameters, repeat
// for a seed, and round-trip through the /inputs layout that `portasim sfap` reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/sfap/motor_unit.hpp"

namespace test_motor_unit {

using portasim::sfap::MotorUnitSpec;

inline double mean_of(const std::vector<double>& v, std::size_t stride = 1,
                      std::size_t offset = 0) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = offset; i < v.size(); i += stride, ++n) sum += v[i];
  return sum / static_cast<double>(n);
}

TEST(TEST_CATEGORY, sfap_motor_unit_follows_its_parameters) {
  MotorUnitSpec spec;
  spec.fibers = 4000;
  spec.territory_centre_mm = {1.5, -2.0};
  spec.territory_radius_mm = 0.8;
  spec.muscle_length_mm = 40;
  spec.endplate_sd_mm = 2.0;
  spec.velocity_mean_mm_per_s = 3500;
  spec.velocity_sd_mm_per_s = 400;
  spec.diameter_mean_mm = 0.06;
  spec.diameter_sd_mm = 0.01;
  spec.nerve_path_mean_mm = {3.0, 1.0};
  spec.nerve_path_sd_mm = 0.2;
  spec.electrodes = 5;
  spec.electrode_spacing_mm = 2.0;
  spec.electrode_start_mm = {0.0, 1.0, 16.0};
  spec.electrode_direction = {0.0, 0.0, 2.0};
  const auto in = portasim::sfap::make_motor_unit(spec);
  ASSERT_EQ(in.n_fibers, 4000u);
  ASSERT_EQ(in.n_electrodes, 5u);
  for (std::size_t k = 0; k < in.n_fibers; ++k) {
    const double dx = in.fiber_centers[2 * k] - 1.5, dy = in.fiber_centers[2 * k + 1] + 2.0;
    EXPECT_LE(std::hypot(dx, dy), 0.8 + 1e-12);
    EXPECT_GT(in.endplate_z[k], 0.0);
    EXPECT_LT(in.endplate_z[k], 40.0);
    EXPECT_GT(in.conduction_velocity[k], 0.0);
    EXPECT_GT(in.diameter[k], 0.0);
    EXPECT_GE(in.nerve_paths[2 * k], 0.0);
  }
  // Means within 5 standard errors; uniform over the disc puts 1/4 of the fibers within r/2.
  const double n = 4000;
  EXPECT_NEAR(mean_of(in.endplate_z), 20.0, 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(mean_of(in.conduction_velocity), 3500, 5 * 400 / std::sqrt(n));
  EXPECT_NEAR(mean_of(in.diameter), 0.06, 5 * 0.01 / std::sqrt(n));
  EXPECT_NEAR(mean_of(in.nerve_paths, 2, 0), 3.0, 5 * 0.2 / std::sqrt(n));
  EXPECT_NEAR(mean_of(in.nerve_paths, 2, 1), 1.0, 5 * 0.2 / std::sqrt(n));
  std::size_t inner = 0;
  for (std::size_t k = 0; k < in.n_fibers; ++k)
    inner += std::hypot(in.fiber_centers[2 * k] - 1.5, in.fiber_centers[2 * k + 1] + 2.0) < 0.4;
  EXPECT_NEAR(static_cast<double>(inner) / n, 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
  for (std::size_t e = 0; e < 5; ++e) {
    EXPECT_DOUBLE_EQ(in.electrode_positions[3 * e], 0.0);
    EXPECT_DOUBLE_EQ(in.electrode_positions[3 * e + 1], 1.0);
    EXPECT_DOUBLE_EQ(in.electrode_positions[3 * e + 2], 16.0 + 2.0 * static_cast<double>(e));
  }
  EXPECT_DOUBLE_EQ(in.right_mm, 40.0);
  EXPECT_DOUBLE_EQ(in.dt_s, 1.0 / 10240.0);
}

TEST(TEST_CATEGORY, sfap_motor_unit_repeats_for_a_seed_and_round_trips) {
  MotorUnitSpec spec;
  const auto a = portasim::sfap::make_motor_unit(spec);
  const auto b = portasim::sfap::make_motor_unit(spec);
  EXPECT_EQ(a.fiber_centers, b.fiber_centers);
  EXPECT_EQ(a.endplate_z, b.endplate_z);
  spec.seed = 43;
  EXPECT_NE(portasim::sfap::make_motor_unit(spec).endplate_z, a.endplate_z);
  // A fixed spread of 0 gives the means themselves.
  spec.velocity_sd_mm_per_s = 0;
  for (double v : portasim::sfap::make_motor_unit(spec).conduction_velocity) EXPECT_EQ(v, 4000.0);

  const std::string path = "/tmp/portasim_motor_unit_" + std::to_string(::getpid()) + ".h5";
  {
    auto file = portasim::io::H5File::create(path);
    portasim::sfap::write_inputs(file, a);
  }
  const auto back = portasim::sfap::read_inputs(portasim::io::H5File::open_read(path));
  std::remove(path.c_str());
  EXPECT_EQ(back.fiber_centers, a.fiber_centers);
  EXPECT_EQ(back.endplate_z, a.endplate_z);
  EXPECT_EQ(back.conduction_velocity, a.conduction_velocity);
  EXPECT_EQ(back.diameter, a.diameter);
  EXPECT_EQ(back.nerve_paths, a.nerve_paths);
  EXPECT_EQ(back.electrode_positions, a.electrode_positions);
  EXPECT_EQ(back.right_mm, a.right_mm);
  EXPECT_EQ(back.dt_s, a.dt_s);
  EXPECT_EQ(back.dz_mm, a.dz_mm);
  EXPECT_TRUE(std::isnan(back.min_radial_dist_mm));
}

TEST(TEST_CATEGORY, sfap_motor_unit_refuses_bad_parameters) {
  const auto refused = [](void (*change)(MotorUnitSpec&), const std::string& words) {
    MotorUnitSpec spec;
    change(spec);
    try {
      portasim::sfap::make_motor_unit(spec);
      ADD_FAILURE() << "accepted; expected a message with '" << words << "'";
    } catch (const portasim::Error& e) {
      EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused([](MotorUnitSpec& s) { s.fibers = 0; }, "fibers");
  refused([](MotorUnitSpec& s) { s.endplate_mean_mm = 31; }, "end-plate mean");
  refused([](MotorUnitSpec& s) { s.velocity_mean_mm_per_s = -1; }, "conduction velocity mean");
  refused([](MotorUnitSpec& s) { s.diameter_sd_mm = std::nan(""); }, "diameter sd");
  refused([](MotorUnitSpec& s) { s.electrode_direction = {0, 0, 0}; }, "electrode direction");
  refused([](MotorUnitSpec& s) { s.dz_mm = 0; }, "dz");
  refused([](MotorUnitSpec& s) { s.territory_radius_mm = -1; }, "territory radius");
  // A window that holds almost none of the distribution is refused, not looped on.
  refused([](MotorUnitSpec& s) { s.muscle_length_mm = 1, s.endplate_sd_mm = 1e9; },
          "end-plate position");
}

}  // namespace test_motor_unit
