#!/usr/bin/env bash
# The README's main-job command: on a fresh Debian 12 machine, installs and builds
# everything for a preset (default openmp), then runs every module on a small default
# problem, leaving HDF5/JSON results and PNG pictures in an output folder (default out/).
# usage: scripts/run_main.sh [--preset openmp|cuda] [--output DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

preset=openmp
out=out
while [ $# -gt 0 ]; do
  case $1 in
    --preset) preset=$2; shift 2 ;;
    --output) out=$2; shift 2 ;;
    *) echo "usage: $0 [--preset openmp|cuda] [--output DIR]" >&2; exit 2 ;;
  esac
done

scripts/bootstrap.sh "$preset"
cmake --preset "$preset"
cmake --build --preset "$preset"
mkdir -p "$out"
portasim=build/$preset/src/cli/portasim

echo "== portasim info" >&2
"$portasim" info --output "$out/info.json"

echo "== hh: f-I sweep of 200 neurons over 0..20 uA/cm^2, 200 ms, V every 10 steps" >&2
"$portasim" hh --neurons 200 --amplitude 0:20 --t-ms 200 --dt-ms 0.01 --record v --every 10 \
  --output "$out/hh_sweep.h5"
/usr/bin/python3 scripts/plot_hh.py "$out/hh_sweep.h5" --output-prefix "$out/hh_sweep"

echo "== life: 256 x 256 torus, 200 generations in chunks of 50, .npy chunk files and HDF5" >&2
"$portasim" life --width 256 --height 256 --steps 200 --chunk-size 50 --seed 42 --output "$out/life.npy"
"$portasim" life --width 256 --height 256 --steps 200 --chunk-size 50 --seed 42 --engine bits --output "$out/life.h5"
/usr/bin/python3 scripts/render_life.py "$out/life.h5" --prefix "$out/life"

echo "== toolkit: elementwise, softplus, L2 norms, matmul three ways, trace, SVD; checked and timed" >&2
"$portasim" toolkit --n 1000000 --rows 500 --cols 400 --matrix-n 256 --svd-n 200 --repeat 10 --output "$out/toolkit.h5"
/usr/bin/python3 scripts/plot_toolkit.py "$out/toolkit.h5" --output-prefix "$out/toolkit"

echo "== sfap: MyoGen's 20-fiber, 4-electrode example (tests/data/sfap) and a motor unit built here" >&2
"$portasim" sfap --input tests/data/sfap/r1_20f_4e_dz0p1.h5 --output "$out/sfap_r1.h5"
/usr/bin/python3 scripts/plot_sfap.py "$out/sfap_r1.h5" --output "$out/sfap_r1"
"$portasim" sfap-input --fibers 50 --territory-radius-mm 1.5 --muscle-length-mm 40 --electrodes 5 \
  --electrode-start-mm 0,0.5,16 --seed 7 --output "$out/motor_unit.h5"
"$portasim" sfap --input "$out/motor_unit.h5" --output "$out/sfap_motor_unit.h5"
/usr/bin/python3 scripts/plot_sfap.py "$out/sfap_motor_unit.h5" --output "$out/sfap_motor_unit"

echo "== examples/jobs.cpp: the library called from C++ (HH into memory, Life into a callback)" >&2
build/$preset/examples/portasim_example_jobs | tee "$out/example_jobs.txt"

echo "== examples/python: the Python package (MyoGen's one-line change, an f-I curve, a Life callback)" >&2
for example in motor_unit_sfaps hh_fi_curve life_chunk_callback; do
  PYTHONPATH=build/$preset/python /usr/bin/python3 "examples/python/$example.py" --output "$out" |
    tee -a "$out/examples_python.txt"
done

echo "== outputs in $out/:" >&2
ls -l "$out" >&2
