#pragma once
// SFAPs over MPI ranks: rank r computes a contiguous block of the fibers (sfap::Options
// first_fiber / fiber_count: time axis and default minimum radius from the whole unit), and
// the root gathers the per-fiber outputs in fiber order. The MUAP is reduced in fiber order
// across the ranks (rank r continues the running sum of ranks 0..r-1), so it is bit for bit
// the single-rank sum.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "portasim/core/error.hpp"
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/mpi/partition.hpp"
#include "portasim/sfap/compute.hpp"

namespace portasim::distributed {

inline mpi::Block sfap_fibers(const mpi::Communicator& comm, std::int64_t fibers) {
  return mpi::block_of(fibers, comm.rank(), comm.size());
}

namespace impl {
// (outer, local) row-major blocks of every rank -> (outer, total) on the root, the ranks'
// columns side by side in rank order (mpi::block_of).
template <class T>
std::vector<T> gather_columns(const mpi::Communicator& comm, const T* local, std::int64_t outer,
                              std::int64_t total) {
  const int size = comm.size();
  std::vector<std::size_t> bytes(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r)
    bytes[static_cast<std::size_t>(r)] =
        static_cast<std::size_t>(outer * mpi::block_of(total, r, size).size()) * sizeof(T);
  const std::int64_t mine = mpi::block_of(total, comm.rank(), size).size();
  std::vector<T> blocks(comm.is_root() ? static_cast<std::size_t>(outer * total) : 0);
  comm.gatherv(local, static_cast<std::size_t>(outer * mine) * sizeof(T), blocks.data(), bytes);
  if (!comm.is_root()) return {};
  std::vector<T> whole(blocks.size());
  const T* from = blocks.data();
  for (int r = 0; r < size; ++r) {
    const mpi::Block b = mpi::block_of(total, r, size);
    for (std::int64_t i = 0; i < outer; ++i)
      std::memcpy(whole.data() + i * total + b.begin, from + i * b.size(),
                  static_cast<std::size_t>(b.size()) * sizeof(T));
    from += outer * b.size();
  }
  return whole;
}

template <class View>
View from_vector(const std::vector<typename View::value_type>& values, const std::string& label,
                 std::size_t n0, std::size_t n1 = KOKKOS_INVALID_INDEX,
                 std::size_t n2 = KOKKOS_INVALID_INDEX) {
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), n0, n1, n2);
  if (!values.empty())
    std::memcpy(view.data(), values.data(), values.size() * sizeof(typename View::value_type));
  return view;
}
}  // namespace impl

// The MUAP of the whole unit from every rank's post-shift SFAPs (host, (Nt, Ne, its fibers)),
// summed fiber by fiber in global order: each rank continues the running sums it receives
// from the rank before and the last sends them to the root. Result on the root (Nt x Ne).
inline std::vector<double> ordered_muap(const mpi::Communicator& comm, const double* post,
                                        std::int64_t nt, std::int64_t ne,
                                        std::int64_t local_fibers) {
  constexpr int tag = 7302;
  std::vector<double> sum(static_cast<std::size_t>(nt * ne), 0.0);
  const int rank = comm.rank(), size = comm.size();
  if (rank > 0) comm.receive(sum.data(), sum.size() * sizeof(double), rank - 1, tag);
  for (std::int64_t i = 0; i < nt * ne; ++i) {
    double s = sum[static_cast<std::size_t>(i)];
    for (std::int64_t f = 0; f < local_fibers; ++f) s += post[i * local_fibers + f];
    sum[static_cast<std::size_t>(i)] = s;
  }
  if (size == 1) return sum;
  if (rank < size - 1) comm.send(sum.data(), sum.size() * sizeof(double), rank + 1, tag);
  else comm.send(sum.data(), sum.size() * sizeof(double), 0, tag);
  if (rank == 0) {
    comm.receive(sum.data(), sum.size() * sizeof(double), size - 1, tag);
    return sum;
  }
  return {};
}

