#!/usr/bin/env bash
# usage: test_cli_hh.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# A good run: the file exists, has the documented layout and sensible content.
check
if ! "$portasim" hh --neurons 20 --amplitude 0:20 --t-ms 30 --record v --every 5 --output "$work/good.h5" > "$work/out.txt" 2>&1; then
  fail "good run failed: $(cat "$work/out.txt")"
fi
grep -q "neuron-steps/s" "$work/out.txt" || fail "summary lacks neuron-steps/s"
if have_h5py "the HDF5 layout check"; then
  check
  /usr/bin/python3 - "$work/good.h5" <<'PY' || fail "HDF5 layout"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
assert f["V"].shape == (601, 20), f["V"].shape
assert f["time"].shape == (601,) and abs(f["time"][-1] - 30.0) < 1e-9
assert f["final/V"].shape == (20,)
counts, offsets = f["spikes/count"][()], f["spikes/offsets"][()]
assert offsets[-1] == f["spikes/times"].shape[0] == counts.sum()
assert counts[0] == 0 and counts[-1] > 0
assert f.attrs["n_steps"] == 3000 and f.attrs["precision"] == "float32"
assert np.all(np.diff(f["stimulus/amplitude"][()]) > 0)
PY
fi

# Bad input: exit code, a message naming the problem, and no output file.
expect_failure() {
  bad_inputs=$((${bad_inputs:-0} + 1))
  local code=$1 pattern=$2
  shift 2
  check
  rm -f "$work/bad.h5"
  "$portasim" hh "$@" > "$work/err.txt" 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $(cat "$work/err.txt")"
  grep -qi -- "$pattern" "$work/err.txt" || fail "'$*' message lacks '$pattern': $(cat "$work/err.txt")"
  ls "$work"/bad.h5* > /dev/null 2>&1 && fail "'$*' left an output file"
}
expect_failure 2 "--neurons must be > 0" --neurons 0 --output "$work/bad.h5"
expect_failure 2 "--neurons must be > 0" --neurons -5 --output "$work/bad.h5"
expect_failure 2 "--dt-ms must be > 0" --dt-ms 0 --output "$work/bad.h5"
expect_failure 2 "--dt-ms must be > 0" --dt-ms -1 --output "$work/bad.h5"
expect_failure 2 "--t-ms must be >= --dt-ms" --t-ms 0.001 --output "$work/bad.h5"
expect_failure 2 "finite" --t-ms nan --output "$work/bad.h5"
expect_failure 2 "finite" --amplitude inf --output "$work/bad.h5"
expect_failure 2 "not a number" --amplitude 1:abc --output "$work/bad.h5"
expect_failure 2 "not expected" --no-such-option 1 --output "$work/bad.h5"
expect_failure 2 "record" --record sometimes --output "$work/bad.h5"
expect_failure 2 "--every" --every 0 --output "$work/bad.h5"
expect_failure 2 "noise" --noise-sd -1 --output "$work/bad.h5"
expect_failure 3 "cannot write" --output "$work/no/such/folder/out.h5"
expect_failure 3 "missing.h5" --stimulus-file "$work/missing.h5" --output "$work/bad.h5"

# A failing run leaves an earlier output untouched.
check
cp "$work/good.h5" "$work/keep.h5"
"$portasim" hh --neurons 0 --output "$work/keep.h5" > /dev/null 2>&1
cmp -s "$work/good.h5" "$work/keep.h5" || fail "a failed run changed an existing output"

finish
