// matmul three ways against a double-precision host product and against each other, on
// odd shapes that leave partial tiles everywhere; C poisoned beforehand so that an element
// a variant forgets shows; the cuBLAS path ordered on a non-default instance; shape errors.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "harness/busy_kernel.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/impl/backend_mma.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/toolkit/impl/matmul_kernels.hpp"
#include "portasim/toolkit/matmul.hpp"
#include "toolkit/linalg_test_support.hpp"

namespace test_toolkit_matmul {

using portasim::testing::HostMatrix;
using portasim::toolkit::MatmulAlgorithm;

constexpr MatmulAlgorithm algorithms[] = {MatmulAlgorithm::naive, MatmulAlgorithm::tiled,
                                          MatmulAlgorithm::blas};

template <class Exec, class Scalar, class Layout>
void matches_host_reference(int m, int k, int n) {
  using memory = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  const HostMatrix a = portasim::testing::random_matrix<Scalar>(m, k, 11u + m);
  const HostMatrix b = portasim::testing::random_matrix<Scalar>(k, n, 23u + n);
  const HostMatrix expected = portasim::testing::multiply(a, b);
  // |error| <= gamma_k sum_p |a_ip b_pj| <= 1.01 k eps * k for entries in [-1, 1]: bound it
  // by k * (k + 2) eps with every |a b| <= 1, and at least a few eps.
  const double tolerance = (k + 2.0) * k * portasim::testing::epsilon<Scalar>() +
                           4 * portasim::testing::epsilon<Scalar>();
  const auto a_d = portasim::testing::to_device<Scalar, Layout, memory>(a, "A");
  const auto b_d = portasim::testing::to_device<Scalar, Layout, memory>(b, "B");
  Kokkos::View<Scalar**, Layout, memory> c_d("C", m, n);

  HostMatrix results[3];
  for (int v = 0; v < 3; ++v) {
    Kokkos::deep_copy(exec, c_d, std::numeric_limits<Scalar>::quiet_NaN());
    portasim::toolkit::matmul(exec, a_d, b_d, c_d, algorithms[v]);
    results[v] = portasim::testing::to_host(exec, c_d);
    double worst = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const double error = std::abs(results[v](i, j) - expected(i, j));
        ASSERT_TRUE(error <= tolerance)
            << to_string(algorithms[v]) << " " << m << "x" << k << "x" << n << " C(" << i << ","
            << j << ") = " << results[v](i, j) << ", expected " << expected(i, j);
        worst = error > worst ? error : worst;
      }
  }
  // And against each other: within twice the bound of each against the reference.
  for (int v = 1; v < 3; ++v)
    for (std::size_t e = 0; e < results[0].v.size(); ++e)
      ASSERT_LE(std::abs(results[v].v[e] - results[0].v[e]), 2 * tolerance)
          << to_string(algorithms[v]);
}

template <class Exec, class Scalar, class Layout>
void all_shapes() {
  const int shapes[][3] = {{1, 1, 1},      {17, 33, 5},   {100, 64, 129},
                           {130, 257, 67}, {64, 16, 128}, {3, 200, 2}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]));
    matches_host_reference<Exec, Scalar, Layout>(s[0], s[1], s[2]);
  }
}
TEST(TEST_CATEGORY, toolkit_matmul_double_right) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutRight>();
}
TEST(TEST_CATEGORY, toolkit_matmul_double_left) {
  all_shapes<TEST_EXECSPACE, double, Kokkos::LayoutLeft>();
}
TEST(TEST_CATEGORY, toolkit_matmul_float_right) {
  all_shapes<TEST_EXECSPACE, float, Kokkos::LayoutRight>();
}
TEST(TEST_CATEGORY, toolkit_matmul_float_left) {
  all_shapes<TEST_EXECSPACE, float, Kokkos::LayoutLeft>();
}

