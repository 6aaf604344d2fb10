#pragma once
// The linear algebra of the toolkit: matmul three ways, trace, norms, SVD.

#include "portasim/toolkit/matmul.hpp"
#include "portasim/toolkit/norms.hpp"
#include "portasim/toolkit/svd.hpp"
#include "portasim/toolkit/trace.hpp"
