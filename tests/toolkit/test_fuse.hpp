#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <utility>

#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "toolkit/elementwise_test_support.hpp"

namespace test_fuse {

namespace tk = portasim::toolkit;
using namespace elementwise_test_support;

// A user functor composed into an expression (lambda composition).
struct Clamp01 {
  template <class A>
  KOKKOS_INLINE_FUNCTION A operator()(A a) const {
    return a < A(0) ? A(0) : (a > A(1) ? A(1) : a);
  }
};

// The compile-time rank of an expression is the largest of its operands' (kernels map flat
// element numbers straight to the index when it is <= 1): a rank below the run-time one
// would index a 2-D operand as 1-D.
using Vector = Kokkos::View<float*>;
using Matrix = Kokkos::View<float**>;
using Cube = Kokkos::View<float***>;
static_assert(tk::ViewOperand<Vector>::static_rank == 1 && tk::ViewOperand<Cube>::static_rank == 3,
              "");
static_assert(tk::ScalarOperand<float>::static_rank == 0, "");
static_assert(decltype(tk::arg(std::declval<Vector>()) * 2.0f)::static_rank == 1, "");
static_assert(decltype(tk::arg(std::declval<Vector>()) +
                       tk::arg(std::declval<Matrix>()))::static_rank == 2,
              "");
static_assert(decltype(tk::apply(tk::fn::MultiplyAdd{}, 1.0f, std::declval<Vector>(),
                                 tk::arg(std::declval<Cube>()) - 1.0f))::static_rank == 3,
              "");
static_assert(decltype(tk::scalar(1.0f) + 2.0f)::static_rank == 0, "");

template <class Exec>
void fused_expressions_run_as_one_kernel() {
  using Mem = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const auto& exec = pool[0];
  const std::size_t n = 4099;
  Kokkos::View<float*, Mem> x1("x1", n), x2("x2", n), y("y", n);
  Kokkos::View<double*, Mem> a("a", n), b("b", n), d("d", n);
  const auto h1 = fill_random(x1, -40.0, 40.0, 3);
  const auto h2 = fill_random(x2, -2.0, 2.0, 4);
  const auto ha = fill_random(a, -1.0, 1.0, 5);
  const auto hb = fill_random(b, -1.0, 1.0, 6);
  exec.fence();
  Kokkos::fence();

  auto& counter = LaunchCounter::get();
  // softplus(x1 * x2 + B): multiply, add, softplus in one pass
  const float B = 0.5f;
  counter.start();
  tk::evaluate(exec, y, softplus(tk::arg(x1) * tk::arg(x2) + B));
  counter.stop();
  EXPECT_EQ(counter.kernels, 1) << "softplus(x1 * x2 + B) took more than one kernel";
  EXPECT_EQ(counter.allocations, 0) << "softplus(x1 * x2 + B) allocated temporaries"
                                    << ": " << counter.allocations_made();
  // (a - b)^2 written with operators
  counter.start();
  tk::evaluate(exec, d, square(tk::arg(a) - tk::arg(b)));
  counter.stop();
  EXPECT_EQ(counter.kernels, 1);
  EXPECT_EQ(counter.allocations, 0) << counter.allocations_made();
  exec.fence();

  const auto hy = to_host(y);
  const auto hd = to_host(d);
  const double feps = std::numeric_limits<float>::epsilon();
  for (std::size_t i = 0; i < n; ++i) {
    // float arithmetic rounds x1 * x2 + B before softplus: allow for that rounding, scaled
    // by softplus' slope (<= 1)
    const long double z = static_cast<long double>(h1[i]) * h2[i] + B;
    const long double ref = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
    const double tol =
        4 * feps * (std::fabs(h1[i] * h2[i]) + B) + 4 * feps * static_cast<double>(ref);
    ASSERT_NEAR(hy[i], static_cast<double>(ref), tol) << i;
    const long double diff = static_cast<long double>(ha[i]) - hb[i];
    ASSERT_NEAR(hd[i], static_cast<double>(diff * diff), 1e-15) << i;
  }

  // Composition with a user functor and a broadcast 2-D case: clamp(a_row * col), one kernel.
  Kokkos::View<double*, Mem> row("row", 5);
  Kokkos::View<double**, Mem> col("col", 3, 1), m("m", 3, 5);
  fill(row, [](std::size_t j, std::size_t, std::size_t) { return 0.25 * j; });
  fill(col, [](std::size_t i, std::size_t, std::size_t) { return 0.5 * i; });
  counter.start();
  tk::evaluate(exec, m, tk::apply(Clamp01{}, tk::arg(row) * tk::arg(col) - 0.125));
  counter.stop();
  EXPECT_EQ(counter.kernels, 1);
  const auto hm = to_host(m);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 5; ++j) {
      const double v = 0.25 * j * 0.5 * i - 0.125;
      EXPECT_DOUBLE_EQ(hm[i * 5 + j], v < 0 ? 0 : (v > 1 ? 1 : v));
    }
}

TEST(TEST_CATEGORY, fused_expressions_one_kernel) {
  fused_expressions_run_as_one_kernel<TEST_EXECSPACE>();
}

}  // namespace test_fuse
