// Game of Life throughput (cells per second) of both engines over grid sizes, and the
// streaming pipeline writing every generation.
//   BM_life_engine/{byte,bits}/side: 20 generations on the device only (advance_bytes,
//     advance_bits as life::run steps them: two per pass on GPUs), torus, random grid of
//     density 0.5 (the spec's targets at 16384^2: byte >= 1e12, bits >= 5e12 cells/s);
//     {byte,bits}_dead: the same with a dead border; {byte,bits}_stepwise: one generation per
//     pass on every backend; {byte,bits}_pairs: two per pass on every backend.
//   BM_life_run_call/side/generations: one life::run that steps a grid in device memory and
//     copies the final grid out, recording nothing: what portasim.life.step does with a CuPy
//     array, timed on the host around the call (the C++ side of perf/python/bench_python.py).
//   BM_life_pipeline/{discard,npy,npy_synced,npy_writeback,npy_writeback_synced}/side: 200
//     generations, chunks of 10 (the CuPy peer's pipeline case), every generation handed
//     over through pinned memory, either dropped on the host or written as .npy chunk files
//     to PORTASIM_BENCH_DIR (default /tmp). *_synced also flushes the files to the disk
//     before the clock stops, as the `dd conv=fsync` probe of perf/run_gpu_suite.sh does;
//     npy_writeback* start each file's writeback as soon as it is complete.
//     Counters: output GB/s and (compute + copy + write) / wall per run (1 = serial, > 1 =
//     overlapped).
//   BM_life_pipeline/pinned_d2h/side: the same bytes copied to pinned memory alone, the
//     ceiling of the discard variant, measured in the same run.
// PORTASIM_BENCH_MAX_SIDE caps the sides (default 65536 on GPUs, 4096 on CPUs).
#include <benchmark/benchmark.h>

#include <Kokkos_Core.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "portasim/core/event_timer.hpp"
#include "portasim/core/memory_spaces.hpp"
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

// 20 generations through advance_*, `per_pass` generations a pass (automatic: as life::run
// steps them on one rank).
void BM_life_engine(benchmark::State& state, portasim::life::Engine engine,
                    portasim::life::Boundary boundary,
                    portasim::life::GenerationsPerPass per_pass) {
  const std::int64_t side = state.range(0);
  Exec exec;
  portasim::life::ByteGrid<memory> grid("grid", side, side);
  portasim::life::fill_random(exec, grid, 0.5, 1);
  const int generations = 20;
  portasim::EventTimer<Exec> timer(exec);
  const auto run = [&](auto& current, auto& other) {
    constexpr bool bytes = sizeof(typename std::decay_t<decltype(current)>::value_type) == 1;
    for (auto _ : state) {
      timer.start();
      if constexpr (bytes)
        portasim::life::advance_bytes(exec, boundary, current, other, generations, per_pass);
      else portasim::life::advance_bits(exec, boundary, current, other, generations, per_pass);
      timer.stop();
      state.SetIterationTime(timer.elapsed_ms() * 1e-3);
    }
  };
  if (engine == portasim::life::Engine::bytes) {
    portasim::life::ByteGrid<memory> other("other", side, side);
    run(grid, other);
  } else {
    portasim::life::WordGrid<memory> a("a", side, side / 64), b("b", side, side / 64);
    portasim::life::pack_bits(exec, grid, a);
    run(a, b);
  }
  state.counters["cells_per_s"] = benchmark::Counter(static_cast<double>(side * side) * generations,
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

class Discard : public portasim::life::ChunkSink {
 public:
  void write(const portasim::life::Chunk& chunk) override { checksum += chunk.data[0]; }
  std::uint64_t checksum = 0;
};

enum class Output { discard, npy, npy_synced };

// The chunk files of `base` now (life::npy_chunks_on_disk, temporaries included).
std::vector<std::filesystem::path> bench_chunk_files(const std::string& base) {
  std::vector<std::filesystem::path> files;
  for (const auto& chunk : portasim::life::npy_chunks_on_disk(base)) files.push_back(chunk.path);
  return files;
}

// Flushes the chunk files and their folder to the disk, as `dd conv=fsync` does at its end.
void sync_to_disk(const std::string& base) {
  std::vector<std::filesystem::path> paths = bench_chunk_files(base);
  paths.push_back(std::filesystem::path(base).parent_path());
  for (const auto& path : paths) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!synced) throw std::runtime_error("cannot sync " + path.string());
  }
}

// The pipeline's case: density 0.3, 200 generations, chunks of 10.
portasim::life::Config pipeline_config(std::int64_t side) {
  portasim::life::Config config;
  config.width = config.height = side;
  config.steps = 200;
  config.chunk_size = 10;
  config.engine = side % 64 == 0 ? portasim::life::Engine::bits : portasim::life::Engine::bytes;
  return config;
}

