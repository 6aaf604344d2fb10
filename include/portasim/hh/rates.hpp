#pragma once
// Gate rate functions a_x(V), b_x(V) in 1/ms, shared by every backend and the tests.
// a_m and a_n have removable singularities (0/0) at V = -40 and V = -55 mV, which float32
// runs hit in practice; they are written as u / (1 - exp(-u)) through expm1, exact at u = 0.

#include <Kokkos_Core.hpp>

#include "portasim/core/compat.hpp"
#include "portasim/core/vector_math.hpp"

namespace portasim::hh {

// u / (1 - exp(-u)), the inverse of the "exprel" function; 1 at u = 0.
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar inverse_exprel(Scalar u) {
  namespace m = portasim::compat::math;
  return u == Scalar(0) ? Scalar(1) : u / -m::expm1(-u);
}

// a_m = 0.1 (V+40) / (1 - exp(-(V+40)/10))  ->  1 at V = -40
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar alpha_m(Scalar v) {
  return inverse_exprel((v + Scalar(40)) / Scalar(10));
}
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar beta_m(Scalar v) {
  return Scalar(4) * portasim::compat::math::exp(-(v + Scalar(65)) / Scalar(18));
}
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar alpha_h(Scalar v) {
  return Scalar(0.07) * portasim::compat::math::exp(-(v + Scalar(65)) / Scalar(20));
}
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar beta_h(Scalar v) {
  return Scalar(1) / (Scalar(1) + portasim::compat::math::exp(-(v + Scalar(35)) / Scalar(10)));
}
// a_n = 0.01 (V+55) / (1 - exp(-(V+55)/10))  ->  0.1 at V = -55
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar alpha_n(Scalar v) {
  return Scalar(0.1) * inverse_exprel((v + Scalar(55)) / Scalar(10));
}
template <class Scalar>
KOKKOS_INLINE_FUNCTION Scalar beta_n(Scalar v) {
  return Scalar(0.125) * portasim::compat::math::exp(-(v + Scalar(65)) / Scalar(80));
}

template <class Scalar>
struct GateRates {
  Scalar alpha_m, beta_m, alpha_h, beta_h, alpha_n, beta_n;
};

// All six rates from three exponentials, the kernels' hot path: exp(-(V+40)/10) also gives
// exp(-(V+55)/10) and exp(-(V+35)/10) through constant factors, and exp(-(V+65)/80) gives
// exp(-(V+65)/20) as its fourth power. Near the singular voltages (|u| < 1/2) a_m and a_n
// take the expm1 form above; elsewhere u / (1 - e^-u) is already accurate to a few ulps.
// Agrees with the single-rate functions to a few ulps (tests/hh/test_rates.hpp).
// Selects, not branches, and one expm1_if for both near forms (their voltage ranges do not
// meet): on the host, loops over neurons vectorize through it and pay one expm1, not two
// (docs/design/cpu-vectorization.md); the device still skips the expm1 it does not need.
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION GateRates<Scalar> gate_rates(Scalar v) {
  namespace m = portasim::compat::math;
  const Scalar u_m = (v + Scalar(40)) / Scalar(10);
  const Scalar u_n = (v + Scalar(55)) / Scalar(10);
  const Scalar e_m = m::exp(-u_m);                          // exp(-(V+40)/10)
  const Scalar e_n = e_m * Scalar(0.22313016014842982893);  // * exp(-1.5)
  const Scalar e_h = e_m * Scalar(1.64872127070012814685);  // * exp(0.5)
  const Scalar e_80 = m::exp(-(v + Scalar(65)) / Scalar(80));
  const Scalar e_40 = e_80 * e_80;
  const Scalar half = Scalar(0.5);
  const bool near_m = u_m < half && u_m > -half;  // V in (-45, -35)
  const bool near_n = u_n < half && u_n > -half;  // V in (-60, -50): never both
  const Scalar d = m::expm1_if(near_m || near_n, near_m ? -u_m : -u_n);
  GateRates<Scalar> r;
  // One division per rate: the near form's u / -expm1(-u), else u / (1 - e^-u); u = 0 gives 1.
  r.alpha_m = near_m && u_m == Scalar(0) ? Scalar(1) : u_m / (near_m ? -d : Scalar(1) - e_m);
  r.beta_m = Scalar(4) * m::exp(-(v + Scalar(65)) / Scalar(18));
  r.alpha_h = Scalar(0.07) * (e_40 * e_40);
  r.beta_h = Scalar(1) / (Scalar(1) + e_h);
  r.alpha_n = Scalar(0.1) *
              (near_n && u_n == Scalar(0) ? Scalar(1) : u_n / (near_n ? -d : Scalar(1) - e_n));
  r.beta_n = Scalar(0.125) * e_80;
  return r;
}

}  // namespace portasim::hh
