// Explicit instantiations of the Life pipeline on every enabled execution space.
#include "portasim/life/impl/simulation_impl.hpp"

namespace portasim::life {

#define PORTASIM_LIFE_INSTANTIATE(SPACE)                                                       \
  template RunStats run<SPACE>(const SPACE&, const mpi::Communicator&, const Config&,          \
                               const ByteGrid<SPACE::memory_space>&, std::int64_t, ChunkSink*, \
                               const RankOptions&, const ByteGrid<SPACE::memory_space>*);      \
  template void fill_random<SPACE>(const SPACE&, const ByteGrid<SPACE::memory_space>&, double, \
                                   std::uint64_t, std::int64_t);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_LIFE_INSTANTIATE)

}  // namespace portasim::life
