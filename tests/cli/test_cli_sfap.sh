#!/usr/bin/env bash
# usage: test_cli_sfap.sh PATH/TO/portasim REFERENCE_DIR
portasim=$1
reference=$2
case $reference in /*) ;; *) reference=$PWD/$reference ;; esac
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
have_h5py "cli.sfap (parity and layout checks)" || exit 77
# The reference file is part of the repository (tests/data/sfap): missing is a failure.
[ -f "$reference/r1_20f_4e_dz0p1.h5" ] || { echo "FAIL: $reference/r1_20f_4e_dz0p1.h5 is missing"; exit 1; }

# The reference file's inputs in, MyoGen's outputs out (relative Frobenius error <= 1e-12).
check
"$portasim" sfap --input "$reference/r1_20f_4e_dz0p1.h5" --output r1.h5 > out.txt 2>&1 || fail "r1 run: $(cat out.txt)"
/usr/bin/python3 - "$reference/r1_20f_4e_dz0p1.h5" <<'PY' || fail "r1 parity"
import sys, h5py, numpy as np
ref, out = h5py.File(sys.argv[1], "r"), h5py.File("r1.h5", "r")
for name in ["t", "sfaps_pre_shift", "sfaps_post_shift", "muap"]:
    a, b = out["outputs"][name][()], ref["outputs"][name][()]
    assert a.shape == b.shape and a.dtype == np.float64, (name, a.shape, b.shape, a.dtype)
    err = np.linalg.norm(a - b) / np.linalg.norm(b)
    assert err <= 1e-12, (name, err)
PY
check
"$portasim" sfap --input "$reference/r1_20f_4e_dz0p1.h5" --output nodelay.h5 --no-delays > out.txt 2>&1 || fail "--no-delays: $(cat out.txt)"
/usr/bin/python3 -c "
import h5py; f = h5py.File('nodelay.h5', 'r')
assert 'sfaps_pre_shift' in f['outputs'] and 'muap' not in f['outputs'] and 'sfaps_post_shift' not in f['outputs']" || fail "--no-delays layout"

# Bad input: a clear message, exit code 2 or 3, and no output file.
/usr/bin/python3 - "$reference/r1_20f_4e_dz0p1.h5" <<'PY'
import sys, h5py, numpy as np
ref = h5py.File(sys.argv[1], "r")
def variant(name, change):
    with h5py.File(name, "w") as f:
        ref.copy(ref["inputs"], f, "inputs")
        change(f)
variant("missing.h5", lambda f: f["inputs"].__delitem__("diameter"))
def bad_shape(f):
    del f["inputs/fiber_centers"]; f["inputs/fiber_centers"] = np.zeros((19, 2))
variant("shape.h5", bad_shape)
def nan(f):
    d = f["inputs/conduction_velocity"][()]; d[3] = np.nan; del f["inputs/conduction_velocity"]; f["inputs/conduction_velocity"] = d
variant("nan.h5", nan)
PY
expect_failure() {
  bad_inputs=$((${bad_inputs:-0} + 1))
  local code=$1 pattern=$2
  shift 2
  check
  rm -f bad.h5
  "$portasim" sfap "$@" > err.txt 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $(cat err.txt)"
  grep -qi -- "$pattern" err.txt || fail "'$*' message lacks '$pattern': $(cat err.txt)"
  ls bad.h5* > /dev/null 2>&1 && fail "'$*' left an output file"
}
expect_failure 2 "diameter" --input missing.h5 --output bad.h5
expect_failure 2 "has shape" --input shape.h5 --output bad.h5
expect_failure 2 "conduction_velocity" --input nan.h5 --output bad.h5
expect_failure 2 "dz" --input "$reference/r1_20f_4e_dz0p1.h5" --dz 0 --output bad.h5
expect_failure 2 "dz" --input "$reference/r1_20f_4e_dz0p1.h5" --dz -0.1 --output bad.h5
expect_failure 3 "no_such_input.h5" --input no_such_input.h5 --output bad.h5
expect_failure 3 "cannot write" --input "$reference/r1_20f_4e_dz0p1.h5" --output no/such/dir/bad.h5

finish
