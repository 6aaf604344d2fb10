#!/usr/bin/env bash
# SIGINT/SIGTERM and SIGKILL in the middle of runs that stream chunks: the exit status, the
# state left on disk (every completed chunk readable; nothing under a final name that is not
# complete), and --resume continuing to exactly the output of an uninterrupted run.
# usage: test_signals.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# Long enough to be interrupted after a few chunks on a fast machine, short enough for CI.
# The HDF5 run is interrupted after at most 30 of its 500 records (3 chunks): about 0.9 s
# uninterrupted on an idle 2-core machine, 4 s under the sanitizers. It runs up to four times:
# 200000 generations had cost the sanitizer suite about 45 s. 6000 generations in HDF5 took
# 0.4 s once appends stopped mapping every element, and finished before the signal came.
npy_run=(life --seed 5 --width 128 --height 128 --steps 6000 --chunk-size 20 --quiet)
h5_run=(life --seed 5 --width 128 --height 128 --steps 50000 --chunk-size 1000 --every 100 --quiet)

mkdir ref && (cd ref && "$portasim" "${npy_run[@]}" --output sim.npy && "$portasim" "${h5_run[@]}" --output sim.h5) \
  || fail "uninterrupted reference runs"

npy_chunks() { ls "$1"/sim_*.npy 2>/dev/null | wc -l; }
at_least_chunks() { [ "$(npy_chunks "$1")" -ge "$2" ]; }
h5_generations() {
  py -c "
import h5py, sys
try:
    with h5py.File(sys.argv[1], 'r') as f: print(f['generation_index'].shape[0])
except Exception: print(0)" "$1"
}
h5_has_generations() { [ -f "$1" ] && [ "$(h5_generations "$1")" -ge "$2" ]; }

