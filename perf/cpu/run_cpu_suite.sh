#!/usr/bin/env bash
# The OpenMP backend against its NumPy peers (perf/cpu/numpy_peers.py) on this machine's CPU,
# in one call, at each thread count: what docs/performance.md's CPU table cites.
# Today: host gemm (KokkosBlas::gemm, which the bootstrap points at OpenBLAS) against NumPy's
# matmul on the same BLAS.
# usage: perf/cpu/run_cpu_suite.sh BUILD_DIR OUT_DIR [THREADS...]   (default: 1 and nproc)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=$1 out=$2
shift 2
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 "$(nproc)")
python=${PYTHON:-/usr/bin/python3}
mkdir -p "$out"
{ lscpu; "$build/src/cli/portasim" info; } > "$out/machine.txt"
for t in "${threads[@]}"; do
  export OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t OMP_PROC_BIND=spread OMP_PLACES=cores
  "$build/perf/toolkit/portasim_bench_toolkit_linalg" --benchmark_filter='matmul/(blas|tiled)/.*/n:1024' \
    --benchmark_min_time=0.5 --benchmark_out="$out/linalg_t$t.json" --benchmark_out_format=json >/dev/null
  "$python" perf/cpu/numpy_peers.py --parts matmul > "$out/numpy_t$t.jsonl"
  echo "threads $t:"
  "$python" - "$out/linalg_t$t.json" "$out/numpy_t$t.jsonl" <<'PY'
import json, sys
cpp = {b["name"]: b["real_time"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r["workload"] != "matmul" or r["n"] != 1024:
        continue
    scalar = "float" if r["dtype"] == "float32" else "double"
    ms = cpp[f"BM_matmul/blas/{scalar}/n:1024/manual_time"]
    print(f"  matmul {r['dtype']} 1024^3: KokkosBlas::gemm {ms:.2f} ms, NumPy {r['seconds'] * 1e3:.2f} ms, "
          f"ratio {r['seconds'] * 1e3 / ms:.2f}")
PY
done
