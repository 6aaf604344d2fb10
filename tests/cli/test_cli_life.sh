#!/usr/bin/env bash
# usage: test_cli_life.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# The Python tool's defaults and file names.
check
"$portasim" life --seed 3 --steps 23 > out.txt 2>&1 || fail "default run: $(cat out.txt)"
grep -q "final population" out.txt || fail "summary lacks the final population"
grep -q "cells/s" out.txt || fail "summary lacks cells/s"
for f in simulation_000000.npy simulation_000001-000010.npy simulation_000011-000020.npy simulation_000021-000023.npy; do
  check
  [ -f "$f" ] || fail "missing $f"
done

# Resume after an interruption (the last chunk lost) equals the uninterrupted run.
check
mkdir whole && cp simulation_*.npy whole/
rm simulation_000021-000023.npy
"$portasim" life --seed 3 --steps 23 --resume > out.txt 2>&1 || fail "resume: $(cat out.txt)"
grep -q "resuming after generation 20" out.txt || fail "resume did not start after generation 20: $(cat out.txt)"
cmp -s simulation_000021-000023.npy whole/simulation_000021-000023.npy || fail "resumed chunk differs"
cmp -s simulation_000001-000010.npy whole/simulation_000001-000010.npy || fail "resume rewrote an earlier chunk"

# HDF5 output, packed and every 2nd generation, readable with h5py and equal to the .npy run.
check
"$portasim" life --seed 3 --steps 23 --width 128 --height 100 --engine bits --output run.h5 > out.txt 2>&1 || fail "h5 run: $(cat out.txt)"
"$portasim" life --seed 3 --steps 23 --width 128 --height 100 --output packed.h5 --packed --every 2 > out.txt 2>&1 || fail "packed run: $(cat out.txt)"
"$portasim" life --seed 3 --steps 23 --width 128 --height 100 --output wide.npy > out.txt 2>&1 || fail "npy run: $(cat out.txt)"
if have_h5py "the HDF5 output checks"; then
  check
  /usr/bin/python3 - <<'PY' || fail "HDF5 outputs"
import glob, h5py, numpy as np
npy = np.concatenate([np.load(f) for f in sorted(glob.glob("wide_*.npy"))])
with h5py.File("run.h5") as f:
    assert f["generations"].shape == (24, 100, 128), f["generations"].shape
    assert np.array_equal(f["generations"][()], npy)
    assert list(f["generation_index"][()]) == list(range(24))
with h5py.File("packed.h5") as f:
    g = np.unpackbits(f["generations"][()], axis=-1, bitorder="little")
    assert np.array_equal(g, npy[::2]), "packed every-2 output differs"
PY
fi

# HDF5 resume: an interrupted run (its .partial cut back to generation 10) continues to the
# same file as an uninterrupted one.
if have_h5py "the HDF5 resume check"; then
  check
  cp run.h5 cut.h5.partial
  /usr/bin/python3 -c "
import h5py
with h5py.File('cut.h5.partial', 'r+') as f:
    f['generations'].resize(11, axis=0)
    f['generation_index'].resize(11, axis=0)"
  "$portasim" life --seed 3 --steps 23 --width 128 --height 100 --engine bits --output cut.h5 --resume > out.txt 2>&1 \
    || fail "h5 resume: $(cat out.txt)"
  grep -q "resuming after generation 10" out.txt || fail "h5 resume did not start after generation 10: $(cat out.txt)"
  [ -f cut.h5 ] && [ ! -f cut.h5.partial ] || fail "h5 resume did not complete cut.h5"
  /usr/bin/python3 -c "
import h5py, numpy as np
a, b = h5py.File('cut.h5', 'r'), h5py.File('run.h5', 'r')
assert np.array_equal(a['generations'][()], b['generations'][()])
assert list(a['generation_index'][()]) == list(range(24))" || fail "h5 resume differs from the uninterrupted run"
fi

# An RLE pattern at an offset.
check
printf '%s\n' '#N Glider' 'x = 3, y = 3, rule = B3/S23' 'bob$2bo$3o!' > glider.rle
"$portasim" life --pattern glider.rle --pattern-offset 1,1 --width 16 --height 16 --steps 4 --chunk-size 4 --output g.npy > out.txt 2>&1 || fail "pattern run: $(cat out.txt)"
grep -q "final population 5" out.txt || fail "a glider keeps 5 cells: $(cat out.txt)"

# Bad input: exit code, message naming the problem, no new files, earlier output intact.
before=$(ls | sort | md5sum)
expect_failure() {
  bad_inputs=$((${bad_inputs:-0} + 1))
  local code=$1 pattern=$2
  shift 2
  check
  "$portasim" life "$@" > err.txt 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $(cat err.txt)"
  grep -qi -- "$pattern" err.txt || fail "'$*' message lacks '$pattern': $(cat err.txt)"
  rm -f err.txt
  [ "$(ls | sort | md5sum)" = "$before" ] || { fail "'$*' changed the folder"; ls; }
}
expect_failure 2 "--width must be > 0" --width 0 --output bad.npy
expect_failure 2 "--height must be > 0" --height -3 --output bad.npy
expect_failure 2 "--steps must be >= 0" --steps -1 --output bad.npy
expect_failure 2 "--chunk-size must be > 0" --chunk-size 0 --output bad.npy
expect_failure 2 "multiple of 64" --engine bits --width 100 --output bad.npy
expect_failure 2 "density" --density 1.5 --output bad.npy
expect_failure 2 "boundary" --boundary klein --output bad.npy
expect_failure 2 "--format h5" --every 2 --output bad.npy
expect_failure 2 "does not fit" --pattern glider.rle --pattern-offset 15,15 --width 16 --height 16 --output bad.npy
expect_failure 2 "Y,X" --pattern glider.rle --pattern-offset 3 --output bad.npy
expect_failure 3 "nothing.rle" --pattern nothing.rle --output bad.npy
printf 'x = 3, y = 3, rule = B36/S23\nbo!\n' > highlife.rle
before=$(ls | sort | md5sum)
expect_failure 2 "not B3/S23" --pattern highlife.rle --output bad.npy
expect_failure 3 "cannot write" --output no/such/folder/bad.npy

finish
