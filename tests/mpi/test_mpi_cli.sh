#!/usr/bin/env bash
# usage: test_mpi_cli.sh MODULE RANKS PATH/TO/portasim MPIEXEC [SFAP_REFERENCE_DIR]
# Runs `MPIEXEC -n RANKS portasim MODULE ...` and the same command on one rank without MPI,
# and compares the outputs: every dataset bit for bit (Life byte for byte, HH and SFAP, the
# jittered MUAP included), and SFAP against MyoGen's reference within 1e-12.
set -u
module=$1 ranks=$2 portasim=$3 mpiexec=$4 reference=${PORTASIM_SFAP_REFERENCE_DIR:-${5:-}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
py=/usr/bin/python3
# h5py missing: FAIL in CI, skipped (exit 77) elsewhere.
source "$(dirname "${BASH_SOURCE[0]}")/../harness/require_tool.sh"
have_h5py "mpi.$module (the output comparisons)" || exit 77
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Containers often forbid the cross-memory attach that OpenMPI's shared-memory transport tries first.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi() { "$mpiexec" -n "$ranks" --oversubscribe "$portasim" "$@"; }
single() { PORTASIM_MPI=0 "$portasim" "$@"; }

# Compares every dataset (and its shape and dtype) of two HDF5 files exactly; NaN == NaN.
h5_equal() {
  $py - "$1" "$2" "${3:-exact}" <<'PY'
import sys, h5py, numpy as np
a, b, mode = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r"), sys.argv[3]
names = []
a.visit(lambda n: names.append(n) if isinstance(a[n], h5py.Dataset) else None)
other = []
b.visit(lambda n: other.append(n) if isinstance(b[n], h5py.Dataset) else None)
assert sorted(names) == sorted(other), (names, other)
bitwise = True
for n in names:
    x, y = a[n][()], b[n][()]
    assert x.shape == y.shape and x.dtype == y.dtype, (n, x.shape, y.shape, x.dtype, y.dtype)
    same = np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
    if not same:
        bitwise = False
        assert mode == "close" and x.dtype.kind == "f", (n, "differs")
        err = np.linalg.norm(x - y) / max(np.linalg.norm(y), 1e-300)
        assert err <= 1e-12, (n, err)
print("bitwise identical" if bitwise else "equal within 1e-12 (not bitwise)")
PY
}

case "$module" in
life)
  # Odd sizes (the cell-per-thread path), torus, npy chunk files: byte for byte.
  for args in "--width 37 --height 29 --boundary torus" "--width 64 --height 13 --boundary dead" \
              "--width 24 --height 7 --boundary torus"; do
    rm -rf one many && mkdir one many
    single life $args --steps 23 --chunk-size 5 --seed 5 --density 0.35 --output one/s.npy --quiet || fail "single $args"
    mpi life $args --steps 23 --chunk-size 5 --seed 5 --density 0.35 --output many/s.npy --quiet || fail "mpi $args"
    [ "$(ls one | wc -l)" -gt 4 ] || fail "$args: too few files"
    diff -r one many > /dev/null || fail "$args: chunk files differ"
  done
  # Bit-packed engine, dead border, HDF5, packed, every 3rd generation; and a glider.
  rm -f one.h5 many.h5
  single life --width 128 --height 21 --engine bits --boundary dead --steps 30 --chunk-size 4 --every 3 --packed --seed 9 --output one.h5 --quiet || fail "single bits"
  mpi life --width 128 --height 21 --engine bits --boundary dead --steps 30 --chunk-size 4 --every 3 --packed --seed 9 --output many.h5 --quiet || fail "mpi bits"
  h5_equal one.h5 many.h5 > /dev/null || fail "bits dead h5 differs"
  # Packed output of both engines (packed on the device before the gather), HDF5.
  for engine in byte bits; do
    rm -f one.h5 many.h5
    single life --width 192 --height 19 --engine $engine --boundary torus --steps 9 --chunk-size 4 --every 2 --packed --seed 4 --output one.h5 --quiet || fail "single packed $engine"
    mpi life --width 192 --height 19 --engine $engine --boundary torus --steps 9 --chunk-size 4 --every 2 --packed --seed 4 --output many.h5 --quiet || fail "mpi packed $engine"
    h5_equal one.h5 many.h5 > /dev/null || fail "packed $engine h5 differs"
  done
  printf '#N Glider\nx = 3, y = 3\nbo$2bo$3o!\n' > glider.rle
  rm -rf one many && mkdir one many
  single life --width 16 --height 16 --engine byte --boundary torus --steps 64 --chunk-size 16 --pattern glider.rle --output one/g.npy --quiet || fail "single glider"
  mpi life --width 16 --height 16 --engine byte --boundary torus --steps 64 --chunk-size 16 --pattern glider.rle --output many/g.npy --quiet || fail "mpi glider"
  diff -r one many > /dev/null || fail "glider chunk files differ"
  # An interrupted run resumed under mpirun writes what a resumed single-rank run writes.
  rm -rf one many && mkdir one many
  for d in one many; do
    run=single; [ $d = many ] && run=mpi
    $run life --width 40 --height 30 --steps 12 --chunk-size 5 --seed 3 --output $d/s.npy --quiet || fail "$d first part"
    $run life --width 40 --height 30 --steps 20 --chunk-size 5 --seed 3 --output $d/s.npy --resume --quiet || fail "$d resume"
  done
  diff -r one many > /dev/null || fail "resumed chunk files differ"
  # Per-rank chunk files: the ranks' rows, stacked, are the single-rank grids.
  rm -rf parts && mkdir parts
  mpi life --width 37 --height 29 --boundary torus --steps 23 --chunk-size 5 --seed 5 --density 0.35 --output parts/s.npy --mpi-output per-rank --quiet || fail "per-rank"
  rm -rf one && mkdir one
  single life --width 37 --height 29 --boundary torus --steps 23 --chunk-size 5 --seed 5 --density 0.35 --output one/s.npy --quiet
  $py - "$ranks" <<'PY' || fail "per-rank files do not stack to the single-rank grids"