// The tiled kernel with teams of several threads, whatever the backend's own shape: the
// host shape has one thread a team, so the strided thread grid and the shared panels that
// the GPU shape depends on are checked here with two-thread teams (on OpenMP with two
// threads and on CUDA; skipped where a team cannot have two threads).
template <class Exec, class Shape, class Layout>
void tiled_team_shape(int m, int k, int n) {
  using memory = typename Exec::memory_space;
  using Device = Kokkos::Device<Exec, memory>;
  using AView = Kokkos::View<const double**, Layout, Device>;
  using CView = Kokkos::View<double**, Layout, Device>;
  using Kernel = portasim::toolkit::impl::TiledMatmul<Shape, AView, AView, CView>;
  Exec exec;
  const HostMatrix a = portasim::testing::random_matrix<double>(m, k, 3u);
  const HostMatrix b = portasim::testing::random_matrix<double>(k, n, 4u);
  const HostMatrix expected = portasim::testing::multiply(a, b);
  const AView a_d = portasim::testing::to_device<double, Layout, memory>(a, "A");
  const AView b_d = portasim::testing::to_device<double, Layout, memory>(b, "B");
  CView c_d("C", m, n);
  Kokkos::deep_copy(c_d, std::numeric_limits<double>::quiet_NaN());
  const int tiles_n = (n + Shape::BN - 1) / Shape::BN, tiles_m = (m + Shape::BM - 1) / Shape::BM;
  const Kernel kernel{a_d, b_d, c_d, m, n, k, tiles_n};
  // Kokkos aborts on a policy with too large a team: ask a one-thread policy first.
  if (Kokkos::TeamPolicy<Exec>(exec, 1, 1).team_size_max(kernel, Kokkos::ParallelForTag()) <
      Shape::team_size)
    GTEST_SKIP() << "teams of " << Shape::team_size << " threads not possible here";
  Kokkos::TeamPolicy<Exec> policy(exec, tiles_m * tiles_n, Shape::team_size, 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("test_tiled_team_shape", policy, kernel);
  const HostMatrix c = portasim::testing::to_host(exec, c_d);
  for (std::size_t e = 0; e < c.v.size(); ++e)
    ASSERT_NEAR(c.v[e], expected.v[e], 1e-12 * k) << "element " << e;
}
using RowsOfThreads = portasim::toolkit::impl::TileShape<16, 8, 4, 8, 8>;     // 2 x 1 threads
using ColumnsOfThreads = portasim::toolkit::impl::TileShape<8, 16, 4, 8, 8>;  // 1 x 2 threads
TEST(TEST_CATEGORY, toolkit_matmul_tiled_team_rows_right) {
  tiled_team_shape<TEST_EXECSPACE, RowsOfThreads, Kokkos::LayoutRight>(37, 19, 21);
}
TEST(TEST_CATEGORY, toolkit_matmul_tiled_team_rows_left) {
  tiled_team_shape<TEST_EXECSPACE, RowsOfThreads, Kokkos::LayoutLeft>(37, 19, 21);
}
TEST(TEST_CATEGORY, toolkit_matmul_tiled_team_columns_right) {
  tiled_team_shape<TEST_EXECSPACE, ColumnsOfThreads, Kokkos::LayoutRight>(21, 9, 37);
}

// Every tiled variant (the FP64 tensor-core kernel on GPUs that have it, both SIMT shapes)
// against the host reference and the naive kernel, on sizes that are no multiple of any
// tile, with C poisoned beforehand.
template <class Exec>
void tiled_variants_match(int m, int k, int n) {
  using memory = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  const HostMatrix a = portasim::testing::random_matrix<double>(m, k, 31u + k);
  const HostMatrix b = portasim::testing::random_matrix<double>(k, n, 37u + m);
  const HostMatrix expected = portasim::testing::multiply(a, b);
  const double tolerance = (k + 2.0) * k * portasim::testing::epsilon<double>() +
                           4 * portasim::testing::epsilon<double>();
  const auto a_d = portasim::testing::to_device<double, Kokkos::LayoutRight, memory>(a, "A");
  const auto b_d = portasim::testing::to_device<double, Kokkos::LayoutRight, memory>(b, "B");
  Kokkos::View<double**, Kokkos::LayoutRight, memory> c_d("C", m, n);
  portasim::toolkit::matmul(exec, a_d, b_d, c_d, MatmulAlgorithm::naive);
  const HostMatrix naive = portasim::testing::to_host(exec, c_d);
  for (int variant = 0; variant < portasim::toolkit::impl::tiled_variants; ++variant) {
    const std::string name = portasim::toolkit::impl::tiled_variant_name<Exec>(variant);
    Kokkos::deep_copy(exec, c_d, std::numeric_limits<double>::quiet_NaN());
    portasim::toolkit::impl::matmul_tiled_variant<Exec>(exec, variant, a_d, b_d, c_d);
    const HostMatrix c = portasim::testing::to_host(exec, c_d);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        ASSERT_TRUE(std::abs(c(i, j) - expected(i, j)) <= tolerance)
            << name << " " << m << "x" << k << "x" << n << " C(" << i << "," << j
            << ") = " << c(i, j) << ", expected " << expected(i, j);
        ASSERT_LE(std::abs(c(i, j) - naive(i, j)), 2 * tolerance)
            << name << " vs naive at (" << i << "," << j << ")";
      }
  }
}
TEST(TEST_CATEGORY, toolkit_matmul_tiled_variants) {
  for (int size : {1, 7, 64, 100, 257, 513}) {
    SCOPED_TRACE("n = " + std::to_string(size));
    tiled_variants_match<TEST_EXECSPACE>(size, size, size);
  }
  const int shapes[][3] = {
      {130, 257, 67}, {3, 200, 129}, {200, 5, 3}, {128, 16, 128}, {256, 48, 64}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]));
    tiled_variants_match<TEST_EXECSPACE>(s[0], s[1], s[2]);
  }
}

