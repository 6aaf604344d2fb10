#pragma once
// Hodgkin-Huxley membrane parameters and initial state (mV, ms, uA/cm^2, mS/cm^2, uF/cm^2).
// Defaults: the standard squid axon shifted so that rest is near -65 mV, no temperature
// factor.

#include <cmath>
#include <limits>

namespace portasim::hh {

struct Parameters {
  double capacitance = 1.0;  // C, uF/cm^2
  double g_na = 120.0;       // mS/cm^2
  double g_k = 36.0;
  double g_leak = 0.3;
  double e_na = 50.0;  // mV
  double e_k = -77.0;
  double e_leak = -54.387;
};

// Gates left as NaN start at their steady state at v0 (x_inf = a/(a+b), in double).
struct InitialState {
  double v0 = -65.0;
  double m0 = std::numeric_limits<double>::quiet_NaN();
  double h0 = std::numeric_limits<double>::quiet_NaN();
  double n0 = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace portasim::hh
