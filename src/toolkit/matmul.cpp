#include "portasim/toolkit/matmul.hpp"

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/impl/backend_linalg.hpp"
#include "portasim/toolkit/impl/matmul_kernels.hpp"

#if defined(PORTASIM_ENABLE_KERNELS)
#include <KokkosBlas3_gemm.hpp>
#endif

namespace portasim::toolkit {

const char* to_string(MatmulAlgorithm algorithm) noexcept {
  switch (algorithm) {
    case MatmulAlgorithm::naive: return "naive";
    case MatmulAlgorithm::tiled: return "tiled";
    case MatmulAlgorithm::blas: return "blas";
  }
  return "?";
}

namespace impl {

namespace {

std::string shape(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

void check_shapes(const char* algorithm, std::size_t am, std::size_t ak, std::size_t bk,
                  std::size_t bn, std::size_t cm, std::size_t cn, bool c_aliases_input) {
  const std::string what = std::string("matmul (") + algorithm + "): ";
  require(ak == bk, what + "A is " + shape(am, ak) + " and B is " + shape(bk, bn) +
                        ": A's columns must equal B's rows");
  require(cm == am && cn == bn, what + "C is " + shape(cm, cn) + " but A*B is " + shape(am, bn));
  require(am <= INT_MAX && ak <= INT_MAX && bn <= INT_MAX,
          what + "dimensions above 2^31-1 are not supported");
  require(!c_aliases_input, what + "C must not share memory with A or B");
}

template <class Shape, class Exec, class AView, class CView>
void launch_tiled(const Exec& exec, const AView& a, const AView& b, const CView& c, int m, int n,
                  int k) {
  using Kernel = TiledMatmul<Shape, AView, AView, CView>;
  const int tiles_m = (m + Shape::BM - 1) / Shape::BM, tiles_n = (n + Shape::BN - 1) / Shape::BN;
  Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<Shape::team_size, Shape::min_teams>> policy(
      exec, tiles_m * tiles_n, Shape::team_size, 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("portasim::toolkit::matmul_tiled", policy,
                       Kernel{a, b, c, m, n, k, tiles_n});
}

// Vector length 1: the team's threads then form whole warps in rank order, which the
// warp MMA relies on.
template <class Shape, class Exec, class AView, class CView>
void launch_tiled_mma(const Exec& exec, const AView& a, const AView& b, const CView& c, int m,
                      int n, int k) {
  using Kernel = TiledMatmulMma<Shape, portasim::impl::WarpMmaF64<Exec>, AView, AView, CView>;
  const int tiles_m = (m + Shape::BM - 1) / Shape::BM, tiles_n = (n + Shape::BN - 1) / Shape::BN;
  Kokkos::TeamPolicy<Exec, Kokkos::LaunchBounds<Shape::team_size, Shape::min_teams>> policy(
      exec, tiles_m * tiles_n, Shape::team_size, 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("portasim::toolkit::matmul_tiled_mma", policy,
                       Kernel{a, b, c, m, n, k, tiles_n});
}

// The parentheses keep clang-format 14 from reading `&&` as an rvalue reference.
template <class Exec, class Scalar>
constexpr bool uses_mma = (std::is_same<Scalar, double>::value &&
                           portasim::impl::WarpMmaF64<Exec>::available);

// What MatmulAlgorithm::tiled runs: the FP64 tensor cores for double where the backend
// has them, the SIMT kernel otherwise.
template <class Exec, class Scalar, class AView, class CView>
void launch_tiled_default(const Exec& exec, const AView& a, const AView& b, const CView& c, int m,
                          int n, int k) {
  if constexpr (uses_mma<Exec, Scalar>)
    launch_tiled_mma<MmaTileShapeDefault>(exec, a, b, c, m, n, k);
  else launch_tiled<SimtTileShape<Exec>>(exec, a, b, c, m, n, k);
}

}  // namespace

template <class Exec, class Scalar, class Layout>
void matmul(const Exec& exec, MatmulAlgorithm algorithm, const ConstMatrix<Exec, Scalar, Layout>& a,
            const ConstMatrix<Exec, Scalar, Layout>& b, const Matrix<Exec, Scalar, Layout>& c) {
  check_shapes(to_string(algorithm), a.extent(0), a.extent(1), b.extent(0), b.extent(1),
               c.extent(0), c.extent(1),
               c.size() > 0 && (c.data() == a.data() || c.data() == b.data()));
  const int m = static_cast<int>(a.extent(0)), k = static_cast<int>(a.extent(1)),
            n = static_cast<int>(b.extent(1));
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: not every BLAS writes C then
    Kokkos::deep_copy(exec, c, Scalar(0));
    return;
  }
  using AView = ConstMatrix<Exec, Scalar, Layout>;
  using CView = Matrix<Exec, Scalar, Layout>;
  switch (algorithm) {
    case MatmulAlgorithm::naive: {
      NaiveMatmul<AView, AView, CView> kernel{a, b, c, m, n, k};
      Kokkos::parallel_for("portasim::toolkit::matmul_naive",
                           Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(
                               exec, 0, static_cast<std::int64_t>(m) * n),
                           kernel);
      return;
    }
    case MatmulAlgorithm::tiled: launch_tiled_default<Exec, Scalar>(exec, a, b, c, m, n, k); return;
    case MatmulAlgorithm::blas: {
#if defined(PORTASIM_ENABLE_KERNELS)
      portasim::impl::gemm_on_instance(exec, a, b, c);
      return;
#else
      throw_error(ErrorKind::invalid_argument,
                  "matmul (blas): this build has no Kokkos Kernels (PORTASIM_ENABLE_KERNELS=OFF)");
#endif
    }
  }
  throw_error(ErrorKind::invalid_argument, "matmul: unknown algorithm");
}

template <class Exec>
const char* tiled_variant_name(int variant) noexcept {
  constexpr bool mma = uses_mma<Exec, double>;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  switch (variant) {
    case 0: return mma ? "mma64x64x16" : host ? "host64x64x16" : "simt128x128x8";
    case 1: return mma ? "mma128x64x16" : host ? "host64x64x16" : "simt128x128x8";
    case 2: return mma ? "mma128x128x16" : host ? "host64x64x16" : "simt128x128x8";
    case 3: return host ? "host64x64x16" : "simt128x128x8";
    case 4: return host ? "host64x64x16" : "simt128x64x8";
  }
  return "?";
}

template <class Exec>
void matmul_tiled_variant(const Exec& exec, int variant,
                          const ConstMatrix<Exec, double, Kokkos::LayoutRight>& a,
                          const ConstMatrix<Exec, double, Kokkos::LayoutRight>& b,
                          const Matrix<Exec, double, Kokkos::LayoutRight>& c) {
  check_shapes("tiled", a.extent(0), a.extent(1), b.extent(0), b.extent(1), c.extent(0),
               c.extent(1), c.size() > 0 && (c.data() == a.data() || c.data() == b.data()));
  require(variant >= 0 && variant < tiled_variants,
          "matmul_tiled_variant: variant " + std::to_string(variant) + " out of range [0, " +
              std::to_string(tiled_variants) + ")");
  const int m = static_cast<int>(a.extent(0)), k = static_cast<int>(a.extent(1)),
            n = static_cast<int>(b.extent(1));
  if (m == 0 || n == 0 || k == 0)
    return matmul<Exec, double, Kokkos::LayoutRight>(exec, MatmulAlgorithm::tiled, a, b, c);
  switch (variant) {
    case 1:
      if constexpr (uses_mma<Exec, double>)
        return launch_tiled_mma<MmaTileShapeNarrow>(exec, a, b, c, m, n, k);
      break;
    case 2:
      if constexpr (uses_mma<Exec, double>)
        return launch_tiled_mma<MmaTileShapeLarge>(exec, a, b, c, m, n, k);
      break;
    case 3: return launch_tiled<SimtTileShape<Exec>>(exec, a, b, c, m, n, k);
    case 4: return launch_tiled<SimtTileShapeNarrow<Exec>>(exec, a, b, c, m, n, k);
    default: break;
  }
  launch_tiled_default<Exec, double>(exec, a, b, c, m, n, k);
}

#define PORTASIM_TOOLKIT_MATMUL(Exec, Scalar, Layout)                         \
  template void matmul<Exec, Scalar, Layout>(                                 \
      const Exec&, MatmulAlgorithm, const ConstMatrix<Exec, Scalar, Layout>&, \
      const ConstMatrix<Exec, Scalar, Layout>&, const Matrix<Exec, Scalar, Layout>&);
#define PORTASIM_TOOLKIT_MATMUL_SPACE(Exec)                                                       \
  PORTASIM_TOOLKIT_MATMUL(Exec, float, Kokkos::LayoutRight)                                       \
  PORTASIM_TOOLKIT_MATMUL(Exec, double, Kokkos::LayoutRight)                                      \
  PORTASIM_TOOLKIT_MATMUL(Exec, float, Kokkos::LayoutLeft)                                        \
  PORTASIM_TOOLKIT_MATMUL(Exec, double, Kokkos::LayoutLeft)                                       \
  template void matmul_tiled_variant<Exec>(const Exec&, int,                                      \
                                           const ConstMatrix<Exec, double, Kokkos::LayoutRight>&, \
                                           const ConstMatrix<Exec, double, Kokkos::LayoutRight>&, \
                                           const Matrix<Exec, double, Kokkos::LayoutRight>&);     \
  template const char* tiled_variant_name<Exec>(int) noexcept;
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_MATMUL_SPACE)

}  // namespace impl
}  // namespace portasim::toolkit
