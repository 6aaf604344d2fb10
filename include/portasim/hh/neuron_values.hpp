#pragma once
// Per-neuron initial state and membrane parameters. Each field (hh::NeuronField) is either
// empty, and every neuron takes the Config's run-wide value, or holds one value per neuron.
// A gate that is NaN starts at its steady state at that neuron's V0, as run-wide gates do.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>

#include "portasim/core/error.hpp"
#include "portasim/hh/parameters.hpp"

namespace portasim::hh {

template <class MemorySpace>
struct NeuronValues {
  using vector = Kokkos::View<const double*, MemorySpace>;
  vector fields[neuron_field_count];  // indexed by NeuronField; a plain array for device code

  KOKKOS_INLINE_FUNCTION vector& operator[](NeuronField f) { return fields[static_cast<int>(f)]; }
  KOKKOS_INLINE_FUNCTION const vector& operator[](NeuronField f) const {
    return fields[static_cast<int>(f)];
  }
  bool has(NeuronField f) const { return (*this)[f].extent(0) > 0; }
  bool has_membrane() const {
    for (NeuronField f : all_neuron_fields)
      if (f >= NeuronField::capacitance && has(f)) return true;
    return false;
  }
  bool has_initial_state() const {
    for (NeuronField f : all_neuron_fields)
      if (f < NeuronField::capacitance && has(f)) return true;
    return false;
  }
  // Neurons begin .. end - 1 (one MPI rank's block).
  NeuronValues slice(std::int64_t begin, std::int64_t end) const {
    NeuronValues part;
    for (NeuronField f : all_neuron_fields)
      if (has(f)) part[f] = Kokkos::subview((*this)[f], std::make_pair(begin, end));
    return part;
  }
};

// Checks that every given field holds `neurons` values in its allowed range (one reduction
// per field on `exec`); throws portasim::Error (invalid_argument) naming the field.
template <class ExecutionSpace>
void validate(const ExecutionSpace& exec,
              const NeuronValues<typename ExecutionSpace::memory_space>& values,
              std::int64_t neurons) {
  for (NeuronField f : all_neuron_fields) {
    if (!values.has(f)) continue;
    const auto& v = values[f];
    require(static_cast<std::int64_t>(v.extent(0)) == neurons,
            std::string("per-neuron ") + to_string(f) + " has " + std::to_string(v.extent(0)) +
                " values for " + std::to_string(neurons) + " neurons");
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "portasim::hh::validate_neuron_values",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, neurons),
        KOKKOS_LAMBDA(const std::int64_t k, std::int64_t& count) {
          count += !is_allowed_value(f, v(k));
        },
        bad);
    require(bad == 0, std::string("per-neuron ") + to_string(f) + " has " + std::to_string(bad) +
                          " values that are not " + allowed_values(f));
  }
}

}  // namespace portasim::hh
