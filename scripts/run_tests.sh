#!/usr/bin/env bash
# The README's test command: on a fresh Debian 12 machine, installs and builds everything,
# then runs the whole test suite on the OpenMP preset (OpenMP + Serial backends) and
# compiles (without running: no GPU here) the cuda preset, so CUDA-only breakage shows.
# PORTASIM_SKIP_CUDA=1 skips the CUDA compile (machines without nvcc).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

with_cuda=1
if [ "${PORTASIM_SKIP_CUDA:-0}" = 1 ]; then with_cuda=0; fi
if [ $with_cuda = 1 ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "[tests] nvcc not found: skipping the cuda preset compile" >&2
  with_cuda=0
fi

presets=(openmp)
[ $with_cuda = 0 ] || presets+=(cuda)
scripts/bootstrap.sh "${presets[@]}"

cmake --preset openmp
cmake --build --preset openmp
ctest --preset openmp

if [ $with_cuda = 1 ]; then
  echo "[tests] compiling the cuda preset (tests run on a GPU machine, see README)" >&2
  cmake --preset cuda
  cmake --build --preset cuda
fi
