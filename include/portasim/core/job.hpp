#pragma once
// What every job of the library (sfap::run_job, ...) is given besides its spec and its
// execution-space instance: the ranks it runs over, and hooks for a front end. A job is the
// whole of what a command runs (validate, read, compute, split over ranks, write, summarise),
// so that a program linking portasim or the Python package runs exactly what `portasim CMD`
// runs. MPI is a property of the context, not a second code path: the same run function
// serves one rank (the default communicator) and many.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "portasim/core/mpi/communicator.hpp"

namespace portasim {

struct JobContext {
  // The ranks the job is split over; the default is the single rank of a process without MPI.
  // Outputs are written, and reports are complete, on the root.
  mpi::Communicator comm;
  // Called on the root with the fraction of the work done, from 0 to 1 (may be empty).
  std::function<void(double fraction)> progress;
  // Called when the job creates a temporary output file that it renames into place once
  // complete; the returned object is held until then. A front end uses it to remove the
  // temporary when the process is stopped by a signal (may be empty).
  std::function<std::shared_ptr<void>(const std::string& temporary_path)> guard_temporary;

  void report_progress(double fraction) const {
    if (progress && comm.is_root()) progress(fraction);
  }
  std::shared_ptr<void> guard(const std::string& temporary_path) const {
    return guard_temporary ? guard_temporary(temporary_path) : nullptr;
  }
};

// What every job report carries besides its module's figures.
struct JobSummary {
  std::string backend;  // the execution space's name
  int ranks = 1;
  double seconds = 0;                 // wall time of the computation (the slowest rank)
  std::string output_path;            // the file written on the root, or empty
  std::vector<std::string> warnings;  // for people: a front end prints them
};

}  // namespace portasim
