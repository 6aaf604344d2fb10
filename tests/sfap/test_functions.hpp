// Per-function unit tests against unit_single_fiber.h5 (every group), plus NumPy semantics.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <vector>

#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/impl/fiber_grids.hpp"
#include "portasim/sfap/physics.hpp"
#include "sfap/sfap_test_support.hpp"

namespace test_sfap_functions {

using namespace sfap_test;
namespace ps = portasim::sfap;
constexpr const char* unit_file = "unit_single_fiber.h5";

template <class Exec>
void tm_current_matches() {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  const auto x = file.read<double>("/get_tm_current_dz/x");
  const auto y_ref = file.read<double>("/get_tm_current_dz/y");
  const auto y = to_vector(ps::tm_current(Exec(), device_vector<Exec>(x)));
  EXPECT_LE(relative_frobenius(y, y_ref), gate);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0)) EXPECT_EQ(y[i], 0.0) << "f(" << x[i] << ") must be 0";
    EXPECT_NEAR(y[i], y_ref[i], 1e-12 * (1 + std::fabs(y_ref[i]))) << "x = " << x[i];
  }
}

template <class Exec>
void current_density_matches(const std::string& group) {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  const std::string g = "/" + group;
  std::vector<std::size_t> shape;
  const auto t = file.read<double>(g + "/t");
  const auto z = file.read<double>(g + "/z");
  const auto cd_ref = file.read<double>(g + "/cd", &shape);
  ASSERT_EQ(shape.size(), 2u);
  ps::FiberSource fiber;
  fiber.zi = file.read_attribute<double>(g, "zi");
  fiber.L1 = file.read_attribute<double>(g, "L1");
  fiber.L2 = file.read_attribute<double>(g, "L2");
  fiber.v = file.read_attribute<double>(g, "v");
  fiber.d = file.read_attribute<double>(g, "d");
  std::int64_t shift = 0;
  const auto cd = ps::current_density(Exec(), device_vector<Exec>(t), device_vector<Exec>(z), fiber,
                                      ps::Options{}, &shift);
  ASSERT_EQ(cd.extent(0), shape[0]);
  ASSERT_EQ(cd.extent(1), shape[1]);
  EXPECT_EQ(shift, file.read_attribute<std::int64_t>(g, "mirror_shift"));
  EXPECT_LE(relative_frobenius(to_vector(cd), cd_ref), gate) << group;
  // The grids built as calc_sfaps builds them are reproduced bit for bit.
  if (file.has_attribute(g, "dz_nominal")) {
    const double dz = file.read_attribute<double>(g, "dz_nominal");
    const double right = fiber.zi + fiber.L1, left = fiber.zi - fiber.L2;
    const auto zg = to_vector(ps::z_grid(Exec(), fiber.zi, left, right, dz));
    ASSERT_EQ(zg.size(), z.size());
    for (std::size_t k = 0; k < z.size(); ++k)
      ASSERT_EQ(zg[k], z[k]) << "z[" << k << "] of " << group;
  }
}

template <class Exec>
void elementary_response_and_chain_match() {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  const std::string g = "/get_elementary_current_response";
  const auto z = file.read<double>(g + "/z");
  const auto r = file.read<double>(g + "/r");
  const auto h_ref = file.read<double>(g + "/h");
  ps::Options o;
  o.sigma_r = file.read_attribute<double>(g, "sigma_r") / 1000;
  o.sigma_z = file.read_attribute<double>(g, "sigma_z") / 1000;
  const auto h = to_vector(ps::elementary_response(
      Exec(), device_vector<Exec>(z), r.at(0), file.read_attribute<double>(g, "z_electrode"), o));
  EXPECT_LE(relative_frobenius(h, h_ref), gate);
  // chain: (cd.T @ h)[:, 0]
  const std::string c = "/get_current_density";
  ps::FiberSource fiber{file.read_attribute<double>(c, "zi"), file.read_attribute<double>(c, "L1"),
                        file.read_attribute<double>(c, "L2"), file.read_attribute<double>(c, "v"),
                        file.read_attribute<double>(c, "d")};
  const auto t = file.read<double>(c + "/t");
  const auto cd = to_vector(ps::current_density(
      Exec(), device_vector<Exec>(t), device_vector<Exec>(file.read<double>(c + "/z")), fiber, o));
  const auto sfap_ref = file.read<double>("/chain/sfap");
  std::vector<double> sfap(t.size(), 0.0);
  for (std::size_t j = 0; j < t.size(); ++j)
    for (std::size_t k = 0; k < h.size(); ++k) sfap[j] += cd[k * t.size() + j] * h[k];
  EXPECT_LE(relative_frobenius(sfap, sfap_ref), gate);
}

