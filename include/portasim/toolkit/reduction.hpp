#pragma once
// Reductions (the role of cupy.ReductionKernel): map each element of the broadcast inputs to
// an accumulator value, combine the values with an associative operation that has an
// identity, then post-map the total: over the whole array into a rank-0 View, or along one
// axis of a 2-D or 3-D array into a View of one rank less. Every kernel runs on the given
// instance and results stay on the device; only value() waits and returns a host scalar.
//
//   auto l2 = make_reduction(fn::Square{}, fn::Plus{}, 0.0f, fn::Sqrt{});
//   l2(exec, norm, x);             // norm: Kokkos::View<float, MemorySpace>, asynchronous
//   l2.along(exec, 1, rows, m);    // rows(i) = ||m(i, :)||
//   float host = l2.value(exec, x); // the explicit synchronous form

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

#include "portasim/core/error.hpp"
#include "portasim/toolkit/broadcast.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/impl/reduction_scratch.hpp"
#include "portasim/toolkit/impl/whole_reduction.hpp"

namespace portasim::toolkit {

namespace fn {
struct Identity {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION A operator()(A a) const { return a; }
};
}  // namespace fn

namespace impl {

// Host form of the whole-array reduction: index b combines elements [b * block, (b + 1) *
// block) into a local value first, so a float sum is a sum of block sums (far more accurate
// than one running sum per thread), and each thread still reads contiguous memory.
inline constexpr std::size_t host_reduce_block = 1024;

template <class E, class Combine, class Acc>
struct BlockedWholeBody {
  E expr;
  Combine combine;
  Acc identity;
  FlatIndex index;
  std::size_t n;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const std::size_t b, Acc& acc) const {
    const std::size_t begin = b * host_reduce_block;
    const std::size_t end = begin + host_reduce_block < n ? begin + host_reduce_block : n;
    Acc local = identity;
    for (std::size_t k = begin; k < end; ++k) {
      std::size_t i0, i1, i2;
      index.template at<E::static_rank>(k, i0, i1, i2);
      local = combine(local, static_cast<Acc>(expr(i0, i1, i2)));
    }
    acc = combine(acc, local);
  }
};

// Reduction along one slot (0..2 of the three aligned indices) of the expression's shape:
// the output element's three indices with the reduced slot set to 0 address `out`.
struct AxisGeometry {
  std::size_t extent[3] = {1, 1, 1};
  int axis_slot = 2;
  FlatIndex outer;  // over the output's elements
  int out_rank = 0;

  // the input indices of output element k and reduced position j
  KOKKOS_FORCEINLINE_FUNCTION void indices(std::size_t k, std::size_t j, std::size_t& i0, std::size_t& i1,
                                           std::size_t& i2, std::size_t& o0, std::size_t& o1,
                                           std::size_t& o2) const {
    outer(k, o0, o1, o2);
    // output indices aligned at the right; the input's slots are the output's with the
    // reduced slot inserted
    std::size_t in[3];
    const std::size_t out_idx[3] = {o0, o1, o2};
    int src = 2;
    for (int slot = 2; slot >= 0; --slot) {
      if (slot == axis_slot) {
        in[slot] = j;
      } else {
        in[slot] = src >= 0 ? out_idx[src] : 0;
        --src;
      }
    }
    i0 = in[0], i1 = in[1], i2 = in[2];
  }
};

template <class Out, class E, class Combine, class Post, class Acc>
struct AxisFlatBody {
  ViewOperand<Out> out;
  E expr;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t k) const {
    std::size_t i0, i1, i2, o0, o1, o2;
    Acc acc = identity;
    const std::size_t length = geometry.extent[geometry.axis_slot];
    for (std::size_t j = 0; j < length; ++j) {
      geometry.indices(k, j, i0, i1, i2, o0, o1, o2);
      acc = combine(acc, static_cast<Acc>(expr(i0, i1, i2)));
    }
    geometry.outer(k, o0, o1, o2);
    out(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post(acc));
  }
};

