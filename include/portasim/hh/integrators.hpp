#pragma once
// One time step of a single neuron under each integrator. The stimulus current is held
// constant over the step (zero-order hold). Shared by every backend and by the tests.
// The fixed-step integrators are force-inlined: the host kernel vectorizes a loop over
// neurons around them, which GCC does only when no call is left in the loop.

#include <Kokkos_Core.hpp>

#include <string>

#include "portasim/core/compat.hpp"
#include "portasim/hh/parameters.hpp"
#include "portasim/hh/rates.hpp"

namespace portasim::hh {

enum class Integrator { euler, rk4, rush_larsen, rk45 };

const char* to_string(Integrator integrator) noexcept;
// The integrator of a name to_string gives ("euler", "rk4", "rush-larsen", "rk45"), as the
// command line and the Python package spell it; throws invalid_argument for another.
Integrator integrator_named(const std::string& name);

template <class Scalar>
struct NeuronState {
  Scalar v, m, h, n;
};

// Parameters in the kernel's precision, with 1/C precomputed.
template <class Scalar>
struct Membrane {
  Scalar inverse_capacitance, g_na, g_k, g_leak, e_na, e_k, e_leak;

  KOKKOS_INLINE_FUNCTION static Membrane from(const Parameters& p) {
    return {Scalar(1.0 / p.capacitance),
            Scalar(p.g_na),
            Scalar(p.g_k),
            Scalar(p.g_leak),
            Scalar(p.e_na),
            Scalar(p.e_k),
            Scalar(p.e_leak)};
  }

  KOKKOS_FORCEINLINE_FUNCTION Scalar dv_dt(const NeuronState<Scalar>& s, Scalar current) const {
    const Scalar m3 = s.m * s.m * s.m;
    const Scalar n2 = s.n * s.n;
    const Scalar ionic =
        g_na * m3 * s.h * (s.v - e_na) + g_k * (n2 * n2) * (s.v - e_k) + g_leak * (s.v - e_leak);
    return (current - ionic) * inverse_capacitance;
  }

  KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> derivative(const NeuronState<Scalar>& s,
                                                             Scalar current) const {
    const GateRates<Scalar> r = gate_rates(s.v);
    return {dv_dt(s, current), r.alpha_m * (Scalar(1) - s.m) - r.beta_m * s.m,
            r.alpha_h * (Scalar(1) - s.h) - r.beta_h * s.h,
            r.alpha_n * (Scalar(1) - s.n) - r.beta_n * s.n};
  }
};

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> axpy(const NeuronState<Scalar>& s, Scalar a,
                                                     const NeuronState<Scalar>& d) {
  return {s.v + a * d.v, s.m + a * d.m, s.h + a * d.h, s.n + a * d.n};
}

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> euler_step(const Membrane<Scalar>& mem,
                                                           const NeuronState<Scalar>& s,
                                                           Scalar current, Scalar dt) {
  return axpy(s, dt, mem.derivative(s, current));
}

template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> rk4_step(const Membrane<Scalar>& mem,
                                                         const NeuronState<Scalar>& s,
                                                         Scalar current, Scalar dt) {
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
KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> rush_larsen_step(const Membrane<Scalar>& mem,
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

// Step-size control of the adaptive integrator, per neuron.
template <class Scalar>
struct AdaptiveControl {
  Scalar relative_tolerance;
  Scalar absolute_tolerance;
  int max_substeps;  // per output step; past it the substep is accepted as is
};

// Dormand-Prince RK5(4) with embedded error estimate, integrating one output step of length
// dt in adaptive substeps (never longer than what is left of dt, so that the zero-order-held
// stimulus never changes inside a substep). `h` carries the last accepted substep length
// from one output step to the next.
template <class Scalar>
KOKKOS_INLINE_FUNCTION NeuronState<Scalar> dormand_prince_step(
    const Membrane<Scalar>& mem, NeuronState<Scalar> s, Scalar current, Scalar dt, Scalar& h,
    const AdaptiveControl<Scalar>& control) {
  namespace m = portasim::compat::math;
  Scalar done = 0;
  int substeps = 0;
  if (!(h > Scalar(0)) || h > dt) h = dt;
  while (done < dt) {
    const Scalar left = dt - done;
    const Scalar hh = h < left ? h : left;
    const NeuronState<Scalar> k1 = mem.derivative(s, current);
    const NeuronState<Scalar> k2 = mem.derivative(axpy(s, hh * Scalar(1.0 / 5), k1), current);
    auto combine = [&](Scalar a1, const NeuronState<Scalar>& d1, Scalar a2,
                       const NeuronState<Scalar>& d2) {
      return NeuronState<Scalar>{
          s.v + hh * (a1 * d1.v + a2 * d2.v), s.m + hh * (a1 * d1.m + a2 * d2.m),
          s.h + hh * (a1 * d1.h + a2 * d2.h), s.n + hh * (a1 * d1.n + a2 * d2.n)};
    };
    const NeuronState<Scalar> k3 =
        mem.derivative(combine(Scalar(3.0 / 40), k1, Scalar(9.0 / 40), k2), current);
    const NeuronState<Scalar> y4 =
        axpy(combine(Scalar(44.0 / 45), k1, Scalar(-56.0 / 15), k2), hh * Scalar(32.0 / 9), k3);
    const NeuronState<Scalar> k4 = mem.derivative(y4, current);
    const NeuronState<Scalar> y5 =
        axpy(axpy(combine(Scalar(19372.0 / 6561), k1, Scalar(-25360.0 / 2187), k2),
                  hh * Scalar(64448.0 / 6561), k3),
             hh * Scalar(-212.0 / 729), k4);
    const NeuronState<Scalar> k5 = mem.derivative(y5, current);
    const NeuronState<Scalar> y6 =
        axpy(axpy(axpy(combine(Scalar(9017.0 / 3168), k1, Scalar(-355.0 / 33), k2),
                       hh * Scalar(46732.0 / 5247), k3),
                  hh * Scalar(49.0 / 176), k4),
             hh * Scalar(-5103.0 / 18656), k5);
    const NeuronState<Scalar> k6 = mem.derivative(y6, current);
    // Fifth-order solution (b) and the difference to the embedded fourth-order one (b - b*).
    const Scalar b1 = Scalar(35.0 / 384), b3 = Scalar(500.0 / 1113), b4 = Scalar(125.0 / 192),
                 b5 = Scalar(-2187.0 / 6784), b6 = Scalar(11.0 / 84);
    const NeuronState<Scalar> next = axpy(
        axpy(axpy(axpy(axpy(s, hh * b1, k1), hh * b3, k3), hh * b4, k4), hh * b5, k5), hh * b6, k6);
    const NeuronState<Scalar> k7 = mem.derivative(next, current);
    const Scalar e1 = Scalar(71.0 / 57600), e3 = Scalar(-71.0 / 16695), e4 = Scalar(71.0 / 1920),
                 e5 = Scalar(-17253.0 / 339200), e6 = Scalar(22.0 / 525), e7 = Scalar(-1.0 / 40);
    auto error_of = [&](Scalar d1, Scalar d3, Scalar d4, Scalar d5, Scalar d6, Scalar d7, Scalar y0,
                        Scalar y1) {
      const Scalar err = hh * (e1 * d1 + e3 * d3 + e4 * d4 + e5 * d5 + e6 * d6 + e7 * d7);
      const Scalar scale = control.absolute_tolerance +
                           control.relative_tolerance * m::fmax(m::fabs(y0), m::fabs(y1));
      return m::fabs(err) / scale;
    };
    const Scalar error =
        m::fmax(m::fmax(error_of(k1.v, k3.v, k4.v, k5.v, k6.v, k7.v, s.v, next.v),
                        error_of(k1.m, k3.m, k4.m, k5.m, k6.m, k7.m, s.m, next.m)),
                m::fmax(error_of(k1.h, k3.h, k4.h, k5.h, k6.h, k7.h, s.h, next.h),
                        error_of(k1.n, k3.n, k4.n, k5.n, k6.n, k7.n, s.n, next.n)));
    ++substeps;
    const bool accept = error <= Scalar(1) || substeps >= control.max_substeps;
    // Classic controller: safety 0.9, growth limited to [0.2, 5].
    Scalar factor = error > Scalar(0) ? Scalar(0.9) * m::pow(error, Scalar(-0.2)) : Scalar(5);
    factor = m::fmin(Scalar(5), m::fmax(Scalar(0.2), factor));
    if (accept) {
      s = next;
      done += hh;
      if (hh == h || factor < Scalar(1)) h = hh * factor;  // a shortened last substep says little
    } else {
      h = hh * factor;
    }
    if (h > dt) h = dt;
  }
  return s;
}

template <Integrator Method, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION NeuronState<Scalar> step(const Membrane<Scalar>& mem,
                                                     const NeuronState<Scalar>& s, Scalar current,
                                                     Scalar dt) {
  if constexpr (Method == Integrator::euler) {
    return euler_step(mem, s, current, dt);
  } else if constexpr (Method == Integrator::rk4) {
    return rk4_step(mem, s, current, dt);
  } else {
    static_assert(Method == Integrator::rush_larsen,
                  "rk45 keeps a step size: use dormand_prince_step");
    return rush_larsen_step(mem, s, current, dt);
  }
}

// Steady state of the gates at v (computed in double, as the initial state is).
KOKKOS_INLINE_FUNCTION NeuronState<double> resting_gates(double v) {
  const GateRates<double> r = gate_rates(v);
  return {v, r.alpha_m / (r.alpha_m + r.beta_m), r.alpha_h / (r.alpha_h + r.beta_h),
          r.alpha_n / (r.alpha_n + r.beta_n)};
}

}  // namespace portasim::hh
