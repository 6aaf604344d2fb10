#!/usr/bin/env bash
# The plot scripts and their shared helper (scripts/plotting.py), run from a scratch folder:
# every script answers --help; the benchmark plotters of perf/*/ draw small Google Benchmark
# JSON files and peer JSON lines written here in the layout the benchmarks and peers write;
# scripts/plot_hh.py draws a run of the built `portasim hh`; unusable input exits 2 with a
# message. (scripts/plot_toolkit.py is run by cli.toolkit, render_life.py by
# scripts.render_life.)
# Needs /usr/bin/python3 with numpy, matplotlib and h5py (installed by scripts/bootstrap.sh):
# in CI (CI=true) a missing one fails the test; elsewhere the test exits 77 (CTest: skipped).
# usage: test_plot_scripts.sh PATH/TO/portasim SOURCE_DIR
portasim=$1
source_dir=$2
case $source_dir in /*) ;; *) source_dir=$PWD/$source_dir ;; esac  # the test runs in a scratch folder
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

missing=()
for module in numpy matplotlib h5py; do
  /usr/bin/python3 -c "import $module" 2> /dev/null || missing+=("python3-$module")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: ${missing[*]} missing in CI (scripts/bootstrap.sh installs them)"
    exit 1
  fi
  echo "SKIP: ${missing[*]} missing (scripts/bootstrap.sh installs them); the plot scripts were not tested"
  exit 77
fi

scripts=(scripts/plot_hh.py scripts/plot_sfap.py scripts/plot_toolkit.py scripts/render_life.py
         perf/hh/plot_bench_hh.py perf/life/plot_bench_life.py perf/sfap/plot_bench_sfap.py
         perf/toolkit/plot_bench_toolkit.py perf/scale/plot_scaling.py)
for script in "${scripts[@]}"; do
  check
  /usr/bin/python3 "$source_dir/$script" --help > out.txt 2>&1 || fail "$script --help: $(cat out.txt)"
done

# is_png FILE...: each file is a PNG that Matplotlib reads back, at least 200 x 200 pixels.
is_png() {
  /usr/bin/python3 - "$@" << 'PY'
import sys
import matplotlib.image
for path in sys.argv[1:]:
    image = matplotlib.image.imread(path)
    assert image.shape[0] >= 200 and image.shape[1] >= 200, f"{path}: {image.shape}"
PY
}

# plot SCRIPT ARGS... -> out.txt; fails the check when the script fails.
plot() {
  local script=$1
  shift
  check
  /usr/bin/python3 "$source_dir/$script" "$@" > out.txt 2>&1 || fail "$script $*: $(cat out.txt)"
}

# Small benchmark outputs, shaped as portasim's benchmarks (benchmark_main.cpp's context) and
# the peers (one JSON object per line among other text) write them.
/usr/bin/python3 - << 'PY' || fail "writing the benchmark JSON"
import json
context = {"default_backend": "OpenMP", "OMP_NUM_THREADS": "2", "git_hash": "test"}
def row(name, time_ms, **counters):
    return dict(name=name, run_name=name, run_type="iteration", iterations=10, real_time=time_ms,
                cpu_time=time_ms, time_unit="ms", **counters)
def write(path, rows):
    with open(path, "w") as f:
        json.dump({"context": context, "benchmarks": rows + [dict(row(rows[0]["name"], 1.0), run_type="aggregate")]}, f)
write("hh.json", [row(f"BM_hh_rk4/{p}/spikes/neurons:{n}/manual_time", n / 1e4, neurons=float(n),
                      neuron_steps_per_s=5e3 * n ** 0.9) for p in ("float", "double") for n in (1000, 10000, 100000)])
write("life.json", [row(f"BM_life_engine/{e}/side:{s}/manual_time", s * s / 1e7, cells_per_s=1e9 * s / 256)
                    for e in ("byte", "bits") for s in (256, 512, 1024)])
write("sfap.json", [row(f"BM_dz_sweep/dz:{d}/manual_time", 1.0 / d, dz_mm=d, fibers=50.0, electrodes=25.0,
                        fibers_per_s=5e4 * d) for d in (0.5, 0.1, 0.05)] +
                   [row("BM_bench_200x25/preshift/manual_time", 4.0, dz_mm=0.1, fibers=200.0, electrodes=25.0,
                        fibers_per_s=5e4)])
write("toolkit.json", [row(f"elementwise/axpb_float/n:{n}/manual_time", n / 1e6, GB_per_s=n / 1e5, us_per_call=n / 1e3)
                       for n in (10000, 100000, 1000000)] +
                      [row(f"launch_shape/team:{t}/n:1000000/manual_time", 1.0 / t, GB_per_s=float(t)) for t in (64, 128)] +
                      [row(f"copy_h2d_pinned/bytes:{b}/manual_time", b / 1e9, GB_per_s=b / 1e8, bytes=float(b))
                       for b in (2 ** 20, 2 ** 24)])
with open("hh_peer.jsonl", "w") as f:
    print("CuPy 12 on the test machine", file=f)
    for n in (1000, 100000):
        print(json.dumps({"anchor": "hh_cupy", "batch": n, "per_step_neuron_steps_per_s": 1e3 * n,
                          "fused_neuron_steps_per_s": 2e3 * n}), file=f)
with open("life_peer.jsonl", "w") as f:
    for s in (256, 1024):
        print(json.dumps({"anchor": "gol_cupy", "side": s, "roll_cells_per_s": 1e8 * s,
                          "stencil_cells_per_s": 1e9 * s}), file=f)
with open("toolkit_peer.jsonl", "w") as f:
    for n in (10000, 1000000):
        print(json.dumps({"anchor": "axpb_cupy", "n": n, "GBps": n / 2e5, "s": n / 1e9, "l2_GBps": 1.0, "l2_s": 1e-5}), file=f)
with open("scaling.json", "w") as f:
    json.dump({"context": {"host": "test", "preset": "openmp"},
               "results": [dict(module=m, mode=mode, ranks=r, speedup=r * 0.9 if r > 1 else 1.0,
                                efficiency=0.9 if r > 1 else 1.0) for m in ("hh", "life")
                           for mode in ("strong", "weak") for r in (1, 2, 4)]}, f)
PY

plot perf/hh/plot_bench_hh.py --output plots/hh.png hh.json --peer hh_peer.jsonl
plot perf/life/plot_bench_life.py life.json --peer life_peer.jsonl --output plots/life.png
plot perf/sfap/plot_bench_sfap.py sfap.json --output plots/sfap.png
grep -q "BM_bench_200x25/preshift" out.txt || fail "plot_bench_sfap.py did not list the 200 x 25 case: $(cat out.txt)"
plot perf/toolkit/plot_bench_toolkit.py --outdir plots/toolkit toolkit.json --peer toolkit_peer.jsonl
plot perf/scale/plot_scaling.py scaling.json plots/scaling
check
is_png plots/hh.png plots/life.png plots/sfap.png plots/toolkit/elementwise.png plots/toolkit/launch_shape_sweep.png \
  plots/toolkit/toolkit_memory.png plots/scaling_speedup.png plots/scaling_efficiency.png > out.txt 2>&1 ||
  fail "benchmark plots: $(cat out.txt; ls -R plots)"

# A portasim hh sweep with voltage traces: both pictures of plot_hh.py.
check
"$portasim" hh --neurons 8 --amplitude 0:20 --t-ms 20 --dt-ms 0.01 --record v --every 10 --output hh.h5 --quiet ||
  fail "portasim hh"
plot scripts/plot_hh.py hh.h5 --output-prefix plots/hh_run
check
is_png plots/hh_run_traces.png plots/hh_run_fi_curve.png > out.txt 2>&1 || fail "plot_hh.py: $(cat out.txt)"

# Unusable input: exit 2, a message naming the script and the problem, no traceback.
# expect_plot_failure PATTERN SCRIPT ARGS...
expect_plot_failure() {
  local pattern=$1 script=$2
  shift 2
  check
  bad_inputs=$((bad_inputs + 1))
  /usr/bin/python3 "$source_dir/$script" "$@" > err.txt 2>&1
  local rc=$?
  [ $rc = 2 ] || fail "$script $*: exit $rc, expected 2: $(cat err.txt)"
  grep -q "$(basename "$script"): .*$pattern" err.txt || fail "$script $*: message lacks '$pattern': $(cat err.txt)"
  grep -q Traceback err.txt && fail "$script $*: a traceback: $(cat err.txt)"
  rm -f err.txt
}
echo "{ not json" > broken.json
expect_plot_failure "cannot read 'missing.json'" perf/hh/plot_bench_hh.py --output x.png missing.json
expect_plot_failure "cannot read 'broken.json' as JSON" perf/life/plot_bench_life.py broken.json --output x.png
expect_plot_failure "not JSON" perf/hh/plot_bench_hh.py --output x.png hh.json --peer broken.json
expect_plot_failure "no results" perf/scale/plot_scaling.py hh.json
expect_plot_failure "does not exist" scripts/plot_hh.py missing.h5
expect_plot_failure "cannot read 'broken.json' as HDF5" scripts/plot_sfap.py broken.json
expect_plot_failure "not a portasim sfap output" scripts/plot_sfap.py hh.h5
expect_plot_failure "not written by portasim toolkit" scripts/plot_toolkit.py hh.h5
[ ! -e x.png ] || fail "a failed plot left x.png"

finish
