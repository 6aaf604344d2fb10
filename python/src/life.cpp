// portasim.life: step() on NumPy or CuPy grids through life::run, and the streaming job
// run() through life::run_job with a file or a Python callable as its output.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "arrays.hpp"
#include "bindings.hpp"
#include "interrupt.hpp"
#include "portasim/life/job.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::python {

namespace {

life::Boundary boundary_named(const std::string& name) {
  return name == "dead" ? life::Boundary::dead : life::Boundary::torus;
}
life::Engine engine_named(const std::string& name) {
  return name == "bits" ? life::Engine::bits : life::Engine::bytes;
}

// `generations` generations of a 2-D C-contiguous uint8 grid of 0/1 (checked in
// portasim/life.py), as a new array of the grid's kind. Nothing is recorded, so the run is
// one chunk of device work and the grid never visits the host when it is a CuPy array.
py::object step(const py::object& grid, const py::tuple& where, std::int64_t generations,
                const std::string& boundary, const std::string& engine) {
  const Place place = Place::of(where);
  life::Config config;
  config.height = grid.attr("shape").cast<py::tuple>()[0].cast<std::int64_t>();
  config.width = grid.attr("shape").cast<py::tuple>()[1].cast<std::int64_t>();
  config.steps = generations;
  config.chunk_size = generations > 0 ? generations : 1;
  config.boundary = boundary_named(boundary);
  config.engine = engine_named(engine);
  life::validate(config);
  const Exec& exec = instance();
  order_after_caller(exec, place);
  const life::ByteGrid<Memory> initial = input_view<std::uint8_t**>(exec, place, grid, "grid");
  const ResultArray<std::uint8_t**> out(exec, place, {initial.extent(0), initial.extent(1)},
                                        "final grid");
  {
    py::gil_scoped_release release;
    const life::ByteGrid<Memory> final_grid = out.view();
    life::run(exec, config, initial, 0, nullptr, &final_grid);
  }
  py::object result = out.array(exec, place);
  finish(exec, place);
  return result;
}

// Hands each recorded chunk to a Python callable as a (count, height, row_bytes) uint8 array
// and the generations it holds.
class PythonChunks : public life::ChunkSink {
 public:
  explicit PythonChunks(py::object receive) : m_receive(std::move(receive)) {}
  void write(const life::Chunk& chunk) override {
    py::gil_scoped_acquire gil;
    py::array_t<std::uint8_t> cells({chunk.count, chunk.height, chunk.row_bytes});
    std::copy(chunk.data, chunk.data + cells.size(), cells.mutable_data());
    py::array_t<std::int64_t> generations(chunk.count);
    std::copy(chunk.generations, chunk.generations + chunk.count, generations.mutable_data());
    m_receive(cells, generations);
  }

 private:
  py::object m_receive;
};

// The streaming job of `portasim life` (options checked and named in portasim/life.py).
py::dict run(const py::dict& o, const py::object& initial, const py::object& receive) {
  life::JobSpec spec;
  life::Config& c = spec.config;
  c.height = o["height"].cast<std::int64_t>();
  c.width = o["width"].cast<std::int64_t>();
  c.steps = o["generations"].cast<std::int64_t>();
  c.chunk_size = o["chunk_size"].cast<std::int64_t>();
  c.every = o["every"].cast<std::int64_t>();
  c.boundary = boundary_named(o["boundary"].cast<std::string>());
  c.engine = engine_named(o["engine"].cast<std::string>());
  c.packed_output = o["packed"].cast<bool>();
  spec.pattern = o["pattern"].cast<std::string>();
  if (!o["pattern_offset"].is_none())
    spec.pattern_offset = o["pattern_offset"].cast<std::pair<std::int64_t, std::int64_t>>();
  if (!o["density"].is_none()) spec.density = o["density"].cast<double>();
  if (!o["seed"].is_none()) spec.seed = o["seed"].cast<std::uint64_t>();
  spec.output_path = o["output"].cast<std::string>();
  spec.resume = o["resume"].cast<bool>();
  spec.keep_final_grid = true;
  if (!initial.is_none()) {
    const auto grid = py::reinterpret_borrow<py::array_t<std::uint8_t>>(initial);
    spec.initial_grid = life::HostGrid{grid.shape(0), grid.shape(1), {}};
    spec.initial_grid->cells.assign(grid.data(), grid.data() + grid.size());
  }
  life::validate(spec);
  JobContext context;
  const bool report_progress = !o["progress"].is_none();
  const py::object progress = o["progress"];
  context.progress = [&](double fraction) {
    if (report_progress) {
      py::gil_scoped_acquire gil;
      progress(fraction);
    }
    stop_if_interrupted();
  };
  // A callable output receives chunks. The job reports progress once every sink has taken a
  // chunk, so the Ctrl-C check above comes right after each chunk is written.
  PythonChunks sink(receive);
  const Exec& exec = instance();
  life::JobReport report;
  {
    py::gil_scoped_release release;
    report = life::run_job(exec, spec, context, receive.is_none() ? nullptr : &sink);
  }
  const life::RunStats& s = report.stats;
  py::dict d;
  d["final_grid"] = array_of(report.final_grid->cells.data(), {c.height, c.width});
  d["first_generation"] = s.first_generation;
  d["last_generation"] = s.last_generation;
  d["final_population"] = s.final_population;
  d["chunks"] = s.chunks;
  d["seconds"] = s.seconds;
  d["setup_seconds"] = s.setup_seconds;
  d["compute_seconds"] = s.compute_seconds;
  d["copy_seconds"] = s.copy_seconds;
  d["write_seconds"] = s.write_seconds;
  d["cells_per_second"] = s.cells_per_second();
  d["initial"] = report.initial;
  d["seed"] = report.seed;
  d["resumed_after"] =
      report.resumed_after ? py::object(py::int_(*report.resumed_after)) : py::object(py::none());
  d["written"] = report.written;
  return d;
}

}  // namespace

void register_life(py::module_& m) {
  m.def("life_step", &step, py::arg("grid"), py::arg("where"), py::arg("generations"),
        py::arg("boundary"), py::arg("engine"));
  m.def("life_run", &run, py::arg("options"), py::arg("initial"), py::arg("receive"));
}

}  // namespace portasim::python
