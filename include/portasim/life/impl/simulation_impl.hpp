#pragma once
// Definition of life::run and life::fill_random; instantiated in src/life/simulation.cpp.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "portasim/core/counter_rng.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/event_timer.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/pinned_staging.hpp"
#include "portasim/core/profiling_region.hpp"
#include "portasim/life/engines.hpp"
#include "portasim/life/simulation.hpp"

namespace portasim::life {

template <class ExecutionSpace>
void fill_random(const ExecutionSpace& exec,
                 const ByteGrid<typename ExecutionSpace::memory_space>& grid, double density,
                 std::uint64_t seed) {
  require_in_range("density", density, 0.0, 1.0);
  const std::int64_t width = static_cast<std::int64_t>(grid.extent(1));
  Kokkos::parallel_for(
      "portasim::life::fill_random",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          exec, 0, std::int64_t(grid.extent(0)) * width),
      KOKKOS_LAMBDA(const std::int64_t i) {
        grid(i / width, i % width) =
            counter_uniform(seed, 0, static_cast<std::uint64_t>(i)) < density;
      });
}

namespace impl {

// The engine's state: two grids of bytes or of words, swapped every generation.
template <class ExecutionSpace>
class EngineState {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using byte_slice = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using word_slice = Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, memory_space,
                                  Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  EngineState(const ExecutionSpace& exec, const Config& config,
              const ByteGrid<memory_space>& initial)
      : m_exec(exec), m_config(config) {
    const auto alloc = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    if (config.engine == Engine::bits) {
      for (auto& w : m_words)
        w = WordGrid<memory_space>(alloc("portasim::life::words"), config.height,
                                   config.width / cells_per_word);
      pack_bits(exec, initial, m_words[0]);
    } else {
      for (auto& b : m_bytes)
        b = ByteGrid<memory_space>(alloc("portasim::life::cells"), config.height, config.width);
      Kokkos::deep_copy(exec, m_bytes[0], initial);
    }
  }

  void step() {
    const int next = 1 - m_current;
    if (m_config.engine == Engine::bits)
      step_bits(m_exec, m_config.boundary, m_words[m_current], m_words[next]);
    else step_bytes(m_exec, m_config.boundary, m_bytes[m_current], m_bytes[next]);
    m_current = next;
  }

  // Writes the current generation into `target` (height x row_bytes bytes), as cells or packed.
  void emit(std::uint8_t* target) const {
    const std::int64_t h = m_config.height, w = m_config.width;
    if (!m_config.packed_output) {
      byte_slice out(target, h, w);
      if (m_config.engine == Engine::bits) unpack_bits(m_exec, m_words[m_current], out);
      else Kokkos::deep_copy(m_exec, out, m_bytes[m_current]);
    } else {
      word_slice out(reinterpret_cast<std::uint64_t*>(target), h, w / cells_per_word);
      if (m_config.engine == Engine::bits) Kokkos::deep_copy(m_exec, out, m_words[m_current]);
      else pack_bits(m_exec, m_bytes[m_current], out);
    }
  }

  void copy_to(const ByteGrid<memory_space>& grid) const {
    if (m_config.engine == Engine::bits) unpack_bits(m_exec, m_words[m_current], grid);
    else Kokkos::deep_copy(m_exec, grid, m_bytes[m_current]);
  }

  std::int64_t population() const {
    return m_config.engine == Engine::bits ? population_of_words(m_exec, m_words[m_current])
                                           : population_of_bytes(m_exec, m_bytes[m_current]);
  }

 private:
  ExecutionSpace m_exec;
  Config m_config;
  ByteGrid<memory_space> m_bytes[2];
  WordGrid<memory_space> m_words[2];
  int m_current = 0;
};

}  // namespace impl

