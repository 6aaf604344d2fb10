#pragma once
// Hodgkin-Huxley membrane parameters and initial state (mV, ms, uA/cm^2, mS/cm^2, uF/cm^2).
// Defaults: the standard squid axon shifted so that rest is near -65 mV, no temperature
// factor.

#include <Kokkos_Macros.hpp>

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

// The per-neuron fields a run may set (hh::NeuronValues, `portasim hh --initial-state`); the
// name is the dataset's in an initial-state file.
enum class NeuronField { v0, m0, h0, n0, capacitance, g_na, g_k, g_leak, e_na, e_k, e_leak };
inline constexpr int neuron_field_count = 11;
inline constexpr NeuronField all_neuron_fields[neuron_field_count] = {
    NeuronField::v0,          NeuronField::m0,   NeuronField::h0,    NeuronField::n0,
    NeuronField::capacitance, NeuronField::g_na, NeuronField::g_k,   NeuronField::g_leak,
    NeuronField::e_na,        NeuronField::e_k,  NeuronField::e_leak};

inline const char* to_string(NeuronField field) noexcept {
  constexpr const char* names[neuron_field_count] = {
      "v0", "m0", "h0", "n0", "capacitance", "g_na", "g_k", "g_leak", "e_na", "e_k", "e_leak"};
  return names[static_cast<int>(field)];
}

// The command-line option of a field's run-wide value (`portasim hh`), which messages name.
inline const char* option_of(NeuronField field) noexcept {
  constexpr const char* options[neuron_field_count] = {
      "--v0-mv", "--m0",     "--h0",   "--n0",  "--capacitance", "--g-na",
      "--g-k",   "--g-leak", "--e-na", "--e-k", "--e-leak"};
  return options[static_cast<int>(field)];
}

inline bool is_gate(NeuronField field) noexcept {
  return field == NeuronField::m0 || field == NeuronField::h0 || field == NeuronField::n0;
}

// The run-wide value of a field.
inline double& scalar_of(Parameters& p, InitialState& s, NeuronField field) noexcept {
  switch (field) {
    case NeuronField::v0: return s.v0;
    case NeuronField::m0: return s.m0;
    case NeuronField::h0: return s.h0;
    case NeuronField::n0: return s.n0;
    case NeuronField::capacitance: return p.capacitance;
    case NeuronField::g_na: return p.g_na;
    case NeuronField::g_k: return p.g_k;
    case NeuronField::g_leak: return p.g_leak;
    case NeuronField::e_na: return p.e_na;
    case NeuronField::e_k: return p.e_k;
    case NeuronField::e_leak: break;
  }
  return p.e_leak;
}

// The values a field allows: V0 and reversal potentials finite, gates in [0, 1] or NaN (the
// steady state at V0), capacitance finite and > 0, conductances finite and >= 0. Plain
// arithmetic instead of std::isnan/isfinite, so that device code can call it.
KOKKOS_INLINE_FUNCTION bool is_allowed_value(NeuronField field, double value) noexcept {
  const bool nan = value != value;
  const bool finite = !nan && value - value == 0.0;
  switch (field) {
    case NeuronField::m0:
    case NeuronField::h0:
    case NeuronField::n0: return nan || (value >= 0.0 && value <= 1.0);
    case NeuronField::capacitance: return finite && value > 0.0;
    case NeuronField::g_na:
    case NeuronField::g_k:
    case NeuronField::g_leak: return finite && value >= 0.0;
    default: return finite;
  }
}

inline const char* allowed_values(NeuronField field) noexcept {
  switch (field) {
    case NeuronField::m0:
    case NeuronField::h0:
    case NeuronField::n0: return "in [0, 1], or NaN for the steady state at V0";
    case NeuronField::capacitance: return "finite and > 0";
    case NeuronField::g_na:
    case NeuronField::g_k:
    case NeuronField::g_leak: return "finite and >= 0";
    default: return "finite";
  }
}

}  // namespace portasim::hh
