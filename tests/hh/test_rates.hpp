#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "portasim/hh/rates.hpp"

namespace test_hh_rates {

// Reference in long double with the removable singularity handled by a series.
inline long double reference_inverse_exprel(long double u) {
  if (std::fabs(u) < 1e-6L) return 1.0L + u / 2.0L + u * u / 12.0L;
  return u / -std::expm1(-u);
}
inline long double reference_alpha_m(long double v) {
  return reference_inverse_exprel((v + 40.0L) / 10.0L);
}
inline long double reference_alpha_n(long double v) {
  return 0.1L * reference_inverse_exprel((v + 55.0L) / 10.0L);
}

// Voltages at and around the singular points, down to single ulps of float.
inline std::vector<double> probe_voltages() {
  std::vector<double> v;
  for (double centre : {-40.0, -55.0}) {
    for (double offset : {0.0, 1e-7, -1e-7, 1e-6, -1e-6, 1e-5, -1e-5, 1e-4, -1e-4, 1e-3, -1e-3,
                          0.01, -0.01, 0.5, -0.5, 3.0, -3.0})
      v.push_back(centre + offset);
    float f = static_cast<float>(centre);
    for (int i = 0; i < 4; ++i) {
      f = std::nextafter(f, 0.0f);
      v.push_back(f);
    }
    f = static_cast<float>(centre);
    for (int i = 0; i < 4; ++i) {
      f = std::nextafter(f, -100.0f);
      v.push_back(f);
    }
  }
  for (double x = -120; x <= 60; x += 0.37) v.push_back(x);
  return v;
}

template <class Exec, class Scalar>
void rates_are_finite_and_accurate(double tolerance) {
  const auto voltages = probe_voltages();
  const std::size_t count = voltages.size();
  Kokkos::View<Scalar*, typename Exec::memory_space> v("v", count), am("am", count),
      an("an", count);
  Kokkos::View<int*, typename Exec::memory_space> finite("finite", count);
  Kokkos::View<Scalar* [4], typename Exec::memory_space> others("others", count);
  auto v_host = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < count; ++i) v_host(i) = static_cast<Scalar>(voltages[i]);
  Kokkos::deep_copy(v, v_host);
  Kokkos::parallel_for(
      "rates", Kokkos::RangePolicy<Exec>(0, count), KOKKOS_LAMBDA(const int i) {
        namespace m = portasim::compat::math;
        const auto r = portasim::hh::gate_rates(v(i));
        am(i) = r.alpha_m;
        an(i) = r.alpha_n;
        others(i, 0) = r.beta_m / portasim::hh::beta_m(v(i));
        others(i, 1) = r.alpha_h / portasim::hh::alpha_h(v(i));
        others(i, 2) = r.beta_h / portasim::hh::beta_h(v(i));
        others(i, 3) = r.beta_n / portasim::hh::beta_n(v(i));
        finite(i) = m::isfinite(r.alpha_m) && m::isfinite(r.beta_m) && m::isfinite(r.alpha_h) &&
                    m::isfinite(r.beta_h) && m::isfinite(r.alpha_n) && m::isfinite(r.beta_n);
      });
  auto am_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), am);
  auto an_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), an);
  auto finite_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), finite);
  auto others_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), others);
  for (std::size_t i = 0; i < count; ++i) {
    const long double vi = static_cast<long double>(v_host(i));  // the voltage actually used
    ASSERT_TRUE(finite_host(i)) << "V = " << vi;
    const long double ref_m = reference_alpha_m(vi), ref_n = reference_alpha_n(vi);
    EXPECT_LE(std::fabs((am_host(i) - ref_m) / ref_m), tolerance)
        << "alpha_m at V = " << static_cast<double>(vi);
    EXPECT_LE(std::fabs((an_host(i) - ref_n) / ref_n), tolerance)
        << "alpha_n at V = " << static_cast<double>(vi);
    for (int j = 0; j < 4; ++j)  // the other rates: shared exponentials vs one each
      EXPECT_NEAR(others_host(i, j), 1.0, tolerance)
          << "rate " << j << " at V = " << static_cast<double>(vi);
  }
}

TEST(TEST_CATEGORY, hh_rates_exact_limits_at_singular_voltages) {
  EXPECT_EQ(portasim::hh::alpha_m(-40.0), 1.0);
  EXPECT_EQ(portasim::hh::alpha_n(-55.0), 0.1);
  EXPECT_EQ(portasim::hh::alpha_m(-40.0f), 1.0f);
  EXPECT_FLOAT_EQ(portasim::hh::alpha_n(-55.0f), 0.1f);
}

// Relative error: a few ulps of each precision (float ~1e-7 per the spec).
TEST(TEST_CATEGORY, hh_rates_accurate_near_singularities_float) {
  rates_are_finite_and_accurate<TEST_EXECSPACE, float>(6e-7);
}
TEST(TEST_CATEGORY, hh_rates_accurate_near_singularities_double) {
  rates_are_finite_and_accurate<TEST_EXECSPACE, double>(1e-14);
}

}  // namespace test_hh_rates