// The tensor-core kernel's index arithmetic on the host, whatever the backend: one team's
// panels go into scratch through the kernel's own store, come back as the fragments of
// each lane of each warp, are multiplied by the host reference of the instruction
// (portasim::impl::warp_mma_f64_reference) and land where the kernel writes C. That must
// be the tile's product, every element written once. (The GPU tests above check the
// instruction itself.)
template <class Shape, class Layout>
void mma_fragments_multiply() {
  using AView = Kokkos::View<const double**, Layout, Kokkos::HostSpace>;
  using CView = Kokkos::View<double**, Layout, Kokkos::HostSpace>;
  using Kernel = portasim::toolkit::impl::TiledMatmulMma<
      Shape, portasim::impl::WarpMmaF64<Kokkos::DefaultHostExecutionSpace>, AView, AView, CView>;
  constexpr int warp_size = 32, MI = Shape::MI, NJ = Shape::NJ;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const HostMatrix a = portasim::testing::random_matrix<double>(Shape::BM, Shape::BK, 5u);
  const HostMatrix b = portasim::testing::random_matrix<double>(Shape::BK, Shape::BN, 6u);
  const HostMatrix expected = portasim::testing::multiply(a, b);

  std::vector<double> a_s(Kernel::APanel::size, nan), b_s(Kernel::BPanel::size, nan);
  for (int rank = 0; rank < Shape::team_size; ++rank) {
    double ra[Kernel::a_per_thread], rb[Kernel::b_per_thread];
    for (int l = 0; l < Kernel::a_per_thread; ++l) {
      int o, d;
      Kernel::APanel::slot(rank + l * Shape::team_size, o, d);
      ra[l] = a(o, d);
    }
    for (int l = 0; l < Kernel::b_per_thread; ++l) {
      int o, d;
      Kernel::BPanel::slot(rank + l * Shape::team_size, o, d);
      rb[l] = b(d, o);
    }
    Kernel::store_panels(rank, ra, rb, a_s.data(), b_s.data());
  }

  HostMatrix c(Shape::BM, Shape::BN, nan);
  for (int warp = 0; warp < Shape::team_size / warp_size; ++warp) {
    int row0[warp_size], col0[warp_size];
    for (int lane = 0; lane < warp_size; ++lane) {
      int l = -1;
      Kernel::warp_origin(warp * warp_size + lane, row0[lane], col0[lane], l);
      ASSERT_EQ(l, lane);
      ASSERT_EQ(row0[lane], row0[0]);
      ASSERT_EQ(col0[lane], col0[0]);
    }
    std::vector<double> acc(static_cast<std::size_t>(MI) * NJ * warp_size * 2, 0.0);
    auto at = [&](int i, int j, int lane, int e) -> double& {
      return acc[((static_cast<std::size_t>(i) * NJ + j) * warp_size + lane) * 2 + e];
    };
    for (int kk = 0; kk < Shape::BK; kk += 4)
      for (int i = 0; i < MI; ++i)
        for (int j = 0; j < NJ; ++j) {
          double fa[warp_size], fb[warp_size], d[warp_size][2];
          for (int lane = 0; lane < warp_size; ++lane) {
            fa[lane] = Kernel::a_fragment(a_s.data(), row0[0], i, kk, lane);
            fb[lane] = Kernel::b_fragment(b_s.data(), col0[0], j, kk, lane);
            d[lane][0] = at(i, j, lane, 0);
            d[lane][1] = at(i, j, lane, 1);
          }
          portasim::impl::warp_mma_f64_reference(fa, fb, d);
          for (int lane = 0; lane < warp_size; ++lane) {
            at(i, j, lane, 0) = d[lane][0];
            at(i, j, lane, 1) = d[lane][1];
          }
        }
    for (int i = 0; i < MI; ++i)
      for (int j = 0; j < NJ; ++j)
        for (int lane = 0; lane < warp_size; ++lane)
          for (int e = 0; e < 2; ++e) {
            const int row = Kernel::c_row(row0[0], i, lane),
                      col = Kernel::c_col(col0[0], j, lane, e);
            ASSERT_TRUE(row >= 0 && row < Shape::BM && col >= 0 && col < Shape::BN)
                << row << "," << col;
            ASSERT_TRUE(std::isnan(c(row, col))) << "C(" << row << "," << col << ") written twice";
            c(row, col) = at(i, j, lane, e);
          }
  }
  for (int i = 0; i < Shape::BM; ++i)
    for (int j = 0; j < Shape::BN; ++j)
      ASSERT_NEAR(c(i, j), expected(i, j), 1e-13 * Shape::BK) << "C(" << i << "," << j << ")";
}
TEST(TEST_CATEGORY, toolkit_matmul_mma_fragments) {
  using portasim::toolkit::impl::MmaTileShapeLarge;
  using portasim::toolkit::impl::MmaTileShapeNarrow;
  using portasim::toolkit::impl::MmaTileShapeSmall;
  mma_fragments_multiply<MmaTileShapeLarge, Kokkos::LayoutRight>();
  mma_fragments_multiply<MmaTileShapeLarge, Kokkos::LayoutLeft>();
  mma_fragments_multiply<MmaTileShapeNarrow, Kokkos::LayoutRight>();
  mma_fragments_multiply<MmaTileShapeNarrow, Kokkos::LayoutLeft>();
  mma_fragments_multiply<MmaTileShapeSmall, Kokkos::LayoutRight>();
  mma_fragments_multiply<MmaTileShapeSmall, Kokkos::LayoutLeft>();
}

