// `portasim sfap-input`: writes a motor unit drawn from physiological parameters in the
// /inputs layout that `portasim sfap --input` reads (sfap/motor_unit.hpp).
#include <array>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/hdf5_file.hpp"
#include "portasim/sfap/motor_unit.hpp"

namespace portasim::cli {

namespace {

struct SfapInputOptions {
  sfap::MotorUnitSpec spec;
  std::vector<double> territory_centre{0.0, 0.0};
  std::vector<double> nerve_paths{2.5, 2.5};
  std::vector<double> electrode_start{0.0, 0.0, 15.0};
  std::vector<double> electrode_direction{0.0, 0.0, 1.0};
  double fs_hz = 10240.0;
  std::string output = "motor_unit.h5";
  bool quiet = false;
};

template <std::size_t N>
std::array<double, N> as_array(const std::vector<double>& values) {
  std::array<double, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = values[i];
  return a;
}

int run_sfap_input(SfapInputOptions& o) {
  sfap::MotorUnitSpec& s = o.spec;
  s.territory_centre_mm = as_array<2>(o.territory_centre);
  s.nerve_path_mean_mm = as_array<2>(o.nerve_paths);
  s.electrode_start_mm = as_array<3>(o.electrode_start);
  s.electrode_direction = as_array<3>(o.electrode_direction);
  require_finite("--fs", o.fs_hz);
  require_positive("--fs", o.fs_hz);
  s.dt_s = 1.0 / o.fs_hz;
  const sfap::HostInputs inputs = sfap::make_motor_unit(s);  // validates before any output

  io::AtomicOutput output(o.output);
  {
    io::H5File file = io::H5File::create(output.temporary_path());
    sfap::write_inputs(file, inputs);
    file.write_attribute("/", "generator", "portasim sfap-input");
    file.write_attribute("/inputs", "seed", static_cast<std::int64_t>(s.seed));
    file.flush();
  }
  output.commit();
  if (!o.quiet)
    std::cout << "portasim sfap-input: " << inputs.n_fibers << " fibers in a "
              << s.territory_radius_mm << " mm territory, muscle " << s.muscle_length_mm << " mm, "
              << inputs.n_electrodes << " electrodes, fs " << o.fs_hz << " Hz, dz " << s.dz_mm
              << " mm, seed " << s.seed << "\n"
              << "  wrote " << o.output << " (run it with: portasim sfap --input " << o.output
              << ")\n";
  return 0;
}

}  // namespace

void add_sfap_input_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<SfapInputOptions>();
  sfap::MotorUnitSpec& s = o->spec;
  auto* c = app.add_subcommand(
      "sfap-input", "Write a motor unit (the /inputs of `portasim sfap`) from parameters");
  c->add_option("--output", o->output, "HDF5 file to write")->capture_default_str();
  c->add_option("--fibers", s.fibers, "Number of fibers")->capture_default_str();
  c->add_option("--territory-centre-mm", o->territory_centre,
                "Centre X,Y of the circular fiber territory")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  c->add_option("--territory-radius-mm", s.territory_radius_mm, "Radius of the territory")
      ->capture_default_str();
  c->add_option("--muscle-length-mm", s.muscle_length_mm, "Fiber length (fibers run from z = 0)")
      ->capture_default_str();
  c->add_option("--endplate-mean-mm", s.endplate_mean_mm, "Mean end-plate z (default: mid-muscle)");
  c->add_option("--endplate-sd-mm", s.endplate_sd_mm, "Standard deviation of the end-plate z")
      ->capture_default_str();
  c->add_option("--velocity-mean-mm-per-s", s.velocity_mean_mm_per_s, "Mean conduction velocity")
      ->capture_default_str();
  c->add_option("--velocity-sd-mm-per-s", s.velocity_sd_mm_per_s, "Its standard deviation")
      ->capture_default_str();
  c->add_option("--diameter-mean-mm", s.diameter_mean_mm, "Mean fiber diameter")
      ->capture_default_str();
  c->add_option("--diameter-sd-mm", s.diameter_sd_mm, "Its standard deviation")
      ->capture_default_str();
  c->add_option("--nerve-paths-mm", o->nerve_paths,
                "Mean nerve-path lengths P0,P1 (axon at 5 m/s, branch at 2 m/s)")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  c->add_option("--nerve-path-sd-mm", s.nerve_path_sd_mm, "Standard deviation of each nerve path")
      ->capture_default_str();
  c->add_option("--electrodes", s.electrodes, "Number of point electrodes on a line")
      ->capture_default_str();
  c->add_option("--electrode-spacing-mm", s.electrode_spacing_mm, "Distance between neighbours")
      ->capture_default_str();
  c->add_option("--electrode-start-mm", o->electrode_start, "X,Y,Z of the first electrode")
      ->delimiter(',')
      ->expected(3)
      ->capture_default_str();
  c->add_option("--electrode-direction", o->electrode_direction,
                "DX,DY,DZ of the line (normalised)")
      ->delimiter(',')
      ->expected(3)
      ->capture_default_str();
  c->add_option("--fs", o->fs_hz, "Sampling rate in Hz (dt = 1/fs)")->capture_default_str();
  c->add_option("--dz", s.dz_mm, "Spatial step in mm")->capture_default_str();
  c->add_option("--min-radial-dist-mm", s.min_radial_dist_mm,
                "Radial clamp (default: the mean fiber diameter)");
  c->add_option("--seed", s.seed, "Seed of the draws")->capture_default_str();
  c->add_flag("--quiet", o->quiet, "Print nothing on success");
  c->callback([&action, o] { action = [o] { return run_sfap_input(*o); }; });
}

}  // namespace portasim::cli
