#!/usr/bin/env bash
# `portasim hh --initial-state FILE.h5` and the run-wide membrane flags: neuron k of a run
# with per-neuron values is bit for bit a one-neuron run with neuron k's values as flags, and
# every malformed file, value out of range or contradictory flag is an exit-2 error naming it.
# usage: test_cli_hh_initial_state.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
have_h5py "cli.hh_initial_state" || exit 77

py - <<'PY' || fail "making the initial-state files"
import h5py, numpy as np
with h5py.File("state.h5", "w") as f:
    f["v0"] = np.array([-65.0, -70.0, -60.0])
    f["m0"] = np.array([0.05, np.nan, 0.1])
    f["g_na"] = np.array([120.0, 100.0, 140.0])
    f["e_leak"] = np.array([-54.387, -50.0, -58.0])
with h5py.File("typo.h5", "w") as f:
    f["v0"] = np.zeros(3) - 65
    f["gNa"] = np.ones(3)
with h5py.File("short.h5", "w") as f:
    f["g_k"] = np.ones(2)
with h5py.File("negative.h5", "w") as f:
    f["g_k"] = np.array([36.0, -1.0, 36.0])
with h5py.File("gate.h5", "w") as f:
    f["h0"] = np.array([0.5, 0.5, 1.5])
with h5py.File("empty.h5", "w") as f:
    f.attrs["note"] = "no datasets"
PY

run=(hh --neurons 3 --t-ms 30 --amplitude 10 --record v --every 10 --quiet)
check
"$portasim" "${run[@]}" --initial-state state.h5 --output all.h5 || fail "run with --initial-state"
for k in 0 1 2; do
  args=$(py - "$k" <<'PY'
import sys, h5py, numpy as np
k = int(sys.argv[1])
f = h5py.File("state.h5", "r")
flags = {"v0": "--v0-mv", "m0": "--m0", "g_na": "--g-na", "e_leak": "--e-leak"}
print(" ".join(f"{flags[n]} {f[n][k]!r}" for n in flags if not np.isnan(f[n][k])))
PY
)
  check
  # shellcheck disable=SC2086
  "$portasim" hh --neurons 1 --t-ms 30 --amplitude 10 --record v --every 10 --quiet $args \
    --output "one$k.h5" || fail "one-neuron run $k ($args)"
done
check
py - <<'PY' || fail "per-neuron runs differ from one-neuron runs with the same values as flags"
import h5py, numpy as np
whole = h5py.File("all.h5", "r")
for k in range(3):
    one = h5py.File(f"one{k}.h5", "r")
    for name in ["V", "final/V", "final/m", "final/h", "final/n", "spikes/count"]:
        a, b = whole[name][()], one[name][()]
        assert np.array_equal(a[..., k], b[..., 0]), (k, name)
assert not np.array_equal(whole["final/V"][0], whole["final/V"][1])
assert "state.h5" in whole.attrs["initial_state"]
PY

expect_failure 2 "'/gNa', which is not one of v0, m0" "${run[@]}" --initial-state typo.h5 --output bad.h5
expect_failure 2 "'/g_k' has shape (2,), expected (3,)" "${run[@]}" --initial-state short.h5 --output bad.h5
expect_failure 2 "'/g_k' of neuron 1 is -1, it must be finite and >= 0" "${run[@]}" --initial-state negative.h5 --output bad.h5
expect_failure 2 "'/h0' of neuron 2 .* must be in \[0, 1\]" "${run[@]}" --initial-state gate.h5 --output bad.h5
expect_failure 2 "has none of the datasets" "${run[@]}" --initial-state empty.h5 --output bad.h5
expect_failure 3 "missing.h5" "${run[@]}" --initial-state missing.h5 --output bad.h5
expect_failure 2 "--g-na has no effect with --initial-state 'state.h5', which sets /g_na" \
  "${run[@]}" --initial-state state.h5 --g-na 100 --output bad.h5
expect_failure 2 "--capacitance must be finite and > 0" "${run[@]}" --capacitance 0 --output bad.h5
expect_failure 2 "--g-leak must be finite and >= 0" "${run[@]}" --g-leak -0.3 --output bad.h5
expect_failure 2 "--n0 must be in \[0, 1\]" "${run[@]}" --n0 2 --output bad.h5
expect_failure 2 "--e-k must be finite" "${run[@]}" --e-k inf --output bad.h5

# The initial-state file is an input: writing over it is refused, and it stays as it was.
check
cp state.h5 state_copy.h5
"$portasim" "${run[@]}" --initial-state state.h5 --output ./state.h5 > err.txt 2>&1
[ $? = 2 ] || fail "--output over --initial-state did not exit 2: $(cat err.txt)"
grep -q -- "--initial-state" err.txt || fail "no message naming --initial-state: $(cat err.txt)"
cmp -s state.h5 state_copy.h5 || fail "the initial-state file was changed"

# The run-wide flags change the run.
check
"$portasim" "${run[@]}" --g-na 0 --output no_sodium.h5 || fail "--g-na 0"
py - <<'PY' || fail "--g-na 0 still fires"
import h5py
assert h5py.File("no_sodium.h5", "r")["spikes/count"][()].sum() == 0
PY
finish
