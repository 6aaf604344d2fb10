// Explicit instantiations of hh::simulate for float and double on every enabled space, so
// that users (and the CLI) compile none of the kernels themselves.
#include "portasim/hh/impl/simulate_impl.hpp"

namespace portasim::hh {

#define PORTASIM_HH_INSTANTIATE(SCALAR, SPACE)                                   \
  template Result<SCALAR, SPACE::memory_space> simulate<SCALAR, SPACE>(          \
      const SPACE&, const Config&, const Stimulus<SCALAR, SPACE::memory_space>&, \
      TraceSink<SCALAR>*, const NeuronValues<SPACE::memory_space>&);
#define PORTASIM_HH_INSTANTIATE_BOTH(SPACE) \
  PORTASIM_HH_INSTANTIATE(float, SPACE) PORTASIM_HH_INSTANTIATE(double, SPACE)
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_HH_INSTANTIATE_BOTH)

}  // namespace portasim::hh
