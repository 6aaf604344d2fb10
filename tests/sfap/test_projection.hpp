// The projection of every backend agrees with the host's (one fiber at a time through the
// BLAS) on shapes the reference files do not reach: fine grids whose sums over the points
// are split into several shares, one to many blocks of electrodes (more than one team's worth
// of blocks too, and the team shapes with the most scratch), the corrected source, and series
// long enough that the delays' scratch no longer fits a device's shared memory.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <iostream>
#include <vector>

#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/hdf5_io.hpp"
#include "sfap/sfap_test_support.hpp"

namespace test_sfap_projection {

using namespace sfap_test;
namespace ps = portasim::sfap;

// 5 fibers on a 30 mm muscle, end-plates on both sides of the middle (both branches of the
// long side), and `electrodes` electrodes along and around it.
inline ps::HostInputs unit(int electrodes) {
  ps::HostInputs h;
  h.n_fibers = 5;
  h.n_electrodes = static_cast<std::size_t>(electrodes);
  h.left_mm = 0;
  h.right_mm = 30;
  for (int f = 0; f < 5; ++f) {
    h.fiber_centers.push_back(0.4 * std::cos(1.3 * f));
    h.fiber_centers.push_back(0.4 * std::sin(1.3 * f));
    h.endplate_z.push_back(12.5 + 1.3 * f);
    h.conduction_velocity.push_back(3200.0 + 400.0 * f);
    h.diameter.push_back(0.045 + 0.004 * f);
    h.nerve_paths.push_back(0.5 * f);
    h.nerve_paths.push_back(0.3 * f);
  }
  for (int e = 0; e < electrodes; ++e) {
    h.electrode_positions.push_back(1.5 * std::cos(0.7 * e));
    h.electrode_positions.push_back(1.5 * std::sin(0.7 * e));
    h.electrode_positions.push_back(5.0 + 20.0 * e / electrodes);
  }
  return h;
}

template <class Exec>
void agrees_with_host(int electrodes, double dz_mm, bool corrected, double dt_s = 0.0) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  const auto h = unit(electrodes);
  ps::Options o;
  o.apply_delays = dt_s > 0;
  o.dt_s = dt_s;
  o.dz_mm = dz_mm;
  o.corrected_source = corrected;
  Exec exec;
  Host host;
  const auto here_result = ps::compute(exec, ps::upload(exec, h), o);
  const auto reference_result = ps::compute(host, ps::upload(host, h), o);
  const auto here =
      to_vector(o.apply_delays ? here_result.sfaps_post_shift : here_result.sfaps_pre_shift);
  const auto reference = to_vector(o.apply_delays ? reference_result.sfaps_post_shift
                                                  : reference_result.sfaps_pre_shift);
  ASSERT_EQ(here.size(), reference.size());
  double norm = 0;
  for (double x : reference) norm += x * x;
  ASSERT_GT(norm, 0.0);
  const double err = relative_frobenius(here, reference);
  std::cout << "[ projection ] " << electrodes << " electrodes, dz " << dz_mm
            << (corrected ? " corrected" : "") << (o.apply_delays ? " delayed" : "") << ", "
            << here_result.nt << " times: " << err << "\n";
  EXPECT_LE(err, gate);
}

// 1500 points: two shares of the sum over k.
TEST(TEST_CATEGORY, sfap_projection_fine_grid_one_block) {
  agrees_with_host<TEST_EXECSPACE>(3, 0.02, false);
  agrees_with_host<TEST_EXECSPACE>(1, 0.02, false);
  agrees_with_host<TEST_EXECSPACE>(2, 0.02, false);
}

TEST(TEST_CATEGORY, sfap_projection_fine_grid_several_blocks) {
  agrees_with_host<TEST_EXECSPACE>(9, 0.02, false);
}

// 130 electrodes: 33 blocks of 4, more than one team holds; 121: 31 blocks; 56 and 60: 14
// and 15 blocks, the teams whose scratch comes closest to a device's shared memory (h
// staged, then not); 24 and 28: 6 and 7 blocks, h staged at four rows per block.
TEST(TEST_CATEGORY, sfap_projection_many_electrodes) {
  agrees_with_host<TEST_EXECSPACE>(130, 0.25, false);
  agrees_with_host<TEST_EXECSPACE>(121, 0.25, false);
  agrees_with_host<TEST_EXECSPACE>(60, 0.25, false);
  agrees_with_host<TEST_EXECSPACE>(56, 0.25, false);
  agrees_with_host<TEST_EXECSPACE>(28, 0.25, false);
  agrees_with_host<TEST_EXECSPACE>(24, 0.25, false);
}

// 2.5 us steps: several thousand samples, whose delay kernels go to level-1 scratch.
TEST(TEST_CATEGORY, sfap_delays_long_series) {
  agrees_with_host<TEST_EXECSPACE>(2, 0.5, false, 2.5e-6);
}

TEST(TEST_CATEGORY, sfap_projection_corrected_source_fine_grid) {
  agrees_with_host<TEST_EXECSPACE>(9, 0.02, true);
}

}  // namespace test_sfap_projection
