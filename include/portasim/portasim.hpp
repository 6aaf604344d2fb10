#pragma once
// Umbrella header of all of portasim.

#include "portasim/core/core.hpp"
#include "portasim/distributed/distributed.hpp"
#include "portasim/hh/hh.hpp"
#include "portasim/life/life.hpp"
#include "portasim/sfap/sfap.hpp"
#include "portasim/toolkit/toolkit.hpp"
