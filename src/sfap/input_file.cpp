// Reading SFAP inputs in the reference-file layout, with every check a bad file needs.
#include "portasim/sfap/input_file.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "portasim/core/error.hpp"

namespace portasim::sfap {

namespace {

std::vector<double> read_matrix(const io::H5File& file, const std::string& path, std::size_t rows,
                                std::size_t cols, bool rows_known) {
  require(file.exists(path), "input '" + file.path() + "': missing dataset " + path);
  std::vector<std::size_t> shape;
  auto values = file.read<double>(path, &shape);
  const bool ok = shape.size() == 2 && shape[1] == cols && (!rows_known || shape[0] == rows);
  require(ok, "input '" + file.path() + "': dataset " + path + " has shape " +
                  io::format_shape(shape) + ", expected (" +
                  (rows_known ? std::to_string(rows) : std::string("N")) + ", " +
                  std::to_string(cols) + ")");
  for (double v : values)
    require(std::isfinite(v),
            "input '" + file.path() + "': dataset " + path + " has a non-finite value");
  return values;
}

std::vector<double> read_vector(const io::H5File& file, const std::string& path, std::size_t n) {
  require(file.exists(path), "input '" + file.path() + "': missing dataset " + path);
  std::vector<std::size_t> shape;
  auto values = file.read<double>(path, &shape);
  require(shape.size() == 1 && shape[0] == n, "input '" + file.path() + "': dataset " + path +
                                                  " has shape " + io::format_shape(shape) +
                                                  ", expected (" + std::to_string(n) + ",)");
  for (double v : values)
    require(std::isfinite(v),
            "input '" + file.path() + "': dataset " + path + " has a non-finite value");
  return values;
}

double optional_attribute(const io::H5File& file, const std::string& group,
                          const std::string& name) {
  if (!file.has_attribute(group, name)) return std::numeric_limits<double>::quiet_NaN();
  return file.read_attribute<double>(group, name);
}

}  // namespace

HostInputs read_inputs(const io::H5File& file, const std::string& group, bool need_nerve_paths) {
  HostInputs in;
  require(file.exists(group), "input '" + file.path() + "': missing group " + group);
  const std::string g = group + "/";
  in.fiber_centers = read_matrix(file, g + "fiber_centers", 0, 2, false);
  in.n_fibers = in.fiber_centers.size() / 2;
  require(in.n_fibers > 0,
          "input '" + file.path() + "': dataset " + g + "fiber_centers holds no fibers");
  in.endplate_z = read_vector(file, g + "endplate_z", in.n_fibers);
  in.conduction_velocity = read_vector(file, g + "conduction_velocity", in.n_fibers);
  in.diameter = read_vector(file, g + "diameter", in.n_fibers);
  if (need_nerve_paths || file.exists(g + "nerve_paths"))
    in.nerve_paths = read_matrix(file, g + "nerve_paths", in.n_fibers, 2, true);
  in.electrode_positions = read_matrix(file, g + "electrode_positions", 0, 3, false);
  in.n_electrodes = in.electrode_positions.size() / 3;
  require(in.n_electrodes > 0,
          "input '" + file.path() + "': dataset " + g + "electrode_positions holds no electrodes");
  for (double v : in.conduction_velocity)
    require(v > 0, "input '" + file.path() + "': dataset " + g + "conduction_velocity must be > 0");
  for (double d : in.diameter)
    require(d > 0, "input '" + file.path() + "': dataset " + g + "diameter must be > 0");

  in.left_mm = optional_attribute(file, group, "left_end_mm");
  if (std::isnan(in.left_mm)) in.left_mm = 0.0;
  in.right_mm = optional_attribute(file, group, "right_end_mm");
  if (std::isnan(in.right_mm)) {
    const double length = optional_attribute(file, group, "muscle_length_mm");
    require(!std::isnan(length), "input '" + file.path() + "': " + group +
                                     " needs attribute right_end_mm or muscle_length_mm");
    in.right_mm = in.left_mm + length;
  }
  require(std::isfinite(in.left_mm) && std::isfinite(in.right_mm) && in.right_mm > in.left_mm,
          "input '" + file.path() +
              "': attributes left_end_mm/right_end_mm must be finite with right > left");
  for (double z : in.endplate_z)
    require(z >= in.left_mm && z <= in.right_mm,
            "input '" + file.path() + "': dataset " + g +
                "endplate_z has a value outside [left_end_mm, right_end_mm]");
  in.dt_s = optional_attribute(file, group, "dt_s");
  in.fs_hz = optional_attribute(file, group, "fs_Hz");
  in.dz_mm = optional_attribute(file, group, "dz_mm");
  in.min_radial_dist_mm = optional_attribute(file, group, "min_radial_dist_mm");
  return in;
}

}  // namespace portasim::sfap
