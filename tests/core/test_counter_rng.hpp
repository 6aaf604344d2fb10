#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

#include "portasim/core/counter_rng.hpp"

namespace test_counter_rng {

// Known-answer vectors of Philox4x32-10 from Random123 (kat_vectors), evaluated on the
// backend: counter (c0..c3) = (counter lo, counter hi, stream lo, stream hi), key = seed.
template <class Exec>
void philox_matches_random123_known_answers() {
  Kokkos::View<std::uint32_t[3][4], typename Exec::memory_space> out("out");
  Kokkos::parallel_for(
      "kat", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(const int) {
        const portasim::Philox4x32 zero = portasim::philox4x32(0, 0, 0);
        const portasim::Philox4x32 ones =
            portasim::philox4x32(~std::uint64_t(0), ~std::uint64_t(0), ~std::uint64_t(0));
        const portasim::Philox4x32 pi =
            portasim::philox4x32((std::uint64_t(0x299f31d0) << 32) | 0xa4093822u,
                                 (std::uint64_t(0x03707344) << 32) | 0x13198a2eu,
                                 (std::uint64_t(0x85a308d3) << 32) | 0x243f6a88u);
        for (int i = 0; i < 4; ++i) {
          out(0, i) = zero.v[i];
          out(1, i) = ones.v[i];
          out(2, i) = pi.v[i];
        }
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  const std::uint32_t expected[3][4] = {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
                                        {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
                                        {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(host(r, i), expected[r][i]) << "vector " << r << " word " << i;
}

// A million normals drawn on the backend have the moments of N(0, 1), and uniforms lie
// in [0, 1) with mean 1/2.
template <class Exec>
void normal_and_uniform_moments() {
  const int n = 1 << 20;
  Kokkos::View<double*, typename Exec::memory_space> normals("normals", n), uniforms("uniforms", n);
  Kokkos::parallel_for(
      "draw", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const int i) {
        normals(i) = portasim::counter_normal(42, 7, static_cast<std::uint64_t>(i));
        uniforms(i) = portasim::counter_uniform(42, 8, static_cast<std::uint64_t>(i));
      });
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), normals);
  auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), uniforms);
  double sum = 0, squares = 0, fourth = 0, uniform_sum = 0;
  int out_of_range = 0;
  for (int i = 0; i < n; ++i) {
    sum += x(i);
    squares += x(i) * x(i);
    fourth += x(i) * x(i) * x(i) * x(i);
    uniform_sum += y(i);
    out_of_range += !(y(i) >= 0.0 && y(i) < 1.0);
  }
  EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(double(n)));
  EXPECT_NEAR(squares / n, 1.0, 0.01);
  EXPECT_NEAR(fourth / n, 3.0, 0.05);
  EXPECT_NEAR(uniform_sum / n, 0.5, 0.002);
  EXPECT_EQ(out_of_range, 0);
}

TEST(TEST_CATEGORY, philox_known_answers) {
  philox_matches_random123_known_answers<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, counter_rng_moments) { normal_and_uniform_moments<TEST_EXECSPACE>(); }

}  // namespace test_counter_rng
