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

#include "portasim/core/compat.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/vector_math.hpp"
#include "portasim/toolkit/broadcast.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/impl/axis_reduction.hpp"
#include "portasim/toolkit/impl/reduction_scratch.hpp"
#include "portasim/toolkit/impl/whole_reduction.hpp"

namespace portasim::toolkit {

namespace fn {
struct Identity {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION A operator()(A a) const {
    return a;
  }
};
}  // namespace fn

namespace impl {

// Host form of the whole-array reduction: index b combines elements [b * block, (b + 1) *
// block) into a local value first, so a float sum is a sum of block sums (far more accurate
// than one running sum per thread), and each thread still reads contiguous memory.
// Within a block, element k goes to accumulator k % lanes: independent chains the compiler
// keeps in vector registers (a single chain of floating-point combines cannot be reordered,
// so it would not vectorize). The chains restart every sub-block of 32 elements per lane and
// each sub-block's lanes are added into the block's lanes, which are combined as a tree once
// per block: short chains as before, and the tree, whose steps depend on each other, costs a
// fraction of a one-thread read of the block instead of a tenth (design notes, rule 9). The
// order is fixed, so results do not depend on the thread count.
inline constexpr std::size_t host_reduce_sub_block = 1024;
inline constexpr std::size_t host_reduce_block = 8 * host_reduce_sub_block;
inline constexpr int host_reduce_lanes = 32;

template <class E, class Combine, class Acc>
struct BlockedWholeBody {
  E expr;
  Combine combine;
  Acc identity;
  FlatIndex index;
  std::size_t n;
  KOKKOS_FORCEINLINE_FUNCTION Acc element(std::size_t k) const {
    std::size_t i0, i1, i2;
    index.template at<E::static_rank>(k, i0, i1, i2);
    return static_cast<Acc>(expr(i0, i1, i2));
  }
  // Host only; on AVX-512 CPUs a copy in 512-bit registers (PORTASIM_HOST_CLONES).
  PORTASIM_HOST_CLONES void operator()(const std::size_t b, Acc& acc) const {
    constexpr int lanes = host_reduce_lanes;
    const std::size_t begin = b * host_reduce_block;
    const std::size_t end = begin + host_reduce_block < n ? begin + host_reduce_block : n;
    Acc block[lanes];
    for (int l = 0; l < lanes; ++l) block[l] = identity;
    for (std::size_t sub = begin; sub < end; sub += host_reduce_sub_block) {
      const std::size_t sub_end =
          sub + host_reduce_sub_block < end ? sub + host_reduce_sub_block : end;
      Acc lane[lanes];
      for (int l = 0; l < lanes; ++l) lane[l] = identity;
      std::size_t k = sub;
      for (; k + lanes <= sub_end; k += lanes) {
        PORTASIM_SIMD
        for (int l = 0; l < lanes; ++l) lane[l] = combine(lane[l], element(k + l));
      }
      for (int l = 0; k < sub_end; ++k, ++l) lane[l] = combine(lane[l], element(k));
      PORTASIM_SIMD
      for (int l = 0; l < lanes; ++l) block[l] = combine(block[l], lane[l]);
    }
    for (int width = lanes / 2; width > 0; width /= 2)
      for (int l = 0; l < width; ++l) block[l] = combine(block[l], block[l + width]);
    acc = combine(acc, block[0]);
  }
};

}  // namespace impl

template <class Map, class Combine, class Acc, class Post = fn::Identity>
class Reduction {
 public:
  using accumulator_type = Acc;

  Reduction(const Map& map, const Combine& combine, Acc identity, const Post& post = Post{},
            std::string name = "portasim::toolkit::reduce")
      : m_map(map), m_combine(combine), m_identity(identity), m_post(post), m_name(std::move(name)),
        m_axis_name(m_name + " along axis"),
        m_axis_combine_name(m_name + " along axis: combine segments") {}

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
    if (shape.team < 0 || shape.per_thread < 0 || shape.per_thread > impl::max_elements_in_flight ||
        shape.waves < 0)
      throw_error(ErrorKind::invalid_argument,
                  "reduction grid: team " + std::to_string(shape.team) + ", per_thread " +
                      std::to_string(shape.per_thread) + ", waves " + std::to_string(shape.waves) +
                      ": team and waves must be >= 0 (0: default), per_thread in 0.." +
                      std::to_string(impl::max_elements_in_flight));
    const Shape shape_in = expr.shape();
    const std::size_t n = shape_in.size();
    const impl::FlatIndex index(shape_in, false);
    if constexpr (impl::is_device_space<Exec>()) {
      impl::reduce_whole_on_device(m_name, exec, expr, index, n, m_combine, m_identity, m_post,
                                   result, shape);
    } else {
      // Host backends finish a reduction into a scalar before returning, so the post-map
      // and the store need no kernel of their own.
      (void)shape;
      Acc acc = m_identity;
      if (n > 0)
        Kokkos::parallel_reduce(
            m_name,
            Kokkos::RangePolicy<Exec>(exec, 0,
                                      (n + impl::host_reduce_block - 1) / impl::host_reduce_block),
            impl::BlockedWholeBody<E, Combine, Acc>{expr, m_combine, m_identity, index, n},
            impl::CombineReducer<Acc, Combine, Kokkos::HostSpace>(acc, m_combine, m_identity));
      result() = m_post(acc);
    }
  }

