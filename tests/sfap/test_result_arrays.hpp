// Where compute's result arrays come from (impl/result_arrays.hpp): a result's arrays are its
// own while anyone holds them, and a call reuses those of a result its caller has let go of.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "portasim/sfap/compute.hpp"
#include "sfap/sfap_test_support.hpp"

namespace test_sfap_result_arrays {

using namespace sfap_test;
namespace ps = portasim::sfap;

// Every array of a result, as host vectors (a poisoned value that survives differs from the
// expected one, NaN included).
template <class Result>
std::vector<std::vector<double>> arrays_of(const Result& r) {
  std::vector<std::vector<double>> a = {
      to_vector(r.t),     to_vector(r.sfaps_pre_shift), to_vector(r.sfaps_post_shift),
      to_vector(r.muap),  to_vector(r.delays_s),        to_vector(r.dz_hat),
      to_vector(r.r_raw), to_vector(r.r_used)};
  const auto n_z = to_vector(r.n_z);
  const auto shift = to_vector(r.mirror_shift);
  a.emplace_back(n_z.begin(), n_z.end());
  a.emplace_back(shift.begin(), shift.end());
  const auto branch = to_vector(r.branch_L1_ge_L2);
  a.emplace_back(branch.begin(), branch.end());
  return a;
}

// Values no call writes, so that a reused array the call failed to fill shows.
template <class Result>
void poison(const Result& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Kokkos::deep_copy(r.t, nan);
  Kokkos::deep_copy(r.delays_s, nan);
  Kokkos::deep_copy(r.dz_hat, nan);
  Kokkos::deep_copy(r.muap, nan);
  Kokkos::deep_copy(r.r_raw, nan);
  Kokkos::deep_copy(r.r_used, nan);
  Kokkos::deep_copy(r.sfaps_pre_shift, nan);
  Kokkos::deep_copy(r.sfaps_post_shift, nan);
  Kokkos::deep_copy(r.n_z, -7);
  Kokkos::deep_copy(r.mirror_shift, -7);
  Kokkos::deep_copy(r.branch_L1_ge_L2, std::int8_t(-7));
}

template <class Exec>
void results_own_their_arrays() {
  Exec exec;
  const auto in = ps::upload(exec, small_unit());
  ps::Options o;
  const auto expected = arrays_of(ps::compute(exec, in, o));

  // Two results held at once never share memory, and neither changes the other.
  auto first = ps::compute(exec, in, o);
  const auto second = ps::compute(exec, in, o);
  EXPECT_NE(first.sfaps_post_shift.data(), second.sfaps_post_shift.data());
  EXPECT_NE(first.muap.data(), second.muap.data());
  EXPECT_EQ(arrays_of(first), expected);
  EXPECT_EQ(arrays_of(second), expected);

  // A result let go of lends its arrays to the next call, which fills every one afresh.
  const double* const freed = first.sfaps_post_shift.data();
  poison(first);
  first = ps::Result<typename Exec::memory_space>();
  auto third = ps::compute(exec, in, o);
  EXPECT_EQ(third.sfaps_post_shift.data(), freed);
  EXPECT_EQ(arrays_of(third), expected);

  // One array kept from a result stays the caller's: the next call takes the result's other
  // arrays, but not that one.
  const auto kept = third.muap;
  const auto kept_values = to_vector(kept);
  third = ps::Result<typename Exec::memory_space>();
  const auto fourth = ps::compute(exec, in, o);
  EXPECT_EQ(fourth.sfaps_post_shift.data(), freed);
  EXPECT_NE(fourth.muap.data(), kept.data());
  EXPECT_EQ(arrays_of(fourth), expected);
  EXPECT_EQ(to_vector(kept), kept_values);

  // After the cache is given back, calls allocate afresh and agree.
  ps::release_cached_buffers<Exec>();
  EXPECT_EQ(arrays_of(ps::compute(exec, in, o)), expected);
}

TEST(TEST_CATEGORY, sfap_results_own_their_arrays) { results_own_their_arrays<TEST_EXECSPACE>(); }

}  // namespace test_sfap_result_arrays