template <class Exec, class Out, class E, class Combine, class Post, class Acc>
struct AxisTeamBody {
  using member_type = typename Kokkos::TeamPolicy<Exec>::member_type;
  ViewOperand<Out> out;
  E expr;
  Combine combine;
  Post post;
  Acc identity;
  AxisGeometry geometry;
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& member) const {
    const std::size_t k = static_cast<std::size_t>(member.league_rank());
    const std::size_t length = geometry.extent[geometry.axis_slot];
    Acc acc = identity;
    const AxisGeometry& g = geometry;
    const E& e = expr;
    const Combine& c = combine;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(member, length),
        [&](const std::size_t j, Acc& partial) {
          std::size_t i0, i1, i2, o0, o1, o2;
          g.indices(k, j, i0, i1, i2, o0, o1, o2);
          partial = c(partial, static_cast<Acc>(e(i0, i1, i2)));
        },
        CombineReducer<Acc, Combine, Kokkos::HostSpace>(acc, c, identity));
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      std::size_t o0, o1, o2;
      g.outer(k, o0, o1, o2);
      out(o0, o1, o2) = static_cast<typename ViewOperand<Out>::value_type>(post(acc));
    });
  }
};

}  // namespace impl

template <class Map, class Combine, class Acc, class Post = fn::Identity>
class Reduction {
 public:
  using accumulator_type = Acc;

  Reduction(const Map& map, const Combine& combine, Acc identity, const Post& post = Post{},
            std::string name = "portasim::toolkit::reduce")
      : m_map(map),
        m_combine(combine),
        m_identity(identity),
        m_post(post),
        m_name(std::move(name)),
        m_axis_name(m_name + " along axis") {}

  // result() = post(combine over all elements of map(ins...)); result is a rank-0 View of
  // the accumulator type in memory the instance can write. Asynchronous on exec: on devices
  // one kernel (impl/whole_reduction.hpp), nothing allocated, no fence; on host backends a
  // RangePolicy parallel_reduce, whose contiguous per-thread ranges suit CPU caches.
  template <class Exec, class Result, class... Ins>
  void operator()(const Exec& exec, const Result& result, const Ins&... ins) const {
    (*this)(exec, impl::DeviceReduceShape{}, result, ins...);
  }

  // The same with a chosen grid for the device kernel (ignored on host backends).
  template <class Exec, class Result, class... Ins>
  void operator()(const Exec& exec, const impl::DeviceReduceShape& shape, const Result& result,
                  const Ins&... ins) const {
    static_assert(Kokkos::is_view<Result>::value && Result::rank == 0,
                  "a whole-array reduction writes into a rank-0 Kokkos::View");
    static_assert(std::is_same<typename Result::non_const_value_type, Acc>::value,
                  "the result View's value type must be the reduction's accumulator type");
    const auto expr = apply(m_map, ins...);
    using E = std::decay_t<decltype(expr)>;
    static_assert(E::template accessible_from<Exec>() &&
                      Kokkos::SpaceAccessibility<Exec, typename Result::memory_space>::accessible,
                  "every View of a reduction must be accessible from its execution space");
    if (shape.team < 0 || shape.per_thread < 0 || shape.per_thread > impl::max_elements_in_flight || shape.waves < 0)
      throw_error(ErrorKind::invalid_argument,
                  "reduction grid: team " + std::to_string(shape.team) + ", per_thread " +
                      std::to_string(shape.per_thread) + ", waves " + std::to_string(shape.waves) +
                      ": team and waves must be >= 0 (0: default), per_thread in 0.." +
                      std::to_string(impl::max_elements_in_flight));
    const Shape shape_in = expr.shape();
    const std::size_t n = shape_in.size();
    const impl::FlatIndex index(shape_in, false);
    if constexpr (impl::is_device_space<Exec>()) {
      impl::reduce_whole_on_device(m_name, exec, expr, index, n, m_combine, m_identity, m_post, result, shape);
    } else {
      // Host backends finish a reduction into a scalar before returning, so the post-map
      // and the store need no kernel of their own.
      (void)shape;
      Acc acc = m_identity;
      if (n > 0)
        Kokkos::parallel_reduce(m_name,
                                Kokkos::RangePolicy<Exec>(exec, 0, (n + impl::host_reduce_block - 1) / impl::host_reduce_block),
                                impl::BlockedWholeBody<E, Combine, Acc>{expr, m_combine, m_identity, index, n},
                                impl::CombineReducer<Acc, Combine, Kokkos::HostSpace>(acc, m_combine, m_identity));
      result() = m_post(acc);
    }
  }

