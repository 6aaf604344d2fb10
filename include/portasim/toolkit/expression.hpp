#pragma once
// Fused elementwise expressions (the role of cupy.fuse): operands wrap Views or scalars,
// operators and math functions build a tree of small device-copyable nodes, and evaluating
// the tree runs it as one kernel that reads each input once and writes the output once, with
// no temporaries. Every node is indexed with three indices aligned at the last dimension, so
// a size-1 dimension of an operand has stride 0 and broadcasts (NumPy rules).
//
//   namespace tk = portasim::toolkit;
//   auto e = square(tk::arg(a) - tk::arg(b));   // (a - b)^2; nothing runs yet
//   tk::evaluate(exec, out, e);                 // one parallel_for on exec
// (square, exp, ... are found by argument-dependent lookup on the toolkit operand.)

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "portasim/core/compat.hpp"
#include "portasim/toolkit/broadcast.hpp"

namespace portasim::toolkit {

namespace impl {

struct ExpressionTag {};

}  // namespace impl

template <class T>
struct is_expression : std::is_base_of<impl::ExpressionTag, T> {};

// A View of rank 0..3 read (or written) with broadcasting strides: a dimension of extent 1
// gets stride 0, so any index along it reads element 0.
template <class View>
class ViewOperand : impl::ExpressionTag {
  static_assert(Kokkos::is_view<View>::value, "ViewOperand wraps a Kokkos::View");
  static_assert(View::rank <= max_rank, "toolkit operands have at most 3 dimensions");

 public:
  using view_type = View;
  using value_type = typename View::non_const_value_type;
  using memory_space = typename View::memory_space;
  // The rank known at compile time (every node has one): kernels over operands of rank <= 1
  // map a flat element number straight to the index, without the run-time rank dispatch
  // and divisions of impl::FlatIndex, which sat between the loads of a GPU reduction and left
  // one load in flight per thread (docs/design/reductions.md).
  static constexpr int static_rank = static_cast<int>(View::rank);

