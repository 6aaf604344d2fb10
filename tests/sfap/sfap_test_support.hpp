#pragma once
// Shared helpers of the SFAP tests: the reference files, host/device copies and the relative
// Frobenius error of the parity gate.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <cstdlib>
#include "portasim/core/hdf5_file.hpp"

#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/hdf5_io.hpp"

#ifndef PORTASIM_SFAP_REFERENCE_DIR
#define PORTASIM_SFAP_REFERENCE_DIR ""
#endif
#ifndef PORTASIM_SFAP_LARGE_REFERENCE_DIR
#define PORTASIM_SFAP_LARGE_REFERENCE_DIR ""
#endif

namespace sfap_test {

// A reference file from the first folder that has it: PORTASIM_SFAP_REFERENCE_DIR in the
// environment (test binaries run on another machine get the files carried along), then the
// repository's tests/data/sfap, then the shared folder beside the repository that holds the
// benchmark-size file.
inline std::string reference_path(const std::string& name) {
  const char* override_dir = std::getenv("PORTASIM_SFAP_REFERENCE_DIR");
  for (const std::string dir :
       {std::string(override_dir ? override_dir : ""), std::string(PORTASIM_SFAP_REFERENCE_DIR),
        std::string(PORTASIM_SFAP_LARGE_REFERENCE_DIR)})
    if (!dir.empty() && std::filesystem::exists(dir + "/" + name)) return dir + "/" + name;
  return std::string(PORTASIM_SFAP_REFERENCE_DIR) + "/" + name;
}
inline bool have_reference(const std::string& name) {
  return std::filesystem::exists(reference_path(name));
}

// The small reference files are part of the repository (tests/data/sfap): a missing one is a
// broken checkout or a wrong PORTASIM_SFAP_REFERENCE_DIR, and fails the test.
#define SFAP_REQUIRE_REFERENCE(NAME)                                        \
  if (!sfap_test::have_reference(NAME))                                     \
  GTEST_FAIL() << "SFAP reference file " << sfap_test::reference_path(NAME) \
               << " is missing (tests/data/sfap, or PORTASIM_SFAP_REFERENCE_DIR)"

// The benchmark-size file (9 MB) stays out of the repository: without it the test is skipped,
// saying where it looked.
#define SFAP_REQUIRE_LARGE_REFERENCE(NAME)                          \
  if (!sfap_test::have_reference(NAME))                             \
  GTEST_SKIP() << "SFAP reference file " << (NAME)                  \
               << " is in neither PORTASIM_SFAP_REFERENCE_DIR nor " \
               << PORTASIM_SFAP_LARGE_REFERENCE_DIR

// ||a - b|| / ||b|| (absolute error when ||b|| = 0).
inline double relative_frobenius(const double* a, const double* b, std::size_t n) {
  long double diff = 0, ref = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double d = static_cast<long double>(a[i]) - b[i];
    diff += d * d;
    ref += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(ref > 0 ? std::sqrt(diff / ref) : std::sqrt(diff));
}
inline double relative_frobenius(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  return relative_frobenius(a.data(), b.data(), std::min(a.size(), b.size()));
}

template <class View>
std::vector<typename View::non_const_value_type> to_vector(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.span());
}

template <class Exec>
Kokkos::View<const double*, typename Exec::memory_space> device_vector(
    const std::vector<double>& v) {
  Kokkos::View<double*, typename Exec::memory_space> d("test_vector", v.size());
  Kokkos::deep_copy(d, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           v.data(), v.size()));
  return d;
}

template <class Exec>
Kokkos::View<const double**, Kokkos::LayoutRight, typename Exec::memory_space> device_matrix(
    const std::vector<double>& v, std::size_t n, std::size_t m) {
  Kokkos::View<double**, Kokkos::LayoutRight, typename Exec::memory_space> d("test_matrix", n, m);
  Kokkos::deep_copy(
      d,
      Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
          v.data(), n, m));
  return d;
}

constexpr double gate = 1e-12;

// A small deterministic motor unit (no reference file needed): 6 fibers, 3 electrodes, L = 30.
inline portasim::sfap::HostInputs small_unit() {
  portasim::sfap::HostInputs h;
  h.n_fibers = 6;
  h.n_electrodes = 3;
  h.left_mm = 0;
  h.right_mm = 30;
  for (int f = 0; f < 6; ++f) {
    h.fiber_centers.push_back(0.3 * std::cos(1.1 * f));
    h.fiber_centers.push_back(0.3 * std::sin(1.1 * f));
    h.endplate_z.push_back(14.0 + 0.37 * f);
    h.conduction_velocity.push_back(3500.0 + 150.0 * f);
    h.diameter.push_back(0.05 + 0.002 * f);
    h.nerve_paths.push_back(0.7 * f);
    h.nerve_paths.push_back(0.4 * f);
  }
  for (int e = 0; e < 3; ++e) {
    h.electrode_positions.push_back(0.5);
    h.electrode_positions.push_back(0.2);
    h.electrode_positions.push_back(13.0 + 2.0 * e);
  }
  return h;
}

}  // namespace sfap_test