import sys, glob, os, numpy as np
ranks = int(sys.argv[1])
for path in sorted(glob.glob("one/s_*.npy")):
    tail = os.path.basename(path)[len("s"):]
    parts = [np.load(f"parts/s.rank{r:04d}{tail}") for r in range(ranks)]
    assert np.array_equal(np.concatenate(parts, axis=1), np.load(path)), path
PY
  ;;
hh)
  # f64 RK4, an amplitude sweep with noise, every variable recorded: every dataset equal.
  single hh --neurons 11 --t-ms 20 --dt-ms 0.01 --amplitude 0:15 --noise-sd 0.5 --seed 3 --record all --every 10 --precision f64 --output one.h5 --quiet || fail "single f64"
  mpi hh --neurons 11 --t-ms 20 --dt-ms 0.01 --amplitude 0:15 --noise-sd 0.5 --seed 3 --record all --every 10 --precision f64 --output many.h5 --quiet || fail "mpi f64"
  h5_equal one.h5 many.h5 > /dev/null || fail "hh f64 outputs differ"
  # f32 adaptive RK45 with a per-neuron stimulus file.
  $py -c "
import h5py, numpy as np
rng = np.random.default_rng(1)
with h5py.File('stim.h5', 'w') as f: f['stimulus'] = (rng.random((1501, 9)) * 20).astype(np.float32)"
  single hh --neurons 9 --t-ms 15 --dt-ms 0.01 --stimulus-file stim.h5 --integrator rk45 --record v --every 5 --output one32.h5 --quiet || fail "single rk45"
  mpi hh --neurons 9 --t-ms 15 --dt-ms 0.01 --stimulus-file stim.h5 --integrator rk45 --record v --every 5 --output many32.h5 --quiet || fail "mpi rk45"
  h5_equal one32.h5 many32.h5 > /dev/null || fail "hh f32 rk45 outputs differ"
  # Per-neuron initial state and membrane parameters: each rank takes its neurons' values.
  $py -c "
