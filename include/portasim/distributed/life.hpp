#pragma once
// The Game of Life over MPI ranks: row-block domain decomposition (rank r owns a contiguous
// block of rows, the first height % size ranks one row more), one ghost row above and below
// exchanged every generation, the same engines on each block. Results are byte for byte
// those of a single-rank run, for torus and dead borders alike (a dead border is a ghost row
// of zeros at the first and last rank). Ghost rows travel through host buffers unless the
// MPI is CUDA-aware (device_aware_mpi), when device pointers go to MPI directly.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/mpi/partition.hpp"
#include "portasim/life/grid.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::distributed {

// Where recorded generations go: gathered, whole grids to the root's sink (files identical
// to a single-rank run); per_rank, every rank's own block (height = its rows) to its own sink.
enum class LifeOutput { gathered, per_rank };

struct LifeOptions {
  LifeOutput output = LifeOutput::gathered;
  bool device_aware_mpi = false;
};

// This rank's rows of a height-row grid.
inline mpi::Block life_rows(const mpi::Communicator& comm, std::int64_t height) {
  return mpi::block_of(height, comm.rank(), comm.size());
}

// `local_initial`: this rank's rows (life_rows) of generation `start_generation`. `sink`: the
// root's in gathered mode (ignored on other ranks), each rank's own in per_rank mode; a run
// records only when the root (gathered) or any rank (per_rank) has one. Statistics are
// global: population summed, times the slowest rank's. Collective: every rank calls it.
template <class ExecutionSpace>
life::RunStats run_life(const ExecutionSpace& exec, const mpi::Communicator& comm,
                        const life::Config& config,
                        const life::ByteGrid<typename ExecutionSpace::memory_space>& local_initial,
                        std::int64_t start_generation, life::ChunkSink* sink,
                        const LifeOptions& options = {});

// Rows first_row .. first_row + grid.extent(0) - 1 of life::fill_random's grid (same draws).
template <class ExecutionSpace>
void fill_random_rows(const ExecutionSpace& exec,
                      const life::ByteGrid<typename ExecutionSpace::memory_space>& grid,
                      std::int64_t first_row, double density, std::uint64_t seed);

#define PORTASIM_DISTRIBUTED_LIFE_DECLARE(SPACE)                                           \
  extern template life::RunStats run_life<SPACE>(                                          \
      const SPACE&, const mpi::Communicator&, const life::Config&,                         \
      const life::ByteGrid<SPACE::memory_space>&, std::int64_t, life::ChunkSink*,          \
      const LifeOptions&);                                                                 \
  extern template void fill_random_rows<SPACE>(const SPACE&,                               \
                                               const life::ByteGrid<SPACE::memory_space>&, \
                                               std::int64_t, double, std::uint64_t);
PORTASIM_FOR_EACH_EXECUTION_SPACE(PORTASIM_DISTRIBUTED_LIFE_DECLARE)

}  // namespace portasim::distributed
