#include "portasim/core/mpi/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "portasim/config.hpp"
#include "portasim/core/error.hpp"

#if defined(PORTASIM_ENABLE_MPI)
#include <mpi.h>
#endif

namespace portasim::mpi {

namespace {
// MPI counts are int: larger messages go in pieces of this many bytes.
constexpr std::size_t piece_bytes = std::size_t(1) << 30;

bool starts_with(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}
}  // namespace

bool launched_by_mpi() noexcept {
  if (const char* forced = std::getenv("PORTASIM_MPI"))
    return std::strcmp(forced, "0") != 0 && *forced != '\0';
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                               "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS", "I_MPI_HYDRA_HOST_FILE"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

bool built_with_mpi() noexcept {
#if defined(PORTASIM_ENABLE_MPI)
  return true;
#else
  return false;
#endif
}

bool active() noexcept {
#if defined(PORTASIM_ENABLE_MPI)
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
#else
  return false;
#endif
}

int world_size() noexcept {
  int size = 1;
#if defined(PORTASIM_ENABLE_MPI)
  if (active()) MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
  return size;
}

void abort_world(int code) {
#if defined(PORTASIM_ENABLE_MPI)
  if (active()) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

Environment::Environment([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#if defined(PORTASIM_ENABLE_MPI)
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && launched_by_mpi()) {
    int provided = 0;
    // Only the main thread calls MPI; OpenMP threads never do.
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    m_owns = true;
  }
#endif
}

Environment::~Environment() {
#if defined(PORTASIM_ENABLE_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (m_owns && !finalized) MPI_Finalize();
#endif
}

#if defined(PORTASIM_ENABLE_MPI)
struct Communicator::Handle {
  MPI_Comm comm = MPI_COMM_NULL;
  ~Handle() {
    if (comm != MPI_COMM_NULL && active()) MPI_Comm_free(&comm);
  }
};

namespace {
void check(int status, const char* what) {
  if (status != MPI_SUCCESS) {
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, message, &length);
    throw_error(ErrorKind::backend,
                std::string("MPI: ") + what + " failed: " + std::string(message, length));
  }
}
template <class T>
MPI_Datatype type_of();
template <>
MPI_Datatype type_of<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype type_of<std::int64_t>() {
  return MPI_INT64_T;
}

template <class T>
T all_reduce(MPI_Comm comm, T value, MPI_Op op) {
  T result{};
  check(MPI_Allreduce(&value, &result, 1, type_of<T>(), op, comm), "MPI_Allreduce");
  return result;
}
template <class T>
std::vector<T> all_gather(MPI_Comm comm, int size, T value) {
  std::vector<T> result(static_cast<std::size_t>(size));
  check(MPI_Allgather(&value, 1, type_of<T>(), result.data(), 1, type_of<T>(), comm),
        "MPI_Allgather");
  return result;
}
}  // namespace

Communicator Communicator::world() {
  Communicator c;
  if (!active()) return c;
  c.m_handle = std::make_shared<Handle>();
  check(MPI_Comm_dup(MPI_COMM_WORLD, &c.m_handle->comm), "MPI_Comm_dup");
  MPI_Comm_rank(c.m_handle->comm, &c.m_rank);
  MPI_Comm_size(c.m_handle->comm, &c.m_size);
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(c.m_handle->comm, MPI_COMM_TYPE_SHARED, c.m_rank, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  MPI_Comm_rank(node, &c.m_local_rank);
  MPI_Comm_size(node, &c.m_local_size);
  MPI_Comm_free(&node);
  return c;
}

void Communicator::barrier() const {
  if (m_handle) check(MPI_Barrier(m_handle->comm), "MPI_Barrier");
}

void Communicator::broadcast(void* data, std::size_t bytes, int root) const {
  if (!m_handle) return;
  auto* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += piece_bytes)
    check(MPI_Bcast(p + done, static_cast<int>(std::min(piece_bytes, bytes - done)), MPI_BYTE, root,
                    m_handle->comm),
          "MPI_Bcast");
}

void Communicator::send(const void* data, std::size_t bytes, int destination, int tag) const {
  if (!m_handle) throw_error(ErrorKind::backend, "mpi: a single rank cannot send to itself");
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  do {
    const std::size_t n = std::min(piece_bytes, bytes - done);
    check(MPI_Send(p + done, static_cast<int>(n), MPI_BYTE, destination, tag, m_handle->comm),
          "MPI_Send");
    done += n;
  } while (done < bytes);
}

void Communicator::receive(void* data, std::size_t bytes, int source, int tag) const {
  if (!m_handle) throw_error(ErrorKind::backend, "mpi: a single rank cannot receive from itself");
  auto* p = static_cast<char*>(data);
  std::size_t done = 0;
  do {
    const std::size_t n = std::min(piece_bytes, bytes - done);
    check(MPI_Recv(p + done, static_cast<int>(n), MPI_BYTE, source, tag, m_handle->comm,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    done += n;
  } while (done < bytes);
}

void Communicator::sendrecv(const void* send_data, std::size_t send_bytes, int destination,
                            void* receive_data, std::size_t receive_bytes, int source,
                            int tag) const {
  if (!m_handle) {
    if (destination == 0 && source == 0)
      std::memcpy(receive_data, send_data, std::min(send_bytes, receive_bytes));
    return;
  }
  require(send_bytes < piece_bytes && receive_bytes < piece_bytes,
          "mpi: sendrecv of more than 1 GiB");
  check(MPI_Sendrecv(send_data, static_cast<int>(send_bytes), MPI_BYTE,
                     destination < 0 ? MPI_PROC_NULL : destination, tag, receive_data,
                     static_cast<int>(receive_bytes), MPI_BYTE, source < 0 ? MPI_PROC_NULL : source,
                     tag, m_handle->comm, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

void Communicator::gatherv(const void* data, std::size_t bytes, void* receive,
                           const std::vector<std::size_t>& bytes_per_rank, int root) const {
  constexpr int tag = 7301;
  if (m_rank != root) {
    if (bytes > 0) send(data, bytes, root, tag);
    return;
  }
  require(bytes_per_rank.size() == static_cast<std::size_t>(m_size),
          "mpi: gatherv needs one size per rank");
  auto* out = static_cast<char*>(receive);
  std::size_t offset = 0;
  for (int r = 0; r < m_size; ++r) {
    const std::size_t n = bytes_per_rank[static_cast<std::size_t>(r)];
    if (r == root) {
      require(n == bytes, "mpi: gatherv root size mismatch");
      if (n > 0 && out + offset != data) std::memmove(out + offset, data, n);
    } else if (n > 0) {
      this->receive(out + offset, n, r, tag);
    }
    offset += n;
  }
}

double Communicator::sum(double value) const {
  return m_handle ? all_reduce(m_handle->comm, value, MPI_SUM) : value;
}
std::int64_t Communicator::sum(std::int64_t value) const {
  return m_handle ? all_reduce(m_handle->comm, value, MPI_SUM) : value;
}
double Communicator::max(double value) const {
  return m_handle ? all_reduce(m_handle->comm, value, MPI_MAX) : value;
}
std::int64_t Communicator::max(std::int64_t value) const {
  return m_handle ? all_reduce(m_handle->comm, value, MPI_MAX) : value;
}
std::int64_t Communicator::min(std::int64_t value) const {
  return m_handle ? all_reduce(m_handle->comm, value, MPI_MIN) : value;
}
std::vector<std::int64_t> Communicator::allgather(std::int64_t value) const {
  return m_handle ? all_gather(m_handle->comm, m_size, value) : std::vector<std::int64_t>{value};
}
std::vector<double> Communicator::allgather(double value) const {
  return m_handle ? all_gather(m_handle->comm, m_size, value) : std::vector<double>{value};
}

void Communicator::abort(int code) const {
  if (active()) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else  // without MPI: the single rank

struct Communicator::Handle {};

Communicator Communicator::world() { return Communicator(); }
void Communicator::barrier() const {}
void Communicator::broadcast(void*, std::size_t, int) const {}
void Communicator::send(const void*, std::size_t, int, int) const {
  throw_error(ErrorKind::backend, "mpi: a single rank cannot send to itself");
}
void Communicator::receive(void*, std::size_t, int, int) const {
  throw_error(ErrorKind::backend, "mpi: a single rank cannot receive from itself");
}
void Communicator::sendrecv(const void* send_data, std::size_t send_bytes, int destination,
                            void* receive_data, std::size_t receive_bytes, int source, int) const {
  if (destination == 0 && source == 0)
    std::memcpy(receive_data, send_data, std::min(send_bytes, receive_bytes));
}
void Communicator::gatherv(const void* data, std::size_t bytes, void* receive,
                           const std::vector<std::size_t>&, int) const {
  if (bytes > 0 && receive != data) std::memmove(receive, data, bytes);
}
double Communicator::sum(double value) const { return value; }
std::int64_t Communicator::sum(std::int64_t value) const { return value; }
double Communicator::max(double value) const { return value; }
std::int64_t Communicator::max(std::int64_t value) const { return value; }
std::int64_t Communicator::min(std::int64_t value) const { return value; }
std::vector<std::int64_t> Communicator::allgather(std::int64_t value) const { return {value}; }
std::vector<double> Communicator::allgather(double value) const { return {value}; }
void Communicator::abort(int code) const { std::exit(code); }

#endif

int default_device(int argc, char* argv[], int visible_devices) {
  if (visible_devices <= 0) return -1;
  for (const char* variable : {"KOKKOS_DEVICE_ID", "KOKKOS_NUM_DEVICES", "KOKKOS_RAND_DEVICES"})
    if (std::getenv(variable) != nullptr) return -1;
  // Kokkos' device flags as "--flag=N" or "--flag N" (never a prefix of another option).
  for (int i = 1; i < argc; ++i)
    for (const char* flag :
         {"--kokkos-device-id", "--kokkos-device", "--device-id", "--device",
          "--kokkos-num-devices", "--num-devices", "--kokkos-ndevices", "--ndevices"})
      if (argv[i] != nullptr && starts_with(argv[i], flag) &&
          (argv[i][std::strlen(flag)] == '\0' || argv[i][std::strlen(flag)] == '='))
        return -1;
  if (!active()) return -1;
  return Communicator::world().local_rank() % visible_devices;
}

}  // namespace portasim::mpi
