#include "portasim/sfap/motor_unit.hpp"

#include <cmath>
#include <string>

#include "portasim/core/counter_rng.hpp"
#include "portasim/core/error.hpp"

namespace portasim::sfap {

namespace {

// One counter stream per drawn quantity, so that changing one parameter leaves the others'
// draws as they were.
enum Stream : std::uint64_t {
  radius = 1,
  angle,
  endplate,
  velocity,
  diameter,
  nerve_axon,
  nerve_branch
};

// Redraws allowed per value before a truncated normal is declared out of reach.
constexpr std::uint64_t max_draws = 1000;

// A normal draw of fiber `k` redrawn until it lies in (low, high) (the mean itself when sd is
// 0); invalid_argument names `what` when the window holds almost none of the distribution.
double truncated_normal(const MotorUnitSpec& spec, Stream stream, std::uint64_t k, double mean,
                        double sd, double low, double high, const char* what) {
  if (sd == 0) return mean;  // validate() put the mean inside the range
  for (std::uint64_t attempt = 0; attempt < max_draws; ++attempt) {
    const double value = mean + sd * counter_normal(spec.seed, stream, k * max_draws + attempt);
    if (value > low && value < high) return value;
  }
  throw_error(ErrorKind::invalid_argument,
              std::string(what) + ": no draw fell inside its valid range in " +
                  std::to_string(max_draws) + " tries; check its mean and sd");
}

void require_finite_vector(const char* name, const double* values, int n) {
  for (int i = 0; i < n; ++i) require_finite(name, values[i]);
}

}  // namespace

void validate(const MotorUnitSpec& s) {
  require(s.fibers > 0 && s.fibers <= (std::int64_t(1) << 31),
          "fibers must be in 1..2^31, got " + std::to_string(s.fibers));
  require_finite_vector("territory centre (mm)", s.territory_centre_mm.data(), 2);
  require_finite("territory radius (mm)", s.territory_radius_mm);
  require_non_negative("territory radius (mm)", s.territory_radius_mm);
  require_finite("muscle length (mm)", s.muscle_length_mm);
  require_positive("muscle length (mm)", s.muscle_length_mm);
  if (!std::isnan(s.endplate_mean_mm))
    require(s.endplate_mean_mm > 0 && s.endplate_mean_mm < s.muscle_length_mm,
            "end-plate mean (mm) must be inside the muscle, (0, " +
                std::to_string(s.muscle_length_mm) + ")");
  for (const auto& [name, value] :
       {std::pair{"end-plate sd (mm)", s.endplate_sd_mm},
        std::pair{"conduction velocity sd (mm/s)", s.velocity_sd_mm_per_s},
        std::pair{"diameter sd (mm)", s.diameter_sd_mm},
        std::pair{"nerve path sd (mm)", s.nerve_path_sd_mm}}) {
    require_finite(name, value);
    require_non_negative(name, value);
  }
  require_finite("conduction velocity mean (mm/s)", s.velocity_mean_mm_per_s);
  require_positive("conduction velocity mean (mm/s)", s.velocity_mean_mm_per_s);
  require_finite("diameter mean (mm)", s.diameter_mean_mm);
  require_positive("diameter mean (mm)", s.diameter_mean_mm);
  for (double p : s.nerve_path_mean_mm) {
    require_finite("nerve path mean (mm)", p);
    require_non_negative("nerve path mean (mm)", p);
  }
  require(s.electrodes > 0 && s.electrodes <= 100000,
          "electrodes must be in 1..100000, got " + std::to_string(s.electrodes));
  require_finite("electrode spacing (mm)", s.electrode_spacing_mm);
  require_non_negative("electrode spacing (mm)", s.electrode_spacing_mm);
  require_finite_vector("electrode start (mm)", s.electrode_start_mm.data(), 3);
  require_finite_vector("electrode direction", s.electrode_direction.data(), 3);
  const auto& d = s.electrode_direction;
  require(s.electrodes == 1 || d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > 0,
          "electrode direction must not be (0, 0, 0)");
  require_finite("dt (s)", s.dt_s);
  require_positive("dt (s)", s.dt_s);
  require_finite("dz (mm)", s.dz_mm);
  require_positive("dz (mm)", s.dz_mm);
  require(s.dz_mm < s.muscle_length_mm, "dz (mm) must be shorter than the muscle");
  if (!std::isnan(s.min_radial_dist_mm)) {
    require_finite("minimum radial distance (mm)", s.min_radial_dist_mm);
    require_positive("minimum radial distance (mm)", s.min_radial_dist_mm);
  }
}

HostInputs make_motor_unit(const MotorUnitSpec& s) {
  validate(s);
  const auto n = static_cast<std::size_t>(s.fibers);
  HostInputs in;
  in.n_fibers = n;
  in.n_electrodes = static_cast<std::size_t>(s.electrodes);
  in.fiber_centers.resize(2 * n);
  in.endplate_z.resize(n);
  in.conduction_velocity.resize(n);
  in.diameter.resize(n);
  in.nerve_paths.resize(2 * n);
  const double endplate_mean =
      std::isnan(s.endplate_mean_mm) ? 0.5 * s.muscle_length_mm : s.endplate_mean_mm;
  const double infinity = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    // Uniform over the disc: the radius goes as the square root of a uniform draw.
    const double r = s.territory_radius_mm * std::sqrt(counter_uniform(s.seed, radius, k));
    const double phi = 6.283185307179586 * counter_uniform(s.seed, angle, k);
    in.fiber_centers[2 * k] = s.territory_centre_mm[0] + r * std::cos(phi);
    in.fiber_centers[2 * k + 1] = s.territory_centre_mm[1] + r * std::sin(phi);
    // End plates strictly inside the muscle, so that both semi-fibers have a length.
    in.endplate_z[k] = truncated_normal(s, endplate, k, endplate_mean, s.endplate_sd_mm, 0.0,
                                        s.muscle_length_mm, "end-plate position");
    in.conduction_velocity[k] =
        truncated_normal(s, velocity, k, s.velocity_mean_mm_per_s, s.velocity_sd_mm_per_s, 0.0,
                         infinity, "conduction velocity");
    in.diameter[k] = truncated_normal(s, diameter, k, s.diameter_mean_mm, s.diameter_sd_mm, 0.0,
                                      infinity, "diameter");
    in.nerve_paths[2 * k] =
        truncated_normal(s, nerve_axon, k, s.nerve_path_mean_mm[0], s.nerve_path_sd_mm, 0.0,
                         infinity, "nerve path (axon)");
    in.nerve_paths[2 * k + 1] =
        truncated_normal(s, nerve_branch, k, s.nerve_path_mean_mm[1], s.nerve_path_sd_mm, 0.0,
                         infinity, "nerve path (branch)");
  }
  const auto& d = s.electrode_direction;
  const double norm = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  in.electrode_positions.resize(3 * in.n_electrodes);
  for (std::size_t e = 0; e < in.n_electrodes; ++e)
    for (int c = 0; c < 3; ++c)
      in.electrode_positions[3 * e + c] =
          s.electrode_start_mm[c] +
          (norm > 0 ? static_cast<double>(e) * s.electrode_spacing_mm * d[c] / norm : 0.0);
  in.left_mm = 0.0;
  in.right_mm = s.muscle_length_mm;
  in.dt_s = s.dt_s;
  in.fs_hz = 1.0 / s.dt_s;
  in.dz_mm = s.dz_mm;
  in.min_radial_dist_mm = s.min_radial_dist_mm;
  return in;
}

