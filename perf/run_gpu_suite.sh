#!/usr/bin/env bash
# Runs portasim's tests and benchmarks on a GPU machine from a staged build
# (scripts/stage_for_device.sh) and the CuPy peers (shared/peers copied to PEERS_DIR), so
# that our figures and theirs come from one machine and one run.
# usage: perf/run_gpu_suite.sh STAGE_DIR OUT_DIR PART...
#   parts: info tests disk sanitize overlap hh hh-integrators hh-peer life life-peer sfap blas-peer
#          toolkit-linalg
set -u
stage=$1 out=$2
shift 2
peers=${PEERS_DIR:-.peers}
export LD_LIBRARY_PATH=$PWD/$stage/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# Reference data carried along with the stage (scripts/stage_for_device.sh copies it).
[ -d "$stage/reference/sfap" ] && export PORTASIM_SFAP_REFERENCE_DIR=$PWD/$stage/reference/sfap
mkdir -p "$out"
status=0
for part in "$@"; do
  echo "===== $part"
  case $part in
    info)
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/machine.txt"
      "$stage/bin/portasim" info | tee -a "$out/machine.txt" ;;
    tests)
      for t in "$stage"/bin/portasim_tests_*; do
        "$t" --gtest_brief=1 > "$out/$(basename "$t").log" 2>&1
        rc=$?
        echo "$(basename "$t"): rc=$rc $(grep -E '^\[  (PASSED|FAILED)' "$out/$(basename "$t").log" | tr '\n' ' ')"
        [ $rc = 0 ] || { status=1; grep -E 'FAILED|Failure|error' "$out/$(basename "$t").log" | head -20; }
      done
      tar -czf "$out/test_logs.tar.gz" -C "$out" $(cd "$out" && ls portasim_tests_*.log) && rm -f "$out"/portasim_tests_*.log ;;
    disk)
      # Sequential write bandwidth of the folder the Life benchmark writes to, flushed to disk.
      dir=${BENCH_DIR:-/tmp}
      dd if=/dev/zero of="$dir/portasim_dd_probe" bs=16M count=256 conv=fsync 2>&1 | tail -1 | tee "$out/disk.txt"
      rm -f "$dir/portasim_dd_probe" ;;
    sanitize)
      for t in "$stage"/bin/portasim_tests_*_cuda; do
        for tool in memcheck racecheck; do
          timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_brief=1 > "$out/$(basename "$t").$tool.log" 2>&1
          echo "$(basename "$t") $tool: rc=$? $(grep -E 'ERROR SUMMARY' "$out/$(basename "$t").$tool.log")"
        done
      done ;;
    overlap)
      "$stage/bin/portasim_bench_overlap" --benchmark_out="$out/overlap.json" --benchmark_out_format=json || status=1 ;;
    hh)
      "$stage/bin/portasim_bench_hh" --benchmark_out="$out/hh.json" --benchmark_out_format=json || status=1 ;;
    hh-integrators)
      "$stage/bin/portasim_bench_hh_integrators" --benchmark_out="$out/hh_integrators.json" --benchmark_out_format=json || status=1 ;;
    life)
      PORTASIM_BENCH_DIR=${BENCH_DIR:-/tmp} "$stage/bin/portasim_bench_life" --benchmark_out="$out/life.json" --benchmark_out_format=json || status=1 ;;
    life-peer)
      PYTHONUNBUFFERED=1 python3 "$peers/gol_cupy.py" 1024 4096 16384 | tee "$out/gol_cupy.jsonl" || status=1 ;;
    sfap)
      "$stage/bin/portasim_bench_sfap" --benchmark_out="$out/sfap.json" --benchmark_out_format=json || status=1 ;;
    toolkit-linalg)
      # matmul three ways, trace, SVD; then CuPy's figures for the same workloads (unless
      # another part already ran the peer into this folder). Run it before the toolkit part,
      # whose plots take every toolkit_*.json here.
      "$stage/bin/portasim_bench_toolkit_linalg" --benchmark_out="$out/toolkit_linalg.json" --benchmark_out_format=json || status=1
      if [ -f "$peers/blas_cupy.py" ] && ! [ -s "$out/blas_cupy.jsonl" ]; then
        PYTHONUNBUFFERED=1 python3 "$peers/blas_cupy.py" | tee "$out/blas_cupy.jsonl" || status=1
      fi ;;
    blas-peer)
      PYTHONUNBUFFERED=1 python3 "$peers/blas_cupy.py" | tee "$out/blas_cupy.jsonl" || status=1 ;;
    hh-peer)
      PYTHONUNBUFFERED=1 python3 "$peers/hh_cupy.py" 10000 100000 1000000 | tee "$out/hh_cupy.jsonl" || status=1 ;;
    *) echo "unknown part $part"; status=2 ;;
  esac
done
exit $status
