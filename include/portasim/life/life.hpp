#pragma once
// Umbrella header of the Game of Life module.

#include "portasim/life/engines.hpp"
#include "portasim/life/grid.hpp"
#include "portasim/life/patterns.hpp"
#include "portasim/life/rules.hpp"
#include "portasim/life/simulation.hpp"
