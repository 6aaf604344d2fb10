#pragma once
// The halo of a Game of Life split into row blocks over MPI ranks: each rank's grids hold a
// ghost row above and below its rows, refreshed from the neighbouring ranks every generation.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "portasim/core/event.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/mpi/communicator.hpp"

namespace portasim::life::impl {

// Fills the two ghost rows of a (rows + 2) x row_length grid of T in MemorySpace from the
// neighbours (up: rank above, down: rank below; < 0: none, the ghost row stays as it is, zero
// for a dead border). In two halves around the work that needs no halo: begin() takes the
// rows to send (after the work enqueued so far), finish() exchanges them and fills the ghost
// rows, ordered before the work enqueued after it.
template <class ExecutionSpace, class T>
class HaloExchange {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using row_view = Kokkos::View<T*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  // Page-locked: a pageable row costs a staged, synchronous copy every generation.
  using host_row = Kokkos::View<T*, PinnedHostSpace<ExecutionSpace>>;
  static constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  HaloExchange(const mpi::Communicator& comm, std::int64_t rows, std::int64_t row_length, int up,
               int down, bool device_aware)
      : m_comm(comm), m_rows(rows), m_length(row_length), m_up(up), m_down(down),
        m_direct(host_memory || device_aware), m_rows_ready(/*timing=*/false) {
    if (!m_direct)
      for (auto& b : m_host)
        b = host_row(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("portasim::halo")),
                     row_length);
  }

  void begin(const ExecutionSpace& exec, T* grid) {
    if (!m_direct) {
      Kokkos::deep_copy(exec, m_host[0], row_view(first_row(grid), m_length));
      Kokkos::deep_copy(exec, m_host[1], row_view(last_row(grid), m_length));
    }
    m_rows_ready.record(exec);
  }

  void finish(const ExecutionSpace& exec, T* grid) {
    const std::size_t bytes = static_cast<std::size_t>(m_length) * sizeof(T);
    T* top_ghost = grid;
    T* bottom_ghost = grid + (m_rows + 1) * m_length;
    m_rows_ready.synchronize();  // not the work enqueued since begin(): it overlaps the exchange
    if (m_direct) {
      m_comm.sendrecv(first_row(grid), bytes, m_up, bottom_ghost, bytes, m_down, 1);
      m_comm.sendrecv(last_row(grid), bytes, m_down, top_ghost, bytes, m_up, 2);
    } else {
      m_comm.sendrecv(m_host[0].data(), bytes, m_up, m_host[2].data(), bytes, m_down, 1);
      m_comm.sendrecv(m_host[1].data(), bytes, m_down, m_host[3].data(), bytes, m_up, 2);
      if (m_down >= 0) Kokkos::deep_copy(exec, row_view(bottom_ghost, m_length), m_host[2]);
      if (m_up >= 0) Kokkos::deep_copy(exec, row_view(top_ghost, m_length), m_host[3]);
    }
  }

 private:
  T* first_row(T* grid) const { return grid + m_length; }
  T* last_row(T* grid) const { return grid + m_rows * m_length; }

  mpi::Communicator m_comm;
  std::int64_t m_rows, m_length;
  int m_up, m_down;
  bool m_direct;
  Event<ExecutionSpace> m_rows_ready;
  host_row m_host[4];  // send first, send last, receive bottom ghost, receive top ghost
};

}  // namespace portasim::life::impl
