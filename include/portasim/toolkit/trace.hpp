#pragma once
// Trace of a matrix (cupy.trace): the sum of its main diagonal, min(m, n) elements for a
// rectangular matrix as in NumPy. One reduction on the given instance, either into a
// rank-0 view (asynchronous, for pipelines) or returned (waits for the instance).

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace portasim::toolkit {

namespace impl {

template <class AView>
struct DiagonalSum {
  using Scalar = typename AView::non_const_value_type;
  AView a;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, Scalar& sum) const { sum += a(i, i); }
};

template <class AView>
std::size_t diagonal_length(const AView& a) {
  static_assert(AView::rank == 2, "trace: A must be a rank-2 View");
  return a.extent(0) < a.extent(1) ? a.extent(0) : a.extent(1);
}

}  // namespace impl

// result: rank-0 view of A's scalar type in a memory space the instance can reach.
template <class Exec, class AView, class ResultView>
void trace(const Exec& exec, const AView& a, const ResultView& result) {
  static_assert(ResultView::rank == 0, "trace: the result view must be rank 0");
  Kokkos::parallel_reduce(
      "portasim::toolkit::trace",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::size_t>>(exec, 0, impl::diagonal_length(a)),
      impl::DiagonalSum<AView>{a}, result);
}

template <class Exec, class AView>
typename AView::non_const_value_type trace(const Exec& exec, const AView& a) {
  typename AView::non_const_value_type sum = 0;
  Kokkos::parallel_reduce(
      "portasim::toolkit::trace",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::size_t>>(exec, 0, impl::diagonal_length(a)),
      impl::DiagonalSum<AView>{a}, sum);
  return sum;
}

}  // namespace portasim::toolkit