template <class Exec>
void shift_padding_matches() {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  const auto vec = file.read<double>("/shift_padding/vec");
  const std::vector<std::pair<const char*, int>> cases{
      {"m5", -5}, {"p0", 0}, {"p5", 5}, {"p20", 20}, {"m100", -100}, {"p100", 100}, {"p150", 150}};
  for (const auto& [name, sh] : cases) {
    const auto ref = file.read<double>(std::string("/shift_padding/out_sh") + name);
    const auto out =
        to_vector(ps::shift_padding(Exec(), device_matrix<Exec>(vec, vec.size(), 1), sh));
    EXPECT_EQ(out, ref) << "shift " << sh;
  }
  const auto mat = file.read<double>("/shift_padding/mat");
  for (const auto& [name, sh] : std::vector<std::pair<const char*, int>>{{"m3", -3}, {"p4", 4}}) {
    const auto ref = file.read<double>(std::string("/shift_padding/mat_out_sh_") + name);
    const auto out = to_vector(ps::shift_padding(Exec(), device_matrix<Exec>(mat, 12, 5), sh));
    EXPECT_EQ(out, ref) << "matrix shift " << sh;
  }
}

template <class Exec>
void hr_shift_template_matches() {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  const std::vector<std::pair<const char*, double>> delays{
      {"p0_000", 0.0}, {"m0_300", -0.3}, {"p0_250", 0.25}, {"m0_999", -0.999}, {"p2_500", 2.5}};
  for (const char* parity : {"even", "odd"}) {
    const auto x = file.read<double>(std::string("/hr_shift_template/x_") + parity);
    for (const auto& [name, delay] : delays) {
      const auto ref =
          file.read<double>(std::string("/hr_shift_template/out_") + parity + "_delay_" + name);
      const auto y = to_vector(ps::hr_shift_template(Exec(), device_vector<Exec>(x), delay));
      EXPECT_LE(relative_frobenius(y, ref), gate) << parity << " delay " << delay;
    }
  }
}

// hr_shift_template against the FFT delay's defining sum, c[u] = (1 + 2 sum_k cos(2 pi k
// (u - d) / N)) / N in long double, for whole and fractional delays of either sign: the
// closed form (physics.hpp's delay_kernel) must hold where its sines vanish, at whole delays.
template <class Exec>
void hr_shift_template_matches_the_sum() {
  const auto file = portasim::io::H5File::open_read(reference_path(unit_file));
  for (const char* parity : {"even", "odd"}) {
    const auto x = file.read<double>(std::string("/hr_shift_template/x_") + parity);
    const auto n = static_cast<std::int64_t>(x.size());
    const std::int64_t np = n % 2 == 1 ? n : n + 1;
    for (const double delay : {1.0, -1.0, 2.0, -2.0, 3.0, 7.0, -40.0, 0.5, -7.25}) {
      std::vector<long double> c(static_cast<std::size_t>(np));
      const long double two_pi = 6.283185307179586476925286766559L;
      for (std::int64_t u = 0; u < np; ++u) {
        long double sum = 0;
        for (std::int64_t k = 1; k <= (np - 1) / 2; ++k)
          sum += std::cos(two_pi * static_cast<long double>(k) *
                          (static_cast<long double>(u) + delay) / static_cast<long double>(np));
        c[static_cast<std::size_t>(u)] = (1 + 2 * sum) / static_cast<long double>(np);
      }
      std::vector<double> ref(x.size());
      for (std::int64_t j = 0; j < n; ++j) {
        long double y = 0;
        for (std::int64_t m = 0; m < n; ++m)
          y += x[static_cast<std::size_t>(m)] * c[static_cast<std::size_t>((j - m + np) % np)];
        ref[static_cast<std::size_t>(j)] = static_cast<double>(y);
      }
      const auto y = to_vector(ps::hr_shift_template(Exec(), device_vector<Exec>(x), delay));
      EXPECT_LE(relative_frobenius(y, ref), 1e-13) << parity << " delay " << delay;
    }
  }
}

