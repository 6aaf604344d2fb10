#!/usr/bin/env bash
# The OpenMP backend against its NumPy peers on this machine's CPU, in one call, at each
# thread count: what docs/performance.md's CPU table cites (perf/cpu/summarize_cpu.py prints
# its rows). Per thread count T:
#   peak      perf/cpu/bench_cpu_peak: STREAM triad and read bandwidth, FMA FLOP/s: the limits
#   hh        BM_hh_rk4 float/double, 1e5 neurons        vs numpy_peers.py hh (RK4 over arrays)
#   reduce    toolkit l2_norm and sum, 1e7 floats        vs np.linalg.norm, np.sum   } ROUNDS
#   gemm      KokkosBlas::gemm 1024^3 float/double       vs a @ b (NumPy's BLAS)     } rounds,
#                                                                     in rounds_tT.json
#   life      byte and bit engines, 2048^2               vs np.roll
#   sfap      the 200 x 25 bench case with delays        vs MyoGen's NumPy path, when
#             MYOGEN_PEER names a folder with its run_myogen_bench.py (AGPL: never in the
#             repository; the reference file comes from PORTASIM_SFAP_REFERENCE_DIR)
# usage: perf/cpu/run_cpu_suite.sh BIN OUT_DIR [THREADS...]   (default: 1 and nproc)
#   BIN: a build folder (build/openmp) or a folder holding the portasim_bench_* programs
#   (the staged bin/host of scripts/stage_for_device.sh). PYTHON: the interpreter with NumPy.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin=$1 out=$2
shift 2
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 "$(nproc)")
python=${PYTHON:-/usr/bin/python3}
rounds=${ROUNDS:-5}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2; }
mkdir -p "$out"
program() {  # NAME: the path of a benchmark program under $bin
  local found
  found=$(find "$bin" -type f -executable -name "$1" -not -path '*/CMakeFiles/*' \
             -not -path '*/tests/install/*' | head -1)  # not the install test's copies
  [ -n "$found" ] || { echo "no $1 under $bin" >&2; exit 1; }
  echo "$found"
}
bench() {  # NAME FILTER OUT.json [ARGS...]: $repetitions runs, their median summarized
  local name=$1 filter=$2 json=$3
  shift 3
  "$(program "$name")" --benchmark_filter="$filter" --benchmark_min_time=0.2 \
    --benchmark_repetitions="${repetitions:-3}" --benchmark_out="$json" \
    --benchmark_out_format=json "$@" > /dev/null
}
lscpu > "$out/machine.txt"
for t in "${threads[@]}"; do
  echo "threads $t" >&2
  export OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t OMP_PROC_BIND=spread OMP_PLACES=cores
  bench portasim_bench_cpu_peak 'cpu_peak/' "$out/peak_t$t.json"
  PORTASIM_BENCH_MAX_NEURONS=100000 bench portasim_bench_hh \
    'BM_hh_rk4/(float|double)/spikes/neurons:100000/' "$out/hh_t$t.json"
  # The reductions and gemm sit at one core's (or the CPU's) read or FMA limit, and a shared
  # machine moves a run by more than their margins. So they run in $ROUNDS rounds (default 5)
  # of ours and then NumPy's, alternating, so that a slow spell hits both sides alike, and
  # summarize_cpu.py takes each side's best round and prints the spread of the rounds.
  # The rounds go to one file, rounds_tT.json.
  round_dir=$out/rounds_t$t
  rm -rf "$round_dir" && mkdir -p "$round_dir"
  for ((r = 1; r <= rounds; r++)); do
    PORTASIM_BENCH_MAX_N=10000000 bench portasim_bench_toolkit_elementwise \
      'reduction/(l2_norm|sum)_float/n:10000000/' "$round_dir/reduce_r$r.json"
    bench portasim_bench_toolkit_linalg 'matmul/blas/.*/n:1024/' "$round_dir/gemm_r$r.json"
    "$python" perf/cpu/numpy_peers.py --parts l2norm,sum,matmul > "$round_dir/numpy_r$r.jsonl"
  done
  "$python" perf/cpu/summarize_cpu.py --merge-rounds "$round_dir" "$out/rounds_t$t.json"
  rm -rf "$round_dir"
  PORTASIM_BENCH_MAX_SIDE=2048 bench portasim_bench_life 'BM_life_engine/.*/side:2048/' "$out/life_t$t.json"
  # SFAP and its peer five times each: a run is short and the GPU machine's host is shared.
  repetitions=5 bench portasim_bench_sfap 'bench_200x25/with_delays' "$out/sfap_t$t.json"
  "$python" perf/cpu/numpy_peers.py --parts hh,life > "$out/numpy_t$t.jsonl"
  if [ -n "${MYOGEN_PEER:-}" ]; then
    reference=${PORTASIM_SFAP_REFERENCE_DIR:-../shared/reference/sfap}/bench_200f_25e_dz0p1.h5
    "$python" "$MYOGEN_PEER/run_myogen_bench.py" "$reference" --paths numpy --repeat 5 \
      > "$out/myogen_t$t.jsonl"
  fi
done
"$python" perf/cpu/summarize_cpu.py "$out"