  // out = post(combine along `axis` of map(ins...)) for inputs broadcasting to rank 2 or 3;
  // out has the broadcast shape without that axis. Asynchronous on exec.
  template <class Exec, class Out, class... Ins>
  void along(const Exec& exec, int axis, const Out& out, const Ins&... ins) const {
    static_assert(Kokkos::is_view<Out>::value, "an axis reduction writes into a Kokkos::View");
    const auto expr = apply(m_map, ins...);
    using E = std::decay_t<decltype(expr)>;
    static_assert(E::template accessible_from<Exec>() && ViewOperand<Out>::template accessible_from<Exec>(),
                  "every View of a reduction must be accessible from its execution space");
    const Shape shape = expr.shape();
    // (messages are built only on failure; see impl::require_output_view_shape)
    if (shape.rank() < 2)
      throw_error(ErrorKind::invalid_argument, "a reduction along an axis needs operands of rank 2 or 3, they broadcast to " +
                                                   shape.to_string() + " (reduce the whole array instead)");
    if (axis < 0 || axis >= shape.rank())
      throw_error(ErrorKind::invalid_argument,
                  "reduction axis " + std::to_string(axis) + " out of range for shape " + shape.to_string());
    const Shape out_shape = shape.without(axis);
    if (Shape::of(out) != out_shape)
      require_output_shape(Shape::of(out), out_shape,
                           "output View '" + out.label() + "' of the reduction along axis " + std::to_string(axis));
    impl::AxisGeometry geometry;
    geometry.axis_slot = max_rank - shape.rank() + axis;
    for (int slot = 0; slot < max_rank; ++slot) geometry.extent[slot] = shape.from_right(max_rank - 1 - slot);
    geometry.outer = impl::FlatIndex(out_shape, impl::first_index_fastest(out));
    geometry.out_rank = out_shape.rank();
    const std::size_t outputs = out_shape.size();
    if (outputs == 0) return;
    // Along the last axis of row-major data a team reads one contiguous row together;
    // along any other axis one thread per output walks the axis while its neighbours read
    // the neighbouring addresses.
    if (axis == shape.rank() - 1 && !impl::first_index_fastest(out)) {
      using Policy = Kokkos::TeamPolicy<Exec>;
      impl::AxisTeamBody<Exec, Out, E, Combine, Post, Acc> body{ViewOperand<Out>(out), expr, m_combine,
                                                                m_post, m_identity, geometry};
      Kokkos::parallel_for(m_axis_name, Policy(exec, static_cast<int>(outputs), Kokkos::AUTO), body);
    } else {
      Kokkos::parallel_for(m_axis_name, Kokkos::RangePolicy<Exec>(exec, 0, outputs),
                           impl::AxisFlatBody<Out, E, Combine, Post, Acc>{ViewOperand<Out>(out), expr, m_combine,
                                                                         m_post, m_identity, geometry});
    }
  }

  // The explicit synchronous convenience form: reduces on exec, waits for it, returns the
  // value on the host. Nothing is allocated: host backends reduce straight into the
  // returned variable, devices into a slot of the instance's reduction scratch.
  template <class Exec, class... Ins>
  Acc value(const Exec& exec, const Ins&... ins) const {
    Acc host{};
    const Kokkos::View<Acc, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host_view(&host);
    if constexpr (impl::is_device_space<Exec>()) {
      const Kokkos::View<Acc, typename Exec::memory_space, Kokkos::MemoryUnmanaged> slot(
          static_cast<Acc*>(impl::reduction_scratch(exec).value));
      (*this)(exec, slot, ins...);
      Kokkos::deep_copy(exec, host_view, slot);
      exec.fence();
    } else {
      (*this)(exec, host_view, ins...);
    }
    return host;
  }

 private:
  Map m_map;
  Combine m_combine;
  Acc m_identity;
  Post m_post;
  std::string m_name;
  std::string m_axis_name;
};

template <class Map, class Combine, class Acc, class Post = fn::Identity>
Reduction<Map, Combine, Acc, Post> make_reduction(const Map& map, const Combine& combine, Acc identity,
                                                  const Post& post = Post{},
                                                  std::string name = "portasim::toolkit::reduce") {
  return Reduction<Map, Combine, Acc, Post>(map, combine, identity, post, std::move(name));
}

