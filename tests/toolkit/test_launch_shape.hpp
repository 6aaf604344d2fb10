#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/launch_shape.hpp"
#include "toolkit/elementwise_test_support.hpp"

namespace test_launch_shape {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

// Every launch shape computes the same y = x1 * x2 + B over all elements (the output starts
// at NaN, so an element no lane reached shows). n is odd, so every spread (per
// thread 1..8, one pass or grid-stride) has a ragged last step.
template <class Exec>
void every_launch_shape_gives_the_same_result() {
  using Mem = typename Exec::memory_space;
  using Policy = Kokkos::TeamPolicy<Exec>;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::size_t n = 100003;
  Kokkos::View<float*, Mem> x1("x1", n), x2("x2", n), y("y", n);
  const auto h1 = fill_random(x1, -1.0, 1.0, 7);
  const auto h2 = fill_random(x2, -1.0, 1.0, 8);
  const int vmax = Policy::vector_length_max();
  // the largest team the backend allows for exactly this kernel
  const auto expr = tk::apply(tk::fn::MultiplyAdd{}, x1, x2, 0.25f);
  using Body = tk::impl::EvaluateBody<decltype(y), std::decay_t<decltype(expr)>>;
  const Body body{tk::ViewOperand<decltype(y)>(y), expr, tk::impl::FlatIndex{}};
  const int tmax = Policy(exec, 1, Kokkos::AUTO)
                       .team_size_max(tk::impl::TeamStrided<Exec, Body>{body, n, 1, 1},
                                      Kokkos::ParallelForTag());
  std::vector<tk::LaunchShape> shapes = {
      tk::LaunchShape::range(),
      tk::LaunchShape::range(1),
      tk::LaunchShape::range(64),
      tk::LaunchShape::range(4096),
      tk::LaunchShape::spread(1),
      tk::LaunchShape::spread(3),
      tk::LaunchShape::spread(8),
      tk::LaunchShape::spread(2, 1),
      tk::LaunchShape::spread(5, 4),
      tk::LaunchShape::spread(0, 1),
      tk::LaunchShape::teams(0, 0),
      tk::LaunchShape::teams(1, 1),
      tk::LaunchShape::teams(7, 1, vmax),
      tk::LaunchShape::teams(3, tmax),
      tk::LaunchShape::teams(0, tmax < 32 ? tmax : 32, vmax < 4 ? vmax : 4)};
  for (const auto& shape : shapes) {
    Kokkos::deep_copy(exec, y, std::numeric_limits<float>::quiet_NaN());
    tk::elementwise(exec, shape, tk::fn::MultiplyAdd{}, y, x1, x2, 0.25f);
    exec.fence();
    const auto hy = to_host(y);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(hy[i], h1[i] * h2[i] + 0.25, 1e-6) << shape.to_string() << " element " << i;
  }
  // impossible shapes are refused with the shape in the message
  for (const auto& bad : {tk::LaunchShape::teams(1, 1, 3), tk::LaunchShape::teams(1, tmax + 1),
                          tk::LaunchShape::teams(-1, 1), tk::LaunchShape::range(-5),
                          tk::LaunchShape::spread(tk::impl::max_elements_in_flight + 1),
                          tk::LaunchShape::spread(-1), tk::LaunchShape::spread(2, -1)}) {
    try {
      tk::elementwise(exec, bad, tk::fn::MultiplyAdd{}, y, x1, x2, 0.25f);
      ADD_FAILURE() << bad.to_string() << " was accepted";
    } catch (const portasim::Error& e) {
      EXPECT_NE(std::string(e.what()).find("LaunchShape"), std::string::npos) << e.what();
    }
  }
}

TEST(TEST_CATEGORY, launch_shapes_same_result) {
  every_launch_shape_gives_the_same_result<TEST_EXECSPACE>();
}

}  // namespace test_launch_shape
