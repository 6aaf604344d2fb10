#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "portasim/core/build_info.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/runtime.hpp"

namespace test_runtime_and_info {

TEST(TEST_CATEGORY, runtime_guard_leaves_existing_kokkos_alone) {
  ASSERT_TRUE(Kokkos::is_initialized());
  {
    portasim::Runtime nested;
    EXPECT_FALSE(nested.owns_kokkos());
  }
  EXPECT_TRUE(Kokkos::is_initialized());
}

TEST(TEST_CATEGORY, build_info_lists_this_backend) {
  const auto info = portasim::build_info();
  EXPECT_NE(std::find(info.backends.begin(), info.backends.end(), TEST_EXECSPACE::name()),
            info.backends.end());
  const std::string expected_version = std::to_string(KOKKOS_VERSION / 10000) + "." +
                                       std::to_string(KOKKOS_VERSION / 100 % 100) + ".";
  EXPECT_EQ(info.kokkos_version.rfind(expected_version, 0), 0u) << info.kokkos_version;
  EXPECT_GE(info.host_concurrency, 1);
  std::ostringstream json;
  portasim::print_info_json(json, info, portasim::device_properties());
  EXPECT_NE(json.str().find(std::string("\"") + TEST_EXECSPACE::name() + "\""), std::string::npos);
}

// scripts/bootstrap.sh builds the host Kokkos Kernels with Debian's OpenMP build of OpenBLAS
// as its BLAS, so that host gemm runs at OpenBLAS speed: in CI a build without it fails here.
// GPU builds keep Kokkos Kernels' own host gemm (their gemm is cuBLAS).
TEST(TEST_CATEGORY, build_info_names_the_host_blas) {
  const auto info = portasim::build_info();
  if (info.kokkos_kernels_version.empty() || info.default_backend == "Cuda")
    GTEST_SKIP() << "no host BLAS expected in this build";
  if (info.host_blas.empty() && std::getenv("CI") == nullptr)
    GTEST_SKIP() << "Kokkos Kernels was built without a host BLAS (scripts/bootstrap.sh adds one)";
  EXPECT_NE(info.host_blas.find("openblas-openmp"), std::string::npos) << info.host_blas;
  std::ostringstream text;
  portasim::print_info(text, info, {});
  EXPECT_NE(text.str().find("host BLAS         " + info.host_blas), std::string::npos);
}

template <class Exec>
void compat_math_matches_std() {
  Kokkos::View<double[4], typename Exec::memory_space> out("out");
  Kokkos::parallel_for(
      "math", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(const int) {
        namespace m = portasim::compat::math;
        out(0) = m::expm1(1e-10);
        out(1) = m::log1p(1e-10);
        out(2) = m::exp(1.0);
        out(3) = m::isfinite(out(2)) ? 1.0 : 0.0;
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_NEAR(host(0), 1.00000000005e-10, 1e-24);
  EXPECT_NEAR(host(1), 9.9999999995e-11, 1e-24);
  EXPECT_NEAR(host(2), 2.718281828459045, 1e-15);
  EXPECT_EQ(host(3), 1.0);
}

TEST(TEST_CATEGORY, compat_math_is_accurate_on_device) {
  compat_math_matches_std<TEST_EXECSPACE>();
}

}  // namespace test_runtime_and_info
