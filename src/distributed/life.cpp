// Explicit instantiations of the distributed Game of Life on every enabled execution space.
#include "portasim/distributed/impl/life_impl.hpp"

namespace portasim::distributed {

#define PORTASIM_DISTRIBUTED_LIFE_INSTANTIATE(SPACE)                                              \
  template life::RunStats run_life<SPACE>(const SPACE&, const mpi::Communicator&,                 \
                                          const life::Config&,                                    \
                                          const life::ByteGrid<SPACE::memory_space>&,             \
                                          std::int64_t, life::ChunkSink*, const LifeOptions&);    \
  template void fill_random_rows<SPACE>(const SPACE&, const life::ByteGrid<SPACE::memory_space>&, \
                                        std::int64_t, double, std::uint64_t);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_DISTRIBUTED_LIFE_INSTANTIATE)

}  // namespace portasim::distributed