void write_inputs(io::H5File& file, const HostInputs& in, const std::string& group) {
  const std::string g = group + "/";
  file.write(g + "fiber_centers", in.fiber_centers.data(), {in.n_fibers, 2});
  file.write(g + "endplate_z", in.endplate_z.data(), {in.n_fibers});
  file.write(g + "conduction_velocity", in.conduction_velocity.data(), {in.n_fibers});
  file.write(g + "diameter", in.diameter.data(), {in.n_fibers});
  if (!in.nerve_paths.empty())
    file.write(g + "nerve_paths", in.nerve_paths.data(), {in.n_fibers, 2});
  file.write(g + "electrode_positions", in.electrode_positions.data(), {in.n_electrodes, 3});
  file.write_attribute(group, "left_end_mm", in.left_mm);
  file.write_attribute(group, "right_end_mm", in.right_mm);
  file.write_attribute(group, "muscle_length_mm", in.right_mm - in.left_mm);
  for (const auto& [name, value] :
       {std::pair{"dt_s", in.dt_s}, std::pair{"fs_Hz", in.fs_hz}, std::pair{"dz_mm", in.dz_mm},
        std::pair{"min_radial_dist_mm", in.min_radial_dist_mm}})
    if (!std::isnan(value)) file.write_attribute(group, name, value);
  file.write_attribute(group, "nmj_conduction_velocities_mm_per_s",
                       std::vector<double>{5000.0, 2000.0});
}

}  // namespace portasim::sfap
