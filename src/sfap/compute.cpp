// Explicit instantiations of the SFAP computation and its single functions on every enabled
// execution space, so that users (and the CLI) compile none of the kernels themselves.
#include "portasim/core/execution_spaces.hpp"
#include "portasim/sfap/impl/compute_impl.hpp"

namespace portasim::sfap {

template <class ExecutionSpace>
Result<typename ExecutionSpace::memory_space> compute(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& inputs,
    const Options& options) {
  return impl::compute_impl(exec, inputs, options);
}

template <class ExecutionSpace>
void release_cached_buffers() {
  impl::BatchPool<ExecutionSpace>::release();
  impl::ResultArrays<ExecutionSpace>::release();
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> tm_current(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double d1) {
  return impl::tm_current_impl(exec, x, d1);
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> z_grid(const ExecutionSpace& exec,
                                                                    double zi, double left,
                                                                    double right, double dz) {
  return impl::z_grid_impl(exec, zi, left, right, dz);
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> time_axis(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& endplate_z,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& velocity, double left,
    double right, double dt) {
  return impl::time_axis_impl(exec, endplate_z, velocity, left, right, dt);
}

template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> current_density(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z,
    const FiberSource& fiber, const Options& options, std::int64_t* mirror_shift) {
  return impl::current_density_impl(exec, t, z, fiber, options, mirror_shift);
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> elementary_response(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z, double r,
    double z_electrode, const Options& options) {
  return impl::elementary_response_impl(exec, z, r, z_electrode, options);
}

template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> shift_padding(
    const ExecutionSpace& exec,
    const Kokkos::View<const double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        x,
    std::int64_t shift) {
  return impl::shift_padding_impl(exec, x, shift);
}

template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> hr_shift_template(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double delay) {
  return impl::hr_shift_template_impl(exec, x, delay);
}

#define PORTASIM_SFAP_INSTANTIATE_SPACE(SPACE) PORTASIM_SFAP_INSTANTIATE_IMPL(SPACE)
#define PORTASIM_SFAP_INSTANTIATE_IMPL(SPACE)                                                      \
  template Result<SPACE::memory_space> compute<SPACE>(                                             \
      const SPACE&, const Inputs<SPACE::memory_space>&, const Options&);                           \
  template Kokkos::View<double*, SPACE::memory_space> tm_current<SPACE>(                           \
      const SPACE&, const Kokkos::View<const double*, SPACE::memory_space>&, double);              \
  template Kokkos::View<double*, SPACE::memory_space> z_grid<SPACE>(const SPACE&, double, double,  \
                                                                    double, double);               \
  template Kokkos::View<double*, SPACE::memory_space> time_axis<SPACE>(                            \
      const SPACE&, const Kokkos::View<const double*, SPACE::memory_space>&,                       \
      const Kokkos::View<const double*, SPACE::memory_space>&, double, double, double);            \
  template Kokkos::View<double**, Kokkos::LayoutRight, SPACE::memory_space>                        \
  current_density<SPACE>(const SPACE&, const Kokkos::View<const double*, SPACE::memory_space>&,    \
                         const Kokkos::View<const double*, SPACE::memory_space>&,                  \
                         const FiberSource&, const Options&, std::int64_t*);                       \
  template Kokkos::View<double*, SPACE::memory_space> elementary_response<SPACE>(                  \
      const SPACE&, const Kokkos::View<const double*, SPACE::memory_space>&, double, double,       \
      const Options&);                                                                             \
  template Kokkos::View<double**, Kokkos::LayoutRight, SPACE::memory_space> shift_padding<SPACE>(  \
      const SPACE&, const Kokkos::View<const double**, Kokkos::LayoutRight, SPACE::memory_space>&, \
      std::int64_t);                                                                               \
  template Kokkos::View<double*, SPACE::memory_space> hr_shift_template<SPACE>(                    \
      const SPACE&, const Kokkos::View<const double*, SPACE::memory_space>&, double);              \
  template void release_cached_buffers<SPACE>();
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_SFAP_INSTANTIATE_SPACE)

}  // namespace portasim::sfap
