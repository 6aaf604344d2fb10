#!/usr/bin/env bash
# A full disk (ENOSPC) in the middle of a run, on a small tmpfs mounted for the test: a clear
# error naming the file and "No space left on device", a non-zero exit, earlier output
# (previous files, completed chunks) intact, no partial file under a final name.
# Needs permission to mount (root); exits 77 (CTest: skipped) otherwise.
# usage: test_enospc.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

disk=$work/disk
mkdir -p "$disk"
if ! mount -t tmpfs -o size=3m tmpfs "$disk" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs (needs root); the ENOSPC tests did not run"
  exit 77
fi
cleanup_hooks+=("umount '$disk' 2>/dev/null")

expect_enospc() {
  local what=$1
  [ "$rc" = 3 ] || fail "$what: exit $rc, expected 3 (I/O): $(cat out.txt)"
  grep -q "No space left on device" out.txt || fail "$what: message lacks 'No space left on device': $(cat out.txt)"
  grep -q "$disk/" out.txt || fail "$what: message does not name the file: $(cat out.txt)"
}

# --- Life .npy chunks: the chunks before the full disk stay, complete -----------------------
check
faults=$((faults + 1))
run=(life --seed 9 --width 128 --height 128 --steps 400 --chunk-size 40 --quiet)
mkdir ref && (cd ref && "$portasim" "${run[@]}" --output sim.npy) || fail "reference run"
"$portasim" "${run[@]}" --output "$disk/sim.npy" > out.txt 2>&1
rc=$?
expect_enospc "life .npy"
n=0
for f in "$disk"/sim_*.npy; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  cmp -s "$f" "ref/$(basename "$f")" || lost "$(basename "$f") written before the full disk differs"
done
[ $n -ge 2 ] || fail "expected some complete chunks before the disk filled, found $n"
ls "$disk"/*.partial 2>/dev/null && fail "a .partial chunk file was left on the full disk"
# Once there is room again, --resume continues from the last complete chunk.
check
rm -f "$disk"/sim_*.npy.partial
mkdir moved && mv "$disk"/sim_*.npy moved/
"$portasim" "${run[@]}" --output moved/sim.npy --resume > out.txt 2>&1 || fail "resume after ENOSPC: $(cat out.txt)"
for f in ref/sim_*.npy; do
  cmp -s "$f" "moved/$(basename "$f")" || lost "after resume, $(basename "$f") differs from the uninterrupted run"
done

# --- Life HDF5: the error names the file; the final name is never created -------------------
check
faults=$((faults + 1))
rm -rf "${disk:?}"/*
h5_run=(life --seed 9 --width 256 --height 256 --steps 200 --chunk-size 10)
"$portasim" "${h5_run[@]}" --output "$disk/sim.h5" --quiet > out.txt 2>&1
rc=$?
expect_enospc "life .h5"
[ ! -e "$disk/sim.h5" ] || lost "life .h5 on a full disk created its final name"
# The .partial keeps the chunks completed before the disk filled: moved to a disk with room,
# --resume continues it to exactly the uninterrupted run's file.
if have_h5py "the HDF5 resume after a full disk"; then
  check
  cp "$disk/sim.h5.partial" moved/sim.h5.partial || fail "life .h5 on a full disk left no .partial to resume"
  (cd ref && "$portasim" "${h5_run[@]}" --output sim.h5 --quiet) || fail "reference h5 run"
  "$portasim" "${h5_run[@]}" --output moved/sim.h5 --resume > out.txt 2>&1 || fail "h5 resume after ENOSPC: $(cat out.txt)"
  grep -q "resuming after generation [1-9]" out.txt || fail "h5 resume after ENOSPC kept no chunk: $(cat out.txt)"
  py - moved/sim.h5 ref/sim.h5 <<'PY' || lost "life .h5 resumed after ENOSPC differs from the uninterrupted run"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    assert np.array_equal(a["generation_index"][()], b["generation_index"][()])
    assert np.array_equal(a["generations"][()], b["generations"][()])
PY
fi

# --- HH: an earlier output of the same name is kept, the temporary file removed -------------
check
faults=$((faults + 1))
rm -rf "${disk:?}"/*
"$portasim" hh --neurons 4 --t-ms 5 --output "$disk/hh.h5" --quiet || fail "small hh run"
before=$(md5sum < "$disk/hh.h5")
"$portasim" hh --neurons 2000 --t-ms 100 --record v --output "$disk/hh.h5" --quiet > out.txt 2>&1
rc=$?
expect_enospc "hh"
[ "$(md5sum < "$disk/hh.h5")" = "$before" ] || lost "hh on a full disk damaged the earlier hh.h5"
[ ! -e "$disk/hh.h5.partial" ] || fail "hh on a full disk left hh.h5.partial"

finish
