#!/usr/bin/env bash
# Builds portasim against another Kokkos release and runs its test suite: the Kokkos that
# cluster users bring (Spack, modules) is usually 4.x, while the README's commands use the
# 3.4.01 that Debian's sources give.
#   1. copies the given Kokkos and Kokkos Kernels release sources into the cache, applies
#      the patches kept for that release (scripts/patches/kokkos-<version>/,
#      scripts/patches/kokkos-kernels-<version>/) and builds both with the project's flags
#      into ~/.cache/portasim/kokkos-<version>-<flavour> (a separate stamp: the 3.4 build
#      is left alone);
#   2. configures portasim against them in build/kokkos-<version>-<flavour>, builds it
#      and runs the suite with CTest (the cuda flavour builds only: run the CUDA tests on a
#      GPU machine, docs/building.md).
# For CUDA it checks first that this Kokkos release compiles with the installed CUDA, with
# its patches if any, and stops with a message naming the release that supports it.
#
# usage: scripts/check_kokkos.sh KOKKOS_SRC KOKKOS_KERNELS_SRC [openmp|cuda]
# env:   PORTASIM_DEPS_DIR (default ~/.cache/portasim), PORTASIM_JOBS (default nproc),
#        PORTASIM_CMAKE_ARGS extra arguments to portasim's configure (e.g.
#          "-DPORTASIM_ENABLE_BENCHMARKS=OFF"), PORTASIM_CTEST_ARGS extra ctest arguments
#          (e.g. "-L cli"), PORTASIM_BUILD_TARGETS the targets to build (default: all)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${PORTASIM_DEPS_DIR:-$HOME/.cache/portasim}
jobs=${PORTASIM_JOBS:-$(nproc)}
log() { printf '[check_kokkos] %s\n' "$*" >&2; }
die() { printf '[check_kokkos] error: %s\n' "$*" >&2; exit 1; }

[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: $0 KOKKOS_SRC KOKKOS_KERNELS_SRC [openmp|cuda]"
kokkos_src=$(cd "$1" 2>/dev/null && pwd) || die "no folder $1"
kernels_src=$(cd "$2" 2>/dev/null && pwd) || die "no folder $2"
flavour=${3:-openmp}
case $flavour in openmp|cuda) ;; *) die "unknown flavour '$flavour' (expected openmp or cuda)" ;; esac

# The release a source tree holds, from its top-level CMakeLists.txt (X.Y.ZZ, as tagged).
release_of() {
  local file=$1/CMakeLists.txt major minor patch
  [ -f "$file" ] || die "$1 is not a source tree (no CMakeLists.txt)"
  major=$(sed -nE 's/^set\((Kokkos|KokkosKernels)_VERSION_MAJOR ([0-9]+)\).*/\2/Ip' "$file" | head -1)
  minor=$(sed -nE 's/^set\((Kokkos|KokkosKernels)_VERSION_MINOR ([0-9]+)\).*/\2/Ip' "$file" | head -1)
  patch=$(sed -nE 's/^set\((Kokkos|KokkosKernels)_VERSION_PATCH ([0-9]+)\).*/\2/Ip' "$file" | head -1)
  [ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] || die "cannot read the release of $1 from $file"
  printf '%d.%d.%02d\n' "$major" "$minor" "$patch"
}
kokkos_version=$(release_of "$kokkos_src")
kernels_version=$(release_of "$kernels_src")
[ -f "$kokkos_src/core/src/Kokkos_Core.hpp" ] || die "$kokkos_src is not a Kokkos source tree"
[ -d "$kernels_src/blas" ] || die "$kernels_src is not a Kokkos Kernels source tree"
log "Kokkos $kokkos_version, Kokkos Kernels $kernels_version, $flavour"

# Kokkos releases before 4.7 use the CUDA 12 runtime API (kokkos/kokkos#8298 adapted Kokkos to
# CUDA 13 for 4.7). Such a release builds with CUDA 13 only with patches kept for it here.
kokkos_patches=$repo/scripts/patches/kokkos-$kokkos_version
kernels_patches=$repo/scripts/patches/kokkos-kernels-$kernels_version
if [ "$flavour" = cuda ]; then
  export PATH=/usr/local/cuda/bin:$PATH
  command -v nvcc >/dev/null || die "the cuda flavour needs nvcc (CUDA in /usr/local/cuda)"
  cuda_major=$(nvcc --version | sed -nE 's/.*release ([0-9]+)\..*/\1/p')
  older_than_4_7=$(printf '%s\n4.7.00\n' "$kokkos_version" | sort -V | head -1)
  if [ "${cuda_major:-0}" -ge 13 ] && [ "$older_than_4_7" = "$kokkos_version" ] &&
     [ "$kokkos_version" != 4.7.00 ] && [ ! -d "$kokkos_patches" ]; then
    die "Kokkos $kokkos_version does not compile with CUDA $cuda_major: it predates CUDA 13's runtime API (graph dependencies, memory advice and prefetch). The 4.7 series is the first written for CUDA 13 (kokkos/kokkos#8298); use it or newer, or add patches as scripts/patches/kokkos-$kokkos_version/ (see scripts/patches/kokkos-4.6.01/)"
  fi
