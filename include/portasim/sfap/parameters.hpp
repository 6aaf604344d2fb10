#pragma once
// Options of the SFAP computation (single-fiber action potentials of intramuscular EMG,
// MyoGen's calc_sfaps). The defaults reproduce MyoGen numerically; the physically corrected
// variants are opt-in.

#include <cstddef>
#include <cstdint>

namespace portasim::sfap {

struct Options {
  // Sampling: dt = 1/fs unless dt_s > 0 is given.
  double fs_hz = 10240.0;
  double dt_s = 0.0;
  // Nominal spatial step of the per-fiber z grids (mm).
  double dz_mm = 0.1;
  // Radial distances below this are clamped (mm); < 0 means the mean fiber diameter.
  double min_radial_dist_mm = -1.0;
  // End-plate suppression: the source is zeroed where zi - w < z < zi + w.
  bool suppress_endplate = true;
  double endplate_half_width_mm = 0.5;
  // Integer + fractional (FFT-defined) delays by the nerve paths and the MUAP.
  bool apply_delays = true;
  // Physically corrected source: exact mirror of the right-going wave about zi (instead of
  // MyoGen's reversed and rounded-shift grid copy). Off by default (not MyoGen).
  bool corrected_source = false;
  // Quadrature weight dz_hat on the projection: SFAPs in mV, independent of dz. Off by
  // default (MyoGen's raw numbers scale like 1/dz).
  bool dz_weighted = false;
  // MUAP jitter: every fiber's SFAP is shifted by a further N(0, jitter_sd_s)/dt samples
  // (counter-based normal keyed by (jitter_seed, fiber)). 0 = off (MyoGen's calc_muap(0)).
  double jitter_sd_s = 0.0;
  std::uint64_t jitter_seed = 0;
  // Physical constants (MyoGen's values).
  double sigma_r = 0.063;          // S/mm, radial conductivity
  double sigma_z = 0.33;           // S/mm, axial conductivity
  double sigma_i = 1.01e-3;        // S/mm, intracellular conductivity
  double d1 = 96.0;                // mV/mm^3, Rosenfalck amplitude
  double nmj_velocity_0 = 5000.0;  // mm/s, nerve path 0
  double nmj_velocity_1 = 2000.0;  // mm/s, nerve path 1
  // Upper bound of the intermediate source buffers; fibers are processed in batches under it.
  // 0 = automatic (2 GiB on a device, 64 MiB on the host). On a device the buffers come from
  // a pool that keeps them for the next call until Kokkos is finalized.
  std::size_t max_buffer_bytes = 0;
  // Only fibers first_fiber .. first_fiber + fiber_count - 1 of the inputs (fiber_count < 0:
  // to the end), as one MPI rank of a split run computes them: the time axis, the default
  // minimum radius and the jitter keys still come from the whole unit, so each fiber's SFAPs
  // are those of the whole run. The MUAP is then this block's partial sum.
  std::int64_t first_fiber = 0;
  std::int64_t fiber_count = -1;
};

}  // namespace portasim::sfap
