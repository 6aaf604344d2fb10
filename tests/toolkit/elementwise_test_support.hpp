#pragma once
// Shared by the toolkit elementwise/reduction tests: Views filled from host functions, read
// back to host, and a counter of what reaches the Kokkos profiling interface (kernels and
// allocations), to show that a fused expression is one kernel with no temporaries.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace elementwise_test_support {

// Host values of a View, in its logical index order (last index fastest).
template <class View>
std::vector<double> to_host(const View& view) {
  auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  std::vector<double> values;
  if constexpr (View::rank == 0) {
    values.push_back(static_cast<double>(mirror()));
  } else if constexpr (View::rank == 1) {
    for (std::size_t i = 0; i < mirror.extent(0); ++i)
      values.push_back(static_cast<double>(mirror(i)));
  } else if constexpr (View::rank == 2) {
    for (std::size_t i = 0; i < mirror.extent(0); ++i)
      for (std::size_t j = 0; j < mirror.extent(1); ++j)
        values.push_back(static_cast<double>(mirror(i, j)));
  } else {
    for (std::size_t i = 0; i < mirror.extent(0); ++i)
      for (std::size_t j = 0; j < mirror.extent(1); ++j)
        for (std::size_t k = 0; k < mirror.extent(2); ++k)
          values.push_back(static_cast<double>(mirror(i, j, k)));
  }
  return values;
}

// Fills a View from value(i, j, k) on the host (unused trailing indices are 0).
template <class View, class F>
void fill(const View& view, F value) {
  auto mirror = Kokkos::create_mirror_view(view);
  using T = typename View::non_const_value_type;
  if constexpr (View::rank == 0) {
    mirror() = static_cast<T>(value(0, 0, 0));
  } else if constexpr (View::rank == 1) {
    for (std::size_t i = 0; i < mirror.extent(0); ++i) mirror(i) = static_cast<T>(value(i, 0, 0));
  } else if constexpr (View::rank == 2) {
    for (std::size_t i = 0; i < mirror.extent(0); ++i)
      for (std::size_t j = 0; j < mirror.extent(1); ++j)
        mirror(i, j) = static_cast<T>(value(i, j, 0));
  } else {
    for (std::size_t i = 0; i < mirror.extent(0); ++i)
      for (std::size_t j = 0; j < mirror.extent(1); ++j)
        for (std::size_t k = 0; k < mirror.extent(2); ++k)
          mirror(i, j, k) = static_cast<T>(value(i, j, k));
  }
  Kokkos::deep_copy(view, mirror);
}

// Uniform random values in [low, high), reproducible.
template <class View>
std::vector<double> fill_random(const View& view, double low, double high, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(low, high);
  using T = typename View::non_const_value_type;
  // The values as stored (rounded to T), so host references see exactly the device inputs.
  fill(view,
       [&](std::size_t, std::size_t, std::size_t) { return static_cast<T>(uniform(engine)); });
  return to_host(view);
}

struct LaunchCounter {
  static LaunchCounter& get() {
    static LaunchCounter counter;
    return counter;
  }
  int kernels = 0;
  int allocations = 0;  // of non-zero size
  std::vector<std::string> names;
  std::vector<std::string> allocated;

  static void on_kernel(const char* name, std::uint32_t, std::uint64_t*) {
    get().kernels += 1;
    get().names.emplace_back(name);
  }
  static void on_allocate(Kokkos::Profiling::SpaceHandle space, const char* label, const void*,
                          std::uint64_t size) {
    // Kokkos 4.x reports a 0-byte "TeamScratchMemory" allocation on TeamPolicy launches that
    // ask for no level-1 scratch: it takes no memory, so it is listed but not counted.
    if (size > 0) get().allocations += 1;
    get().allocated.push_back(std::string(space.name) + " '" + label + "' " + std::to_string(size) +
                              " bytes");
  }
  // What was allocated since start(), for failure messages.
  std::string allocations_made() const {
    std::string text;
    for (const std::string& a : allocated) text += (text.empty() ? "" : ", ") + a;
    return text;
  }
  void start() {
    namespace tools = Kokkos::Tools::Experimental;
    kernels = 0;
    allocations = 0;
    names.clear();
    allocated.clear();
    tools::set_begin_parallel_for_callback(on_kernel);
    tools::set_begin_parallel_reduce_callback(on_kernel);
    tools::set_begin_parallel_scan_callback(on_kernel);
    tools::set_allocate_data_callback(on_allocate);
  }
  void stop() {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(nullptr);
    tools::set_begin_parallel_reduce_callback(nullptr);
    tools::set_begin_parallel_scan_callback(nullptr);
    tools::set_allocate_data_callback(nullptr);
  }
};

}  // namespace elementwise_test_support