void set_output_counters(benchmark::State& state, const portasim::life::Config& config) {
  const double cells = static_cast<double>(config.width * config.height);
  state.counters["output_GB_per_s"] =
      benchmark::Counter(cells * static_cast<double>(config.steps + 1) / 1e9,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["cells_per_s"] = benchmark::Counter(cells * static_cast<double>(config.steps),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

void BM_life_pipeline(benchmark::State& state, Output output, bool writeback) {
  const std::int64_t side = state.range(0);
  Exec exec;
  const portasim::life::Config config = pipeline_config(side);
  portasim::life::ByteGrid<memory> grid("grid", side, side);
  portasim::life::fill_random(exec, grid, 0.3, 1);
  const char* dir = std::getenv("PORTASIM_BENCH_DIR");
  const std::string base = std::string(dir ? dir : "/tmp") + "/portasim_bench_life";
  double overlap = 0, compute = 0, copy = 0, write = 0, sync = 0;
  for (auto _ : state) {
    // Every run that writes starts alike: no files of an earlier run to replace, and none
    // of its pages still dirty (they would be flushed in this run's time). The manual
    // time below leaves this out.
    if (output != Output::discard) {
      for (const auto& path : bench_chunk_files(base)) std::filesystem::remove(path);
      ::sync();
    }
    Discard discard;
    portasim::life::NpyChunkFiles files(base, writeback);
    portasim::life::ChunkSink* sink =
        output == Output::discard ? static_cast<portasim::life::ChunkSink*>(&discard) : &files;
    const auto stats = portasim::life::run(exec, config, grid, 0, sink);
    const auto began = std::chrono::steady_clock::now();
    if (output == Output::npy_synced) sync_to_disk(base);
    sync = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    state.SetIterationTime(stats.seconds + sync);
    overlap = stats.overlap_ratio();
    compute = stats.compute_seconds;
    copy = stats.copy_seconds;
    write = stats.write_seconds;
  }
  if (output != Output::discard)
    for (const auto& path : bench_chunk_files(base)) std::filesystem::remove(path);
  set_output_counters(state, config);
  state.counters["overlap_ratio"] = overlap;
  state.counters["compute_s"] = compute;
  state.counters["copy_s"] = copy;
  state.counters["write_s"] = write;
  state.counters["sync_s"] = sync;
}

// The pipeline's ceiling in the same run: its bytes (generation 0, then chunks of 10
// generations) copied from device memory to pinned host memory back to back, with nothing
// computed in between.
void BM_life_pinned_d2h(benchmark::State& state) {
  const std::int64_t side = state.range(0);
  Exec exec;
  const portasim::life::Config config = pipeline_config(side);
  const std::int64_t grid_bytes = side * side, chunk_bytes = config.chunk_size * grid_bytes;
  Kokkos::View<std::uint8_t*, memory> device("device", chunk_bytes);
  Kokkos::View<std::uint8_t*, portasim::PinnedHostSpace<Exec>> host(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "host"), chunk_bytes);
  const auto copy = [&](std::int64_t bytes) {
    const auto range = Kokkos::make_pair(std::int64_t(0), bytes);
    Kokkos::deep_copy(exec, Kokkos::subview(host, range), Kokkos::subview(device, range));
  };
  portasim::EventTimer<Exec> timer(exec);
  for (auto _ : state) {
    timer.start();
    copy(grid_bytes);
    for (std::int64_t g = 0; g < config.steps; g += config.chunk_size) copy(chunk_bytes);
    timer.stop();
    state.SetIterationTime(timer.elapsed_ms() * 1e-3);
  }
  set_output_counters(state, config);
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
  using PerPass = portasim::life::GenerationsPerPass;
  const struct {
    const char* name;
    Engine engine;
    Boundary boundary;
    PerPass per_pass;
  } engines[] = {{"BM_life_engine/byte", Engine::bytes, Boundary::torus, PerPass::automatic},
                 {"BM_life_engine/bits", Engine::bits, Boundary::torus, PerPass::automatic},
                 {"BM_life_engine/byte_dead", Engine::bytes, Boundary::dead, PerPass::automatic},
                 {"BM_life_engine/bits_dead", Engine::bits, Boundary::dead, PerPass::automatic},
                 {"BM_life_engine/byte_stepwise", Engine::bytes, Boundary::torus, PerPass::one},
                 {"BM_life_engine/bits_stepwise", Engine::bits, Boundary::torus, PerPass::one},
                 {"BM_life_engine/byte_pairs", Engine::bytes, Boundary::torus, PerPass::two},
                 {"BM_life_engine/bits_pairs", Engine::bits, Boundary::torus, PerPass::two}};
  for (const auto& e : engines) {
    auto* b = benchmark::RegisterBenchmark(
        e.name, [e](benchmark::State& s) { BM_life_engine(s, e.engine, e.boundary, e.per_pass); });
    for (std::int64_t side = 256; side <= max_side(); side *= 2) b->Arg(side);
    b->ArgName("side")->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  const struct {
    const char* name;
    Output output;
    bool writeback;
  } outputs[] = {{"BM_life_pipeline/discard", Output::discard, false},
                 {"BM_life_pipeline/npy", Output::npy, false},
                 {"BM_life_pipeline/npy_synced", Output::npy_synced, false},
                 {"BM_life_pipeline/npy_writeback", Output::npy, true},
                 {"BM_life_pipeline/npy_writeback_synced", Output::npy_synced, true}};
  for (const auto& o : outputs) {
    auto* b = benchmark::RegisterBenchmark(
        o.name, [o](benchmark::State& s) { BM_life_pipeline(s, o.output, o.writeback); });
    for (std::int64_t side = 1024; side <= std::min<std::int64_t>(max_side(), 4096); side *= 2)
      b->Arg(side);
    b->ArgName("side")->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
  }
  auto* d2h = benchmark::RegisterBenchmark("BM_life_pipeline/pinned_d2h", BM_life_pinned_d2h);
  for (std::int64_t side = 1024; side <= std::min<std::int64_t>(max_side(), 4096); side *= 2)
    d2h->Arg(side);
  d2h->ArgName("side")->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
}

const bool registered = (register_all(), true);

}  // namespace portasim_bench_life