import h5py, numpy as np
rng = np.random.default_rng(2)
with h5py.File('state.h5', 'w') as f:
    f['v0'] = -65 + 10 * rng.random(9)
    f['g_na'] = 100 + 40 * rng.random(9)
    f['n0'] = 0.2 + 0.2 * rng.random(9)"
  single hh --neurons 9 --t-ms 20 --amplitude 8 --initial-state state.h5 --record all --every 10 --output one_state.h5 --quiet || fail "single --initial-state"
  mpi hh --neurons 9 --t-ms 20 --amplitude 8 --initial-state state.h5 --record all --every 10 --output many_state.h5 --quiet || fail "mpi --initial-state"
  h5_equal one_state.h5 many_state.h5 > /dev/null || fail "hh --initial-state outputs differ"
  ;;
sfap)
  ref=$reference/r1_20f_4e_dz0p1.h5
  [ -f "$ref" ] || { echo "FAIL: $ref is missing (tests/data/sfap is part of the repository)"; exit 1; }
  single sfap --input "$ref" --output one.h5 --quiet || fail "single sfap"
  mpi sfap --input "$ref" --output many.h5 --quiet || fail "mpi sfap"
  # Each fiber's outputs are computed alone and the MUAP is summed in fiber order on any rank
  # count (docs/scaling.md): every dataset bit for bit.
  h5_equal many.h5 one.h5 || fail "sfap multi-rank vs single-rank (bitwise)"
  $py - "$ref" <<'PY' || fail "sfap multi-rank vs MyoGen reference"
import sys, h5py, numpy as np
ref, out = h5py.File(sys.argv[1], "r"), h5py.File("many.h5", "r")
for name in ["t", "sfaps_pre_shift", "sfaps_post_shift", "muap"]:
    a, b = out["outputs"][name][()], ref["outputs"][name][()]
    assert a.shape == b.shape, (name, a.shape, b.shape)
    err = np.linalg.norm(a - b) / np.linalg.norm(b)
    assert err <= 1e-12, (name, err)
PY
  single sfap --input "$ref" --output one_nd.h5 --no-delays --quiet || fail "single sfap --no-delays"
  mpi sfap --input "$ref" --output many_nd.h5 --no-delays --quiet || fail "mpi sfap --no-delays"
  h5_equal many_nd.h5 one_nd.h5 > /dev/null || fail "sfap --no-delays multi-rank vs single-rank (bitwise)"
  # The jittered MUAP: the draws are keyed by (seed, global fiber), so bit for bit too, and
  # different from the unjittered one.
  single sfap --input "$ref" --output one_j.h5 --jitter-sd-ms 0.05 --jitter-seed 11 --quiet || fail "single sfap jitter"
  mpi sfap --input "$ref" --output many_j.h5 --jitter-sd-ms 0.05 --jitter-seed 11 --quiet || fail "mpi sfap jitter"
  h5_equal many_j.h5 one_j.h5 > /dev/null || fail "sfap jitter multi-rank vs single-rank (bitwise)"
  $py - <<'PY' || fail "the jittered MUAP equals the plain one"
import h5py, numpy as np
plain, jittered = h5py.File("one.h5", "r"), h5py.File("one_j.h5", "r")
a, b = plain["outputs/muap"][()], jittered["outputs/muap"][()]
assert a.shape == b.shape and not np.array_equal(a, b)
assert jittered["outputs"].attrs["jitter_seed"] == 11
PY
  ;;
*) echo "unknown module $module"; exit 2 ;;
esac

# A bad argument on every rank: a clear message and a non-zero exit, no hang.
if [ "$module" = life ]; then
  mpi life --width 0 --output bad.npy > err.txt 2>&1 && fail "--width 0 succeeded"
  grep -q -- "--width must be > 0" err.txt || fail "no message for --width 0: $(head -c 300 err.txt)"
fi
[ "$failures" = 0 ] && echo "mpi $module with $ranks ranks: all checks passed"
exit "$failures"