// An empty inner dimension gives zeros; empty outputs are fine.
template <class Exec>
void empty_dimensions() {
  using memory = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<double**, memory> a("A", 3, 0), b("B", 0, 4), c("C", 3, 4);
  for (auto algorithm : algorithms) {
    Kokkos::deep_copy(c, 5.0);
    portasim::toolkit::matmul(exec, a, b, c, algorithm);
    const HostMatrix h = portasim::testing::to_host(exec, c);
    for (double x : h.v) ASSERT_EQ(x, 0.0) << to_string(algorithm);
  }
  Kokkos::View<double**, memory> a0("A0", 0, 5), b0("B0", 5, 2), c0("C0", 0, 2);
  for (auto algorithm : algorithms) portasim::toolkit::matmul(exec, a0, b0, c0, algorithm);
}
TEST(TEST_CATEGORY, toolkit_matmul_empty_dimensions) { empty_dimensions<TEST_EXECSPACE>(); }

// The cuBLAS call runs on the caller's (non-blocking) stream: it must see A written by a
// slow kernel enqueued just before it on the same instance, without a fence in between.
template <class Exec>
void blas_runs_on_the_instance() {
  using memory = typename Exec::memory_space;
  portasim::InstancePool<Exec> pool(1);
  const Exec& exec = pool[0];
  const int m = 256, k = 256, n = 256;
  Kokkos::View<double*, memory> storage("A storage", m * k);
  Kokkos::View<std::uint32_t*, memory> sink("sink", m * k);
  Kokkos::View<double**, Kokkos::LayoutRight, memory, Kokkos::MemoryUnmanaged> a(storage.data(), m,
                                                                                 k);
  Kokkos::View<double**, Kokkos::LayoutRight, memory> b("B", k, n), c("C", m, n);
  Kokkos::deep_copy(b, 0.5);
  Kokkos::fence();
  portasim::testing::fill_after_busy_work(exec, storage, sink, 2.0,
                                          portasim::testing::busy_rounds<Exec>(200000));
  portasim::toolkit::matmul(exec, a, b, c, MatmulAlgorithm::blas);
  const HostMatrix h = portasim::testing::to_host(exec, c);
  for (double x : h.v) ASSERT_EQ(x, 256.0);
}
TEST(TEST_CATEGORY, toolkit_matmul_blas_runs_on_the_instance) {
  blas_runs_on_the_instance<TEST_EXECSPACE>();
}

