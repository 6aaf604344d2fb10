#!/usr/bin/env bash
# Runs portasim's tests and benchmarks on a GPU machine from a staged build
# (scripts/stage_for_device.sh) and the CuPy peers (shared/peers copied to PEERS_DIR), so
# that our figures and theirs come from one machine and one run.
# usage: perf/run_gpu_suite.sh STAGE_DIR OUT_DIR PART...
#   parts: info tests disk sanitize sanitize-cli oom overlap hh hh-integrators hh-peer life life-peer sfap cpu
#          blas-peer toolkit-linalg toolkit-memory toolkit toolkit-axis toolkit-cli scale life-mpi
#          python
#   (toolkit plots every toolkit_*.json in OUT_DIR: run toolkit-linalg and toolkit-memory first)
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
    python)
      # The Python package built for this machine's interpreter (scripts/stage_for_device.sh
      # stages it as $stage/python): the pytest suite, with CuPy arrays as well as NumPy, and
      # the cost of a call from Python against the same call from C++.
      if [ ! -d "$stage/python/portasim" ]; then
        echo "no $stage/python: configure with -DPORTASIM_PYTHON_OTHER (docs/python.md)"; status=1; continue
      fi
      export PYTHONPATH=$PWD/$stage/python PORTASIM_CLI=$PWD/$stage/bin/portasim
      python3 -c "import portasim, json; print(json.dumps(portasim.info()))" | tee "$out/python_info.json"
      python3 -m pytest -q -p no:cacheprovider -rs python/tests > "$out/python_pytest.txt" 2>&1 || status=1
      tail -5 "$out/python_pytest.txt"
      "$stage/bin/portasim_bench_life" --benchmark_filter=run_call --benchmark_min_time=0.2 \
        --benchmark_out="$out/python_cpp_life.json" > /dev/null
      "$stage/bin/portasim_bench_sfap" --benchmark_filter=bench_200x25/with_delays \
        --benchmark_min_time=0.2 --benchmark_out="$out/python_cpp_sfap.json" > /dev/null
      python3 perf/python/bench_python.py --bench-file "$PORTASIM_SFAP_REFERENCE_DIR/bench_200f_25e_dz0p1.h5" \
        --cpp "$out/python_cpp_life.json" "$out/python_cpp_sfap.json" --output "$out/python_bench.json" |
        tail -8 ;;
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
    sanitize-cli)
      # The command line on the GPU under memcheck and racecheck: small runs of each command,
      # streaming Life chunks included (tests/reliability covers what they must do).
      sfap_in=${PORTASIM_SFAP_REFERENCE_DIR:-}/r1_20f_4e_dz0p1.h5
      tmp=$(mktemp -d)
      for tool in memcheck racecheck; do
        for cmd in "hh --neurons 4096 --t-ms 20 --record v --every 10 --output $tmp/h.h5" \
                   "life --seed 1 --width 512 --height 512 --steps 40 --chunk-size 8 --output $tmp/l.h5" \
                   "life --seed 1 --width 512 --height 512 --steps 40 --chunk-size 8 --engine bits --packed --output $tmp/p.h5" \
                   "sfap --input $sfap_in --output $tmp/s.h5" \
                   "toolkit --n 1000000 --rows 1000 --cols 1000 --matrix-n 256 --svd-n 128 --repeat 3 --output $tmp/t.h5"; do
          name=$(echo "$cmd" | awk '{print $1}')
          log="$out/cli_${name}.$tool.log"
          timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 "$stage/bin/portasim" $cmd >> "$log" 2>&1
          rc=$?
          echo "portasim $cmd | $tool: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
          [ $rc = 0 ] || status=1
          rm -f "$tmp"/*.h5
        done
      done
      rm -rf "$tmp" ;;
    oom)
      # Device memory exhaustion from the modules' own allocations: exit 4, "out of memory"
      # and a hint, never a crash (tests/reliability/test_out_of_memory.sh on the host).
      tmp=$(mktemp -d)
      for cmd in "hh --neurons 100000000000 --t-ms 1 --output $tmp/o.h5" \
                 "life --width 1048576 --height 1048576 --steps 1 --output $tmp/o.npy" \
                 "life --width 65536 --height 65536 --steps 64 --chunk-size 64 --packed --output $tmp/big.h5" \
                 "toolkit --n 100000000000 --output $tmp/t.h5"; do
        "$stage/bin/portasim" $cmd --quiet > "$tmp/err.txt" 2>&1
        rc=$?
        echo "portasim $cmd: rc=$rc (expected 4) $(head -2 "$tmp/err.txt" | tr '\n' ' ' | cut -c1-300)" | tee -a "$out/oom.txt"
        [ $rc = 4 ] && grep -q "out of memory" "$tmp/err.txt" && [ -z "$(ls "$tmp" | grep -v err.txt)" ] || status=1
        rm -f "$tmp"/*.h5 "$tmp"/*.npy "$tmp"/*.partial
      done
      rm -rf "$tmp" ;;
    overlap)
      "$stage/bin/portasim_bench_overlap" --benchmark_out="$out/overlap.json" --benchmark_out_format=json || status=1 ;;
    toolkit-memory)
      # Transfers pageable vs pinned 1 MiB..1 GiB, pool vs View allocation (+ cudaMallocAsync);
      # plotted (toolkit_memory.png) by the toolkit part with the other toolkit benchmarks.
      "$stage/bin/portasim_bench_transfers" --benchmark_out="$out/toolkit_transfers.json" --benchmark_out_format=json || status=1
      "$stage/bin/portasim_bench_memory_pool" --benchmark_out="$out/toolkit_memory_pool.json" --benchmark_out_format=json || status=1 ;;
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
    cpu)
      # The OpenMP build (staged with PORTASIM_STAGE_HOST) on this machine's CPU against the
      # NumPy peers, at one thread and at every core (perf/cpu/run_cpu_suite.sh; MYOGEN_PEER
      # adds MyoGen's NumPy path for SFAP).
      PYTHON=${PYTHON:-python3} PORTASIM_SFAP_REFERENCE_DIR=$stage/reference/sfap \
        perf/cpu/run_cpu_suite.sh "$stage/bin/host" "$out/cpu" 1 "$(nproc)" || status=1 ;;
    toolkit-linalg)
      # matmul three ways and the tiled kernel's variants (BM_matmul_tiled_variant/double/
      # mma64x64x16 ... simt128x64x8, n 1024..8192), trace, SVD; then CuPy's figures for
      # the same workloads (unless another part already ran the peer into this folder). Run
      # it before the toolkit part, whose plots take every toolkit_*.json here.
      "$stage/bin/portasim_bench_toolkit_linalg" --benchmark_out="$out/toolkit_linalg.json" --benchmark_out_format=json || status=1
      if [ -f "$peers/blas_cupy.py" ] && ! [ -s "$out/blas_cupy.jsonl" ]; then
        PYTHONUNBUFFERED=1 python3 "$peers/blas_cupy.py" | tee "$out/blas_cupy.jsonl" || status=1
      fi ;;
    blas-peer)
      PYTHONUNBUFFERED=1 python3 "$peers/blas_cupy.py" | tee "$out/blas_cupy.jsonl" || status=1 ;;
    hh-peer)
      PYTHONUNBUFFERED=1 python3 "$peers/hh_cupy.py" 10000 100000 1000000 | tee "$out/hh_cupy.jsonl" || status=1 ;;
    toolkit)
      # Elementwise/reduction/launch-shape benchmarks, the CuPy peer of the same workloads
      # (unless the blas-peer part already ran it into this folder), then the plots of every
      # toolkit_*.json here (linalg, transfers and pool too, when their parts ran first) where
      # this machine's python has matplotlib (else: plot_bench_toolkit.py on the build machine).
      # Includes the device-grid variants elementwise_spread/* and reduction_grid/* (n >= 1e7)
      # that pick the defaults of impl::Spread and impl::reduce_whole_on_device.
      "$stage/bin/portasim_bench_toolkit_elementwise" --benchmark_out="$out/toolkit_elementwise.json" --benchmark_out_format=json || status=1
      peer_args=()
      if [ -f "$peers/blas_cupy.py" ]; then
        [ -s "$out/blas_cupy.jsonl" ] || PYTHONUNBUFFERED=1 python3 "$peers/blas_cupy.py" | tee "$out/blas_cupy.jsonl" || status=1
        peer_args=(--peer "$out/blas_cupy.jsonl")
      fi
      toolkit_json=$(ls "$out"/toolkit_*.json 2>/dev/null)
      if python3 -c "import matplotlib" 2>/dev/null; then
        python3 perf/toolkit/plot_bench_toolkit.py --outdir "$out/toolkit_plots" $toolkit_json "${peer_args[@]}" || status=1
      else
        echo "no matplotlib here: perf/toolkit/plot_bench_toolkit.py --outdir PLOTS $out/toolkit_*.json ${peer_args[*]}"
      fi ;;
    toolkit-axis)
      # Reductions along an axis only: the (n/1024, 1024) and few-output (16 rows / 16 columns)
      # cases, and the split forced or aimed at other waves (reduction_axis_split/*, n >= 1e7).
      # Named apart from toolkit_*.json so that the toolkit part's plots do not take it twice.
      # CuPy's sums on the same shapes follow in the same call (perf/toolkit/axis_cupy.py).
      "$stage/bin/portasim_bench_toolkit_elementwise" --benchmark_filter='^(reduction_axis|copy)' \
        --benchmark_out="$out/axis_reduction.json" --benchmark_out_format=json || status=1
      PYTHONUNBUFFERED=1 python3 perf/toolkit/axis_cupy.py 1e4 1e5 1e6 1e7 1e8 | tee "$out/axis_cupy.jsonl" || status=1 ;;
    toolkit-cli)
      # `portasim toolkit` at the spec's CuPy sizes (y = x1*x2 + B and the L2 norm at 1e8
      # float32, SVD 1000 x 1000, matmul 4096^3 three ways), every check against the host, then
      # its plots (scripts/plot_toolkit.py) where matplotlib is present.
      for precision in f32 f64; do
        "$stage/bin/portasim" toolkit --precision $precision --n 100000000 --rows 10000 --cols 10000 --matrix-n 4096 \
          --svd-n 1000 --repeat 20 --output "$out/toolkit_cli_$precision.h5" | tee "$out/toolkit_cli_$precision.txt" || status=1
        if python3 -c "import h5py, matplotlib" 2>/dev/null; then
          python3 scripts/plot_toolkit.py "$out/toolkit_cli_$precision.h5" || status=1
        fi
      done ;;
    scale)
      # Strong and weak scaling over 1, 2, 4, ... GPUs, one MPI rank per GPU, with the OpenMPI
      # staged by scripts/stage_openmpi_prefix.sh (OPENMPI_PREFIX, default .openmpi) and the
      # SFAP inputs made by `perf/scale/run_scaling.py --make-sfap-inputs STAGE/scale --preset gpu`.
      # SCALE_REPEAT (default 2) runs per point, SCALE_MODULES (default hh,life,sfap).
      ompi=${OPENMPI_PREFIX:-.openmpi}
      if [ ! -f "$ompi/env.sh" ]; then echo "no $ompi/env.sh (scripts/stage_openmpi_prefix.sh)"; status=1; continue; fi
      gpus=$(nvidia-smi -L | wc -l) ranks=1 r=2
      while [ "$r" -le "$gpus" ]; do ranks=$ranks,$r; r=$((r * 2)); done
      # First the multi-GPU results against the single-GPU ones (outputs kept in OUT/mpi_check).
      (source "$ompi/env.sh" && mpirun --version | head -1 &&
       perf/scale/mpi_check.sh "$(cd "$stage" && pwd)/bin/portasim" "$(cd "$out" && pwd)" "$gpus" \
         "$(cd "$stage" && pwd)/reference/sfap/r1_20f_4e_dz0p1.h5") || status=1
      (source "$ompi/env.sh" &&
       python3 perf/scale/run_scaling.py --portasim "$stage/bin/portasim" --mpirun "mpirun --bind-to none" \
         --ranks "$ranks" --preset gpu --sfap-input-dir "$stage/scale" --repeat "${SCALE_REPEAT:-2}" \
         --modules "${SCALE_MODULES:-hh,life,sfap}" \
         --work "${BENCH_DIR:-/tmp}/portasim_scale" --out "$out/scaling.json") || status=1
      rm -rf "${BENCH_DIR:-/tmp}/portasim_scale"
      python3 perf/scale/plot_scaling.py "$out/scaling.json" "$out/scaling" || echo "(no plot: matplotlib missing; plot here)" ;;
    life-mpi)
      # The Life job over 2 and 4 MPI ranks against the same job on one rank without MPI, on
      # this machine's GPUs (ranks share a GPU when there are fewer GPUs than ranks): the
      # summary's cells/s, compute (and halo), copy (and gather), write and overlap.
      ompi=${OPENMPI_PREFIX:-.openmpi}
      if [ ! -f "$ompi/env.sh" ]; then echo "no $ompi/env.sh (scripts/stage_openmpi_prefix.sh)"; status=1; continue; fi
      dir=${BENCH_DIR:-/tmp}/portasim_life_mpi
      mkdir -p "$dir"
      args=(life --width 8192 --height 8192 --steps 2000 --chunk-size 100 --every 10 --packed --seed 1
            --output "$dir/life.h5")
      for run in single 2 4; do
        for engine in byte bits; do
          echo "--- ranks $run, $engine engine: ${args[*]} --engine $engine" | tee -a "$out/life_mpi.txt"
          if [ "$run" = single ]; then
            PORTASIM_MPI=0 "$stage/bin/portasim" "${args[@]}" --engine "$engine" 2>&1 | tee -a "$out/life_mpi.txt"
          else
            (source "$ompi/env.sh" && mpirun -n "$run" --bind-to none --oversubscribe \
               "$stage/bin/portasim" "${args[@]}" --engine "$engine") 2>&1 | tee -a "$out/life_mpi.txt"
          fi
          [ "${PIPESTATUS[0]}" = 0 ] || status=1
        done
      done
      rm -rf "$dir" ;;
    *) echo "unknown part $part"; status=2 ;;
  esac
done
exit $status
