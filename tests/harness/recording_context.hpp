#pragma once
// A JobContext that records what a job tells its front end: the progress fractions and the
// temporary output files it guards (guarding nothing, so the job's own clean-up is what a
// test sees).

#include <memory>
#include <string>
#include <vector>

#include "portasim/core/job.hpp"

namespace portasim::testing {

struct RecordingContext {
  std::vector<double> progress;
  std::vector<std::string> temporaries;
  JobContext context;

  RecordingContext() {
    context.progress = [this](double fraction) { progress.push_back(fraction); };
    context.guard_temporary = [this](const std::string& path) {
      temporaries.push_back(path);
      return std::shared_ptr<void>();
    };
  }
  // The hooks point into this object.
  RecordingContext(const RecordingContext&) = delete;
  RecordingContext& operator=(const RecordingContext&) = delete;
};

}  // namespace portasim::testing
