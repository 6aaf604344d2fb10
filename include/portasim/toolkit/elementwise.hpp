#pragma once
// Elementwise kernels over Views of rank 0..3 with NumPy broadcasting (the role of
// cupy.ElementwiseKernel): out = f(in...) element by element, where each input is a View, a
// scalar or a fused expression (expression.hpp), all broadcast against each other; `out`
// must have exactly the broadcast shape. One kernel on the given instance, nothing allocated.
//
//   elementwise(exec, fn::MultiplyAdd{}, y, x1, x2, 2.0f);   // y = x1 * x2 + 2
//   evaluate(exec, y, arg(x1) * arg(x2) + 2.0f);             // the same, as an expression
//   elementwise(exec, LaunchShape::teams(0, 256), f, y, x);  // with a chosen launch shape

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

#include "portasim/toolkit/broadcast.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/launch_shape.hpp"

namespace portasim::toolkit {

namespace impl {

// The extents of a shape aligned at its last dimension into three slots (leading slots 1),
// and the mapping of a flat element number onto the three indices. Flat numbers run along
// the output's memory order (last index fastest for LayoutRight, first for LayoutLeft), so
// consecutive threads touch consecutive output addresses.
struct FlatIndex {
  std::size_t e0 = 1, e1 = 1, e2 = 1;
  int rank = 0;
  bool first_fastest = false;

  FlatIndex() = default;
  FlatIndex(const Shape& s, bool first_fastest_) : rank(s.rank()), first_fastest(first_fastest_) {
    e0 = s.from_right(2);
    e1 = s.from_right(1);
    e2 = s.from_right(0);
  }
  // The same for operands whose rank is known at compile time: rank <= 1 needs no dispatch.
  template <int StaticRank>
  KOKKOS_FORCEINLINE_FUNCTION void at(std::size_t k, std::size_t& i0, std::size_t& i1,
                                      std::size_t& i2) const {
    if constexpr (StaticRank <= 1) {
      i0 = 0, i1 = 0, i2 = k;
    } else {
      (*this)(k, i0, i1, i2);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void operator()(std::size_t k, std::size_t& i0, std::size_t& i1,
                                              std::size_t& i2) const {
    if (rank <= 1) {
      i0 = 0, i1 = 0, i2 = k;
    } else if (!first_fastest) {
      i2 = k % e2;
      const std::size_t rest = k / e2;
      i1 = rest % e1;
      i0 = rest / e1;
    } else if (rank == 2) {
      i0 = 0, i1 = k % e1, i2 = k / e1;
    } else {
      i0 = k % e0;
      const std::size_t rest = k / e0;
      i1 = rest % e1;
      i2 = rest / e1;
    }
  }
};

template <class View>
bool first_index_fastest(const View& view) {
  if constexpr (View::rank >= 2) {
    return view.stride(0) < view.stride(View::rank - 1);
  } else {
    return false;
  }
}

template <class Out, class E>
struct EvaluateBody {
  using value_type = typename ViewOperand<Out>::value_type;
  static constexpr int static_rank = ViewOperand<Out>::static_rank > E::static_rank
                                         ? ViewOperand<Out>::static_rank
                                         : E::static_rank;
  ViewOperand<Out> out;
  E expr;
  FlatIndex index;
  KOKKOS_FORCEINLINE_FUNCTION value_type value(const std::size_t k) const {
    std::size_t i0, i1, i2;
    index.template at<static_rank>(k, i0, i1, i2);
    return static_cast<value_type>(expr(i0, i1, i2));
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(const std::size_t k, const value_type v) const {
    std::size_t i0, i1, i2;
    index.template at<static_rank>(k, i0, i1, i2);
    out(i0, i1, i2) = v;
  }
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const std::size_t k) const {
    std::size_t i0, i1, i2;
    index.template at<static_rank>(k, i0, i1, i2);
    out(i0, i1, i2) = static_cast<value_type>(expr(i0, i1, i2));
  }
};

// Kernel labels, built once: a std::string per call is a heap allocation on the hot path.
inline const std::string& evaluate_label() {
  static const std::string label("portasim::toolkit::evaluate");
  return label;
}
inline const std::string& elementwise_label() {
  static const std::string label("portasim::toolkit::elementwise");
  return label;
}

// Throws unless `out` has the shape `expected`. The message names the View by its label,
// read only on failure: on a GPU View::label() copies the allocation header from device
// memory (a synchronizing cudaMemcpy in Kokkos 3.4), which on the success path added a device
// round trip to every call and serialized it with the device (docs/design/elementwise.md).
template <class Out>
void require_output_view_shape(const Out& out, const Shape& expected,
                               const char* what_after_label = "") {
  const Shape actual = Shape::of(out);
  if (actual == expected) return;
  require_output_shape(actual, expected, "output View '" + out.label() + "'" + what_after_label);
}

}  // namespace impl

// out = expr, one kernel on exec under the given launch shape.
template <class Exec, class Out, class E, std::enable_if_t<is_expression<E>::value, int> = 0>
void evaluate(const Exec& exec, const LaunchShape& shape, const Out& out, const E& expr,
              const std::string& label = impl::evaluate_label()) {
  static_assert(Kokkos::is_view<Out>::value,
                "the output of evaluate/elementwise is a Kokkos::View");
  static_assert(!std::is_const<typename Out::value_type>::value,
                "the output View must be writable");
  static_assert(
      ViewOperand<Out>::template accessible_from<Exec>() && E::template accessible_from<Exec>(),
      "every View of an elementwise kernel must be accessible from its execution space");
  const Shape expected = expr.shape();
  impl::require_output_view_shape(out, expected);
  const impl::FlatIndex index(expected, impl::first_index_fastest(out));
  impl::launch(label, exec, shape, expected.size(),
               impl::EvaluateBody<Out, E>{ViewOperand<Out>(out), expr, index});
}

template <class Exec, class Out, class E, std::enable_if_t<is_expression<E>::value, int> = 0>
void evaluate(const Exec& exec, const Out& out, const E& expr,
              const std::string& label = impl::evaluate_label()) {
  evaluate(exec, LaunchShape{}, out, expr, label);
}

// out = f(ins...) element by element (ElementwiseKernel); each input a View, a scalar or an
// expression. f is a functor (or KOKKOS_LAMBDA) callable on the devices of Exec.
template <class Exec, class F, class Out, class... Ins>
void elementwise(const Exec& exec, const LaunchShape& shape, const F& f, const Out& out,
                 const Ins&... ins) {
  evaluate(exec, shape, out, apply(f, ins...), impl::elementwise_label());
}

template <class Exec, class F, class Out, class... Ins,
          std::enable_if_t<!std::is_same<std::decay_t<F>, LaunchShape>::value, int> = 0>
void elementwise(const Exec& exec, const F& f, const Out& out, const Ins&... ins) {
  evaluate(exec, LaunchShape{}, out, apply(f, ins...), impl::elementwise_label());
}

}  // namespace portasim::toolkit
