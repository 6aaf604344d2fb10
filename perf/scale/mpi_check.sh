#!/usr/bin/env bash
# Multi-rank runs against single-rank runs on whatever machine this is (a GPU machine: one
# rank per GPU), for machines where tests/mpi/test_mpi_cli.sh cannot run (no h5py): Life's
# .npy chunk files are compared here byte for byte; every output is kept under OUT/mpi_check
# for compare_outputs.py (HH exactly, SFAP bit for bit or within 1e-12, Life HDF5 exactly).
# usage: perf/scale/mpi_check.sh PORTASIM OUT RANKS [SFAP_REFERENCE_FILE]
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # before any cd: the script may be called by a relative path
portasim=$1 out=$2 ranks=$3 ref=${4:-}
dir=$out/mpi_check
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
status=0
mpi() { mpirun -n "$ranks" --bind-to none "$portasim" "$@"; }
single() { PORTASIM_MPI=0 "$portasim" "$@"; }
for run in single mpi; do
  mkdir -p $run
  $run life --width 1000 --height 777 --steps 30 --chunk-size 10 --seed 5 --density 0.3 --output $run/life.npy --quiet || status=1
  $run life --width 1024 --height 999 --engine bits --boundary dead --steps 30 --chunk-size 10 --every 3 --packed --seed 7 \
       --output $run/life_bits.h5 --quiet || status=1
  $run hh --neurons 1001 --t-ms 20 --amplitude 0:15 --noise-sd 0.5 --seed 3 --record all --every 10 --precision f64 \
       --output $run/hh.h5 --quiet || status=1
  $run hh --neurons 999 --t-ms 20 --amplitude 5:12 --integrator rk45 --record v --output $run/hh_rk45.h5 --quiet || status=1
  [ -n "$ref" ] && { $run sfap --input "$ref" --output $run/sfap.h5 --quiet || status=1; }
done
for f in single/life_*.npy; do cmp -s "$f" "mpi/$(basename "$f")" || { echo "DIFFERS: $f"; status=1; }; done
echo "life npy chunk files: $(ls single/life_*.npy | wc -l) compared byte for byte, status $status"
rm -f single/life_*.npy mpi/life_*.npy  # compared here; keep what comes back small
if /usr/bin/env python3 -c "import h5py" 2>/dev/null; then
  python3 "$here/compare_outputs.py" single mpi || status=1
else
  echo "no h5py here: compare with perf/scale/compare_outputs.py $dir/single $dir/mpi on the build machine"
fi
exit $status
