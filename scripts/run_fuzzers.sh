#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (-fsanitize=fuzzer,address,undefined)
# in build/fuzz and runs each for a bounded time on a copy of its seed corpus
# (tests/fuzz/corpus/<target>). Exits non-zero when a target crashes, leaks, trips a sanitizer
# or lets an exception other than portasim::Error escape; the input is then in
# build/fuzz/artifacts/<target>/: fix the code and add the input to the corpus (crash-*),
# which the normal test suite replays (ctest -L fuzz).
# usage: scripts/run_fuzzers.sh [seconds per target, default 30] [target ...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_rle fuzz_npy fuzz_hdf5_inputs)

cxx=${PORTASIM_FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}
if [ -z "$cxx" ]; then
  echo "[fuzz] clang++ not found (scripts/bootstrap.sh installs it)" >&2
  exit 1
fi
cc=${cxx/clang++/clang}
build=build/fuzz
mkdir -p build
cmake -S tests/fuzz -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" > $build.configure.log 2>&1 \
  || { cat $build.configure.log; exit 1; }
cmake --build $build -j "${PORTASIM_FUZZ_JOBS:-2}"

# The targets fuzz side by side (CI machines have 2 cores and libFuzzer uses one): the
# same time per target in a third of the wall time.
fuzz_one() {
  local target=$1 corpus=$build/corpus/$1 artifacts=$build/artifacts/$1
  mkdir -p "$corpus" "$artifacts"
  # New inputs go to the scratch corpus; the seeds in the repository stay as they are.
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    TMPDIR=${TMPDIR:-/tmp} "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "tests/fuzz/corpus/$target" > "$build/$target.log" 2>&1
}
declare -A pids
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids[$target]=$!
done
status=0
total=0
for target in "${targets[@]}"; do
  log=$build/$target.log artifacts=$build/artifacts/$target
  if wait "${pids[$target]}"; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "[fuzz] $target: ${runs:-?} inputs in ${seconds} s, no crash"
    total=$((total + ${runs:-0}))
  else
    echo "[fuzz] $target: FAILED, see $log and $artifacts/" >&2
    grep -E "ERROR|SUMMARY|terminate|accepted input breaks|==[0-9]+==" "$log" | head -20 >&2 || true
    status=1
  fi
done
echo "[reliability] fuzz-executed $total"
exit $status
