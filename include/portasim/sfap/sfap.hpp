#pragma once
// Umbrella header of the SFAP module (single-fiber action potentials, MyoGen's calc_sfaps).

#include "portasim/sfap/compute.hpp"
#include "portasim/sfap/hdf5_io.hpp"
#include "portasim/sfap/parameters.hpp"
#include "portasim/sfap/physics.hpp"
