#pragma once
// The kernel that advances the neurons of hh::simulate through a block of steps, in two
// forms: one neuron per iteration (GPUs, and rk45 everywhere), and on host backends chunks of
// neighbouring neurons that advance together in a loop the compiler vectorizes. Both call
// the same integrators (integrators.hpp). docs/design/cpu-vectorization.md says why.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "portasim/core/compat.hpp"
#include "portasim/core/vector_math.hpp"
#include "portasim/hh/simulation.hpp"

namespace portasim::hh::impl {

// Advances every neuron through steps [first_step, end_step): the state lives in registers
// for the whole block; samples go to `trace` rows, spikes to per-neuron slots.
template <class Scalar, class MemorySpace, Integrator Method>
struct AdvanceNeurons {
  Kokkos::View<Scalar*, MemorySpace> v, m, h, n;
  StimulusEvaluator<Scalar, MemorySpace> stimulus;
  Membrane<Scalar> membrane;  // every neuron's, unless per-neuron parameters are given
  Parameters parameters;      // the run-wide values, in double
  NeuronValues<MemorySpace> per_neuron;
  bool per_neuron_membrane = false;
  AdaptiveControl<Scalar> control;  // rk45 only
  Scalar dt;
  std::int64_t first_step, end_step;
  int trace_variables;  // 0, 1 (V) or 4 (V, m, h, n)
  int every;
  std::int64_t first_row;                                           // sample index of trace row 0
  Kokkos::View<Scalar***, Kokkos::LayoutRight, MemorySpace> trace;  // (variable, row, neuron)
  bool detect_spikes;
  Scalar threshold;
  double dt_ms;
  Kokkos::View<std::int32_t*, MemorySpace> spike_count;
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> spike_slots;  // (neuron, capacity)

  KOKKOS_INLINE_FUNCTION void record(std::int64_t sample, std::int64_t k,
                                     const NeuronState<Scalar>& s) const {
    const std::int64_t row = sample - first_row;
    trace(0, row, k) = s.v;
    if (trace_variables == 4) {
      trace(1, row, k) = s.m;
      trace(2, row, k) = s.h;
      trace(3, row, k) = s.n;
    }
  }

  // An upward crossing of the threshold during step i (V went from `before` to `after`) goes
  // to neuron k's next slot, at the time interpolated linearly inside the step; crossings
  // past the slots are counted only.
  KOKKOS_INLINE_FUNCTION void note_crossing(std::int64_t k, std::int64_t i, Scalar before,
                                            Scalar after, std::int32_t& count) const {
    if (!(before < threshold && after >= threshold)) return;
    if (count < static_cast<std::int32_t>(spike_slots.extent(1))) {
      const double fraction =
          static_cast<double>(threshold - before) / static_cast<double>(after - before);
      spike_slots(k, count) = (static_cast<double>(i) + fraction) * dt_ms;
    }
    ++count;
  }

  // Neuron k's membrane: the run-wide one with the given per-neuron fields replaced, built in
  // double and rounded as Membrane::from rounds the run-wide one.
  KOKKOS_INLINE_FUNCTION Membrane<Scalar> membrane_of(std::int64_t k) const {
    Parameters p = parameters;
    auto take = [&](NeuronField field, double& value) {
      const auto& given = per_neuron[field];
      if (given.extent(0) > 0) value = given(k);
    };
    take(NeuronField::capacitance, p.capacitance);
    take(NeuronField::g_na, p.g_na);
    take(NeuronField::g_k, p.g_k);
    take(NeuronField::g_leak, p.g_leak);
    take(NeuronField::e_na, p.e_na);
    take(NeuronField::e_k, p.e_k);
    take(NeuronField::e_leak, p.e_leak);
    return Membrane<Scalar>::from(p);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const Membrane<Scalar> membrane = per_neuron_membrane ? membrane_of(k) : this->membrane;
    NeuronState<Scalar> s{v(k), m(k), h(k), n(k)};
    const auto current = stimulus.for_neuron(k);
    std::int32_t count = detect_spikes ? spike_count(k) : 0;
    if (trace_variables > 0 && first_step == 0) record(0, k, s);
    int until_sample = every;
    Scalar substep = dt;  // rk45: the last accepted substep, carried across output steps
    std::int64_t next_sample = first_step / every + 1;
    for (std::int64_t i = first_step; i < end_step; ++i) {
      const Scalar before = s.v;
      if constexpr (Method == Integrator::rk45)
        s = dormand_prince_step(membrane, s, current.current(i), dt, substep, control);
      else s = step<Method>(membrane, s, current.current(i), dt);
      if (detect_spikes) note_crossing(k, i, before, s.v, count);
      if (trace_variables > 0 && --until_sample == 0) {
        record(next_sample++, k, s);
        until_sample = every;
      }
    }
    v(k) = s.v;
    m(k) = s.m;
    h(k) = s.h;
    n(k) = s.n;
    if (detect_spikes) spike_count(k) = count;
  }
};

// The host form for the fixed-step integrators: chunk c holds neurons [c W, c W + W), whose
// states sit in lane arrays and advance together, one step at a time, through a loop over
// lanes that GCC vectorizes (W is four AVX2 registers of Scalar, or two AVX-512 ones). The
// stimulus, the spike crossings and the trace rows stay scalar: they are cheap or rare beside
// the integrator. Every host neuron goes through this loop, the last chunk padded with copies
// of the last neuron, so that a neuron's result does not depend on the chunk it falls in:
// slices, ranks and thread counts give bit-identical results, as one-neuron-per-iteration
// code did. PORTASIM_HOST_CLONES: on AVX-512 CPUs the same loop runs in 512-bit registers
// (one machine runs one copy, so the bit-for-bit rule holds on it).
template <class Scalar, class MemorySpace, Integrator Method>
struct AdvanceNeuronLanes {
  static constexpr int width = sizeof(Scalar) == 4 ? 32 : 16;
  AdvanceNeurons<Scalar, MemorySpace, Method> f;

