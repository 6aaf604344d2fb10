#pragma once
// HDF5 layout of the SFAP module, that of the reference files (shared/reference/sfap):
//   /inputs   fiber_centers (N,2), endplate_z (N,), conduction_velocity (N,), diameter (N,),
//             nerve_paths (N,2), electrode_positions (Ne,3); attributes muscle_length_mm,
//             left_end_mm, right_end_mm, dt_s, fs_Hz, dz_mm, min_radial_dist_mm
//   /outputs  t (Nt,), sfaps_pre_shift (Nt,Ne,N), sfaps_post_shift (Nt,Ne,N), muap (Nt,Ne),
//             mnap_delays (N,)
//   /diagnostics n_z, mirror_shift, branch_L1_ge_L2 (N,), r_raw, r_used (Ne,N)
// all float64 (counts int64, branch int8), row-major.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "portasim/core/hdf5_file.hpp"
#include "portasim/core/transfers.hpp"
#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/input_file.hpp"

namespace portasim::sfap {

// Options from the file's attributes (dz, dt, min_radial_dist) on top of `base`.
Options options_from(const HostInputs& inputs, Options base);

// Device copies of host inputs, on `exec`.
template <class ExecutionSpace>
Inputs<typename ExecutionSpace::memory_space> upload(const ExecutionSpace& exec,
                                                     const HostInputs& h) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Host2 =
      Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using Host1 = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  auto copy2 = [&](const std::vector<double>& v, std::size_t n, std::size_t m, const char* label) {
    Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> d(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n, m);
    if (n * m > 0) Kokkos::deep_copy(exec, d, Host2(v.data(), n, m));
    return d;
  };
  auto copy1 = [&](const std::vector<double>& v, const char* label) {
    Kokkos::View<double*, MemorySpace> d(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
    if (!v.empty()) Kokkos::deep_copy(exec, d, Host1(v.data(), v.size()));
    return d;
  };
  Inputs<MemorySpace> in;
  in.fiber_centers = copy2(h.fiber_centers, h.n_fibers, 2, "fiber_centers");
  in.endplate_z = copy1(h.endplate_z, "endplate_z");
  in.conduction_velocity = copy1(h.conduction_velocity, "conduction_velocity");
  in.diameter = copy1(h.diameter, "diameter");
  in.nerve_paths = copy2(h.nerve_paths, h.nerve_paths.empty() ? 0 : h.n_fibers, 2, "nerve_paths");
  in.electrode_positions = copy2(h.electrode_positions, h.n_electrodes, 3, "electrode_positions");
  in.left_mm = h.left_mm;
  in.right_mm = h.right_mm;
  exec.fence();  // the host vectors may go away after this call
  return in;
}

// Host copies of a result (the same views when it is already on the host), copied on `exec`
// after the work enqueued on it.
template <class ExecutionSpace, class MemorySpace>
Result<Kokkos::HostSpace> to_host(const ExecutionSpace& exec, const Result<MemorySpace>& r) {
  Result<Kokkos::HostSpace> h;
  auto copy = [&](const auto& v) { return host_mirror_and_copy(exec, v, "sfap_host_result"); };
  h.t = copy(r.t);
  h.sfaps_pre_shift = copy(r.sfaps_pre_shift);
  h.sfaps_post_shift = copy(r.sfaps_post_shift);
  h.sfaps_jittered = copy(r.sfaps_jittered);
  h.muap = copy(r.muap);
  h.delays_s = copy(r.delays_s);
  h.n_z = copy(r.n_z);
  h.mirror_shift = copy(r.mirror_shift);
  h.branch_L1_ge_L2 = copy(r.branch_L1_ge_L2);
  h.dz_hat = copy(r.dz_hat);
  h.r_raw = copy(r.r_raw);
  h.r_used = copy(r.r_used);
  h.dt_s = r.dt_s;
  h.dz_mm = r.dz_mm;
  h.min_radial_dist_mm = r.min_radial_dist_mm;
  h.nt = r.nt;
  h.n_fibers = r.n_fibers;
  h.n_electrodes = r.n_electrodes;
  h.n_z_max = r.n_z_max;
  return h;
}

// The same on the default instance of the memory space's execution space.
template <class MemorySpace>
Result<Kokkos::HostSpace> to_host(const Result<MemorySpace>& r) {
  return to_host(typename MemorySpace::execution_space(), r);
}

// Writes /outputs (t, sfaps_pre_shift, and where present sfaps_post_shift, muap, mnap_delays)
// and /diagnostics, with the run's dt, dz and min_radial_dist as attributes of /outputs.
void write_result(io::H5File& file, const Result<Kokkos::HostSpace>& result);

}  // namespace portasim::sfap