// numpy/core/src/umath/loops_utils.h.src, pairwise_sum_@TYPE@ (PW_BLOCKSIZE 128), transcribed.
inline double numpy_pairwise(const double* a, std::int64_t n) {
  if (n < 8) {
    double res = 0.;
    for (std::int64_t i = 0; i < n; i++) res += a[i];
    return res;
  } else if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::int64_t i;
    for (i = 8; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[i];
    return res;
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise(a, n2) + numpy_pairwise(a + n2, n - n2);
}

// NumPy facts checked without the reference files.
inline void numpy_semantics() {
  // arange lengths: len(np.arange(0, 0.3, 0.1)) == 3, len(np.arange(1, 0.7, -0.1)) == 3 (0.7 - 1 =
  // -0.30000000000000004)
  EXPECT_EQ(ps::arange_length(0.0, 0.3, 0.1), 3);
  EXPECT_EQ(ps::arange_length(1.0, 0.7, -0.1), 4);
  EXPECT_EQ(ps::arange_length(0.0, -1.0, 0.1), 0);
  // np.arange(0.1, 1, 0.1)[5] == 0.6 (0.1 + 5*(0.2 - 0.1)), not 0.1 + 5*0.1 = 0.6000000000000001
  EXPECT_EQ(ps::arange_element(0.1, 0.1, 5), 0.1 + 5 * ((0.1 + 0.1) - 0.1));
  // round half to even
  EXPECT_EQ(ps::round_half_even(0.5), 0);
  EXPECT_EQ(ps::round_half_even(1.5), 2);
  EXPECT_EQ(ps::round_half_even(2.5), 2);
  EXPECT_EQ(ps::round_half_even(-0.5), 0);
  EXPECT_EQ(ps::round_half_even(-1.5), -2);
  EXPECT_EQ(ps::round_half_even(-41.2), -41);
  // pairwise sum: exact on integers; the 8-accumulator order is visible on 1 + tiny values:
  // np.sum([1.0] + [2**-53]*15) -> the tiny values collect in their own accumulators.
  std::vector<double> v(16, std::ldexp(1.0, -53));
  v[0] = 1.0;
  struct Vals {
    const double* p;
    KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return p[i]; }
  };
  // r[0] = 1 + 2^-53 (rounds to 1), r[1..7] = 2*2^-53 each; sum = ((1 + 2^-52) + ...) = 1 + 7*2^-52
  // rounded
  const double expected = ((v[0] + v[8]) + (v[1] + v[9])) + ((v[2] + v[10]) + (v[3] + v[11])) +
                          (((v[4] + v[12]) + (v[5] + v[13])) + ((v[6] + v[14]) + (v[7] + v[15])));
  EXPECT_EQ(ps::pairwise_sum(Vals{v.data()}, 16), expected);
  double sequential = 0;
  for (double x : v) sequential += x;
  EXPECT_NE(expected, sequential);  // the test can tell the orders apart
  // Longer sums against a literal transcription of NumPy's recursive pairwise_sum_DOUBLE.
  for (std::int64_t n : {7, 8, 100, 128, 129, 300, 601, 1000, 6001, 60001}) {
    std::vector<double> w(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      w[i] = 0.1 + 1e-3 * std::sin(0.37 * static_cast<double>(i)) + std::ldexp(1.0, -40) * (i % 7);
    EXPECT_EQ(ps::pairwise_sum(Vals{w.data()}, n), numpy_pairwise(w.data(), n)) << "n = " << n;
  }
}

TEST(TEST_CATEGORY, sfap_numpy_semantics) { numpy_semantics(); }

template <class MemorySpace>
struct DeviceValues {
  Kokkos::View<const double*, MemorySpace> x;
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const { return x(i); }
};

// A team's pairwise sum (blocks in parallel, in waves of team_sum_wave blocks, then the tree)
// is NumPy's, bit for bit, also past the blocks its scratch holds (200001 values), where one
// thread forms it.
template <class Exec>
void team_pairwise_sum_matches() {
  using team_policy = Kokkos::TeamPolicy<Exec>;
  using member = typename team_policy::member_type;
  using memory = typename Exec::memory_space;
  namespace impl = portasim::sfap::impl;
  using scratch = impl::PairwiseScratch<typename Exec::scratch_memory_space>;
  for (std::int64_t n : {1, 7, 128, 129, 601, 2049, 6001, 60001, 200001}) {
    std::vector<double> w(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      w[i] = 0.1 + 1e-3 * std::sin(0.37 * static_cast<double>(i)) + std::ldexp(1.0, -40) * (i % 7);
    const auto x = device_vector<Exec>(w);
    Kokkos::View<double, memory> out("team_sum");
    Kokkos::parallel_for(
        "test_team_pairwise_sum",
        team_policy(Exec(), 1, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch::bytes())),
        KOKKOS_LAMBDA(const member& team) {
          const double s = impl::team_pairwise_sum(team, DeviceValues<memory>{x}, n, scratch(team));
          Kokkos::single(Kokkos::PerTeam(team), [&]() { out() = s; });
        });
    double got = 0;
    Kokkos::deep_copy(got, out);
    EXPECT_EQ(got, numpy_pairwise(w.data(), n)) << "n = " << n;
  }
}

TEST(TEST_CATEGORY, sfap_team_pairwise_sum) { team_pairwise_sum_matches<TEST_EXECSPACE>(); }

TEST(TEST_CATEGORY, sfap_tm_current) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  tm_current_matches<TEST_EXECSPACE>();
}

