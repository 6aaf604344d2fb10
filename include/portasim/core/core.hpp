#pragma once
// Umbrella header of the core module.

#include "portasim/config.hpp"
#include "portasim/core/benchmark.hpp"
#include "portasim/core/build_info.hpp"
#include "portasim/core/compat.hpp"
#include "portasim/core/counter_rng.hpp"
#include "portasim/core/device_selection.hpp"
#include "portasim/core/error.hpp"
#include "portasim/core/event.hpp"
#include "portasim/core/event_timer.hpp"
#include "portasim/core/execution_spaces.hpp"
#include "portasim/core/huge_pages.hpp"
#include "portasim/core/instance_pool.hpp"
#include "portasim/core/memory_pool.hpp"
#include "portasim/core/memory_spaces.hpp"
#include "portasim/core/mirrored_view.hpp"
#include "portasim/core/mpi/mpi.hpp"
#include "portasim/core/nvtx_connector.hpp"
#include "portasim/core/ordering.hpp"
#include "portasim/core/pinned_staging.hpp"
#include "portasim/core/pool_limit.hpp"
#include "portasim/core/pooled_view.hpp"
#include "portasim/core/profiling_region.hpp"
#include "portasim/core/runtime.hpp"
#include "portasim/core/stream_ordered_pool.hpp"
#include "portasim/core/transfers.hpp"

#if defined(PORTASIM_ENABLE_HDF5)
#include "portasim/core/hdf5_file.hpp"
#endif
