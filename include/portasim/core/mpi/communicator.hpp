#pragma once
// The MPI layer: a communicator over byte buffers on the host (or on a device when the MPI
// is CUDA-aware), usable in every build. Without PORTASIM_ENABLE_MPI, or when MPI was not
// initialized, it is the single rank 0 of 1, and the module code that uses it needs no
// #ifdef. mpi.h stays out of this header: consumers need no MPI include path.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace portasim::mpi {

// True when portasim was built with PORTASIM_ENABLE_MPI.
bool built_with_mpi() noexcept;
// True when MPI is initialized and not yet finalized.
bool active() noexcept;

// True when this process was started by an MPI launcher (mpirun/mpiexec/srun: OpenMPI, PMI,
// PMIx, MVAPICH, MPICH and Intel MPI environment variables), or PORTASIM_MPI=1; never with
// PORTASIM_MPI=0. A program started on its own does not initialize MPI.
bool launched_by_mpi() noexcept;

// Ranks in MPI_COMM_WORLD (1 when MPI is not active); not collective.
int world_size() noexcept;
// Ends every rank of MPI_COMM_WORLD (for an error on one rank that others would wait on
// forever); std::exit when MPI is not active.
[[noreturn]] void abort_world(int code);

// Brings MPI up (MPI_THREAD_FUNNELED) when launched_by_mpi() and the application did not
// already, and takes it down at scope exit only if it brought it up. A no-op without MPI.
class Environment {
 public:
  Environment(int* argc, char*** argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  bool owns_mpi() const noexcept { return m_owns; }

 private:
  bool m_owns = false;
};

class Communicator {
 public:
  // A duplicate of MPI_COMM_WORLD (library traffic never meets the application's) when MPI
  // is active, else the single-rank communicator.
  static Communicator world();

  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }
  bool is_root() const noexcept { return m_rank == 0; }
  // True for a communicator of MPI (world()), even of one rank; false for the single-rank
  // communicator of a process without MPI (the default).
  bool is_mpi() const noexcept { return m_handle != nullptr; }
  // Rank among the ranks of this node (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)).
  int local_rank() const noexcept { return m_local_rank; }
  int local_size() const noexcept { return m_local_size; }

  void barrier() const;
  // Every call below moves plain bytes; messages of any size (split under MPI's int counts).
  void broadcast(void* data, std::size_t bytes, int root = 0) const;
  void send(const void* data, std::size_t bytes, int destination, int tag) const;
  void receive(void* data, std::size_t bytes, int source, int tag) const;
  // Exchange with two partners at once; a partner < 0 means none (nothing sent or received).
  void sendrecv(const void* send_data, std::size_t send_bytes, int destination, void* receive_data,
                std::size_t receive_bytes, int source, int tag) const;
  // Rank r's `bytes` land at offset sum(bytes_per_rank[0..r)) of `receive` on the root,
  // in rank order; `receive` and `bytes_per_rank` are read on the root only.
  void gatherv(const void* data, std::size_t bytes, void* receive,
               const std::vector<std::size_t>& bytes_per_rank, int root = 0) const;

  double sum(double value) const;
  std::int64_t sum(std::int64_t value) const;
  double max(double value) const;
  std::int64_t max(std::int64_t value) const;
  std::int64_t min(std::int64_t value) const;
  // One value per rank, in rank order, on every rank.
  std::vector<std::int64_t> allgather(std::int64_t value) const;
  std::vector<double> allgather(double value) const;

  // Ends every rank (MPI_Abort) when MPI is active; std::exit otherwise.
  [[noreturn]] void abort(int code) const;

  struct Handle;

 private:
  std::shared_ptr<Handle> m_handle;
  int m_rank = 0, m_size = 1, m_local_rank = 0, m_local_size = 1;
};

// The GPU a rank should use: local rank modulo the visible GPUs, or -1 when there is no GPU
// or the user chose one (--kokkos-device-id, --kokkos-num-devices and their environment
// variables KOKKOS_DEVICE_ID / KOKKOS_NUM_DEVICES / KOKKOS_RAND_DEVICES).
int default_device(int argc, char* argv[], int visible_devices);

}  // namespace portasim::mpi
