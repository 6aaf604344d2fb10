#pragma once
// SFAPs of a motor unit (MyoGen's calc_sfaps + shift_sfaps + calc_muap) on an execution
// space: every kernel runs on the instance passed first; the host waits for the device only
// before any per-fiber work: for the reduction that sizes the outputs, and for every
// instance when the call reuses the arrays of a result its caller has let go of.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "portasim/sfap/parameters.hpp"

namespace portasim::sfap {

template <class MemorySpace>
struct Inputs {
  using matrix = Kokkos::View<const double**, Kokkos::LayoutRight, MemorySpace>;
  using vector = Kokkos::View<const double*, MemorySpace>;
  matrix fiber_centers;        // (N_fibers, 2): x, y (mm)
  vector endplate_z;           // (N_fibers,): zi (mm)
  vector conduction_velocity;  // (N_fibers,): v (mm/s)
  vector diameter;             // (N_fibers,): d (mm)
  matrix nerve_paths;          // (N_fibers, 2): p0, p1 (mm); may be empty without delays
  matrix electrode_positions;  // (N_electrodes, 3): x, y, z (mm)
  double left_mm = 0.0;        // fibers run from left to right
  double right_mm = 0.0;
};

template <class MemorySpace>
struct Result {
  template <class T>
  using vector = Kokkos::View<T*, MemorySpace>;
  using matrix = Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace>;
  using cube = Kokkos::View<double***, Kokkos::LayoutRight, MemorySpace>;

  vector<double> t;         // (Nt,)
  cube sfaps_pre_shift;     // (Nt, N_electrodes, N_fibers)
  cube sfaps_post_shift;    // (Nt, N_electrodes, N_fibers), with delays only
  cube sfaps_jittered;      // (Nt, N_electrodes, N_fibers), with delays and jitter only
  matrix muap;              // (Nt, N_electrodes), with delays only: sum of the post-shift
                            // (or, with jitter, the jittered) SFAPs over fibers, in order
  vector<double> delays_s;  // (N_fibers,) p0/v0 + p1/v1
  // Diagnostics (the reference files' /diagnostics).
  vector<std::int64_t> n_z;           // grid length per fiber
  vector<std::int64_t> mirror_shift;  // shift of the mirrored short-side wave
  vector<std::int8_t> branch_L1_ge_L2;
  vector<double> dz_hat;  // mean(diff(z)) per fiber
  matrix r_raw, r_used;   // (N_electrodes, N_fibers)
  double dt_s = 0, dz_mm = 0, min_radial_dist_mm = 0;
  std::int64_t nt = 0, n_fibers = 0, n_electrodes = 0, n_z_max = 0;
};

// Checks the shapes and scalars (host) and the values (one device reduction); throws
// portasim::Error (invalid_argument) naming the offending input.
template <class ExecutionSpace>
Result<typename ExecutionSpace::memory_space> compute(
    const ExecutionSpace& exec, const Inputs<typename ExecutionSpace::memory_space>& inputs,
    const Options& options);

// On a device, compute takes its batch buffers from a pool that keeps them for the next call
// until Kokkos is finalized (at most Options::max_buffer_bytes, and under PORTASIM_POOL_LIMIT).
// On every space it also keeps the arrays of results that their callers have let go of (at
// most two of each, none under PORTASIM_POOL_LIMIT) and reuses them in the next call of the
// same shapes, since a View's allocation waits for the device; a result owns its arrays as
// any View does. This gives both back now, once the work queued before has run; the next
// compute allocates afresh.
template <class ExecutionSpace>
void release_cached_buffers();

// ---- The single functions, for unit tests and for users composing their own pipeline ------

// Rosenfalck's f(x) elementwise.
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> tm_current(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double d1 = 96.0);

// The z grid of one fiber (NumPy arange semantics), N_z points (without the extra point).
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> z_grid(const ExecutionSpace& exec,
                                                                    double zi, double left,
                                                                    double right, double dz);

// The time axis arange(0, T + dt, dt), T = 2 max_f max(L1, L2)/v, for the given fibers.
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> time_axis(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& endplate_z,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& velocity, double left,
    double right, double dt);

struct FiberSource {
  double zi = 0, L1 = 0, L2 = 0, v = 0, d = 0;
};

// MyoGen's get_current_density on an explicit grid z (N_z,) and times t (Nt,): (N_z, Nt).
// mirror_shift receives the shift of the short-side wave.
template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> current_density(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& t,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z,
    const FiberSource& fiber, const Options& options, std::int64_t* mirror_shift = nullptr);

// get_elementary_current_response: h(z_k) for one radial distance r (already clamped).
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> elementary_response(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& z, double r,
    double z_electrode, const Options& options);

// shift_padding along axis 0 of an (n, m) matrix.
template <class ExecutionSpace>
Kokkos::View<double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> shift_padding(
    const ExecutionSpace& exec,
    const Kokkos::View<const double**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>&
        x,
    std::int64_t shift);

// MyoGen's hr_shift_template(x, delay): a positive delay moves the waveform earlier by `delay`
// samples (circularly, on the odd-padded length).
template <class ExecutionSpace>
Kokkos::View<double*, typename ExecutionSpace::memory_space> hr_shift_template(
    const ExecutionSpace& exec,
    const Kokkos::View<const double*, typename ExecutionSpace::memory_space>& x, double delay);

}  // namespace portasim::sfap