  explicit ViewOperand(const View& view) : m_shape(Shape::of(view)), m_data(view.data()) {
    const int rank = static_cast<int>(View::rank);
    for (int d = 0; d < rank; ++d) {
      const int slot = max_rank - rank + d;
      m_stride[slot] = view.extent(d) == 1 ? 0 : static_cast<std::size_t>(view.stride(d));
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION typename View::reference_type operator()(std::size_t i0,
                                                                       std::size_t i1,
                                                                       std::size_t i2) const {
    return m_data[i0 * m_stride[0] + i1 * m_stride[1] + i2 * m_stride[2]];
  }
  Shape shape() const { return m_shape; }
  template <class Exec>
  static constexpr bool accessible_from() {
    return Kokkos::SpaceAccessibility<Exec, memory_space>::accessible;
  }

 private:
  // The extents and the pointer, not the View: a managed View's reference count is an atomic
  // update on every copy of the operand (a kernel launch copies its functor several times),
  // and holding it would not keep the memory alive for the kernel anyway (the launch's
  // copies are gone when parallel_for returns; freeing device memory waits for the device).
  Shape m_shape;
  typename View::pointer_type m_data;
  std::size_t m_stride[max_rank] = {0, 0, 0};
};

// A scalar broadcast to every element (the B of y = x1 * x2 + B).
template <class T>
class ScalarOperand : impl::ExpressionTag {
 public:
  using value_type = T;
  static constexpr int static_rank = 0;
  explicit ScalarOperand(T value) : m_value(value) {}
  KOKKOS_FORCEINLINE_FUNCTION T operator()(std::size_t, std::size_t, std::size_t) const {
    return m_value;
  }
  Shape shape() const { return Shape{}; }
  template <class Exec>
  static constexpr bool accessible_from() {
    return true;
  }

 private:
  T m_value;
};

namespace impl {

// A tuple of expressions that is safe to copy to the device (std::tuple is not, with nvcc),
// with the one operation the kernels need: evaluate every member at an index and call f.
template <class... Es>
struct Pack {
  static constexpr int static_rank = 0;
  template <class F, class... Vs>
  KOKKOS_FORCEINLINE_FUNCTION auto apply(const F& f, std::size_t, std::size_t, std::size_t,
                                         Vs... vs) const {
    return f(vs...);
  }
  Shape shape() const { return Shape{}; }
  template <class Exec>
  static constexpr bool accessible_from() {
    return true;
  }
};

template <class E, class... Es>
struct Pack<E, Es...> {
  static constexpr int static_rank =
      E::static_rank > Pack<Es...>::static_rank ? E::static_rank : Pack<Es...>::static_rank;
  E head;
  Pack<Es...> tail;
  template <class F, class... Vs>
  KOKKOS_FORCEINLINE_FUNCTION auto apply(const F& f, std::size_t i0, std::size_t i1, std::size_t i2,
                                         Vs... vs) const {
    return tail.apply(f, i0, i1, i2, vs..., head(i0, i1, i2));
  }
  Shape shape() const { return broadcast_shapes(head.shape(), tail.shape()); }
  template <class Exec>
  static constexpr bool accessible_from() {
    return E::template accessible_from<Exec>() && Pack<Es...>::template accessible_from<Exec>();
  }
};

template <class... Es>
Pack<Es...> make_pack(const Es&... es);
inline Pack<> make_pack() { return {}; }
template <class E, class... Es>
Pack<E, Es...> make_pack(const E& e, const Es&... es) {
  return Pack<E, Es...>{e, make_pack(es...)};
}

}  // namespace impl

// f applied to the values of sub-expressions: every operator and function below is one of
// these, and so is a user functor passed to apply() or elementwise().
template <class F, class... Es>
class Call : impl::ExpressionTag {
 public:
  using value_type =
      std::decay_t<decltype(std::declval<const F&>()(std::declval<typename Es::value_type>()...))>;
  static constexpr int static_rank = impl::Pack<Es...>::static_rank;

  Call(const F& f, const Es&... es) : m_f(f), m_args(impl::make_pack(es...)) {}
  KOKKOS_FORCEINLINE_FUNCTION value_type operator()(std::size_t i0, std::size_t i1,
                                                    std::size_t i2) const {
    return m_args.apply(m_f, i0, i1, i2);
  }
  Shape shape() const { return m_args.shape(); }
  template <class Exec>
  static constexpr bool accessible_from() {
    return impl::Pack<Es...>::template accessible_from<Exec>();
  }

 private:
  F m_f;
  impl::Pack<Es...> m_args;
};

// Operands: Views and expressions as they are, arithmetic values as broadcast scalars.
template <class View, std::enable_if_t<Kokkos::is_view<View>::value, int> = 0>
ViewOperand<View> arg(const View& view) {
  return ViewOperand<View>(view);
}
template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
ScalarOperand<T> scalar(T value) {
  return ScalarOperand<T>(value);
}

namespace impl {

template <class T, class = void>
struct AsExpression;
template <class T>
struct AsExpression<T, std::enable_if_t<is_expression<T>::value>> {
  using type = T;
  static const T& make(const T& e) { return e; }
};
template <class T>
struct AsExpression<T, std::enable_if_t<Kokkos::is_view<T>::value>> {
  using type = ViewOperand<T>;
  static type make(const T& v) { return type(v); }
};
template <class T>
struct AsExpression<T, std::enable_if_t<std::is_arithmetic<T>::value>> {
  using type = ScalarOperand<T>;
  static type make(T v) { return type(v); }
};

}  // namespace impl

template <class T>
using as_expression_t = typename impl::AsExpression<std::decay_t<T>>::type;

template <class T>
as_expression_t<T> as_expression(const T& x) {
  return impl::AsExpression<std::decay_t<T>>::make(x);
}

// Lambda composition: f over expressions, Views or scalars, fused like the operators.
template <class F, class... Args>
Call<F, as_expression_t<Args>...> apply(const F& f, const Args&... args) {
  return Call<F, as_expression_t<Args>...>(f, as_expression(args)...);
}

// The functors behind the operators and functions; usable on their own in elementwise().
namespace fn {
#define PORTASIM_TOOLKIT_BINARY_FUNCTOR(NAME, EXPR)                                 \
  struct NAME {                                                                     \
    template <class A, class B>                                                     \
    KOKKOS_FORCEINLINE_FUNCTION auto operator()(A a, B b) const -> decltype(EXPR) { \
      return EXPR;                                                                  \
    }                                                                               \
  };
// clang-format 14 would read `a * b` below as a pointer declaration and write `a* b`.
// clang-format off
PORTASIM_TOOLKIT_BINARY_FUNCTOR(Plus, a + b)
PORTASIM_TOOLKIT_BINARY_FUNCTOR(Minus, a - b)
PORTASIM_TOOLKIT_BINARY_FUNCTOR(Multiplies, a * b)
PORTASIM_TOOLKIT_BINARY_FUNCTOR(Divides, a / b)
// clang-format on
#undef PORTASIM_TOOLKIT_BINARY_FUNCTOR

struct Negate {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION A operator()(A a) const {
    return -a;
  }
};
struct Square {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION A operator()(A a) const {
    return a * a;
  }
};
struct Maximum {
  template <class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION std::common_type_t<A, B> operator()(A a, B b) const {
    return a < b ? b : a;
  }
};
struct Minimum {
  template <class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION std::common_type_t<A, B> operator()(A a, B b) const {
    return b < a ? b : a;
  }
};
#define PORTASIM_TOOLKIT_MATH_FUNCTOR(NAME, FUNCTION)     \
  struct NAME {                                           \
    template <class A>                                    \
    KOKKOS_FORCEINLINE_FUNCTION A operator()(A a) const { \
      return portasim::compat::math::FUNCTION(a);         \
    }                                                     \
  };
PORTASIM_TOOLKIT_MATH_FUNCTOR(Abs, fabs)
PORTASIM_TOOLKIT_MATH_FUNCTOR(Exp, exp)
PORTASIM_TOOLKIT_MATH_FUNCTOR(Log, log)
PORTASIM_TOOLKIT_MATH_FUNCTOR(Log1p, log1p)
PORTASIM_TOOLKIT_MATH_FUNCTOR(Sqrt, sqrt)
#undef PORTASIM_TOOLKIT_MATH_FUNCTOR

// (a - b)^2
struct SquaredDifference {
  template <class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION auto operator()(A a, B b) const -> decltype(a - b) {
    const auto d = a - b;
    return d * d;
  }
};
// x1 * x2 + b
struct MultiplyAdd {
  template <class A, class B, class C>
  KOKKOS_FORCEINLINE_FUNCTION auto operator()(A x1, B x2, C b) const -> decltype(x1 * x2 + b) {
    return x1 * x2 + b;
  }
};
// log(1 + e^x) written as max(0, x) + log1p(e^-|x|): the exponent is never positive, so
// e^x cannot overflow for large x, and log1p keeps the digits of tiny e^-|x| for large |x|.
struct Softplus {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION A operator()(A x) const {
    namespace m = portasim::compat::math;
    const A zero(0);
    return (x > zero ? x : zero) + m::log1p(m::exp(-m::fabs(x)));
  }
};
}  // namespace fn

// Operators and functions on expressions, found by argument-dependent lookup once an operand
// is a toolkit expression (built with arg() or scalar()).
template <class A, class B>
using enable_binary_t =
    std::enable_if_t<(is_expression<A>::value || is_expression<B>::value) &&
                         (is_expression<A>::value || std::is_arithmetic<A>::value) &&
                         (is_expression<B>::value || std::is_arithmetic<B>::value),
                     int>;

#define PORTASIM_TOOLKIT_BINARY_OPERATOR(OP, FUNCTOR)                                    \
  template <class A, class B, enable_binary_t<A, B> = 0>                                 \
  Call<fn::FUNCTOR, as_expression_t<A>, as_expression_t<B>> OP(const A& a, const B& b) { \
    return Call<fn::FUNCTOR, as_expression_t<A>, as_expression_t<B>>(                    \
        fn::FUNCTOR{}, as_expression(a), as_expression(b));                              \
  }
PORTASIM_TOOLKIT_BINARY_OPERATOR(operator+, Plus)
PORTASIM_TOOLKIT_BINARY_OPERATOR(operator-, Minus)
PORTASIM_TOOLKIT_BINARY_OPERATOR(operator*, Multiplies)
PORTASIM_TOOLKIT_BINARY_OPERATOR(operator/, Divides)
PORTASIM_TOOLKIT_BINARY_OPERATOR(maximum, Maximum)
PORTASIM_TOOLKIT_BINARY_OPERATOR(minimum, Minimum)
PORTASIM_TOOLKIT_BINARY_OPERATOR(squared_difference, SquaredDifference)
#undef PORTASIM_TOOLKIT_BINARY_OPERATOR

#define PORTASIM_TOOLKIT_UNARY_FUNCTION(NAME, FUNCTOR)                   \
  template <class E, std::enable_if_t<is_expression<E>::value, int> = 0> \
  Call<fn::FUNCTOR, E> NAME(const E& e) {                                \
    return Call<fn::FUNCTOR, E>(fn::FUNCTOR{}, e);                       \
  }
PORTASIM_TOOLKIT_UNARY_FUNCTION(operator-, Negate)
PORTASIM_TOOLKIT_UNARY_FUNCTION(square, Square)
PORTASIM_TOOLKIT_UNARY_FUNCTION(abs, Abs)
PORTASIM_TOOLKIT_UNARY_FUNCTION(exp, Exp)
PORTASIM_TOOLKIT_UNARY_FUNCTION(log, Log)
PORTASIM_TOOLKIT_UNARY_FUNCTION(log1p, Log1p)
PORTASIM_TOOLKIT_UNARY_FUNCTION(sqrt, Sqrt)
PORTASIM_TOOLKIT_UNARY_FUNCTION(softplus, Softplus)
#undef PORTASIM_TOOLKIT_UNARY_FUNCTION

}  // namespace portasim::toolkit
