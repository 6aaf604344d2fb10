#!/usr/bin/env bash
# Stages Debian's OpenMPI 4.1 (mpirun, libmpi, its MCA plugins, PMIx and their runtime
# libraries that a bare CUDA machine lacks) into a private folder, for running
# `mpirun -n N portasim ...` on a machine without OpenMPI installed (the GPU machines).
# usage: scripts/stage_openmpi_prefix.sh [PREFIX]     (default .openmpi)
# then, on either machine: source PREFIX/env.sh && mpirun -n 2 ...
# Needs apt (apt-get download; no root needed beyond a current package list) and dpkg-deb.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
prefix=${1:-.openmpi}
# The runtime closure of openmpi-bin + libopenmpi3, less what every Debian/Ubuntu base image
# has (libc6, libgcc-s1, libstdc++6, zlib1g, libudev1, libuuid1, ...).
packages=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libevent-core-2.1-7 libevent-pthreads-2.1-7
          libhwloc15 libfabric1 libibverbs1 ibverbs-providers librdmacm1 libnl-3-200 libnl-route-3-200
          libpsm-infinipath1 libpsm2-2 libucx0 libnuma1 libmunge2 libatomic1)
downloads=$(mktemp -d)
trap 'rm -rf "$downloads"' EXIT
chmod 777 "$downloads"  # apt drops to the _apt user for downloads
(cd "$downloads" && apt-get download "${packages[@]}" > /dev/null)
rm -rf "$prefix"
mkdir -p "$prefix"
for deb in "$downloads"/*.deb; do dpkg-deb -x "$deb" "$prefix"; done
root=$(cd "$prefix" && pwd)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
# Debian's alternatives would point mpirun at mpirun.openmpi -> orterun; make them local.
for tool in mpirun mpiexec; do ln -sf orterun "$root/usr/bin/$tool"; done

cat > "$prefix/env.sh" <<ENV
# Source this file: OpenMPI from this folder (relocated with OPAL_PREFIX and its friends).
_p=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$_p/usr
export OPAL_SYSCONFDIR=\$_p/etc/openmpi
export OPAL_PKGDATADIR=\$_p/usr/share/openmpi
export OPAL_LIBDIR=\$_p/usr/lib/$multiarch/openmpi/lib
export OPAL_PKGLIBDIR=\$_p/usr/lib/$multiarch/openmpi/lib/openmpi3
export PMIX_PREFIX=\$_p/usr/lib/$multiarch/pmix2
export PMIX_MCA_mca_base_component_path=\$_p/usr/lib/$multiarch/pmix2/lib/pmix
export HWLOC_PLUGINS_PATH=\$_p/usr/lib/$multiarch/hwloc
export PATH=\$_p/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$_p/usr/lib/$multiarch/openmpi/lib:\$_p/lib/$multiarch:\$_p/usr/lib/$multiarch:\$_p/usr/lib/$multiarch/libfabric:\${LD_LIBRARY_PATH:-}
# Containers: no cross-memory attach for the shared-memory transport; run as root if need be.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset _p
ENV
# Every library of mpirun and libmpi must resolve inside the prefix or the base system.
missing=$(source "$prefix/env.sh" && for f in "$root/usr/bin/orterun" "$root/usr/lib/$multiarch/libmpi.so.40" \
  "$root"/usr/lib/$multiarch/openmpi/lib/openmpi3/*.so; do ldd "$f" | grep "not found" || true; done | sort -u)
[ -z "$missing" ] || { echo "stage_openmpi_prefix: unresolved libraries:" >&2; echo "$missing" >&2; }
du -sh "$prefix" >&2
echo "staged OpenMPI in $prefix; use: source $prefix/env.sh" >&2
