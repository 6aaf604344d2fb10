#pragma once
// One time step of a single neuron under each integrator. The stimulus current is held
// constant over the step (zero-order hold). Shared by every backend and by the tests.

#include <Kokkos_Core.hpp>

#include "portasim/core/compat.hpp"
#include "portasim/hh/parameters.hpp"
#include "portasim/hh/rates.hpp"

namespace portasim::hh {

enum class Integrator { euler, rk4, rush_larsen };

const char* to_string(Integrator integrator) noexcept;

template <class Scalar>
struct NeuronState {
  Scalar v, m, h, n;
};

// Parameters in the kernel's precision, with 1/C precomputed.
template <class Scalar>
struct Membrane {
  Scalar inverse_capacitance, g_na, g_k, g_leak, e_na, e_k, e_leak;

  static Membrane from(const Parameters& p) {
    return {Scalar(1.0 / p.capacitance), Scalar(p.g_na), Scalar(p.g_k), Scalar(p.g_leak),
            Scalar(p.e_na),              Scalar(p.e_k),  Scalar(p.e_leak)};
  }

  KOKKOS_INLINE_FUNCTION Scalar dv_dt(const NeuronState<Scalar>& s, Scalar current) const {
    const Scalar m3 = s.m * s.m * s.m;
    const Scalar n2 = s.n * s.n;
    const Scalar ionic = g_na * m3 * s.h * (s.v - e_na) + g_k * (n2 * n2) * (s.v - e_k) +
                         g_leak * (s.v - e_leak);
    return (current - ionic) * inverse_capacitance;
  }

  KOKKOS_INLINE_FUNCTION NeuronState<Scalar> derivative(const NeuronState<Scalar>& s,
                                                        Scalar current) const {
    const GateRates<Scalar> r = gate_rates(s.v);
    return {dv_dt(s, current), r.alpha_m * (Scalar(1) - s.m) - r.beta_m * s.m,
            r.alpha_h * (Scalar(1) - s.h) - r.beta_h * s.h,
            r.alpha_n * (Scalar(1) - s.n) - r.beta_n * s.n};
  }
};

template <class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> axpy(const NeuronState<Scalar>& s, Scalar a,
                                                 const NeuronState<Scalar>& d) {
  return {s.v + a * d.v, s.m + a * d.m, s.h + a * d.h, s.n + a * d.n};
}

template <class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> euler_step(const Membrane<Scalar>& mem,
                                                       const NeuronState<Scalar>& s, Scalar current,
                                                       Scalar dt) {
  return axpy(s, dt, mem.derivative(s, current));
}

template <class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> rk4_step(const Membrane<Scalar>& mem,
                                                     const NeuronState<Scalar>& s, Scalar current,
                                                     Scalar dt) {
  const Scalar half = Scalar(0.5) * dt;
  const NeuronState<Scalar> k1 = mem.derivative(s, current);
  const NeuronState<Scalar> k2 = mem.derivative(axpy(s, half, k1), current);
  const NeuronState<Scalar> k3 = mem.derivative(axpy(s, half, k2), current);
  const NeuronState<Scalar> k4 = mem.derivative(axpy(s, dt, k3), current);
  const Scalar sixth = dt / Scalar(6);
  return {s.v + sixth * (k1.v + Scalar(2) * (k2.v + k3.v) + k4.v),
          s.m + sixth * (k1.m + Scalar(2) * (k2.m + k3.m) + k4.m),
          s.h + sixth * (k1.h + Scalar(2) * (k2.h + k3.h) + k4.h),
          s.n + sixth * (k1.n + Scalar(2) * (k2.n + k3.n) + k4.n)};
}

// Rush-Larsen: the gates relax exactly towards x_inf(V_n) with time constant tau_x(V_n)
// (x <- x_inf + (x - x_inf) exp(-dt/tau_x)); V advances by RK4 with the gates held at
// their values at the start of the step. Stable for much larger dt than Euler on the gates.
template <class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> rush_larsen_step(const Membrane<Scalar>& mem,
                                                             const NeuronState<Scalar>& s,
                                                             Scalar current, Scalar dt) {
  namespace m = portasim::compat::math;
  auto v_at = [&](Scalar v) { return NeuronState<Scalar>{v, s.m, s.h, s.n}; };
  const Scalar half = Scalar(0.5) * dt;
  const Scalar k1 = mem.dv_dt(s, current);
  const Scalar k2 = mem.dv_dt(v_at(s.v + half * k1), current);
  const Scalar k3 = mem.dv_dt(v_at(s.v + half * k2), current);
  const Scalar k4 = mem.dv_dt(v_at(s.v + dt * k3), current);
  const GateRates<Scalar> r = gate_rates(s.v);
  auto relax = [dt](Scalar x, Scalar a, Scalar b) {
    const Scalar sum = a + b;
    const Scalar x_inf = a / sum;
    return x_inf + (x - x_inf) * m::exp(-dt * sum);
  };
  return {s.v + dt / Scalar(6) * (k1 + Scalar(2) * (k2 + k3) + k4), relax(s.m, r.alpha_m, r.beta_m),
          relax(s.h, r.alpha_h, r.beta_h), relax(s.n, r.alpha_n, r.beta_n)};
}

template <Integrator Method, class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> step(const Membrane<Scalar>& mem,
                                                 const NeuronState<Scalar>& s, Scalar current,
                                                 Scalar dt) {
  if constexpr (Method == Integrator::euler) {
    return euler_step(mem, s, current, dt);
  } else if constexpr (Method == Integrator::rk4) {
    return rk4_step(mem, s, current, dt);
  } else {
    return rush_larsen_step(mem, s, current, dt);
  }
}

// Steady state of the gates at v (computed in double, as the initial state is).
inline NeuronState<double> resting_gates(double v) {
  const GateRates<double> r = gate_rates(v);
  return {v, r.alpha_m / (r.alpha_m + r.beta_m), r.alpha_h / (r.alpha_h + r.beta_h),
          r.alpha_n / (r.alpha_n + r.beta_n)};
}

}  // namespace portasim::hh