TEST(TEST_CATEGORY, sfap_current_density_myogen_test_inputs) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  current_density_matches<TEST_EXECSPACE>("get_current_density");
}
TEST(TEST_CATEGORY, sfap_current_density_L1_gt_L2) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  current_density_matches<TEST_EXECSPACE>("get_current_density_L1gtL2");
}
TEST(TEST_CATEGORY, sfap_current_density_L2_gt_L1) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  current_density_matches<TEST_EXECSPACE>("get_current_density_L2gtL1");
}
TEST(TEST_CATEGORY, sfap_current_density_on_grid_dz0p5) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  current_density_matches<TEST_EXECSPACE>("get_current_density_ongrid_dz0p5");
}
TEST(TEST_CATEGORY, sfap_elementary_response_and_chain) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  elementary_response_and_chain_match<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, sfap_shift_padding) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  shift_padding_matches<TEST_EXECSPACE>();
}
TEST(TEST_CATEGORY, sfap_hr_shift_template_matches_the_sum) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  hr_shift_template_matches_the_sum<TEST_EXECSPACE>();
}

TEST(TEST_CATEGORY, sfap_hr_shift_template) {
  SFAP_REQUIRE_REFERENCE(unit_file);
  hr_shift_template_matches<TEST_EXECSPACE>();
}

}  // namespace test_sfap_functions
