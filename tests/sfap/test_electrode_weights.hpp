// MyoGen's source summed by parts (impl/electrode_weights.hpp), on every backend: the sum over
// the grid's rows of the source times an electrode's response equals the sum of psi times the
// weights over psi_window's rows, on both branches of the long side, with and without the
// end-plate zone, at times from the wave's start to past the fiber's ends.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include "portasim/sfap/impl/electrode_weights.hpp"
#include "portasim/sfap/physics.hpp"

namespace test_sfap_electrode_weights {

namespace ps = portasim::sfap;
namespace impl = portasim::sfap::impl;

struct Sums {
  double by_source = 0, by_weights = 0, magnitude = 0;
};

// The volume conductor of one electrode 0.6 mm off the fiber at z = 13 mm.
KOKKOS_INLINE_FUNCTION double response(double z) {
  return ps::elementary_response(z, 0.6, 13.0, 0.09, 0.4);
}

template <class Exec>
Sums project_both_ways(const Exec& exec, const ps::FiberGrid& g, double t, bool suppress) {
  constexpr double d1 = 96.0, half_width = 1.0;
  Sums s;
  Kokkos::parallel_reduce(
      "test_sfap_source_sum", Kokkos::RangePolicy<Exec>(exec, 0, g.n_z),
      KOKKOS_LAMBDA(const std::int64_t k, double& sum, double& magnitude) {
        const ps::GridZ z{&g};
        const ps::PointCoefficients c = ps::point_coefficients(g, z, k, suppress, half_width);
        const double term = ps::current_density(g, z, k, c, t, d1) * response(z(k));
        sum += term;
        magnitude += term < 0 ? -term : term;
      },
      s.by_source, s.magnitude);
  std::int64_t lo = 0, hi = -1;
  impl::psi_window(impl::source_rows(g, ps::GridZ{&g}, t), g.n_z, lo, hi);
  Kokkos::parallel_reduce(
      "test_sfap_weights_sum", Kokkos::RangePolicy<Exec>(exec, 0, g.n_z + 1),
      KOKKOS_LAMBDA(const std::int64_t i, double& sum) {
        const ps::GridZ z{&g};
        const auto flags = [&](std::int64_t k) {
          return impl::row_flags(ps::point_coefficients(g, z, k, suppress, half_width));
        };
        const auto h = [&](std::int64_t k) { return response(z(k)); };
        const double w = impl::electrode_weight(g, flags, h, i);
        // Outside the window the product must vanish: no term is dropped there.
        const double p = ps::psi(g.right_longer, g.zi, g.v, t, z(i), d1);
        if (i >= lo && i <= hi) sum += p * w;
        else if (p * w != 0.0) sum += 1.0;  // fails the comparison below
      },
      s.by_weights);
  return s;
}

template <class Exec>
void weights_project_the_source() {
  const Exec exec;
  // End-plates left of the middle (the right side is the long one) and right of it.
  for (const double zi : {12.3, 17.9})
    for (const bool suppress : {false, true}) {
      const ps::FiberGrid g = ps::make_fiber_grid(zi, 0.0, 30.0, 0.1, 4000.0, 0.05, 1.01);
      const double duration = 2 * (g.L1 > g.L2 ? g.L1 : g.L2) / g.v;
      int nonzero = 0;
      for (int step = 0; step <= 40; ++step) {
        const double t = duration * step / 40;
        const Sums s = project_both_ways(exec, g, t, suppress);
        if (s.magnitude > 0) ++nonzero;
        EXPECT_LE(std::fabs(s.by_weights - s.by_source), 1e-12 * s.magnitude + 1e-300)
            << "zi " << zi << (suppress ? " suppressed" : "") << " t " << t << ": " << s.by_weights
            << " against " << s.by_source;
      }
      EXPECT_GT(nonzero, 30) << "the source must not vanish at most times";
    }
}

TEST(TEST_CATEGORY, sfap_electrode_weights_project_the_source) {
  weights_project_the_source<TEST_EXECSPACE>();
}

}  // namespace test_sfap_electrode_weights
