#include "portasim/toolkit/svd.hpp"

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "portasim/core/error.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/impl/backend_linalg.hpp"

namespace portasim::toolkit::impl {

// dst = src or src^T, element by element in dst's memory order. Workspaces are
// column-major (what LAPACK and cuSOLVER take); the caller's views may be either layout.
template <class DstView, class SrcView>
struct CopyMatrix {
  DstView dst;
  SrcView src;
  bool transpose;
  std::int64_t rows, cols;  // of dst

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    std::int64_t i, j;
    if (std::is_same<typename DstView::array_layout, Kokkos::LayoutLeft>::value) {
      j = index / rows;
      i = index - j * rows;
    } else {
      i = index / cols;
      j = index - i * cols;
    }
    dst(i, j) = transpose ? src(j, i) : src(i, j);
  }
};

template <class Exec, class DstView, class SrcView>
void copy_matrix(const Exec& exec, const DstView& dst, const SrcView& src, bool transpose) {
  const auto rows = static_cast<std::int64_t>(dst.extent(0)),
             cols = static_cast<std::int64_t>(dst.extent(1));
  Kokkos::parallel_for(
      "portasim::toolkit::svd_copy",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, rows * cols),
      CopyMatrix<DstView, SrcView>{dst, src, transpose, rows, cols});
}

template <class Exec, class Scalar, class Layout>
void svd(const Exec& exec, const Kokkos::View<const Scalar**, Layout, SvdDevice<Exec>>& a,
         const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>& u,
         const Kokkos::View<Scalar*, Kokkos::LayoutStride, SvdDevice<Exec>>& s,
         const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>& vt) {
  const std::size_t m = a.extent(0), n = a.extent(1), k = m < n ? m : n;
  const auto shape = [](std::size_t r, std::size_t c) {
    return std::to_string(r) + "x" + std::to_string(c);
  };
  require(m > 0 && n > 0,
          "svd: A is " + shape(m, n) + ": it must have at least one row and one column");
  require(m <= INT_MAX && n <= INT_MAX, "svd: dimensions above 2^31-1 are not supported");
  require(u.extent(0) == m && u.extent(1) == k, "svd: U is " + shape(u.extent(0), u.extent(1)) +
                                                    " but A (" + shape(m, n) + ") needs " +
                                                    shape(m, k));
  require(s.extent(0) == k, "svd: S has " + std::to_string(s.extent(0)) + " values but A (" +
                                shape(m, n) + ") has " + std::to_string(k));
  require(vt.extent(0) == k && vt.extent(1) == n,
          "svd: Vt is " + shape(vt.extent(0), vt.extent(1)) + " but A (" + shape(m, n) +
              ") needs " + shape(k, n));

  // The vendor routine sees a tall matrix: A itself, or A^T (= V S U^T) for wide A.
  const bool tall = m >= n;
  const std::size_t rows = tall ? m : n, cols = tall ? n : m;
  using Work = Kokkos::View<Scalar**, Kokkos::LayoutLeft, SvdDevice<Exec>>;
  const auto uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  Work work_a(uninitialized("portasim::svd::A"), rows, cols);
  Work work_u(uninitialized("portasim::svd::U"), rows, cols);
  Work work_vt(uninitialized("portasim::svd::Vt"), cols, cols);
  Kokkos::View<Scalar*, SvdDevice<Exec>> work_s(uninitialized("portasim::svd::S"), cols);
  copy_matrix(exec, work_a, a, !tall);

  portasim::impl::DenseSvd<Exec>::tall(exec, static_cast<int>(rows), static_cast<int>(cols),
                                       work_a.data(), work_s.data(), work_u.data(), work_vt.data());

  // A = W S Z^T for tall A; A^T = W S Z^T, so A = Z S W^T, for wide A.
  copy_matrix(exec, u, tall ? work_u : work_vt, !tall);
  copy_matrix(exec, vt, tall ? work_vt : work_u, !tall);
  Kokkos::parallel_for(
      "portasim::toolkit::svd_copy_s", Kokkos::RangePolicy<Exec>(exec, 0, k),
      KOKKOS_LAMBDA(const int i) { s(i) = work_s(i); });
  exec.fence();  // the workspaces go out of scope
}

#define PORTASIM_TOOLKIT_SVD(Exec, Scalar, Layout)                               \
  template void svd<Exec, Scalar, Layout>(                                       \
      const Exec&, const Kokkos::View<const Scalar**, Layout, SvdDevice<Exec>>&, \
      const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>&,                    \
      const Kokkos::View<Scalar*, Kokkos::LayoutStride, SvdDevice<Exec>>&,       \
      const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>&);
#define PORTASIM_TOOLKIT_SVD_SPACE(Exec)                  \
  PORTASIM_TOOLKIT_SVD(Exec, float, Kokkos::LayoutRight)  \
  PORTASIM_TOOLKIT_SVD(Exec, double, Kokkos::LayoutRight) \
  PORTASIM_TOOLKIT_SVD(Exec, float, Kokkos::LayoutLeft)   \
  PORTASIM_TOOLKIT_SVD(Exec, double, Kokkos::LayoutLeft)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_TOOLKIT_SVD_SPACE)

}  // namespace portasim::toolkit::impl
