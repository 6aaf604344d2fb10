#!/usr/bin/env bash
# Installs everything portasim builds against, idempotently:
#   1. Debian packages (compilers' companions, HDF5, GoogleTest, Benchmark, CLI11, OpenMPI,
#      Python plotting stack, clang-format);
#   2. Kokkos 3.4.01 + Kokkos Kernels 3.4.01 taken from Debian's trilinos 13.2 *source*
#      package (the only registry copy), patched for CUDA 13 / Hopper, built per preset into
#      a cache outside the repository and reused when its stamp matches.
#
# usage: scripts/bootstrap.sh [openmp|openmp-native|cuda|sanitize|all ...]   (default: openmp)
# env:   PORTASIM_DEPS_DIR  cache root (default ~/.cache/portasim; the presets assume it)
#        PORTASIM_SKIP_APT=1 skip the Debian package step
#        PORTASIM_JOBS       parallel build jobs (default: nproc)
# Users who bring their own Kokkos (Spack, modules) do not run this: they point CMake at it
# with -DKokkos_ROOT=... and -DKokkosKernels_ROOT=...
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${PORTASIM_DEPS_DIR:-$HOME/.cache/portasim}
jobs=${PORTASIM_JOBS:-$(nproc)}
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(openmp)
[ "${presets[0]}" != all ] || presets=(openmp cuda)

log() { printf '[bootstrap] %s\n' "$*" >&2; }
die() { printf '[bootstrap] error: %s\n' "$*" >&2; exit 1; }

for p in "${presets[@]}"; do
  case $p in openmp|openmp-native|cuda|sanitize) ;; *) die "unknown preset '$p' (expected openmp, openmp-native, cuda, sanitize or all)";; esac
done

# --- 1. Debian packages -------------------------------------------------------------------
debian_packages=(
  build-essential cmake ninja-build pkg-config dpkg-dev patch
  libhdf5-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  libopenmpi-dev openmpi-bin liblapacke-dev libopenblas-dev
  libopenblas-openmp-dev  # the host BLAS of Kokkos Kernels (select_openmp_openblas)
  python3-numpy python3-h5py python3-matplotlib
  python3-dev python3-pybind11 pybind11-dev python3-pytest  # the Python package (python/) and its tests
  ffmpeg  # scripts/render_life.py's MP4; its ffprobe checks the MP4 in tests/scripts
  clang libclang-rt-dev  # libFuzzer and its sanitizer runtimes (scripts/run_fuzzers.sh)
  ccache  # CI: objects of unchanged sources come from ~/.cache/portasim/ccache
  clang-format  # scripts/check_format.sh: the layout of .clang-format (clang-format 14)
  qemu-user  # tests/cli/test_cli_cpu_check.sh runs portasim on an emulated CPU without AVX2
)
install_debian_packages() {
  local missing=()
  for pkg in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -gt 0 ] || { log "Debian packages present"; return; }
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# OpenBLAS built with OpenMP as the system's libblas/liblapack: it shares libgomp's thread pool
# with Kokkos' OpenMP backend (no second pool spinning beside it), follows the threads Kokkos
# is given, and runs single-threaded when called inside a parallel region. Debian's
# alternatives prefer the pthread build, so select this one; NumPy follows it too.
select_openmp_openblas() {
  local dir=/usr/lib/x86_64-linux-gnu/openblas-openmp sudo=""
  [ -d "$dir" ] || die "libopenblas-openmp-dev is not installed ($dir is missing)"
  [ "$(id -u)" = 0 ] || sudo=sudo
  local name
  for name in libblas.so.3 liblapack.so.3 libopenblas.so.0 libblas.so liblapack.so libopenblas.so; do
    local link=$name-x86_64-linux-gnu
    [ "$(readlink -f "/etc/alternatives/$link")" = "$(readlink -f "$dir/$name")" ] && continue
    log "selecting $dir/$name for $name"
    $sudo update-alternatives --quiet --set "$link" "$dir/$name"
  done
}

# --- 2. Kokkos sources from the trilinos source package ----------------------------------
trilinos_version=13.2.0
src_root=$deps/src/trilinos-$trilinos_version
# Only the 3.4 patches: those for other releases (scripts/patches/kokkos-<version>/, used by
# scripts/check_kokkos.sh) do not touch this build.
patch_hash=$( { find "$repo/scripts/patches/kokkos" "$repo/scripts/patches/kokkos-kernels" -type f -name '*.patch' 2>/dev/null || true; } | sort | xargs -r cat | sha256sum | cut -c1-16)

