#pragma once
// Umbrella header of the Hodgkin-Huxley module.

#include "portasim/hh/integrators.hpp"
#include "portasim/hh/neuron_values.hpp"
#include "portasim/hh/parameters.hpp"
#include "portasim/hh/rates.hpp"
#include "portasim/hh/simulation.hpp"
#include "portasim/hh/stimulus.hpp"
