#pragma once
// Host references for the linear-algebra tests: random matrices, double-precision products,
// and orthogonal matrices with which to build a matrix of known singular values.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace portasim::testing {

// Row-major host matrix in double.
struct HostMatrix {
  int rows = 0, cols = 0;
  std::vector<double> v;
  HostMatrix() = default;
  HostMatrix(int r, int c, double fill = 0.0)
      : rows(r), cols(c), v(static_cast<std::size_t>(r) * c, fill) {}
  double& operator()(int i, int j) { return v[static_cast<std::size_t>(i) * cols + j]; }
  double operator()(int i, int j) const { return v[static_cast<std::size_t>(i) * cols + j]; }
};

// Uniform in [-1, 1), already rounded to Scalar so that the reference sees the device's inputs.
template <class Scalar>
HostMatrix random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  HostMatrix a(rows, cols);
  for (double& x : a.v) x = static_cast<double>(static_cast<Scalar>(dist(gen)));
  return a;
}

inline HostMatrix multiply(const HostMatrix& a, const HostMatrix& b) {
  HostMatrix c(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int p = 0; p < a.cols; ++p)
      for (int j = 0; j < b.cols; ++j) c(i, j) += a(i, p) * b(p, j);
  return c;
}

inline HostMatrix transpose(const HostMatrix& a) {
  HostMatrix t(a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

// An n x n orthogonal matrix: a product of Householder reflections of random vectors.
inline HostMatrix random_orthogonal(int n, unsigned seed) {
  HostMatrix q(n, n);
  for (int i = 0; i < n; ++i) q(i, i) = 1.0;
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> v(static_cast<std::size_t>(n));
    double norm2 = 0;
    for (double& x : v) {
      x = dist(gen);
      norm2 += x * x;
    }
    // q <- q (I - 2 v v^T / v^T v)
    for (int i = 0; i < n; ++i) {
      double dot = 0;
      for (int j = 0; j < n; ++j) dot += q(i, j) * v[static_cast<std::size_t>(j)];
      for (int j = 0; j < n; ++j) q(i, j) -= 2.0 * dot * v[static_cast<std::size_t>(j)] / norm2;
    }
  }
  return q;
}

// Device view of the given type and layout holding `a`.
template <class Scalar, class Layout, class MemorySpace>
Kokkos::View<Scalar**, Layout, MemorySpace> to_device(const HostMatrix& a,
                                                      const std::string& label) {
  Kokkos::View<Scalar**, Layout, MemorySpace> d(label, a.rows, a.cols);
  auto h = Kokkos::create_mirror_view(d);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) h(i, j) = static_cast<Scalar>(a(i, j));
  Kokkos::deep_copy(d, h);
  return d;
}

template <class Exec, class View>
HostMatrix to_host(const Exec& exec, const View& d) {
  auto h = Kokkos::create_mirror(d);
  Kokkos::deep_copy(exec, h, d);
  exec.fence();
  HostMatrix a(static_cast<int>(d.extent(0)), static_cast<int>(d.extent(1)));
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) a(i, j) = static_cast<double>(h(i, j));
  return a;
}

template <class Scalar>
constexpr double epsilon() {
  return static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

}  // namespace portasim::testing