// The whole unit's result on the root from every rank's block (host copies); empty elsewhere.
// Collective. `fibers`: N_fibers of the unit. The jittered SFAPs enter the MUAP but are not
// gathered (the files hold the post-shift SFAPs and the MUAP).
inline sfap::Result<Kokkos::HostSpace> gather_result(const mpi::Communicator& comm,
                                                     const sfap::Result<Kokkos::HostSpace>& local,
                                                     std::int64_t fibers) {
  using impl::gather_columns;
  using Result = sfap::Result<Kokkos::HostSpace>;
  const std::int64_t nt = local.nt, ne = local.n_electrodes, nf = local.n_fibers;
  require(nf == sfap_fibers(comm, fibers).size(),
          "sfap: rank " + std::to_string(comm.rank()) + " holds " + std::to_string(nf) +
              " fibers, expected its block of " + std::to_string(fibers));
  const bool delays = local.sfaps_post_shift.extent(0) > 0;
  auto pre = gather_columns(comm, local.sfaps_pre_shift.data(), nt * ne, fibers);
  std::vector<double> post, muap;
  if (delays) {
    post = gather_columns(comm, local.sfaps_post_shift.data(), nt * ne, fibers);
    // The MUAP's per-fiber terms: the jittered SFAPs where the run has jitter.
    const auto& terms =
        local.sfaps_jittered.extent(0) > 0 ? local.sfaps_jittered : local.sfaps_post_shift;
    muap = ordered_muap(comm, terms.data(), nt, ne, nf);
  }
  auto r_raw = gather_columns(comm, local.r_raw.data(), ne, fibers);
  auto r_used = gather_columns(comm, local.r_used.data(), ne, fibers);
  auto n_z = gather_columns(comm, local.n_z.data(), 1, fibers);
  auto mirror = gather_columns(comm, local.mirror_shift.data(), 1, fibers);
  auto branch = gather_columns(comm, local.branch_L1_ge_L2.data(), 1, fibers);
  auto dz_hat = gather_columns(comm, local.dz_hat.data(), 1, fibers);
  std::vector<double> delays_s;
  if (delays) delays_s = gather_columns(comm, local.delays_s.data(), 1, fibers);
  const std::int64_t nz_max = comm.max(local.n_z_max);
  Result whole;
  if (!comm.is_root()) return whole;
  const std::size_t n = static_cast<std::size_t>(fibers);
  whole.t = local.t;
  whole.sfaps_pre_shift = impl::from_vector<Result::cube>(pre, "sfaps_pre_shift", nt, ne, n);
  if (delays) {
    whole.sfaps_post_shift = impl::from_vector<Result::cube>(post, "sfaps_post_shift", nt, ne, n);
    whole.muap = impl::from_vector<Result::matrix>(muap, "muap", nt, ne);
    whole.delays_s = impl::from_vector<Result::vector<double>>(delays_s, "sfap_delays", n);
  }
  whole.n_z = impl::from_vector<Result::vector<std::int64_t>>(n_z, "sfap_n_z", n);
  whole.mirror_shift =
      impl::from_vector<Result::vector<std::int64_t>>(mirror, "sfap_mirror_shift", n);
  whole.branch_L1_ge_L2 = impl::from_vector<Result::vector<std::int8_t>>(branch, "sfap_branch", n);
  whole.dz_hat = impl::from_vector<Result::vector<double>>(dz_hat, "sfap_dz_hat", n);
  whole.r_raw = impl::from_vector<Result::matrix>(r_raw, "sfap_r_raw", ne, n);
  whole.r_used = impl::from_vector<Result::matrix>(r_used, "sfap_r_used", ne, n);
  whole.dt_s = local.dt_s;
  whole.dz_mm = local.dz_mm;
  whole.min_radial_dist_mm = local.min_radial_dist_mm;
  whole.nt = nt;
  whole.n_fibers = fibers;
  whole.n_electrodes = ne;
  whole.n_z_max = nz_max;
  return whole;
}

}  // namespace portasim::distributed
