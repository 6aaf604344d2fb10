// A block of the fibers (Options::first_fiber / fiber_count, what one MPI rank computes)
// gives exactly the whole unit's columns, and the MUAP summed in fiber order over the blocks
// (distributed::ordered_muap) is the whole unit's MUAP bit for bit.
#include "portasim/distributed/sfap.hpp"
#include "sfap/sfap_test_support.hpp"

namespace sfap_block_test {

namespace ps = portasim::sfap;

template <class Exec>
void blocks_equal_whole() {
  SFAP_REQUIRE_REFERENCE("r1_20f_4e_dz0p1.h5");
  const auto file =
      portasim::io::H5File::open_read(sfap_test::reference_path("r1_20f_4e_dz0p1.h5"));
  const ps::HostInputs host = ps::read_inputs(file);
  const ps::Options options = ps::options_from(host, ps::Options{});
  Exec exec;
  const auto inputs = ps::upload(exec, host);
  const auto whole = ps::to_host(ps::compute(exec, inputs, options));
  const std::int64_t nt = whole.nt, ne = whole.n_electrodes, nf = whole.n_fibers;
  ASSERT_EQ(nf, 20);
  std::vector<double> post_blocks;  // the blocks' post-shift cubes, one after the other
  std::vector<double> muap(static_cast<std::size_t>(nt * ne), 0.0);
  for (auto [begin, end] : {std::pair<std::int64_t, std::int64_t>{0, 7}, {7, 8}, {8, 20}}) {
    ps::Options o = options;
    o.first_fiber = begin;
    o.fiber_count = end - begin;
    const auto block = ps::to_host(ps::compute(exec, inputs, o));
    ASSERT_EQ(block.n_fibers, end - begin);
    ASSERT_EQ(block.nt, nt);
    EXPECT_EQ(block.min_radial_dist_mm, whole.min_radial_dist_mm);
    const std::int64_t nb = end - begin;
    for (std::int64_t j = 0; j < nt; ++j)
      for (std::int64_t e = 0; e < ne; ++e)
        for (std::int64_t f = 0; f < nb; ++f) {
          ASSERT_EQ(block.sfaps_pre_shift(j, e, f), whole.sfaps_pre_shift(j, e, begin + f))
              << j << " " << e << " " << f;
          ASSERT_EQ(block.sfaps_post_shift(j, e, f), whole.sfaps_post_shift(j, e, begin + f))
              << j << " " << e << " " << f;
          muap[static_cast<std::size_t>(j * ne + e)] +=
              block.sfaps_post_shift(j, e, f);  // fiber order
        }
    for (std::int64_t f = 0; f < nb; ++f) {
      EXPECT_EQ(block.n_z(f), whole.n_z(begin + f));
      EXPECT_EQ(block.delays_s(f), whole.delays_s(begin + f));
      for (std::int64_t e = 0; e < ne; ++e)
        EXPECT_EQ(block.r_used(e, f), whole.r_used(e, begin + f));
    }
  }
  for (std::int64_t i = 0; i < nt * ne; ++i)
    ASSERT_EQ(muap[static_cast<std::size_t>(i)], whole.muap.data()[i]) << i;
  // The single-rank ordered reduction is the same sum.
  const auto single = portasim::distributed::ordered_muap(
      portasim::mpi::Communicator::world(), whole.sfaps_post_shift.data(), nt, ne, nf);
  for (std::int64_t i = 0; i < nt * ne; ++i)
    ASSERT_EQ(single[static_cast<std::size_t>(i)], whole.muap.data()[i]) << i;
  // A block outside the unit is refused.
  ps::Options bad = options;
  bad.first_fiber = 15;
  bad.fiber_count = 10;
  EXPECT_THROW(ps::compute(exec, inputs, bad), portasim::Error);
}

}  // namespace sfap_block_test

TEST(TEST_CATEGORY, sfap_fiber_blocks_equal_the_whole_unit) {
  sfap_block_test::blocks_equal_whole<TEST_EXECSPACE>();
}
