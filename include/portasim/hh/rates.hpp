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

// u / (1 - exp(-u)) for |u| <= 1/2, from its Taylor series 1 + u/2 + sum_k B_2k u^2k / (2k)!
// (B: Bernoulli numbers; the series converges for |u| < 2 pi). Truncated where the next
// term is below a tenth of an ulp of the precision at |u| = 1/2: u^6 in float, u^14 in
// double. No exponential and no division, so the near form costs a few multiply-adds.
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION Scalar inverse_exprel_series(Scalar u) {
  const Scalar w = u * u;
  Scalar even;  // sum_k B_2k u^(2k-2) / (2k)!
  if constexpr (sizeof(Scalar) == sizeof(float)) {
    even = Scalar(1.0 / 12) + w * (Scalar(-1.0 / 720) + w * Scalar(1.0 / 30240));
  } else {
    even = Scalar(1.0 / 12) +
           w * (Scalar(-1.0 / 720) +
                w * (Scalar(1.0 / 30240) +
                     w * (Scalar(-1.0 / 1209600) +
                          w * (Scalar(1.0 / 47900160) + w * (Scalar(-691.0 / 1307674368000) +
                                                             w * Scalar(1.0 / 74724249600))))));
  }
  return Scalar(1) + (Scalar(0.5) * u + w * even);
}

// All six rates from three exponentials, the kernels' hot path: exp(-(V+40)/10) also gives
// exp(-(V+55)/10) and exp(-(V+35)/10) through constant factors, and exp(-(V+65)/80) gives
// exp(-(V+65)/20) as its fourth power. Near the singular voltages (|u| <= 1/2) a_m and a_n
// take the series above; elsewhere u / (1 - e^-u) is already accurate to a few ulps.
// No IEEE division on the hot path (on the GPU it is a long instruction sequence with a
// slow path): divisions by constants are multiplies by their reciprocals, and the three left
// go through divide_approx (docs/design/hh-kernels.md, rule 3). Agrees with long double
// references to the bounds that tests/hh/test_rates.hpp states. Selects, not branches: on the host,
// loops over neurons vectorize through it (docs/design/cpu-vectorization.md).
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION GateRates<Scalar> gate_rates(Scalar v) {
  namespace m = portasim::compat::math;
  const Scalar u_m = (v + Scalar(40)) * Scalar(0.1);
  const Scalar u_n = (v + Scalar(55)) * Scalar(0.1);
  const Scalar e_m = m::exp_approx(-u_m);                   // exp(-(V+40)/10)
  const Scalar e_n = e_m * Scalar(0.22313016014842982893);  // * exp(-1.5)
  const Scalar e_h = e_m * Scalar(1.64872127070012814685);  // * exp(0.5)
  const Scalar e_80 = m::exp_approx((v + Scalar(65)) * Scalar(-1.0 / 80));
  const Scalar e_40 = e_80 * e_80;
  const Scalar half = Scalar(0.5);
  const bool near_m = u_m <= half && u_m >= -half;  // V in [-45, -35]
  const bool near_n = u_n <= half && u_n >= -half;  // V in [-60, -50]
  GateRates<Scalar> r;
  r.alpha_m = near_m ? inverse_exprel_series(u_m) : m::divide_approx(u_m, Scalar(1) - e_m);
  r.beta_m = Scalar(4) * m::exp_approx((v + Scalar(65)) * Scalar(-1.0 / 18));
  r.alpha_h = Scalar(0.07) * (e_40 * e_40);
  r.beta_h = m::divide_approx(Scalar(1), Scalar(1) + e_h);
  r.alpha_n =
      Scalar(0.1) * (near_n ? inverse_exprel_series(u_n) : m::divide_approx(u_n, Scalar(1) - e_n));
  r.beta_n = Scalar(0.125) * e_80;
  return r;
}

}  // namespace portasim::hh
