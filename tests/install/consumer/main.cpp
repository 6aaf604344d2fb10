// A downstream code using the installed portasim: instances, an event timer and a kernel.
#include <portasim/portasim.hpp>

#include <iostream>

int main(int argc, char* argv[]) {
  portasim::Runtime runtime(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  portasim::InstancePool<Exec> pool(2);
  Kokkos::View<double*, Exec::memory_space> x("x", 1000);
  portasim::EventTimer<Exec> timer(pool[0]);
  timer.start();
  Kokkos::parallel_for("fill", Kokkos::RangePolicy<Exec>(pool[0], 0, 1000),
                       KOKKOS_LAMBDA(const int i) { x(i) = i; });
  timer.stop();
  portasim::wait_for(pool[1], pool[0]);
  double sum = 0;
  Kokkos::parallel_reduce("sum", Kokkos::RangePolicy<Exec>(pool[1], 0, 1000),
                          KOKKOS_LAMBDA(const int i, double& acc) { acc += x(i); }, sum);
  std::cout << "portasim " << portasim::build_info().portasim_version << ": sum " << sum << " in "
            << timer.elapsed_ms() << " ms\n";
  return sum == 499500.0 ? 0 : 1;
}