  // out = post(combine along `axis` of map(ins...)) for inputs broadcasting to rank 2 or 3;
  // out has the broadcast shape without that axis. Asynchronous on exec; one kernel when the
  // outputs alone fill the device, else two (the axis split in segments, then the segments
  // combined; impl/axis_reduction.hpp), with nothing allocated once the instance's partials
  // block is large enough.
  template <class Exec, class Out, class... Ins>
  void along(const Exec& exec, int axis, const Out& out, const Ins&... ins) const {
    along(exec, impl::AxisReduceShape{}, axis, out, ins...);
  }

  // The same with a chosen split (segments, waves; zeros are the defaults).
  template <class Exec, class Out, class... Ins>
  void along(const Exec& exec, const impl::AxisReduceShape& split, int axis, const Out& out,
             const Ins&... ins) const {
    static_assert(Kokkos::is_view<Out>::value, "an axis reduction writes into a Kokkos::View");
    const auto expr = apply(m_map, ins...);
    using E = std::decay_t<decltype(expr)>;
    static_assert(
        E::template accessible_from<Exec>() && ViewOperand<Out>::template accessible_from<Exec>(),
        "every View of a reduction must be accessible from its execution space");
    if (split.segments < 0 || split.waves < 0 || split.team < 0)
      throw_error(ErrorKind::invalid_argument,
                  "axis reduction split: segments " + std::to_string(split.segments) + ", waves " +
                      std::to_string(split.waves) + ", team " + std::to_string(split.team) +
                      ": all must be >= 0 (0: default)");
    const Shape shape = expr.shape();
    // (messages are built only on failure; see impl::require_output_view_shape)
    if (shape.rank() < 2)
      throw_error(ErrorKind::invalid_argument,
                  "a reduction along an axis needs operands of rank 2 or 3, they broadcast to " +
                      shape.to_string() + " (reduce the whole array instead)");
    if (axis < 0 || axis >= shape.rank())
      throw_error(ErrorKind::invalid_argument, "reduction axis " + std::to_string(axis) +
                                                   " out of range for shape " + shape.to_string());
    const Shape out_shape = shape.without(axis);
    if (Shape::of(out) != out_shape)
      require_output_shape(
          Shape::of(out), out_shape,
          "output View '" + out.label() + "' of the reduction along axis " + std::to_string(axis));
    const bool out_first_index_fastest = impl::first_index_fastest(out);
    impl::AxisGeometry geometry;
    geometry.axis_slot = max_rank - shape.rank() + axis;
    for (int slot = 0; slot < max_rank; ++slot)
      geometry.extent[slot] = shape.from_right(max_rank - 1 - slot);
    geometry.outer = impl::FlatIndex(out_shape, out_first_index_fastest);
    geometry.out_rank = out_shape.rank();
    // Along the last axis of row-major data teams read contiguous pieces of rows; along any
    // other axis threads take neighbouring outputs, so that they read neighbouring addresses.
    const bool rows = axis == shape.rank() - 1 && !out_first_index_fastest;
    // Along the first axis with few outputs (or where the flat form would split the axis) a
    // device team reads whole blocks of rows.
    const bool columns =
        impl::use_columns_form(axis, out_first_index_fastest, out_shape.size(), geometry.length(),
                               impl::is_device_space<Exec>(),
                               static_cast<std::size_t>(exec.concurrency()), sizeof(Acc), split);
    impl::reduce_along(m_axis_name, m_axis_combine_name, exec, split, expr, geometry,
                       out_shape.size(), rows, columns, m_combine, m_identity, m_post, out);
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
  std::string m_axis_combine_name;
};

template <class Map, class Combine, class Acc, class Post = fn::Identity>
Reduction<Map, Combine, Acc, Post> make_reduction(const Map& map, const Combine& combine,
                                                  Acc identity, const Post& post = Post{},
                                                  std::string name = "portasim::toolkit::reduce") {
  return Reduction<Map, Combine, Acc, Post>(map, combine, identity, post, std::move(name));
}

// The usual reductions, accumulating in Acc (default: the input's value type; pass double
// for float data that must sum to double accuracy).
namespace impl {
template <class T>
struct CastTo {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a) const {
    return static_cast<T>(a);
  }
};
template <class T>
struct CastSquare {
  template <class A>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a) const {
    return static_cast<T>(a) * static_cast<T>(a);
  }
};
template <class T>
struct CastProduct {
  template <class A, class B>
  KOKKOS_FORCEINLINE_FUNCTION T operator()(A a, B b) const {
    return static_cast<T>(a) * static_cast<T>(b);
  }
};
}  // namespace impl

template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Plus, Acc> sum_reduction() {
  return {impl::CastTo<Acc>{}, fn::Plus{}, Acc(0), fn::Identity{}, "portasim::toolkit::sum"};
}
template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Minimum, Acc> min_reduction() {
  return {impl::CastTo<Acc>{}, fn::Minimum{}, Kokkos::reduction_identity<Acc>::min(),
          fn::Identity{}, "portasim::toolkit::min"};
}
template <class Acc>
Reduction<impl::CastTo<Acc>, fn::Maximum, Acc> max_reduction() {
  return {impl::CastTo<Acc>{}, fn::Maximum{}, Kokkos::reduction_identity<Acc>::max(),
          fn::Identity{}, "portasim::toolkit::max"};
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
