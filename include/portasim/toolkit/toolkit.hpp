#pragma once
// Umbrella header of the toolkit: what a CuPy user reaches for, in portable Kokkos.

#include "portasim/toolkit/linalg.hpp"