// The usual reductions, accumulating in Acc (default: the input's value type; pass double
// for float data that must sum to double accuracy).
namespace impl {
template <class T>
struct CastTo {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a) const { return static_cast<T>(a); }
};
template <class T>
struct CastSquare {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a) const { return static_cast<T>(a) * static_cast<T>(a); }
};
template <class T>
struct CastProduct {
  template <class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a, B b) const { return static_cast<T>(a) * static_cast<T>(b); }
};
}  // namespace impl

template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Plus, Acc> sum_reduction() {
  return {impl::CastTo<Acc>{}, fn::Plus{}, Acc(0), fn::Identity{}, "portasim::toolkit::sum"};
}
template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Minimum, Acc> min_reduction() {
  return {impl::CastTo<Acc>{}, fn::Minimum{}, Kokkos::reduction_identity<Acc>::min(), fn::Identity{},
          "portasim::toolkit::min"};
}
template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Maximum, Acc> max_reduction() {
  return {impl::CastTo<Acc>{}, fn::Maximum{}, Kokkos::reduction_identity<Acc>::max(), fn::Identity{},
          "portasim::toolkit::max"};
}
template <class Acc>
Reduction<impl::CastProduct<Acc>, fn::Plus, Acc> dot_reduction() {
  return {impl::CastProduct<Acc>{}, fn::Plus{}, Acc(0), fn::Identity{}, "portasim::toolkit::dot"};
}
template <class Acc>
Reduction<impl::CastSquare<Acc>, fn::Plus, Acc, fn::Sqrt> l2_norm_reduction() {
  return {impl::CastSquare<Acc>{}, fn::Plus{}, Acc(0), fn::Sqrt{}, "portasim::toolkit::l2_norm"};
}

// Whole-array forms into a rank-0 device View (accumulator = the result's value type). Each
// reduction object is made once per type (its name strings would cost allocations per call).
template <class Exec, class Result, class In>
void sum(const Exec& exec, const Result& result, const In& in) {
  static const auto reduction = sum_reduction<typename Result::non_const_value_type>();
  reduction(exec, result, in);
}
template <class Exec, class Result, class In>
void min(const Exec& exec, const Result& result, const In& in) {
  static const auto reduction = min_reduction<typename Result::non_const_value_type>();
  reduction(exec, result, in);
}
template <class Exec, class Result, class In>
void max(const Exec& exec, const Result& result, const In& in) {
  static const auto reduction = max_reduction<typename Result::non_const_value_type>();
  reduction(exec, result, in);
}
template <class Exec, class Result, class A, class B>
void dot(const Exec& exec, const Result& result, const A& a, const B& b) {
  static const auto reduction = dot_reduction<typename Result::non_const_value_type>();
  reduction(exec, result, a, b);
}
template <class Exec, class Result, class In>
void l2_norm(const Exec& exec, const Result& result, const In& in) {
  static const auto reduction = l2_norm_reduction<typename Result::non_const_value_type>();
  reduction(exec, result, in);
}

// Along an axis (accumulating in the output's value type).
template <class Exec, class Out, class In>
void sum_along(const Exec& exec, int axis, const Out& out, const In& in) {
  static const auto reduction = sum_reduction<typename Out::non_const_value_type>();
  reduction.along(exec, axis, out, in);
}
template <class Exec, class Out, class In>
void min_along(const Exec& exec, int axis, const Out& out, const In& in) {
  static const auto reduction = min_reduction<typename Out::non_const_value_type>();
  reduction.along(exec, axis, out, in);
}
template <class Exec, class Out, class In>
void max_along(const Exec& exec, int axis, const Out& out, const In& in) {
  static const auto reduction = max_reduction<typename Out::non_const_value_type>();
  reduction.along(exec, axis, out, in);
}
template <class Exec, class Out, class In>
void l2_norm_along(const Exec& exec, int axis, const Out& out, const In& in) {
  static const auto reduction = l2_norm_reduction<typename Out::non_const_value_type>();
  reduction.along(exec, axis, out, in);
}

}  // namespace portasim::toolkit
