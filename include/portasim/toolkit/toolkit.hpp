#pragma once
// Umbrella header of the toolkit module: what a CuPy user reaches for, over Kokkos Views.

#include "portasim/toolkit/broadcast.hpp"
#include "portasim/toolkit/elementwise.hpp"
#include "portasim/toolkit/expression.hpp"
#include "portasim/toolkit/launch_shape.hpp"
#include "portasim/toolkit/linalg.hpp"
#include "portasim/toolkit/reduction.hpp"