# Every .npy chunk file present equals the reference run's file of that name, and the chain
# from generation 0 has no gap up to the last one.
npy_chunks_intact() {
  local folder=$1 f
  for f in "$folder"/sim_*.npy; do
    [ -e "$f" ] || continue
    cmp -s "$f" "ref/$(basename "$f")" || lost "$f differs from the uninterrupted run's"
  done
  ls "$folder"/*.partial 2>/dev/null && fail "a .partial chunk file was left in $folder"
}

# --- SIGINT / SIGTERM on Life .npy chunks: stop at the chunk boundary, resume ---------------
for signal in INT TERM; do
  check
  faults=$((faults + 1))
  dir=npy_$signal
  mkdir "$dir"
  (cd "$dir" && exec "$portasim" "${npy_run[@]}" --output sim.npy > out.txt 2>&1) &
  pid=$!
  wait_for 60 at_least_chunks "$dir" 3 || fail "no chunk files appeared"
  kill -$signal $pid
  wait $pid
  rc=$?
  expected=$([ $signal = INT ] && echo 130 || echo 143)
  if [ "$rc" = 0 ]; then
    fail "the run ended before SIG$signal arrived: make npy_run longer"
  else
    [ "$rc" = "$expected" ] || fail "SIG$signal: exit $rc, expected $expected: $(cat $dir/out.txt)"
    grep -q "stopped by SIG$signal after generation" $dir/out.txt || fail "SIG$signal message: $(cat $dir/out.txt)"
    grep -q -- "--resume" $dir/out.txt || fail "SIG$signal message does not say how to continue"
  fi
  npy_chunks_intact "$dir"
  (cd "$dir" && "$portasim" "${npy_run[@]}" --output sim.npy --resume > out.txt 2>&1) || fail "resume after SIG$signal: $(cat $dir/out.txt)"
  [ "$(npy_chunks "$dir")" = "$(npy_chunks ref)" ] || lost "resume after SIG$signal: $(npy_chunks "$dir") chunk files, expected $(npy_chunks ref)"
  npy_chunks_intact "$dir"
done

# --- SIGTERM on Life HDF5: the .partial keeps every chunk, resume completes it ---------------
if have_h5py "SIGTERM on a Life HDF5 run"; then
  check
  faults=$((faults + 1))
  mkdir h5_term
  (cd h5_term && exec "$portasim" "${h5_run[@]}" --output sim.h5 > out.txt 2>&1) &
  pid=$!
  wait_for 60 h5_has_generations h5_term/sim.h5.partial 30 || fail "HDF5 chunks did not appear"
  kill -TERM $pid
  wait $pid
  rc=$?
  [ "$rc" = 143 ] || fail "SIGTERM (h5): exit $rc, expected 143: $(cat h5_term/out.txt)"
  [ ! -e h5_term/sim.h5 ] || lost "an interrupted HDF5 run created its final name"
  grep -q "sim.h5.partial" h5_term/out.txt || fail "SIGTERM (h5) message does not name the .partial: $(cat h5_term/out.txt)"
  (cd h5_term && "$portasim" "${h5_run[@]}" --output sim.h5 --resume > out.txt 2>&1) || fail "h5 resume after SIGTERM: $(cat h5_term/out.txt)"
fi

# --- SIGKILL: nothing can be flushed at the end, so every chunk must already be on disk -----
check
faults=$((faults + 1))
mkdir npy_kill
(cd npy_kill && exec "$portasim" "${npy_run[@]}" --output sim.npy > out.txt 2>&1) &
pid=$!
wait_for 60 at_least_chunks npy_kill 4 || fail "no chunk files appeared (SIGKILL run)"
kill -KILL $pid
wait $pid
[ "$(npy_chunks npy_kill)" -lt "$(npy_chunks ref)" ] || fail "the run ended before SIGKILL: make npy_run longer"
# A chunk file being written when the kill came is left as *.partial, never under its name.
rm -f npy_kill/*.partial
npy_chunks_intact npy_kill
(cd npy_kill && "$portasim" "${npy_run[@]}" --output sim.npy --resume > out.txt 2>&1) || fail "resume after SIGKILL: $(cat npy_kill/out.txt)"
[ "$(npy_chunks npy_kill)" = "$(npy_chunks ref)" ] || lost "resume after SIGKILL left $(npy_chunks npy_kill) chunk files"
npy_chunks_intact npy_kill

if have_h5py "SIGKILL on a Life HDF5 run"; then
  for attempt in 1 2; do
    check
    faults=$((faults + 1))
    dir=h5_kill_$attempt
    mkdir $dir
    (cd $dir && exec "$portasim" "${h5_run[@]}" --output sim.h5 > out.txt 2>&1) &
    pid=$!
    wait_for 60 h5_has_generations $dir/sim.h5.partial $((11 * attempt)) || fail "HDF5 chunks did not appear (SIGKILL)"
    kill -KILL $pid
    wait $pid
    [ ! -e $dir/sim.h5 ] || lost "a killed HDF5 run created its final name"
    # Every generation the killed file holds is readable and equals the reference.
    py - $dir/sim.h5.partial ref/sim.h5 <<'PY' || lost "$dir: the killed run's .partial lost or damaged completed chunks"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f, h5py.File(sys.argv[2], "r") as ref:
    n = min(f["generations"].shape[0], f["generation_index"].shape[0])
    assert n >= 1, "no generation survived"
    assert np.array_equal(f["generation_index"][:n], ref["generation_index"][:n])
    assert np.array_equal(f["generations"][:n], ref["generations"][:n])
PY
    (cd $dir && "$portasim" "${h5_run[@]}" --output sim.h5 --resume > out.txt 2>&1) || fail "h5 resume after SIGKILL: $(cat $dir/out.txt)"
  done
fi

# Every resumed HDF5 run equals the uninterrupted one.
if have_h5py "the resumed HDF5 runs against the uninterrupted one"; then
  for f in h5_term/sim.h5 h5_kill_1/sim.h5 h5_kill_2/sim.h5; do
    check
    py - "$f" ref/sim.h5 <<'PY' || lost "$f differs from the uninterrupted run"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    assert np.array_equal(a["generation_index"][()], b["generation_index"][()])
    assert np.array_equal(a["generations"][()], b["generations"][()])
PY
  done
fi

# --- HH (no resume): an interrupted run removes its temporary file and keeps the old output --
hh_run=(hh --neurons 4000 --t-ms 500 --record v --every 20 --quiet)
for signal in INT TERM KILL; do
  check
  faults=$((faults + 1))
  dir=hh_$signal
  mkdir $dir
  echo "earlier output" > $dir/hh.h5
  (cd $dir && exec "$portasim" "${hh_run[@]}" --output hh.h5 > out.txt 2>&1) &
  pid=$!
  wait_for 60 test -s $dir/hh.h5.partial || fail "hh: no .partial appeared"
  sleep 0.5
  kill -$signal $pid
  wait $pid
  rc=$?
  [ "$(cat $dir/hh.h5)" = "earlier output" ] || lost "hh SIG$signal damaged the earlier hh.h5"
  case $signal in
    INT) [ "$rc" = 130 ] || fail "hh SIGINT: exit $rc: $(cat $dir/out.txt)" ;;
    TERM) [ "$rc" = 143 ] || fail "hh SIGTERM: exit $rc: $(cat $dir/out.txt)" ;;
  esac
  if [ $signal != KILL ]; then
    [ ! -e $dir/hh.h5.partial ] || fail "hh SIG$signal left hh.h5.partial"
    grep -q "incomplete output removed" $dir/out.txt || fail "hh SIG$signal message: $(cat $dir/out.txt)"
  fi
done

finish
