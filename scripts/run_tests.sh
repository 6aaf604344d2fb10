#!/usr/bin/env bash
# The README's test command: on a fresh Debian 12 machine, installs and builds everything,
# then
#   0. checks the C++ sources' layout against .clang-format (scripts/check_format.sh; seconds,
#      so that unformatted code fails before any build),
#   1. builds and runs the whole test suite on the OpenMP preset (OpenMP + Serial backends),
#   2. builds and runs it again under AddressSanitizer + UndefinedBehaviorSanitizer (the
#      sanitize preset: no benchmarks),
#   3. runs the libFuzzer targets for a bounded time (scripts/run_fuzzers.sh),
#   4. compiles (without running: no GPU here) the cuda preset, so CUDA-only breakage shows:
#      as the cuda-check preset, the cuda preset with the host compiler's optimizer off (the
#      same sources, options and device code; 7.6-8.1 instead of 10.7-11.4 minutes in CI),
# and prints the reliability counts (scripts/reliability_counts.py).
# PORTASIM_SKIP_CUDA=1 skips the CUDA compile (machines without nvcc); PORTASIM_SKIP_SANITIZE=1
# the sanitizer build; PORTASIM_FUZZ_SECONDS (default 30 per target, 0 = skip) bounds fuzzing.
# Compilations go through ccache (in the bootstrap cache, ~/.cache/portasim/ccache) when it
# is installed, so a CI run that changed little recompiles little.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

with_cuda=1
if [ "${PORTASIM_SKIP_CUDA:-0}" = 1 ]; then with_cuda=0; fi
if [ $with_cuda = 1 ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "[tests] nvcc not found: skipping the cuda preset compile" >&2
  with_cuda=0
fi
with_sanitize=1
[ "${PORTASIM_SKIP_SANITIZE:-0}" != 1 ] || with_sanitize=0
fuzz_seconds=${PORTASIM_FUZZ_SECONDS:-30}

presets=(openmp)
[ $with_sanitize = 0 ] || presets+=(sanitize)
[ $with_cuda = 0 ] || presets+=(cuda)
scripts/bootstrap.sh "${presets[@]}"
scripts/check_format.sh

deps=${PORTASIM_DEPS_DIR:-$HOME/.cache/portasim}
if command -v ccache >/dev/null; then
  export CCACHE_DIR=${CCACHE_DIR:-$deps/ccache} CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  # Read by CMake when a build folder is configured for the first time (nvcc_wrapper too:
  # ccache hashes its preprocessed output like a host compiler's).
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
stamp() { date +%s; }
declare -A seconds

t=$(stamp)
cmake --preset openmp
cmake --build --preset openmp
ctest --preset openmp
seconds[openmp]=$(($(stamp) - t))
logs=(build/openmp/Testing/Temporary/LastTest.log)

if [ $with_sanitize = 1 ]; then
  echo "[tests] the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer" >&2
  t=$(stamp)
  cmake --preset sanitize
  cmake --build --preset sanitize
  ctest --preset sanitize
  seconds[sanitize]=$(($(stamp) - t))
fi

if [ "$fuzz_seconds" != 0 ]; then
  echo "[tests] fuzzing each reader for $fuzz_seconds s" >&2
  t=$(stamp)
  scripts/run_fuzzers.sh "$fuzz_seconds" | tee build/fuzz.log
  seconds[fuzz]=$(($(stamp) - t))
  logs+=(build/fuzz.log)
fi

if [ $with_cuda = 1 ]; then
  echo "[tests] compiling the cuda preset, host code at -O0 (tests run on a GPU machine, see README)" >&2
  t=$(stamp)
  cmake --preset cuda-check
  cmake --build --preset cuda-check
  seconds[cuda]=$(($(stamp) - t))
fi

echo "[tests] reliability counts (openmp suite$([ "$fuzz_seconds" = 0 ] || echo ' and fuzzing')):"
scripts/reliability_counts.py "${logs[@]}"
for step in "${!seconds[@]}"; do echo "[tests] $step: ${seconds[$step]} s"; done
