// Reading SFAP inputs in the reference-file layout and writing results.
#include "portasim/sfap/hdf5_io.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::sfap {

Options options_from(const HostInputs& in, Options o) {
  if (!std::isnan(in.fs_hz)) {
    o.fs_hz = in.fs_hz;
    o.dt_s = 0;
  }
  if (!std::isnan(in.dt_s)) o.dt_s = in.dt_s;  // the exact dt MyoGen used
  if (!std::isnan(in.dz_mm)) o.dz_mm = in.dz_mm;
  if (!std::isnan(in.min_radial_dist_mm)) o.min_radial_dist_mm = in.min_radial_dist_mm;
  return o;
}

void write_result(io::H5File& file, const Result<Kokkos::HostSpace>& r) {
  const std::size_t nt = r.nt, ne = r.n_electrodes, nf = r.n_fibers;
  file.write("/outputs/t", r.t.data(), {nt});
  file.write("/outputs/sfaps_pre_shift", r.sfaps_pre_shift.data(), {nt, ne, nf});
  if (r.sfaps_post_shift.extent(0) > 0) {
    file.write("/outputs/sfaps_post_shift", r.sfaps_post_shift.data(), {nt, ne, nf});
    file.write("/outputs/muap", r.muap.data(), {nt, ne});
    file.write("/outputs/mnap_delays", r.delays_s.data(), {nf});
  }
  file.write_attribute("/outputs", "dt_s", r.dt_s);
  file.write_attribute("/outputs", "dz_mm", r.dz_mm);
  file.write_attribute("/outputs", "min_radial_dist_mm", r.min_radial_dist_mm);
  file.write_attribute("/outputs", "shape_note",
                       "SFAP arrays are (Nt, N_electrodes, N_fibers), C order");
  file.write("/diagnostics/n_z", r.n_z.data(), {nf});
  file.write("/diagnostics/mirror_shift", r.mirror_shift.data(), {nf});
  file.write("/diagnostics/branch_L1_ge_L2", r.branch_L1_ge_L2.data(), {nf});
  file.write("/diagnostics/dz_hat", r.dz_hat.data(), {nf});
  file.write("/diagnostics/r_raw", r.r_raw.data(), {ne, nf});
  file.write("/diagnostics/r_used", r.r_used.data(), {ne, nf});
}

}  // namespace portasim::sfap
