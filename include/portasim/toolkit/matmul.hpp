#pragma once
// C = A * B three ways, on the given execution-space instance (cupy.matmul, and what it
// stands on):
//   naive  one thread per element of C, the K loop reading A and B from global memory;
//   tiled  a TeamPolicy whose teams stage BK-deep panels of A and B in scratch (shared)
//          memory; each thread keeps a block of C in registers, multiplied on the FP64
//          tensor cores (warp MMA) for double where the backend has them;
//   blas   KokkosBlas::gemm, which is cuBLAS on CUDA (on the instance's stream).
// float and double; A, B and C share one layout, LayoutRight or LayoutLeft. C is
// overwritten and must not alias A or B. Shapes that do not fit throw portasim::Error
// (invalid_argument) naming them, before any work is enqueued.

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace portasim::toolkit {

enum class MatmulAlgorithm { naive, tiled, blas };

const char* to_string(MatmulAlgorithm algorithm) noexcept;

namespace impl {

// Device<Exec, ...>: Kokkos Kernels runs on the views' execution space, which for a plain
// HostSpace view would be the default host space, not Exec.
template <class Exec>
using DeviceOf = Kokkos::Device<Exec, typename Exec::memory_space>;
template <class Exec, class Scalar, class Layout>
using ConstMatrix = Kokkos::View<const Scalar**, Layout, DeviceOf<Exec>>;
template <class Exec, class Scalar, class Layout>
using Matrix = Kokkos::View<Scalar**, Layout, DeviceOf<Exec>>;

// Compiled in src/toolkit/matmul.cpp for float/double, LayoutRight/LayoutLeft and every
// enabled execution space.
template <class Exec, class Scalar, class Layout>
void matmul(const Exec& exec, MatmulAlgorithm algorithm, const ConstMatrix<Exec, Scalar, Layout>& a,
            const ConstMatrix<Exec, Scalar, Layout>& b, const Matrix<Exec, Scalar, Layout>& c);

// The tiled kernel with a chosen kernel and tile shape, double, LayoutRight: for the
// benchmark's comparison and the tests. 0: what MatmulAlgorithm::tiled runs; 1, 2: the
// FP64 tensor cores with 128 x 64 and 64 x 64 tiles; 3, 4: the SIMT kernel with 128 x 128
// and 128 x 64 tiles. Where a variant's kernel does not exist (no tensor cores; host backends,
// which have one shape) the nearest one runs; tiled_variant_name says which.
constexpr int tiled_variants = 5;
template <class Exec>
void matmul_tiled_variant(const Exec& exec, int variant,
                          const ConstMatrix<Exec, double, Kokkos::LayoutRight>& a,
                          const ConstMatrix<Exec, double, Kokkos::LayoutRight>& b,
                          const Matrix<Exec, double, Kokkos::LayoutRight>& c);
template <class Exec>
const char* tiled_variant_name(int variant) noexcept;

}  // namespace impl

template <class Exec, class AView, class BView, class CView>
void matmul(const Exec& exec, const AView& a, const BView& b, const CView& c,
            MatmulAlgorithm algorithm = MatmulAlgorithm::blas) {
  using Scalar = typename CView::non_const_value_type;
  using Layout = typename CView::array_layout;
  static_assert(AView::rank == 2 && BView::rank == 2 && CView::rank == 2,
                "matmul: A, B and C must be rank-2 Views");
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "matmul: float or double");
  static_assert(std::is_same<typename AView::non_const_value_type, Scalar>::value &&
                    std::is_same<typename BView::non_const_value_type, Scalar>::value,
                "matmul: A, B and C must have one scalar type");
  static_assert(std::is_same<typename AView::array_layout, Layout>::value &&
                    std::is_same<typename BView::array_layout, Layout>::value,
                "matmul: A, B and C must have one layout");
  static_assert(std::is_same<Layout, Kokkos::LayoutRight>::value ||
                    std::is_same<Layout, Kokkos::LayoutLeft>::value,
                "matmul: LayoutRight or LayoutLeft");
  static_assert(std::is_same<typename CView::value_type, Scalar>::value,
                "matmul: C must be writable");
  impl::matmul<Exec, Scalar, Layout>(exec, algorithm, a, b, c);
}

template <class Exec, class AView, class BView, class CView>
void matmul_naive(const Exec& exec, const AView& a, const BView& b, const CView& c) {
  matmul(exec, a, b, c, MatmulAlgorithm::naive);
}
template <class Exec, class AView, class BView, class CView>
void matmul_tiled(const Exec& exec, const AView& a, const BView& b, const CView& c) {
  matmul(exec, a, b, c, MatmulAlgorithm::tiled);
}
template <class Exec, class AView, class BView, class CView>
void matmul_blas(const Exec& exec, const AView& a, const BView& b, const CView& c) {
  matmul(exec, a, b, c, MatmulAlgorithm::blas);
}

}  // namespace portasim::toolkit