fi

patch_files() { { find "$kokkos_patches" "$kernels_patches" -type f -name '*.patch' 2>/dev/null || true; } | sort; }
patch_hash=$(patch_files | xargs -r cat | sha256sum | cut -c1-16)
prefix=$deps/kokkos-$kokkos_version-$flavour
src_copy=$deps/src/kokkos-$kokkos_version+kernels-$kernels_version
common="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON"
case $flavour in
  openmp)
    kokkos_flags="-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON"
    kernels_flags="" ;;
  cuda)
    kokkos_flags="-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_COMPILER=$src_copy/kokkos/bin/nvcc_wrapper"
    # cuBLAS for gemm; Kokkos Kernels 4.x would also take cuSOLVER, which needs cuSPARSE:
    # portasim calls cuSOLVER itself.
    kernels_flags="-DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF -DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper" ;;
esac
stamp="$kokkos_src|$kernels_src|$patch_hash|$common|$kokkos_flags|$kernels_flags"

# --- 1. Kokkos and Kokkos Kernels ----------------------------------------------------------
if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$stamp" ]; then
  log "Kokkos $kokkos_version ($flavour) cached in $prefix"
else
  rm -rf "$src_copy" "$prefix" "$deps/build-$kokkos_version-$flavour"
  mkdir -p "$src_copy"
  cp -r "$kokkos_src" "$src_copy/kokkos"
  cp -r "$kernels_src" "$src_copy/kokkos-kernels"
  chmod -R u+w "$src_copy"
  for component in kokkos kokkos-kernels; do
    dir=$kokkos_patches
    [ $component = kokkos ] || dir=$kernels_patches
    for p in "$dir"/*.patch; do
      [ -e "$p" ] || continue
      log "patching $component: $(basename "$p")"
      patch -p1 --forward --quiet -d "$src_copy/$component" < "$p"
    done
  done
  build=$deps/build-$kokkos_version-$flavour
  log "building Kokkos $kokkos_version ($flavour) into $prefix (log: $build.log)"
  # shellcheck disable=SC2086
  { cmake -S "$src_copy/kokkos" -B "$build/kokkos" -G Ninja $common -DCMAKE_INSTALL_PREFIX="$prefix" $kokkos_flags &&
    cmake --build "$build/kokkos" -j "$jobs" && cmake --install "$build/kokkos"; } > "$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; die "Kokkos $kokkos_version did not build; see $build.log"; }
  log "building Kokkos Kernels $kernels_version ($flavour, BLAS component)"
  # shellcheck disable=SC2086
  { cmake -S "$src_copy/kokkos-kernels" -B "$build/kernels" -G Ninja $common -DCMAKE_INSTALL_PREFIX="$prefix" \
          -DKokkos_ROOT="$prefix" -DKokkosKernels_ENABLED_COMPONENTS=BLAS -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
          -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF $kernels_flags &&
    cmake --build "$build/kernels" -j "$jobs" && cmake --install "$build/kernels"; } >> "$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; die "Kokkos Kernels $kernels_version did not build; see $build.log"; }
  rm -rf "$build" "$src_copy/kokkos-kernels"
  echo "$stamp" > "$prefix/.stamp"
  log "Kokkos $kokkos_version ($flavour) ready in $prefix"
fi

# --- 2. portasim against it ------------------------------------------------------------------
binary=$repo/build/kokkos-$kokkos_version-$flavour
preset_flags=(-DPORTASIM_ENABLE_MPI=ON)
[ "$flavour" = openmp ] || preset_flags+=(-DPORTASIM_TEST_ONLY_BACKENDS=cuda -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
log "configuring portasim in $binary"
# shellcheck disable=SC2086
cmake -S "$repo" -B "$binary" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
      -DKokkosKernels_ROOT="$prefix" "${preset_flags[@]}" ${PORTASIM_CMAKE_ARGS:-}
targets=()
for t in ${PORTASIM_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$binary" -j "$jobs" "${targets[@]}"
if [ "$flavour" = cuda ]; then
  log "built; the CUDA tests run on a GPU machine (scripts/stage_for_device.sh $binary)"
  exit 0
fi
log "running the suite"
# shellcheck disable=SC2086
ctest --test-dir "$binary" --output-on-failure -j 2 --no-tests=error ${PORTASIM_CTEST_ARGS:-}
