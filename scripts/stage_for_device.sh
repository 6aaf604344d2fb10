#!/usr/bin/env bash
# Gathers what a build needs to run on the GPU machine (which has the CUDA driver, cuBLAS and
# CMake, but not Debian's HDF5 and friends) into one folder to carry there: the executables
# and the shared libraries they load that are not part of the base system or of CUDA.
# usage: scripts/stage_for_device.sh [BUILD_DIR] [STAGE_DIR]   (default build/cuda .device)
# On the device: export LD_LIBRARY_PATH=$PWD/.device/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build/cuda}
stage=${2:-.device}
[ -d "$build" ] || { echo "no build folder $build" >&2; exit 1; }
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib"

mapfile -t executables < <(find "$build" -type f -executable \
  \( -name 'portasim' -o -name 'portasim_tests_*' -o -name 'portasim_bench_*' \) -not -path '*/CMakeFiles/*')
for exe in "${executables[@]}"; do
  cp "$exe" "$stage/bin/"
  strip --strip-debug "$stage/bin/$(basename "$exe")" 2>/dev/null || true
done

# PORTASIM_STAGE_HOST=build/openmp also stages that build's benchmarks under bin/host/, to
# measure the OpenMP backend on the GPU machine's CPU (perf/run_gpu_suite.sh part cpu).
if [ -n "${PORTASIM_STAGE_HOST:-}" ]; then
  mkdir -p "$stage/bin/host"
  while IFS= read -r exe; do
    cp "$exe" "$stage/bin/host/"
    strip --strip-debug "$stage/bin/host/$(basename "$exe")" 2>/dev/null || true
    executables+=("$exe")
  done < <(find "$PORTASIM_STAGE_HOST" -type f -executable -name 'portasim_bench_*' -not -path '*/CMakeFiles/*')
fi

# The Python package built for the GPU machine's interpreter (-DPORTASIM_PYTHON_OTHER, see
# docs/python.md), as $stage/python/portasim: PYTHONPATH=$stage/python there.
if [ -d "$build/python-other/portasim" ]; then
  mkdir -p "$stage/python"
  cp -r "$build/python-other/portasim" "$stage/python/"
  strip --strip-debug "$stage"/python/portasim/*.so 2>/dev/null || true
  executables+=("$stage"/python/portasim/*.so)
fi

# Everything the base system or the CUDA installation provides stays behind.
keep_behind='^(linux-vdso|ld-linux|libc\.|libm\.|libmvec\.|libdl\.|librt\.|libpthread\.|libstdc\+\+|libgcc_s|libcuda\.|libcublas|libcudart|libcusolver|libcusparse|libnvJitLink|libnvidia)'
for exe in "${executables[@]}"; do
  ldd "$exe" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  if ! [[ $name =~ $keep_behind ]]; then cp -L "$path" "$stage/lib/$name"; fi
done
# The SFAP reference files, for the parity tests and the benchmark (point
# PORTASIM_SFAP_REFERENCE_DIR at $stage/reference/sfap): the small ones from tests/data, the
# benchmark-size one from shared/ beside the repository where it is.
mkdir -p "$stage/reference/sfap"
cp tests/data/sfap/*.h5 "$stage/reference/sfap/"
if [ -f ../shared/reference/sfap/bench_200f_25e_dz0p1.h5 ]; then
  cp ../shared/reference/sfap/bench_200f_25e_dz0p1.h5 "$stage/reference/sfap/"
fi
du -sh "$stage" >&2
ls "$stage/bin" "$stage/lib" >&2
