#pragma once
// Matrix and vector norms (numpy/cupy.linalg.norm), each one reduction on the given
// instance, returned to the host (the call waits for the instance):
//   frobenius_norm(A)  sqrt(sum |a_ij|^2)     ord='fro'
//   norm_1(A)          max_j sum_i |a_ij|     ord=1, the largest column sum
//   norm_inf(A)        max_i sum_j |a_ij|     ord=inf, the largest row sum
//   norm_2(x)          sqrt(sum x_i^2)        vector 2-norm
// Sums in the view's scalar type, like NumPy's; no rescaling against overflow.
// norm_2 and frobenius_norm (of a contiguous matrix, read in memory order) are the toolkit's
// L2 reduction (reduction.hpp): on GPUs its one-kernel two-level form, which streams at
// memory speed where Kokkos 3.4's RangePolicy parallel_reduce reaches a small fraction of it
// (docs/design/reductions.md).
// (KokkosBlas::nrm2 would do for norm_2, but in Kokkos Kernels 3.4 it takes no instance.)

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "portasim/core/compat.hpp"
#include "portasim/toolkit/reduction.hpp"

namespace portasim::toolkit {

namespace impl {

// Visits the elements of a 2-D view in its memory order, for coalesced reads.
template <class AView>
struct SumOfSquares {
  using Scalar = typename AView::non_const_value_type;
  AView a;
  std::int64_t rows, cols;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index, Scalar& sum) const {
    std::int64_t i, j;
    if (std::is_same<typename AView::array_layout, Kokkos::LayoutLeft>::value) {
      j = index / rows;
      i = index - j * rows;
    } else {
      i = index / cols;
      j = index - i * cols;
    }
    const Scalar x = a(i, j);
    sum += x * x;
  }
};

// The largest sum of |a| along one axis: one team per line (a column for the 1-norm, a row
// for the inf-norm), its threads sharing the line.
template <class AView>
struct MaxLineSum {
  using Scalar = typename AView::non_const_value_type;
  using value_type = Scalar;  // operator() is a template: Kokkos cannot deduce it
  AView a;
  bool columns;  // true: lines are columns
  int length;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, Scalar& largest) const {
    const int line = team.league_rank();
    Scalar sum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, length),
        [&](const int p, Scalar& partial) {
          partial += compat::math::fabs(columns ? a(p, line) : a(line, p));
        },
        sum);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (sum > largest) largest = sum;
    });
  }
};

template <class Exec, class AView>
typename AView::non_const_value_type max_line_sum(const Exec& exec, const AView& a, bool columns) {
  static_assert(AView::rank == 2, "norm: A must be a rank-2 View");
  using Scalar = typename AView::non_const_value_type;
  const int lines = static_cast<int>(columns ? a.extent(1) : a.extent(0));
  const int length = static_cast<int>(columns ? a.extent(0) : a.extent(1));
  Scalar largest = 0;
  if (lines == 0) return largest;
  Kokkos::parallel_reduce("portasim::toolkit::norm_max_line_sum",
                          Kokkos::TeamPolicy<Exec>(exec, lines, Kokkos::AUTO),
                          MaxLineSum<AView>{a, columns, length}, Kokkos::Max<Scalar>(largest));
  return largest;
}

}  // namespace impl

template <class Exec, class AView>
typename AView::non_const_value_type frobenius_norm(const Exec& exec, const AView& a) {
  static_assert(AView::rank == 2, "frobenius_norm: A must be a rank-2 View");
  using Scalar = typename AView::non_const_value_type;
  if (a.span_is_contiguous()) {
    static const auto l2 = l2_norm_reduction<Scalar>();
    const Kokkos::View<const Scalar*, typename AView::memory_space, Kokkos::MemoryUnmanaged> flat(
        a.data(), a.size());
    return l2.value(exec, flat);
  }
  const auto rows = static_cast<std::int64_t>(a.extent(0)),
             cols = static_cast<std::int64_t>(a.extent(1));
  Scalar sum = 0;
  Kokkos::parallel_reduce(
      "portasim::toolkit::frobenius_norm",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, rows * cols),
      impl::SumOfSquares<AView>{a, rows, cols}, sum);
  return compat::math::sqrt(sum);
}

template <class Exec, class AView>
typename AView::non_const_value_type norm_1(const Exec& exec, const AView& a) {
  return impl::max_line_sum(exec, a, /*columns=*/true);
}

template <class Exec, class AView>
typename AView::non_const_value_type norm_inf(const Exec& exec, const AView& a) {
  return impl::max_line_sum(exec, a, /*columns=*/false);
}

template <class Exec, class XView>
typename XView::non_const_value_type norm_2(const Exec& exec, const XView& x) {
  static_assert(XView::rank == 1, "norm_2: x must be a rank-1 View");
  using Scalar = typename XView::non_const_value_type;
  static const auto l2 = l2_norm_reduction<Scalar>();
  return l2.value(exec, x);
}

}  // namespace portasim::toolkit
