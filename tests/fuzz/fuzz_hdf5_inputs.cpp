// libFuzzer target: validation of the HDF5 input files (the HH stimulus file, the SFAP input
// file, a Life initial grid). The bytes describe a file (datasets of any rank, shape, numeric
// type and value, including NaN and infinities, under the names the readers look for or
// others, attributes of any type) that is written with the HDF5 library and then handed to
// the three readers. Fuzzing the structure rather than raw HDF5 bytes tests portasim's checks
// instead of the HDF5 library's own format parser, which is not portasim's code.
#include <cmath>
#include <cstdint>
#include <limits>
#include <unistd.h>
#include <vector>

#include "fuzz_input.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/hh/stimulus_file.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/sfap/input_file.hpp"

namespace {

using namespace portasim;

const char* const dataset_names[] = {"/stimulus",
                                     "/generations",
                                     "/inputs/fiber_centers",
                                     "/inputs/endplate_z",
                                     "/inputs/conduction_velocity",
                                     "/inputs/diameter",
                                     "/inputs/nerve_paths",
                                     "/inputs/electrode_positions",
                                     "/inputs",
                                     "/other/stimulus",
                                     "/stimulus/inner"};
const char* const attribute_names[] = {
    "muscle_length_mm",   "left_end_mm", "right_end_mm", "dt_s", "fs_Hz", "dz_mm",
    "min_radial_dist_mm", "packed"};
const char* const attribute_owners[] = {"/", "/inputs", "/generations", "/stimulus"};

double interesting_real(fuzz::Bytes& in) {
  switch (in.in_range(0, 9)) {
    case 0: return 0.0;
    case 1: return 1.0;
    case 2: return -1.0;
    case 3: return std::numeric_limits<double>::quiet_NaN();
    case 4: return std::numeric_limits<double>::infinity();
    case 5: return -std::numeric_limits<double>::infinity();
    case 6: return 1e300;
    case 7: return static_cast<double>(in.in_range(-4, 40));
    case 8: return in.real();
    default: return 0.5 + static_cast<double>(in.in_range(0, 100));
  }
}

template <class T>
void write_values(io::H5File& file, const std::string& name, const std::vector<std::size_t>& dims,
                  std::size_t count, fuzz::Bytes& in) {
  std::vector<T> values(count);
  for (auto& v : values) {
    const double r = interesting_real(in);
    if constexpr (std::is_integral_v<T>)
      v = std::isfinite(r) && r >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                  r <= static_cast<double>(std::numeric_limits<T>::max())
              ? static_cast<T>(r)
              : T(2);
    else v = static_cast<T>(r);
  }
  file.write(name, values.data(), dims);
}

void build_file(const std::string& path, fuzz::Bytes& in) {
  io::H5File file = io::H5File::create(path);
  const int objects = static_cast<int>(in.in_range(0, 10));
  for (int k = 0; k < objects && !in.empty(); ++k) {
    const std::string name = dataset_names[in.in_range(0, std::size(dataset_names) - 1)];
    const int rank = static_cast<int>(in.in_range(0, 3));
    std::vector<std::size_t> dims;
    std::size_t count = 1;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(static_cast<std::size_t>(in.in_range(0, 12)));
      count *= dims.back();
    }
    try {
      switch (in.in_range(0, 4)) {
        case 0: write_values<double>(file, name, dims, count, in); break;
        case 1: write_values<float>(file, name, dims, count, in); break;
        case 2: write_values<std::int64_t>(file, name, dims, count, in); break;
        case 3: write_values<std::uint8_t>(file, name, dims, count, in); break;
        default: write_values<std::int8_t>(file, name, dims, count, in); break;
      }
    } catch (const Error&) {
      // e.g. a dataset below a name that is already a dataset: that file cannot exist.
    }
  }
  const int attributes = static_cast<int>(in.in_range(0, 8));
  for (int k = 0; k < attributes && !in.empty(); ++k) {
    const std::string owner = attribute_owners[in.in_range(0, std::size(attribute_owners) - 1)];
    const std::string name = attribute_names[in.in_range(0, std::size(attribute_names) - 1)];
    try {
      switch (in.in_range(0, 3)) {
        case 0: file.write_attribute(owner, name, interesting_real(in)); break;
        case 1:
          file.write_attribute(owner, name, static_cast<std::int64_t>(in.in_range(-3, 3)));
          break;
        case 2: file.write_attribute(owner, name, std::string("text")); break;
        default:
          file.write_attribute(owner, name,
                               std::vector<double>{interesting_real(in), interesting_real(in)});
          break;
      }
    } catch (const Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch_path(".h5");
  fuzz::Bytes in(data, size);
  const std::int64_t steps = in.in_range(1, 12);
  const std::int64_t neurons = in.in_range(1, 12);
  const bool need_nerve_paths = in.in_range(0, 1) == 1;
  try {
    build_file(path, in);
  } catch (const Error&) {
    ::unlink(path.c_str());
    return 0;
  }

  try {
    const auto s = hh::read_stimulus_file<float>(path, steps, neurons);
    std::size_t count = 1;
    for (auto extent : s.shape) count *= extent;
    PORTASIM_FUZZ_CHECK(count == s.values.size());
    PORTASIM_FUZZ_CHECK(s.shape.size() == 1 ||
                        (s.shape.size() == 2 && static_cast<std::int64_t>(s.shape[1]) == neurons));
    PORTASIM_FUZZ_CHECK(static_cast<std::int64_t>(s.shape[0]) == steps ||
                        static_cast<std::int64_t>(s.shape[0]) == steps + 1);
    for (float v : s.values) PORTASIM_FUZZ_CHECK(std::isfinite(v));
  } catch (const Error&) {
  }
  try {
    (void)hh::read_stimulus_file<double>(path + ":/other/stimulus", steps, neurons);
  } catch (const Error&) {
  }

  try {
    const io::H5File file = io::H5File::open_read(path);
    const sfap::HostInputs inputs = sfap::read_inputs(file, "/inputs", need_nerve_paths);
    PORTASIM_FUZZ_CHECK(inputs.n_fibers > 0 && inputs.n_electrodes > 0);
    PORTASIM_FUZZ_CHECK(inputs.fiber_centers.size() == 2 * inputs.n_fibers);
    PORTASIM_FUZZ_CHECK(inputs.endplate_z.size() == inputs.n_fibers);
    PORTASIM_FUZZ_CHECK(inputs.electrode_positions.size() == 3 * inputs.n_electrodes);
    PORTASIM_FUZZ_CHECK(!need_nerve_paths || inputs.nerve_paths.size() == 2 * inputs.n_fibers);
    PORTASIM_FUZZ_CHECK(inputs.right_mm > inputs.left_mm);
    for (double v : inputs.conduction_velocity) PORTASIM_FUZZ_CHECK(v > 0);
  } catch (const Error&) {
  }

  try {
    const life::HostGrid grid = life::read_grid_h5(path);
    PORTASIM_FUZZ_CHECK(grid.width > 0 && grid.height > 0);
    PORTASIM_FUZZ_CHECK(grid.cells.size() == static_cast<std::size_t>(grid.width * grid.height));
    for (auto c : grid.cells) PORTASIM_FUZZ_CHECK(c <= 1);
  } catch (const Error&) {
  }
  ::unlink(path.c_str());
  return 0;
}
