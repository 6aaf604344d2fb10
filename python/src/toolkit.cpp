// portasim.toolkit: the toolkit's seed examples (squared difference, x1 * x2 + B, softplus),
// a fused expression, sums and L2 norms (whole array or along an axis), matmul, trace and
// SVD on NumPy or CuPy arrays, each through the library's own function on the package's
// instance. portasim/toolkit.py checks the arguments and makes every array of a call one
// dtype (float32 or float64), C-contiguous, and of the rank the function below takes:
// elementwise operands all of rank 1 or all of rank 3 (leading extents of 1 added), whole-
// array reductions flattened to rank 1. Array results are arrays of the inputs' kind;
// scalar results are Python floats.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "portasim/config.hpp"
#include "portasim/toolkit/linalg.hpp"
#include "portasim/toolkit/toolkit.hpp"

namespace portasim::python {

namespace {

namespace tk = portasim::toolkit;

// The View data type of rank Rank over T: T*, T**, T***.
template <class T, int Rank>
struct PointerTo {
  using type = typename PointerTo<T, Rank - 1>::type*;
};
template <class T>
struct PointerTo<T, 0> {
  using type = T;
};
template <class T, int Rank>
using Data = typename PointerTo<T, Rank>::type;

template <int Rank>
using RankTag = std::integral_constant<int, Rank>;

// Calls f(Scalar{}, RankTag<Rank>{}) for the dtype and rank of `array`, which must be one of
// Ranks (portasim/toolkit.py has seen to both; anything else is a bug there).
template <int... Ranks, class F>
py::object dispatch(const py::handle& array, F&& f) {
  const std::string dtype = py::str(array.attr("dtype"));
  const int rank = array.attr("ndim").cast<int>();
  py::object result;
  bool done = false;
  const auto at_rank = [&](auto scalar) {
    ((rank == Ranks && !done ? (result = f(scalar, RankTag<Ranks>{}), done = true) : false), ...);
  };
  if (dtype == "float32") at_rank(float{});
  else if (dtype == "float64") at_rank(double{});
  if (!done)
    throw py::type_error("portasim.toolkit: no kernel for dtype " + dtype + " at rank " +
                         std::to_string(rank));
  return result;
}

// A caller's array as a read-only View of rank Rank.
template <class Scalar, int Rank>
auto view_of(const Exec& exec, const Place& place, const py::handle& array, const char* name) {
  return input_view<Data<const Scalar, Rank>>(exec, place, array, name);
}

std::vector<std::size_t> extents_of(const tk::Shape& shape) {
  std::vector<std::size_t> extents;
  for (int d = 0; d < shape.rank(); ++d) extents.push_back(shape.extent(d));
  return extents;
}

// A new array of `shape` (rank Rank) filled by run(view) with the GIL released.
template <class Scalar, int Rank, class Run>
py::object new_array_from(const Exec& exec, const Place& place, const tk::Shape& shape,
                          const Run& run) {
  const ResultArray<Data<Scalar, Rank>> out(exec, place, extents_of(shape), "result");
  {
    py::gil_scoped_release release;
    run(out.view());
  }
  return out.array(exec, place);
}

// out = f(ins...) through the library's elementwise kernel, into a new array of the
// operands' broadcast shape (the library's broadcasting rules and errors).
template <class Scalar, int Rank, class F, class... Ins>
py::object elementwise_into_new(const Exec& exec, const Place& place, const F& f,
                                const Ins&... ins) {
  return new_array_from<Scalar, Rank>(
      exec, place, tk::apply(f, ins...).shape(),
      [&](const auto& out) { tk::elementwise(exec, f, out, ins...); });
}

// out = expression, one fused kernel (the library's evaluate), into a new array.
template <class Scalar, int Rank, class E>
py::object evaluate_into_new(const Exec& exec, const Place& place, const E& expression) {
  return new_array_from<Scalar, Rank>(exec, place, expression.shape(), [&](const auto& out) {
    tk::evaluate(exec, out, expression);
  });
}

// Calls f with the addend B of x1 * x2 + B: a scalar of the arrays' dtype (as the seed
// example's B) or an array broadcast like the others.
template <class Scalar, int Rank, class F>
py::object with_addend(const Exec& exec, const Place& place, const py::object& b, F&& f) {
  if (py::isinstance<py::float_>(b)) return f(b.cast<Scalar>());
  return f(view_of<Scalar, Rank>(exec, place, b, "b"));
}

// The common frame of a call: the instance ordered after the caller's stream, the work,
// then the caller's results made visible (finish).
template <int... Ranks, class Work>
py::object call(const py::tuple& where, const py::handle& first_array, Work&& work) {
  const Place place = Place::of(where);
  const Exec& exec = instance();
  order_after_caller(exec, place);
  py::object result = dispatch<Ranks...>(
      first_array, [&](auto scalar, auto rank) { return work(exec, place, scalar, rank); });
  finish(exec, place);
  return result;
}

py::object squared_difference(const py::tuple& where, const py::object& a, const py::object& b) {
  return call<1, 3>(where, a, [&](const Exec& exec, const Place& place, auto scalar, auto rank) {
    using Scalar = decltype(scalar);
    constexpr int Rank = decltype(rank)::value;
    return elementwise_into_new<Scalar, Rank>(exec, place, tk::fn::SquaredDifference{},
                                              view_of<Scalar, Rank>(exec, place, a, "a"),
                                              view_of<Scalar, Rank>(exec, place, b, "b"));
  });
}

py::object multiply_add(const py::tuple& where, const py::object& x1, const py::object& x2,
                        const py::object& b) {
  return call<1, 3>(where, x1, [&](const Exec& exec, const Place& place, auto scalar, auto rank) {
    using Scalar = decltype(scalar);
    constexpr int Rank = decltype(rank)::value;
    const auto v1 = view_of<Scalar, Rank>(exec, place, x1, "x1");
    const auto v2 = view_of<Scalar, Rank>(exec, place, x2, "x2");
    return with_addend<Scalar, Rank>(exec, place, b, [&](const auto& addend) {
      return elementwise_into_new<Scalar, Rank>(exec, place, tk::fn::MultiplyAdd{}, v1, v2, addend);
    });
  });
}

py::object softplus(const py::tuple& where, const py::object& x) {
  return call<1, 3>(where, x, [&](const Exec& exec, const Place& place, auto scalar, auto rank) {
    using Scalar = decltype(scalar);
    constexpr int Rank = decltype(rank)::value;
    return elementwise_into_new<Scalar, Rank>(exec, place, tk::fn::Softplus{},
                                              view_of<Scalar, Rank>(exec, place, x, "x"));
  });
}

// softplus(x1 * x2 + B) as one expression tree: one kernel, no temporary for x1 * x2 + B.
py::object fused_softplus_multiply_add(const py::tuple& where, const py::object& x1,
                                       const py::object& x2, const py::object& b) {
  return call<1, 3>(where, x1, [&](const Exec& exec, const Place& place, auto scalar, auto rank) {
    using Scalar = decltype(scalar);
    constexpr int Rank = decltype(rank)::value;
    const auto v1 = view_of<Scalar, Rank>(exec, place, x1, "x1");
    const auto v2 = view_of<Scalar, Rank>(exec, place, x2, "x2");
    return with_addend<Scalar, Rank>(exec, place, b, [&](const auto& addend) {
      return evaluate_into_new<Scalar, Rank>(
          exec, place, tk::softplus(tk::arg(v1) * tk::arg(v2) + tk::as_expression(addend)));
    });
  });
}

// "sum" or "l2_norm": which reduction a call asks for.
bool is_sum(const std::string& what) {
  if (what != "sum" && what != "l2_norm")
    throw py::value_error("portasim.toolkit: no reduction named '" + what + "'");
  return what == "sum";
}

// The whole array's sum or L2 norm, accumulated in the array's dtype (as NumPy and CuPy do),
// waited for and returned as a Python float.
py::object reduce_whole(const py::tuple& where, const py::object& x, const std::string& what) {
  const bool sum_of = is_sum(what);
  return call<1>(where, x, [&](const Exec& exec, const Place& place, auto scalar, auto) {
    using Scalar = decltype(scalar);
    const auto v = view_of<Scalar, 1>(exec, place, x, "x");
    static const auto sum = tk::sum_reduction<Scalar>();  // made once (its names allocate)
    Scalar value;
    {
      py::gil_scoped_release release;
      value = sum_of ? sum.value(exec, v) : tk::norm_2(exec, v);
    }
    return py::object(py::float_(static_cast<double>(value)));
  });
}

// The sums or L2 norms along `axis` of a 2-D or 3-D array, as a new array without that axis.
py::object reduce_along(const py::tuple& where, const py::object& x, int axis,
                        const std::string& what) {
  const bool sum_of = is_sum(what);
  return call<2, 3>(where, x, [&](const Exec& exec, const Place& place, auto scalar, auto rank) {
    using Scalar = decltype(scalar);
    constexpr int Rank = decltype(rank)::value;
    const auto v = view_of<Scalar, Rank>(exec, place, x, "x");
    return new_array_from<Scalar, Rank - 1>(exec, place, tk::Shape::of(v).without(axis),
                                            [&](const auto& out) {
                                              if (sum_of) tk::sum_along(exec, axis, out, v);
                                              else tk::l2_norm_along(exec, axis, out, v);
                                            });
  });
}

tk::MatmulAlgorithm algorithm_named(const std::string& name) {
  if (name == "naive") return tk::MatmulAlgorithm::naive;
  if (name == "tiled") return tk::MatmulAlgorithm::tiled;
  if (name == "blas") return tk::MatmulAlgorithm::blas;
#if defined(PORTASIM_ENABLE_KERNELS)
  return tk::MatmulAlgorithm::blas;  // "auto": the vendor BLAS where the build has it
#else
  return tk::MatmulAlgorithm::tiled;
#endif
}

py::object matmul(const py::tuple& where, const py::object& a, const py::object& b,
                  const std::string& algorithm) {
  return call<2>(where, a, [&](const Exec& exec, const Place& place, auto scalar, auto) {
    using Scalar = decltype(scalar);
    const auto va = view_of<Scalar, 2>(exec, place, a, "a");
    const auto vb = view_of<Scalar, 2>(exec, place, b, "b");
    return new_array_from<Scalar, 2>(
        exec, place, tk::Shape{va.extent(0), vb.extent(1)},
        [&](const auto& c) { tk::matmul(exec, va, vb, c, algorithm_named(algorithm)); });
  });
}

py::object trace(const py::tuple& where, const py::object& a) {
  return call<2>(where, a, [&](const Exec& exec, const Place& place, auto scalar, auto) {
    using Scalar = decltype(scalar);
    const auto va = view_of<Scalar, 2>(exec, place, a, "a");
    Scalar value;
    {
      py::gil_scoped_release release;
      value = tk::trace(exec, va);
    }
    return py::object(py::float_(static_cast<double>(value)));
  });
}

// (u, s, vt) of A = U diag(S) Vt with k = min(m, n): U (m, k), S (k,) descending, Vt (k, n).
py::object svd(const py::tuple& where, const py::object& a) {
  return call<2>(where, a, [&](const Exec& exec, const Place& place, auto scalar, auto) {
    using Scalar = decltype(scalar);
    const auto va = view_of<Scalar, 2>(exec, place, a, "a");
    const std::size_t m = va.extent(0), n = va.extent(1), k = m < n ? m : n;
    const ResultArray<Scalar**> u(exec, place, {m, k}, "u");
    const ResultArray<Scalar*> s(exec, place, {k}, "s");
    const ResultArray<Scalar**> vt(exec, place, {k, n}, "vt");
    {
      py::gil_scoped_release release;
      tk::svd(exec, va, u.view(), s.view(), vt.view());
    }
    return py::object(
        py::make_tuple(u.array(exec, place), s.array(exec, place), vt.array(exec, place)));
  });
}

}  // namespace

void register_toolkit(py::module_& m) {
  m.def("toolkit_squared_difference", &squared_difference);
  m.def("toolkit_multiply_add", &multiply_add);
  m.def("toolkit_softplus", &softplus);
  m.def("toolkit_fused_softplus_multiply_add", &fused_softplus_multiply_add);
  m.def("toolkit_reduce_whole", &reduce_whole);
  m.def("toolkit_reduce_along", &reduce_along);
  m.def("toolkit_matmul", &matmul);
  m.def("toolkit_trace", &trace);
  m.def("toolkit_svd", &svd);
}

}  // namespace portasim::python
