#pragma once
// Gate rate functions a_x(V), b_x(V) in 1/ms, shared by every backend and the tests.
// a_m and a_n have removable singularities (0/0) at V = -40 and V = -55 mV, which float32
// runs hit in practice; they are written as u / (1 - exp(-u)) through expm1, exact at u = 0.

#include <Kokkos_Core.hpp>

#include "portasim/core/compat.hpp"

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

template <class Scalar>
KOKKOS_INLINE_FUNCTION GateRates<Scalar> gate_rates(Scalar v) {
  return {alpha_m(v), beta_m(v), alpha_h(v), beta_h(v), alpha_n(v), beta_n(v)};
}

}  // namespace portasim::hh