  PORTASIM_HOST_CLONES void operator()(const std::int64_t chunk) const {
    using Current = decltype(f.stimulus.for_neuron(0));
    const std::int64_t first = chunk * width;
    const int lanes = static_cast<int>(
        std::min<std::int64_t>(width, static_cast<std::int64_t>(f.v.extent(0)) - first));
    alignas(64) Scalar v[width], m[width], h[width], n[width], current[width], before[width];
    alignas(64) Scalar inverse_c[width], g_na[width], g_k[width], g_leak[width], e_na[width],
        e_k[width], e_leak[width];
    Current stimulus[width];
    std::int32_t count[width];
    for (int l = 0; l < width; ++l) {
      const std::int64_t k = first + std::min(l, lanes - 1);
      v[l] = f.v(k);
      m[l] = f.m(k);
      h[l] = f.h(k);
      n[l] = f.n(k);
      const Membrane<Scalar> membrane = f.per_neuron_membrane ? f.membrane_of(k) : f.membrane;
      inverse_c[l] = membrane.inverse_capacitance;
      g_na[l] = membrane.g_na;
      g_k[l] = membrane.g_k;
      g_leak[l] = membrane.g_leak;
      e_na[l] = membrane.e_na;
      e_k[l] = membrane.e_k;
      e_leak[l] = membrane.e_leak;
      stimulus[l] = f.stimulus.for_neuron(k);
      count[l] = f.detect_spikes ? f.spike_count(k) : 0;
    }
    auto record = [&](std::int64_t sample) {
      for (int l = 0; l < lanes; ++l) f.record(sample, first + l, {v[l], m[l], h[l], n[l]});
    };
    if (f.trace_variables > 0 && f.first_step == 0) record(0);
    int until_sample = f.every;
    std::int64_t next_sample = f.first_step / f.every + 1;
    const Scalar dt = f.dt;
    for (std::int64_t i = f.first_step; i < f.end_step; ++i) {
      for (int l = 0; l < width; ++l) current[l] = stimulus[l].current(i);
      PORTASIM_SIMD
      for (int l = 0; l < width; ++l) {
        const Membrane<Scalar> membrane{inverse_c[l], g_na[l], g_k[l],   g_leak[l],
                                        e_na[l],      e_k[l],  e_leak[l]};
        before[l] = v[l];
        const NeuronState<Scalar> s =
            step<Method>(membrane, {v[l], m[l], h[l], n[l]}, current[l], dt);
        v[l] = s.v;
        m[l] = s.m;
        h[l] = s.h;
        n[l] = s.n;
      }
      if (f.detect_spikes)
        for (int l = 0; l < lanes; ++l) f.note_crossing(first + l, i, before[l], v[l], count[l]);
      if (f.trace_variables > 0 && --until_sample == 0) {
        record(next_sample++);
        until_sample = f.every;
      }
    }
    for (int l = 0; l < lanes; ++l) {
      const std::int64_t k = first + l;
      f.v(k) = v[l];
      f.m(k) = m[l];
      f.h(k) = h[l];
      f.n(k) = n[l];
      if (f.detect_spikes) f.spike_count(k) = count[l];
    }
  }
};

// Runs the functor's block of steps on every neuron, in the form for the execution space.
template <class Scalar, class ExecutionSpace, Integrator Method>
void advance(const ExecutionSpace& exec,
             const AdvanceNeurons<Scalar, typename ExecutionSpace::memory_space, Method>& functor) {
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const auto neurons = static_cast<std::int64_t>(functor.v.extent(0));
  constexpr bool on_host =
      Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible;
  if constexpr (on_host && Method != Integrator::rk45) {
    using Lanes = AdvanceNeuronLanes<Scalar, typename ExecutionSpace::memory_space, Method>;
    Kokkos::parallel_for("portasim::hh::advance",
                         policy(exec, 0, (neurons + Lanes::width - 1) / Lanes::width),
                         Lanes{functor});
  } else {
    Kokkos::parallel_for("portasim::hh::advance", policy(exec, 0, neurons), functor);
  }
}

}  // namespace portasim::hh::impl
