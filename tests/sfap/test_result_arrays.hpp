// Where compute's result arrays come from (impl/result_arrays.hpp): a result's arrays are its
// own while anyone holds them, and a call reuses those of a result its caller has let go of.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <vector>

#include "portasim/sfap/compute.hpp"
#include "sfap/sfap_test_support.hpp"

namespace test_sfap_result_arrays {

using namespace sfap_test;
namespace ps = portasim::sfap;

template <class Exec>
void results_own_their_arrays() {
  Exec exec;
  const auto in = ps::upload(exec, small_unit());
  ps::Options o;
  const auto expected = to_vector(ps::compute(exec, in, o).sfaps_post_shift);

  // Two results held at once never share memory, and neither changes the other.
  auto first = ps::compute(exec, in, o);
  const auto second = ps::compute(exec, in, o);
  EXPECT_NE(first.sfaps_post_shift.data(), second.sfaps_post_shift.data());
  EXPECT_NE(first.muap.data(), second.muap.data());
  EXPECT_EQ(to_vector(first.sfaps_post_shift), expected);
  EXPECT_EQ(to_vector(second.sfaps_post_shift), expected);

  // A result let go of lends its arrays to the next call, which fills them afresh.
  const double* const freed = first.sfaps_post_shift.data();
  exec.fence();
  first = ps::Result<typename Exec::memory_space>();
  auto third = ps::compute(exec, in, o);
  EXPECT_EQ(third.sfaps_post_shift.data(), freed);
  EXPECT_EQ(to_vector(third.sfaps_post_shift), expected);

  // One array kept from a result stays the caller's: the next call takes the result's other
  // arrays, but not that one.
  const auto kept = third.muap;
  const auto kept_values = to_vector(kept);
  third = ps::Result<typename Exec::memory_space>();
  const auto fourth = ps::compute(exec, in, o);
  EXPECT_EQ(fourth.sfaps_post_shift.data(), freed);
  EXPECT_NE(fourth.muap.data(), kept.data());
  EXPECT_EQ(to_vector(fourth.muap), kept_values);
  EXPECT_EQ(to_vector(kept), kept_values);

  // After the cache is given back, calls allocate afresh and agree.
  ps::release_cached_buffers<Exec>();
  EXPECT_EQ(to_vector(ps::compute(exec, in, o).sfaps_post_shift), expected);
}

TEST(TEST_CATEGORY, sfap_results_own_their_arrays) { results_own_their_arrays<TEST_EXECSPACE>(); }

}  // namespace test_sfap_result_arrays
