#!/usr/bin/env bash
# usage: test_cli_toolkit.sh PATH/TO/portasim [PATH/TO/plot_toolkit.py]
portasim=$1
plot=${2:-}
case $plot in "" | /*) ;; *) plot=$PWD/$plot ;; esac  # the test runs in a scratch folder
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

small=(--n 10000 --rows 40 --cols 30 --matrix-n 48 --svd-n 20 --softplus-points 201 --repeat 3 --warmup 1)

# A small run: every check passes; the summary and the file hold every example.
check
"$portasim" toolkit "${small[@]}" --output tk.h5 > out.txt 2>&1 || fail "small run: $(cat out.txt)"
grep -q "wrote tk.h5" out.txt || fail "summary lacks 'wrote tk.h5': $(cat out.txt)"
grep -q "FAIL" out.txt && fail "a check failed: $(cat out.txt)"
for name in squared_difference multiply_add l2_norm l2_norm_rows l2_norm_cols softplus softplus_naive \
            matmul_naive matmul_tiled trace pool_allocate_free; do
  check
  grep -q "^  $name " out.txt || fail "summary lacks the timing of $name"
done
check
grep -q "pool: .* hits" out.txt || fail "summary lacks the pool statistics"
if have_h5py "the HDF5 content check"; then
  check
  /usr/bin/python3 - <<'PY' || fail "HDF5 content"
import h5py, numpy as np
f = h5py.File("tk.h5", "r")
assert f.attrs["generator"] == "portasim toolkit" and f.attrs["precision"] == "float32", dict(f.attrs)
assert f.attrs["checks_failed"] == 0 and f.attrs["checks"] >= 10, dict(f.attrs)
e = f["elementwise"]
x1, x2 = e["x1"][()], e["x2"][()]
assert x1.shape == (4096,) and np.all(np.abs(x1) <= 0.5) and x1.std() > 0.2
assert np.allclose(e["squared_difference"][()], (x1 - x2) ** 2, rtol=1e-6, atol=0)
assert np.allclose(e["multiply_add"][()], x1 * x2 + 2.0, rtol=1e-6, atol=0)
# Softplus over [-1000, 1000]: stable everywhere, the naive formula overflows above ~88.7.
s = f["softplus"]
x, y, naive = s["x"][()], s["y"][()], s["naive"][()]
assert x.shape == (201,) and x[0] == -1000 and x[-1] == 1000
assert np.all(np.isfinite(y))
assert np.allclose(y, np.logaddexp(0, x.astype(np.float32)).astype(np.float32), rtol=1e-6, atol=1e-30)
assert np.all(np.isinf(naive[x > 89])) and np.all(np.isfinite(naive[x < 88]))
assert s.attrs["naive_non_finite"] == np.sum(~np.isfinite(naive)) > 0
r = f["reduction"]
assert r["row_norms"].shape == (40,) and r["col_norms"].shape == (30,)
assert abs(r.attrs["l2_norm_double"] - r.attrs["l2_norm_reference"]) <= 1e-9 * r.attrs["l2_norm_reference"]
m = f["matmul"]
assert m.attrs["algorithms"].split(",")[:2] == ["naive", "tiled"]
d = m["max_abs_difference"][()]
assert d.shape[0] == d.shape[1] >= 2 and np.all(np.diag(d) == 0) and np.all(d <= 2 * m.attrs["error_bound"])
# Singular values against NumPy's, from the stored input matrix.
a, sv = f["svd/matrix"][()], f["svd/singular_values"][()]
assert a.shape == (20, 20) and sv.shape == (20,)
assert np.allclose(sv, np.linalg.svd(a, compute_uv=False), rtol=1e-4, atol=1e-5), (sv, np.linalg.svd(a, compute_uv=False))
t = f["timings"]
for name in ["squared_difference", "multiply_add", "l2_norm", "softplus", "matmul_naive", "matmul_tiled", "trace", "svd"]:
    g = t[name]
    assert g["device_ms"].shape == (3,) and g.attrs["count"] == 3, name
    assert g.attrs["device_min_ms"] <= g.attrs["device_mean_ms"] <= g.attrs["device_max_ms"], name
assert t["matmul_naive"].attrs["rate_unit"] == "TFLOP/s" and t["matmul_naive"].attrs["rate"] > 0
p = f["pool"].attrs
assert p["hits"] >= 3 and p["misses"] >= 1 and p["total_bytes"] >= p["used_bytes"], dict(p)
PY
fi

# float64, the Serial backend, no SVD.
check
"$portasim" toolkit --n 10000 --rows 40 --cols 30 --matrix-n 48 --svd-n 0 --softplus-points 201 --repeat 3 --warmup 1 \
  --precision f64 --backend serial --output tk64.h5 > out.txt 2>&1 ||
  fail "f64 serial run: $(cat out.txt)"
grep -q "float64 on Serial" out.txt || fail "f64 serial summary: $(cat out.txt)"
grep -q "svd skipped" out.txt || fail "--svd-n 0 did not skip the SVD: $(cat out.txt)"
if have_h5py "the float64 HDF5 content check"; then
  check
  /usr/bin/python3 -c "
import h5py, numpy as np
f = h5py.File('tk64.h5', 'r')
assert f.attrs['precision'] == 'float64' and f.attrs['backend'] == 'Serial' and f.attrs['checks_failed'] == 0
assert 'skipped' in f['svd'].attrs and 'singular_values' not in f['svd']
x, y = f['softplus/x'][()], f['softplus/y'][()]
assert np.allclose(y, np.logaddexp(0, x), rtol=1e-14, atol=0)" || fail "f64 HDF5 content"
fi

# The plot script turns the file into PNGs.
if [ -n "$plot" ] && have_h5py "the plot_toolkit.py check" &&
   need_tool "Debian's python3-matplotlib (for /usr/bin/python3)" "the plot_toolkit.py check" \
     /usr/bin/python3 -c "import matplotlib"; then
  check
  /usr/bin/python3 "$plot" tk.h5 --output-prefix plots/tk > out.txt 2>&1 || fail "plot_toolkit.py: $(cat out.txt)"
  for png in tk_softplus.png tk_singular_values.png tk_timings.png; do
    check
    [ -s "plots/$png" ] || fail "plot_toolkit.py did not write $png: $(cat out.txt)"
  done
  rm -rf plots
fi

# Bad input: exit code, a message naming the option, and the folder as it was (no output,
# no temporary file).
expect_failure 2 "--n must be > 0" toolkit --n 0 --output bad.h5
expect_failure 2 "--n must be > 0" toolkit --n -5 --output bad.h5
expect_failure 2 "--rows must be > 0" toolkit --rows 0 --output bad.h5
expect_failure 2 "--cols must be > 0" toolkit --cols -1 --output bad.h5
expect_failure 2 "--matrix-n must be > 0" toolkit --matrix-n 0 --output bad.h5
expect_failure 2 "--svd-n must be >= 0" toolkit --svd-n -1 --output bad.h5
expect_failure 2 "--softplus-points must be > 0" toolkit --softplus-points 0 --output bad.h5
expect_failure 2 "--softplus-range" toolkit --softplus-range nan --output bad.h5
expect_failure 2 "--repeat must be > 0" toolkit --repeat 0 --output bad.h5
expect_failure 2 "could not convert" toolkit --n abc --output bad.h5
expect_failure 2 "precision" toolkit --precision f16 --output bad.h5
expect_failure 2 "--backend 'cuda-not-here' is not enabled" toolkit --backend cuda-not-here --output bad.h5
expect_failure 2 "--n is too large" toolkit --n 4611686018427387904 --output bad.h5
expect_failure 2 "--matrix-n and --svd-n must be < 2^31" toolkit --matrix-n 4294967296 --output bad.h5
expect_failure 2 "not expected\|extra" toolkit --output bad.h5 stray-argument
expect_failure 3 "cannot write" toolkit --output no/such/folder/bad.h5

# A failing run leaves an earlier output untouched.
check
cp tk.h5 keep.h5
"$portasim" toolkit --n 0 --output keep.h5 > /dev/null 2>&1
cmp -s tk.h5 keep.h5 || fail "a failed run changed an existing output"
# ... also when it fails after the output was opened (4 TB arrays: out of memory, exit 4).
check
"$portasim" toolkit --n 1000000000000 --output keep.h5 > err.txt 2>&1
rc=$?
[ $rc = 4 ] && grep -q "out of memory: --n = 1000000000000" err.txt || fail "--n 10^12: exit $rc: $(cat err.txt)"
cmp -s tk.h5 keep.h5 || fail "a run that ran out of memory changed an existing output"
ls keep.h5.* > /dev/null 2>&1 && fail "a run that ran out of memory left a temporary file"

finish
