// Game of Life throughput (cells per second) of both engines over grid sizes, and the
// streaming pipeline writing every generation.
//   BM_life_engine/{byte,bits}/side: generations on the device only, torus, random grid of
//     density 0.5 (the spec's targets at 16384^2: byte >= 1e12, bits >= 5e12 cells/s);
//     {byte,bits}_dead: the same with a dead border.
//   BM_life_run_call/side/generations: one life::run that steps a grid in device memory and
//     copies the final grid out, recording nothing: what portasim.life.step does with a CuPy
//     array, timed on the host around the call (the C++ side of perf/python/bench_python.py).
//   BM_life_pipeline/{discard,npy}/side: 200 generations, chunks of 10 (the CuPy peer's
//     pipeline case), every generation handed over through pinned memory,
//     either dropped on the host (the pipeline's own ceiling: pinned D2H) or written as .npy
//     chunk files to PORTASIM_BENCH_DIR (default /tmp). Counters: output GB/s and
//     (compute + copy + write) / wall per run (1 = serial, > 1 = overlapped).
// PORTASIM_BENCH_MAX_SIDE caps the sides (default 65536 on GPUs, 4096 on CPUs).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "portasim/core/event_timer.hpp"
#include "portasim/life/engines.hpp"
#include "portasim/life/outputs.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim_bench_life {

using Exec = Kokkos::DefaultExecutionSpace;
using memory = Exec::memory_space;
constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory>::accessible;

std::int64_t max_side() {
  if (const char* cap = std::getenv("PORTASIM_BENCH_MAX_SIDE")) return std::atoll(cap);
  return on_host ? 4096 : 65536;
}

void BM_life_engine(benchmark::State& state, portasim::life::Engine engine,
                    portasim::life::Boundary boundary) {
  const std::int64_t side = state.range(0);
  Exec exec;
  portasim::life::ByteGrid<memory> grid("grid", side, side);
  portasim::life::fill_random(exec, grid, 0.5, 1);
  const int generations = 20;
  portasim::EventTimer<Exec> timer(exec);
  if (engine == portasim::life::Engine::bytes) {
    portasim::life::ByteGrid<memory> other("other", side, side);
    for (auto _ : state) {
      timer.start();
      for (int g = 0; g < generations; ++g) {
        portasim::life::step_bytes(exec, boundary, grid, other);
        std::swap(grid, other);
      }
      timer.stop();
      state.SetIterationTime(timer.elapsed_ms() * 1e-3);
    }
  } else {
    portasim::life::WordGrid<memory> a("a", side, side / 64), b("b", side, side / 64);
    portasim::life::pack_bits(exec, grid, a);
    for (auto _ : state) {
      timer.start();
      for (int g = 0; g < generations; ++g) {
        portasim::life::step_bits(exec, boundary, a, b);
        std::swap(a, b);
      }
      timer.stop();
      state.SetIterationTime(timer.elapsed_ms() * 1e-3);
    }
  }
  state.counters["cells_per_s"] = benchmark::Counter(static_cast<double>(side * side) * generations,
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

class Discard : public portasim::life::ChunkSink {
 public:
  void write(const portasim::life::Chunk& chunk) override { checksum += chunk.data[0]; }
  std::uint64_t checksum = 0;
};

void BM_life_pipeline(benchmark::State& state, bool to_disk) {
  const std::int64_t side = state.range(0);
  Exec exec;
  portasim::life::Config config;
  config.width = config.height = side;
  // The CuPy peer's pipeline case: density 0.3, 200 generations, chunks of 10.
  config.steps = 200;
  config.chunk_size = 10;
  config.engine = side % 64 == 0 ? portasim::life::Engine::bits : portasim::life::Engine::bytes;
  portasim::life::ByteGrid<memory> grid("grid", side, side);
  portasim::life::fill_random(exec, grid, 0.3, 1);
  const char* dir = std::getenv("PORTASIM_BENCH_DIR");
  const std::string base = std::string(dir ? dir : "/tmp") + "/portasim_bench_life";
  double overlap = 0, compute = 0, copy = 0, write = 0;
  for (auto _ : state) {
    Discard discard;
    portasim::life::NpyChunkFiles files(base);
    portasim::life::ChunkSink* sink =
        to_disk ? static_cast<portasim::life::ChunkSink*>(&files) : &discard;
    const auto stats = portasim::life::run(exec, config, grid, 0, sink);
    state.SetIterationTime(stats.seconds);
    overlap = stats.overlap_ratio();
    compute = stats.compute_seconds;
    copy = stats.copy_seconds;
    write = stats.write_seconds;
  }
  if (to_disk)
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(base).parent_path()))
      if (entry.path().filename().string().rfind("portasim_bench_life_", 0) == 0)
        std::filesystem::remove(entry.path());
  const double bytes = static_cast<double>(side * side) * (config.steps + 1);
  state.counters["output_GB_per_s"] =
      benchmark::Counter(bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["cells_per_s"] =
      benchmark::Counter(static_cast<double>(side * side) * config.steps,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["overlap_ratio"] = overlap;
  state.counters["compute_s"] = compute;
  state.counters["copy_s"] = copy;
  state.counters["write_s"] = write;
}

void BM_life_run_call(benchmark::State& state) {
  const std::int64_t side = state.range(0);
  Exec exec;
  portasim::life::Config config;
  config.width = config.height = side;
  config.steps = config.chunk_size = state.range(1);
  config.engine = side % 64 == 0 ? portasim::life::Engine::bits : portasim::life::Engine::bytes;
  portasim::life::ByteGrid<memory> grid("grid", side, side), final_grid("final", side, side);
  portasim::life::fill_random(exec, grid, 0.3, 1);
  exec.fence();
  for (auto _ : state) {
    portasim::life::run(exec, config, grid, 0, nullptr, &final_grid);
    exec.fence();
  }
  state.counters["cells_per_s"] =
      benchmark::Counter(static_cast<double>(side * side) * static_cast<double>(config.steps),
                         benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
  benchmark::RegisterBenchmark("BM_life_run_call", BM_life_run_call)
      ->Args({256, 1})
      ->Args({std::min<std::int64_t>(max_side(), 8192), 50})
      ->ArgNames({"side", "generations"})
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  using portasim::life::Boundary;
  using portasim::life::Engine;
  const struct {
    const char* name;
    Engine engine;
    Boundary boundary;
  } engines[] = {{"BM_life_engine/byte", Engine::bytes, Boundary::torus},
                 {"BM_life_engine/bits", Engine::bits, Boundary::torus},
                 {"BM_life_engine/byte_dead", Engine::bytes, Boundary::dead},
                 {"BM_life_engine/bits_dead", Engine::bits, Boundary::dead}};
  for (const auto& e : engines) {
    auto* b = benchmark::RegisterBenchmark(
        e.name, [e](benchmark::State& s) { BM_life_engine(s, e.engine, e.boundary); });
    for (std::int64_t side = 256; side <= max_side(); side *= 2) b->Arg(side);
    b->ArgName("side")->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  for (auto [name, disk] :
       {std::pair{"BM_life_pipeline/discard", false}, std::pair{"BM_life_pipeline/npy", true}}) {
    auto* b = benchmark::RegisterBenchmark(
        name, [disk = disk](benchmark::State& s) { BM_life_pipeline(s, disk); });
    for (std::int64_t side = 1024; side <= std::min<std::int64_t>(max_side(), 4096); side *= 2)
      b->Arg(side);
    b->ArgName("side")->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
  }
}

const bool registered = (register_all(), true);

}  // namespace portasim_bench_life
