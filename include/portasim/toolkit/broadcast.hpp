#pragma once
// NumPy broadcasting of shapes of rank 0..3, on its own: two shapes are aligned at their
// last dimension; a dimension of extent 1 stretches to the other's extent; any other
// mismatch is an error that names both shapes and the dimension.

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::toolkit {

// The most dimensions an elementwise or reduction operand may have.
inline constexpr int max_rank = 3;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::size_t> extents) {
    // (messages are built only on failure: shapes are made on every kernel call)
    if (extents.size() > static_cast<std::size_t>(max_rank))
      throw_error(ErrorKind::invalid_argument, "toolkit shapes have at most " +
                                                   std::to_string(max_rank) + " dimensions, got " +
                                                   std::to_string(extents.size()));
    for (std::size_t e : extents) m_extents[static_cast<std::size_t>(m_rank++)] = e;
  }
  template <class View>
  static Shape of(const View& view) {
    static_assert(View::rank <= max_rank, "toolkit operands have at most 3 dimensions");
    Shape s;
    s.m_rank = static_cast<int>(View::rank);
    for (int d = 0; d < s.m_rank; ++d) s.m_extents[static_cast<std::size_t>(d)] = view.extent(d);
    return s;
  }

  int rank() const noexcept { return m_rank; }
  std::size_t extent(int d) const noexcept { return m_extents[static_cast<std::size_t>(d)]; }
  std::size_t size() const noexcept {
    std::size_t n = 1;
    for (int d = 0; d < m_rank; ++d) n *= extent(d);
    return n;
  }
  // The extent of dimension d counted from the right (0 = last), 1 beyond the rank: the
  // alignment NumPy broadcasting uses.
  std::size_t from_right(int d) const noexcept { return d < m_rank ? extent(m_rank - 1 - d) : 1; }

  // The same shape without dimension `axis` (for reductions along an axis).
  Shape without(int axis) const {
    if (axis < 0 || axis >= m_rank)
      throw_error(ErrorKind::invalid_argument, "axis " + std::to_string(axis) +
                                                   " out of range for shape " + to_string() +
                                                   " of rank " + std::to_string(m_rank));
    Shape s;
    for (int d = 0; d < m_rank; ++d)
      if (d != axis) s.m_extents[static_cast<std::size_t>(s.m_rank++)] = extent(d);
    return s;
  }

  std::string to_string() const {
    std::string text = "(";
    for (int d = 0; d < m_rank; ++d) text += (d ? ", " : "") + std::to_string(extent(d));
    return text + (m_rank == 1 ? ",)" : ")");
  }

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    if (a.m_rank != b.m_rank) return false;
    for (int d = 0; d < a.m_rank; ++d)
      if (a.extent(d) != b.extent(d)) return false;
    return true;
  }
  friend bool operator!=(const Shape& a, const Shape& b) noexcept { return !(a == b); }

 private:
  std::array<std::size_t, max_rank> m_extents{1, 1, 1};
  int m_rank = 0;
};

// The broadcast shape of a and b; throws portasim::Error naming both shapes and the
// offending dimension (counted in the result's dimensions) when they do not broadcast.
inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int rank = a.rank() > b.rank() ? a.rank() : b.rank();
  std::array<std::size_t, max_rank> extents{1, 1, 1};
  for (int d = 0; d < rank; ++d) {
    const std::size_t x = a.from_right(d), y = b.from_right(d);
    if (x != y && x != 1 && y != 1)
      throw_error(ErrorKind::invalid_argument, "shapes " + a.to_string() + " and " + b.to_string() +
                                                   " do not broadcast: dimension " +
                                                   std::to_string(rank - 1 - d) + " has extents " +
                                                   std::to_string(x) + " and " + std::to_string(y) +
                                                   " (broadcasting needs equal extents or 1)");
    extents[static_cast<std::size_t>(rank - 1 - d)] = x == 1 ? y : x;
  }
  Shape s;
  switch (rank) {
    case 0: break;
    case 1: s = Shape{extents[0]}; break;
    case 2: s = Shape{extents[0], extents[1]}; break;
    default: s = Shape{extents[0], extents[1], extents[2]}; break;
  }
  return s;
}

// Throws unless `out` is exactly the broadcast shape `expected` (NumPy does not stretch
// outputs), naming both shapes and the first dimension that differs.
inline void require_output_shape(const Shape& out, const Shape& expected, const std::string& what) {
  if (out == expected) return;
  std::string where;
  if (out.rank() != expected.rank()) {
    where = "rank " + std::to_string(out.rank()) + " instead of " + std::to_string(expected.rank());
  } else {
    for (int d = 0; d < out.rank(); ++d)
      if (out.extent(d) != expected.extent(d)) {
        where = "dimension " + std::to_string(d) + " has extent " + std::to_string(out.extent(d)) +
                " instead of " + std::to_string(expected.extent(d));
        break;
      }
  }
  throw_error(ErrorKind::invalid_argument, what + " has shape " + out.to_string() +
                                               " but the operands broadcast to " +
                                               expected.to_string() + ": " + where);
}

}  // namespace portasim::toolkit
