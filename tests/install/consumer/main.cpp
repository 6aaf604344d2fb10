// A downstream code using the installed portasim: instances, an event timer, a kernel, and
// the toolkit's vendor-backed calls (gemm, SVD), which need the exported link dependencies.
#include <portasim/portasim.hpp>

#include <cmath>
#include <iostream>

int main(int argc, char* argv[]) {
  portasim::Runtime runtime(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  portasim::InstancePool<Exec> pool(2);
  Kokkos::View<double*, Exec::memory_space> x("x", 1000);
  portasim::EventTimer<Exec> timer(pool[0]);
  timer.start();
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Exec>(pool[0], 0, 1000),
      KOKKOS_LAMBDA(const int i) { x(i) = i; });
  timer.stop();
  portasim::wait_for(pool[1], pool[0]);
  double sum = 0;
  Kokkos::parallel_reduce(
      "sum", Kokkos::RangePolicy<Exec>(pool[1], 0, 1000),
      KOKKOS_LAMBDA(const int i, double& acc) { acc += x(i); }, sum);
  std::cout << "portasim " << portasim::build_info().portasim_version << ": sum " << sum << " in "
            << timer.elapsed_ms() << " ms\n";
  // diag(3, 2) * [[0, 1], [1, 0]]: singular values 3 and 2.
  Kokkos::View<double**, Exec::memory_space> a("a", 2, 2), b("b", 2, 2), c("c", 2, 2);
  Kokkos::parallel_for(
      "init", Kokkos::RangePolicy<Exec>(pool[0], 0, 1), KOKKOS_LAMBDA(const int) {
        a(0, 0) = 3;
        a(1, 1) = 2;
        b(0, 1) = 1;
        b(1, 0) = 1;
      });
  portasim::toolkit::matmul(pool[0], a, b, c);
  const auto svd = portasim::toolkit::svd(pool[0], c);
  auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), svd.s);
  std::cout << "singular values " << s(0) << " " << s(1) << "\n";
  const bool svd_ok = std::abs(s(0) - 3.0) < 1e-12 && std::abs(s(1) - 2.0) < 1e-12;
  return sum == 499500.0 && svd_ok ? 0 : 1;
}
