#pragma once
// Umbrella header of the MPI layer (available in builds without MPI as a single rank).
#include "portasim/core/mpi/communicator.hpp"
#include "portasim/core/mpi/partition.hpp"
