#pragma once
// The host instruction set this build was compiled for (PORTASIM_CPU_ARCH) and whether the
// CPU running it has it. A program whose CPU lacks a required feature stops before any of
// its code runs, with a message naming what is missing and exit status 5, instead of dying
// on an illegal instruction later (src/core/cpu_check.cpp).

#include <string>
#include <vector>

namespace portasim {

struct CpuFeatures {
  std::string arch;                   // the -march level, "none" for the compiler's default
  std::vector<std::string> required;  // features the build lets the compiler use
  std::vector<std::string> missing;   // of those, the ones this CPU lacks (empty to run)
};

CpuFeatures cpu_features();

namespace impl {
// Does nothing; Runtime calls it so that every program links the check's constructor.
void link_cpu_check() noexcept;
}  // namespace impl

}  // namespace portasim
