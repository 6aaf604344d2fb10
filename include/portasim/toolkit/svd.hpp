#pragma once
// Singular value decomposition behind one portable call (numpy/cupy.linalg.svd with
// full_matrices=False): A (m x n) = U diag(S) Vt with k = min(m, n), U m x k, S k values in
// descending order, Vt k x n. LAPACK's gesdd on host backends, cuSOLVER's gesvd on CUDA, on
// the given instance; A is left unchanged. Returns when the results are in place (the
// vendor routines report convergence through a status that the call checks).
// float and double; A, U and Vt share one layout, LayoutRight or LayoutLeft.

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace portasim::toolkit {

namespace impl {

template <class Exec>
using SvdDevice = Kokkos::Device<Exec, typename Exec::memory_space>;

// Compiled in src/toolkit/svd.cpp for float/double, LayoutRight/LayoutLeft and every
// enabled execution space.
template <class Exec, class Scalar, class Layout>
void svd(const Exec& exec, const Kokkos::View<const Scalar**, Layout, SvdDevice<Exec>>& a,
         const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>& u,
         const Kokkos::View<Scalar*, Kokkos::LayoutStride, SvdDevice<Exec>>& s,
         const Kokkos::View<Scalar**, Layout, SvdDevice<Exec>>& vt);

}  // namespace impl

// Into caller-provided views: U m x k, S k, Vt k x n.
template <class Exec, class AView, class UView, class SView, class VtView>
void svd(const Exec& exec, const AView& a, const UView& u, const SView& s, const VtView& vt) {
  using Scalar = typename UView::non_const_value_type;
  using Layout = typename UView::array_layout;
  static_assert(AView::rank == 2 && UView::rank == 2 && SView::rank == 1 && VtView::rank == 2,
                "svd: A, U, Vt rank 2 and S rank 1");
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "svd: float or double");
  static_assert(std::is_same<typename AView::non_const_value_type, Scalar>::value &&
                    std::is_same<typename SView::non_const_value_type, Scalar>::value &&
                    std::is_same<typename VtView::non_const_value_type, Scalar>::value,
                "svd: one scalar type");
  static_assert(std::is_same<typename AView::array_layout, Layout>::value &&
                    std::is_same<typename VtView::array_layout, Layout>::value,
                "svd: A, U and Vt must have one layout");
  static_assert(std::is_same<Layout, Kokkos::LayoutRight>::value ||
                    std::is_same<Layout, Kokkos::LayoutLeft>::value,
                "svd: LayoutRight or LayoutLeft");
  impl::svd<Exec, Scalar, Layout>(exec, a, u, s, vt);
}

template <class Exec, class Scalar, class Layout>
struct SvdResult {
  Kokkos::View<Scalar**, Layout, typename Exec::memory_space> u;
  Kokkos::View<Scalar*, typename Exec::memory_space> s;
  Kokkos::View<Scalar**, Layout, typename Exec::memory_space> vt;
};

// Allocating form: the result views live in Exec's memory space, in A's layout.
template <class Exec, class AView>
SvdResult<Exec, typename AView::non_const_value_type, typename AView::array_layout> svd(
    const Exec& exec, const AView& a) {
  using Scalar = typename AView::non_const_value_type;
  using Layout = typename AView::array_layout;
  const std::size_t m = a.extent(0), n = a.extent(1), k = m < n ? m : n;
  SvdResult<Exec, Scalar, Layout> result;
  const auto uninitialized = [](const char* label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  };
  result.u = decltype(result.u)(uninitialized("portasim::svd::U"), m, k);
  result.s = decltype(result.s)(uninitialized("portasim::svd::S"), k);
  result.vt = decltype(result.vt)(uninitialized("portasim::svd::Vt"), k, n);
  svd(exec, a, result.u, result.s, result.vt);
  return result;
}

}  // namespace portasim::toolkit