fetch_sources() {
  if [ -f "$src_root/.stamp" ] && [ "$(cat "$src_root/.stamp")" = "$patch_hash" ]; then
    log "patched Kokkos sources present in $src_root"; return
  fi
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  local tarball
  tarball=$(ls "$deps"/download/trilinos_${trilinos_version}.orig.tar.* 2>/dev/null | head -1 || true)
  if [ -z "$tarball" ]; then
    if ! apt-get source --print-uris trilinos 2>/dev/null | grep -q "orig.tar"; then
      log "adding a deb-src entry for bookworm"
      $sudo tee /etc/apt/sources.list.d/portasim-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
      $sudo apt-get update -qq
    fi
    mkdir -p "$deps/download"
    log "downloading Debian source package trilinos ($trilinos_version)"
    (cd "$deps/download" && apt-get source --download-only -qq trilinos >/dev/null)
    tarball=$(ls "$deps"/download/trilinos_${trilinos_version}.orig.tar.* | head -1)
  fi
  log "extracting packages/kokkos and packages/kokkos-kernels"
  rm -rf "$src_root" "$deps/src/extract"
  mkdir -p "$deps/src/extract"
  tar -xf "$tarball" -C "$deps/src/extract" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  mkdir -p "$src_root"
  mv "$deps"/src/extract/*/packages/kokkos "$deps"/src/extract/*/packages/kokkos-kernels "$src_root/"
  rm -rf "$deps/src/extract"
  chmod -R u+w "$src_root"
  for component in kokkos kokkos-kernels; do
    for p in "$repo"/scripts/patches/$component/*.patch; do
      [ -e "$p" ] || continue
      log "patching $component: $(basename "$p")"
      patch -p1 --forward --quiet -d "$src_root/$component" < "$p"
    done
  done
  echo "$patch_hash" > "$src_root/.stamp"
}

# --- 3. Build Kokkos + Kokkos Kernels for one preset -------------------------------------
# Flags per preset; the stamp includes them so a changed flag triggers a rebuild.
kokkos_flags() {
  case $1 in
    openmp*) echo "-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON" ;;
    cuda) echo "-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_COMPILER=$src_root/kokkos/bin/nvcc_wrapper" ;;
  esac
}
# Host gemm goes to the system's BLAS (select_openmp_openblas), and LAPACK with it (Kokkos
# Kernels' host BLAS wrappers also call trtri): through libblas.so and liblapack.so, so the
# library the alternatives select is the one loaded. Fortran names get a trailing
# underscore, given here so that CMake does not enable Fortran to find out.
kernels_flags() {
  case $1 in
    cuda) echo "-DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DCMAKE_CXX_COMPILER=$2/bin/nvcc_wrapper" ;;
    *) echo "-DKokkosKernels_ENABLE_TPL_BLAS=ON -DKokkosKernels_ENABLE_TPL_LAPACK=ON -DBLAS_LIBRARIES=blas -DBLAS_LIBRARY_DIRS=/usr/lib/x86_64-linux-gnu -DLAPACK_LIBRARIES=lapack -DLAPACK_LIBRARY_DIRS=/usr/lib/x86_64-linux-gnu -DF77_BLAS_MANGLE=(name,NAME)name##_" ;;
  esac
}

# The host instruction set Kokkos is compiled for: that of the preset's PORTASIM_CPU_ARCH
# (cmake/portasim_cpu_arch.cmake), given as CMAKE_CXX_FLAGS because Kokkos 3.4's own host
# arches have neither x86-64-v3 nor native. CUDA builds keep the compiler's default.
cpu_arch() {
  case $1 in
    openmp) echo x86-64-v3 ;;
    openmp-native) echo native ;;
    *) echo none ;;
  esac
}

build_preset() {
  local preset=$1 flavour=$1
  [ "$preset" != sanitize ] || flavour=openmp   # sanitizers instrument our code, not Kokkos
  local prefix=$deps/kokkos-$flavour
  local arch; arch=$(cpu_arch "$flavour")
  local common="-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON"
  [ "$arch" = none ] || common="$common -DCMAKE_CXX_FLAGS=-march=$arch"
  local stamp="$patch_hash|$common|$(kokkos_flags "$flavour")|$(kernels_flags "$flavour" "$prefix")"
  if [ -f "$prefix/.stamp" ] && [ "$(cat "$prefix/.stamp")" = "$stamp" ]; then
    log "Kokkos ($flavour) cached in $prefix"; return
  fi
  if [ "$flavour" = cuda ]; then
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "the cuda preset needs nvcc (CUDA 12.x/13.x in /usr/local/cuda)"
    export PATH=/usr/local/cuda/bin:$PATH
  fi
  rm -rf "$prefix" "$deps/build-$flavour"
  log "building Kokkos ($flavour) into $prefix"
  # shellcheck disable=SC2046
  cmake -S "$src_root/kokkos" -B "$deps/build-$flavour/kokkos" -G Ninja $common \
        -DCMAKE_INSTALL_PREFIX="$prefix" $(kokkos_flags "$flavour") >"$deps/build-$flavour.log" 2>&1 \
    || die "Kokkos configure failed; see $deps/build-$flavour.log"
  cmake --build "$deps/build-$flavour/kokkos" -j "$jobs" >>"$deps/build-$flavour.log" 2>&1 \
    && cmake --install "$deps/build-$flavour/kokkos" >>"$deps/build-$flavour.log" 2>&1 \
    || die "Kokkos build failed; see $deps/build-$flavour.log"
  log "building Kokkos Kernels ($flavour, BLAS component, no default ETI)"
  # shellcheck disable=SC2046
  cmake -S "$src_root/kokkos-kernels" -B "$deps/build-$flavour/kernels" -G Ninja $common \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" \
        -DKokkosKernels_ENABLED_COMPONENTS=BLAS -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
        -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
        $(kernels_flags "$flavour" "$prefix") >>"$deps/build-$flavour.log" 2>&1 \
    || die "Kokkos Kernels configure failed; see $deps/build-$flavour.log"
  cmake --build "$deps/build-$flavour/kernels" -j "$jobs" >>"$deps/build-$flavour.log" 2>&1 \
    && cmake --install "$deps/build-$flavour/kernels" >>"$deps/build-$flavour.log" 2>&1 \
    || die "Kokkos Kernels build failed; see $deps/build-$flavour.log"
  rm -rf "$deps/build-$flavour"
  echo "$arch" > "$prefix/portasim-cpu-arch"  # CMakeLists.txt compares it with PORTASIM_CPU_ARCH
  echo "$stamp" > "$prefix/.stamp"
  log "Kokkos ($flavour) ready in $prefix"
}

[ "${PORTASIM_SKIP_APT:-0}" = 1 ] || { install_debian_packages; select_openmp_openblas; }
fetch_sources
for p in "${presets[@]}"; do build_preset "$p"; done
