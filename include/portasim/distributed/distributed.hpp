#pragma once
// Umbrella header of the multi-rank (MPI) drivers of the modules. Every one works in builds
// without MPI too, as a single rank.
#include "portasim/core/mpi/mpi.hpp"
#include "portasim/distributed/hh.hpp"
#include "portasim/distributed/sfap.hpp"
