#!/usr/bin/env bash
# OpenMP strong scaling of the HH kernel on the CPU: the float spikes-only benchmark at a
# fixed batch, at 1, 2, 4, ... threads up to the core count, one JSON per thread count, then
# a speedup/efficiency plot.
# usage: perf/hh/run_cpu_scaling.sh [BUILD_DIR] [OUT_DIR] [NEURONS]   (default build/openmp, perf-out, 10000)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build/openmp}
out=${2:-perf-out}
neurons=${3:-10000}
mkdir -p "$out"
bench=$build/perf/hh/portasim_bench_hh
[ -x "$bench" ] || { echo "no $bench: build the openmp preset first" >&2; exit 1; }
cores=$(nproc)
threads=1
files=()
while [ "$threads" -le "$cores" ]; do
  file=$out/hh_cpu_threads_$threads.json
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=cores PORTASIM_BENCH_MAX_NEURONS=$neurons \
    "$bench" --benchmark_filter="BM_hh_rk4/float/spikes/neurons:$neurons/" --benchmark_repetitions=3 \
    --benchmark_out="$file" --benchmark_out_format=json > /dev/null
  files+=("$file")
  threads=$((threads * 2))
done
/usr/bin/python3 - "$out/hh_cpu_scaling.png" "${files[@]}" <<'PY'
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = []
for path in sys.argv[2:]:
    d = json.load(open(path))
    threads = int(d["context"]["OMP_NUM_THREADS"])
    rates = [b["neuron_steps_per_s"] for b in d["benchmarks"] if b.get("run_type") == "iteration"]
    rows.append((threads, max(rates)))
rows.sort()
base = rows[0][1]
for t, r in rows:
    print(f"threads {t}: {r:.3g} neuron-steps/s, speedup {r / base:.2f}, efficiency {r / base / t:.0%}")
fig, ax = plt.subplots(figsize=(5, 4))
ax.plot([t for t, _ in rows], [r / base for _, r in rows], "o-", label="measured")
ax.plot([t for t, _ in rows], [t for t, _ in rows], "--", label="ideal")
ax.set_xlabel("OpenMP threads"); ax.set_ylabel("speedup"); ax.legend(); ax.grid(alpha=0.3)
ax.set_title("HH RK4 float, OpenMP strong scaling")
fig.tight_layout(); fig.savefig(sys.argv[1], dpi=110)
print(f"wrote {sys.argv[1]}")
PY