template <class Exec>
void expect_shape_error(const std::function<void()>& call, const std::string& part) {
  try {
    call();
    FAIL() << "no error for: " << part;
  } catch (const portasim::Error& e) {
    EXPECT_EQ(e.kind(), portasim::ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

template <class Exec>
void shape_errors() {
  using memory = typename Exec::memory_space;
  Exec exec;
  Kokkos::View<float**, memory> a("A", 3, 4), b("B", 5, 2), c("C", 3, 2), b_ok("B ok", 4, 2),
      c_bad("C bad", 2, 3);
  Kokkos::deep_copy(c, 7.0f);
  for (auto algorithm : algorithms) {
    expect_shape_error<Exec>([&] { portasim::toolkit::matmul(exec, a, b, c, algorithm); },
                             "A is 3x4 and B is 5x2: A's columns must equal B's rows");
    expect_shape_error<Exec>([&] { portasim::toolkit::matmul(exec, a, b_ok, c_bad, algorithm); },
                             "C is 2x3 but A*B is 3x2");
  }
  Kokkos::View<float**, memory> square("square", 4, 4), other("other", 4, 4);
  expect_shape_error<Exec>([&] { portasim::toolkit::matmul(exec, square, other, square); },
                           "C must not share memory with A or B");
  // Refused before any work: C is untouched.
  const HostMatrix h = portasim::testing::to_host(exec, c);
  for (double x : h.v) EXPECT_EQ(x, 7.0);
}
TEST(TEST_CATEGORY, toolkit_matmul_shape_errors) { shape_errors<TEST_EXECSPACE>(); }

}  // namespace test_toolkit_matmul