template <class ExecutionSpace>
RunStats run(const ExecutionSpace& exec, const Config& config,
             const ByteGrid<typename ExecutionSpace::memory_space>& initial,
             std::int64_t start_generation, ChunkSink* sink,
             const ByteGrid<typename ExecutionSpace::memory_space>* final_grid) {
  using memory_space = typename ExecutionSpace::memory_space;
  validate(config);
  require(static_cast<std::int64_t>(initial.extent(0)) == config.height &&
              static_cast<std::int64_t>(initial.extent(1)) == config.width,
          "initial grid is " + std::to_string(initial.extent(0)) + " x " +
              std::to_string(initial.extent(1)) + ", expected " + std::to_string(config.height) +
              " x " + std::to_string(config.width));
  require(start_generation >= 0 && start_generation <= config.steps,
          "start generation " + std::to_string(start_generation) + " is outside 0.." +
              std::to_string(config.steps));
  using clock = std::chrono::steady_clock;
  const auto setup_began = clock::now();

  RunStats stats;
  stats.first_generation = start_generation;
  stats.last_generation = config.steps;
  stats.cells = config.width * config.height;
  const std::int64_t row_bytes = config.packed_output ? config.width / 8 : config.width;
  const std::int64_t grid_bytes = config.height * row_bytes;
  // Recorded generations per chunk, at most: a chunk spans at most chunk_size consecutive
  // generations, of which every every-th is recorded, so ceil(chunk_size / every) (at least
  // the one grid of generation 0). Buffers for unrecorded generations would only cost
  // memory. Nothing is recorded without a sink.
  const std::int64_t capacity =
      sink ? config.chunk_size / config.every + (config.chunk_size % config.every != 0) : 0;

  impl::EngineState<ExecutionSpace> state(exec, config, initial);
  InstancePool<ExecutionSpace> copiers(2);
  std::vector<Kokkos::View<std::uint8_t*, memory_space>> device;
  for (int s = 0; s < 2; ++s)
    device.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "portasim::life::chunk"),
                        capacity * grid_bytes);
  PinnedStaging<std::uint8_t, ExecutionSpace> host(
      2, static_cast<std::size_t>(capacity * grid_bytes), "portasim::life::chunk_host");
  std::vector<Event<ExecutionSpace>> computed, copied;
  std::vector<EventTimer<ExecutionSpace>> compute_timers, copy_timers;
  for (int s = 0; s < 2; ++s) {
    computed.emplace_back(false);
    copied.emplace_back(false);
    compute_timers.emplace_back(exec);
    copy_timers.emplace_back(copiers[s]);
  }
  std::vector<std::int64_t> numbers[2];
  Chunk pending[2];

  auto hand_over = [&](int slot) {
    const auto data = host.wait(slot);
    stats.compute_seconds += compute_timers[slot].elapsed_ms() * 1e-3;
    stats.copy_seconds += copy_timers[slot].elapsed_ms() * 1e-3;
    if (!sink || pending[slot].count == 0) return;
    Chunk chunk = pending[slot];
    chunk.data = data.data();
    chunk.generations = numbers[slot].data();
    const auto t0 = clock::now();
    sink->write(chunk);
    stats.write_seconds += std::chrono::duration<double>(clock::now() - t0).count();
  };

  exec.fence();
  copiers.fence_all();
  stats.setup_seconds = std::chrono::duration<double>(clock::now() - setup_began).count();
  const auto began = clock::now();
  if (start_generation == 0 && sink) {
    // Generation 0 as a chunk of its own (the Python tool's {base}_000000.npy).
    auto slot0 = Kokkos::subview(device[0], Kokkos::make_pair(std::int64_t(0), grid_bytes));
    state.emit(slot0.data());
    exec.fence();
    auto host0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slot0);
    const std::int64_t zero = 0;
    Chunk chunk{0, 0, 1, &zero, host0.data(), config.height, row_bytes, config.packed_output};
    const auto t0 = clock::now();
    sink->write(chunk);
    stats.write_seconds += std::chrono::duration<double>(clock::now() - t0).count();
  }

  std::int64_t generation = start_generation;
  std::int64_t index = 0;
  while (generation < config.steps) {
    const int slot = static_cast<int>(index % 2);
    // Chunks are aligned to multiples of chunk_size, so a resumed run continues the same files.
    const std::int64_t first = generation + 1;
    const std::int64_t last =
        std::min(config.steps, (generation / config.chunk_size + 1) * config.chunk_size);
    if (copied[slot].recorded()) copied[slot].make_wait(exec);  // the device slot is free again
    numbers[slot].clear();
    compute_timers[slot].start();
    {
      ProfilingRegion region("kernel " + std::to_string(first) + "-" + std::to_string(last));
      for (std::int64_t g = first; g <= last; ++g) {
        state.step();
        if (sink && g % config.every == 0) {
          state.emit(device[slot].data() +
                     static_cast<std::int64_t>(numbers[slot].size()) * grid_bytes);
          numbers[slot].push_back(g);
        }
      }
    }
    compute_timers[slot].stop();
    computed[slot].record(exec);
    computed[slot].make_wait(copiers[slot]);
    const std::int64_t count = static_cast<std::int64_t>(numbers[slot].size());
    copy_timers[slot].start();
    if (count > 0) {
      ProfilingRegion region("D2H " + std::to_string(first) + "-" + std::to_string(last));
      host.copy_async(
          copiers[slot], slot,
          Kokkos::subview(device[slot], Kokkos::make_pair(std::int64_t(0), count * grid_bytes)));
    }
    copy_timers[slot].stop();
    copied[slot].record(copiers[slot]);
    pending[slot] =
        Chunk{first, last, count, nullptr, nullptr, config.height, row_bytes, config.packed_output};
    if (index > 0) hand_over(1 - slot);
    generation = last;
    ++index;
  }
  if (index > 0) hand_over(static_cast<int>((index - 1) % 2));
  copiers.fence_all();
  stats.chunks = index;
  stats.final_population = state.population();
  if (final_grid) {
    state.copy_to(*final_grid);
    exec.fence();
  }
  stats.seconds = std::chrono::duration<double>(clock::now() - began).count();
  return stats;
}

}  // namespace portasim::life
