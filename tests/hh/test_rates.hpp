#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
inline long double reference_beta_m(long double v) { return 4.0L * std::exp(-(v + 65.0L) / 18.0L); }
inline long double reference_alpha_h(long double v) {
  return 0.07L * std::exp(-(v + 65.0L) / 20.0L);
}
inline long double reference_beta_h(long double v) {
  return 1.0L / (1.0L + std::exp(-(v + 35.0L) / 10.0L));
}
inline long double reference_beta_n(long double v) {
  return 0.125L * std::exp(-(v + 65.0L) / 80.0L);
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
  for (int step = 0; step <= 18000; ++step) v.push_back(-120.0 + 0.01 * step);
  return v;
}

template <class Exec, class Scalar>
void rates_are_finite_and_accurate(double tolerance) {
  const auto voltages = probe_voltages();
  const std::size_t count = voltages.size();
  Kokkos::View<Scalar*, typename Exec::memory_space> v("v", count);
  Kokkos::View<Scalar* [6], typename Exec::memory_space> rates("rates", count);
  Kokkos::View<int*, typename Exec::memory_space> finite("finite", count);
  auto v_host = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < count; ++i) v_host(i) = static_cast<Scalar>(voltages[i]);
  Kokkos::deep_copy(v, v_host);
  Kokkos::parallel_for(
      "rates", Kokkos::RangePolicy<Exec>(0, count), KOKKOS_LAMBDA(const int i) {
        namespace m = portasim::compat::math;
        const auto r = portasim::hh::gate_rates(v(i));
        rates(i, 0) = r.alpha_m;
        rates(i, 1) = r.beta_m;
        rates(i, 2) = r.alpha_h;
        rates(i, 3) = r.beta_h;
        rates(i, 4) = r.alpha_n;
        rates(i, 5) = r.beta_n;
        finite(i) = m::isfinite(r.alpha_m) && m::isfinite(r.beta_m) && m::isfinite(r.alpha_h) &&
                    m::isfinite(r.beta_h) && m::isfinite(r.alpha_n) && m::isfinite(r.beta_n);
      });
  auto rates_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rates);
  auto finite_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), finite);
  const char* names[6] = {"alpha_m", "beta_m", "alpha_h", "beta_h", "alpha_n", "beta_n"};
  double worst[6] = {0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < count; ++i) {
    const long double vi = static_cast<long double>(v_host(i));  // the voltage actually used
    ASSERT_TRUE(finite_host(i)) << "V = " << static_cast<double>(vi);
    const long double reference[6] = {reference_alpha_m(vi), reference_beta_m(vi),
                                      reference_alpha_h(vi), reference_beta_h(vi),
                                      reference_alpha_n(vi), reference_beta_n(vi)};
    for (int j = 0; j < 6; ++j) {
      const double error = static_cast<double>(
          std::fabs((static_cast<long double>(rates_host(i, j)) - reference[j]) / reference[j]));
      worst[j] = std::max(worst[j], error);
      EXPECT_LE(error, tolerance) << names[j] << " at V = " << static_cast<double>(vi);
    }
  }
  for (int j = 0; j < 6; ++j)
    std::printf("  %s: worst relative error %.3g (%.1f ulp)\n", names[j], worst[j],
                worst[j] / std::numeric_limits<Scalar>::epsilon());
}

TEST(TEST_CATEGORY, hh_rates_exact_limits_at_singular_voltages) {
  EXPECT_EQ(portasim::hh::alpha_m(-40.0), 1.0);
  EXPECT_EQ(portasim::hh::alpha_n(-55.0), 0.1);
  EXPECT_EQ(portasim::hh::alpha_m(-40.0f), 1.0f);
  EXPECT_FLOAT_EQ(portasim::hh::alpha_n(-55.0f), 0.1f);
}

// Every rate against a long double reference at the same voltage, every 0.01 mV from -120 to
// 60 mV and at the singular points, within a bound in ulps of the precision. The terms of
// the bound: rounding u = (V+c)/k, amplified by exp up to |u| ulp at the ends of the range
// (|u| <= 8); the exponential's own error, up to 4 ulp for glibc's vector exp on the host
// and 2 + floor(1.173 |x|) ulp for __expf on the GPU in float (exp_approx; 11 at the x = 8
// of e_m at -120 mV, 10 for b_m at 60 mV); divide_approx's 2 ulp; and a_h, exp(-(V+65)/80)
// to the fourth, which carries four times its exponential's error (about 21 ulp at worst
// in float on the GPU). Hence 24 ulp in float and 16 in double, whose exp is within 1-4 ulp.
TEST(TEST_CATEGORY, hh_rates_accurate_near_singularities_float) {
  rates_are_finite_and_accurate<TEST_EXECSPACE, float>(24 * std::numeric_limits<float>::epsilon());
}
TEST(TEST_CATEGORY, hh_rates_accurate_near_singularities_double) {
  rates_are_finite_and_accurate<TEST_EXECSPACE, double>(16 *
                                                        std::numeric_limits<double>::epsilon());
}

}  // namespace test_hh_rates
