#!/usr/bin/env bash
# Allocations that cannot succeed (absurd problem sizes, and a ulimit on the address space):
# exit 4 with "out of memory" and a hint how to make the run smaller, never a crash, and no
# output file.
# usage: test_out_of_memory.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
# Under AddressSanitizer an impossible malloc must return null (as glibc's does) instead of
# aborting; ulimit -v cannot be combined with ASan's shadow memory, so that part is skipped.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1
asan=0
if ldd "$portasim" 2>/dev/null | grep -q libasan; then asan=1; fi

expect_oom() {
  local hint=$1
  shift
  check
  faults=$((faults + 1))
  "$@" > err.txt 2>&1
  local rc=$?
  [ "$rc" = 4 ] || fail "'$*' exited $rc, expected 4 (out of memory): $(head -c 2000 err.txt)"
  grep -q "out of memory" err.txt || fail "'$*' message lacks 'out of memory': $(head -c 2000 err.txt)"
  grep -q -- "$hint" err.txt || fail "'$*' message lacks the hint '$hint': $(cat err.txt)"
  [ -z "$(ls | grep -v '^err.txt$')" ] || { fail "'$*' left files"; ls; }
  rm -f err.txt
}

# 2^21 x 2^21 cells: 4 TiB per grid, beyond any machine.
expect_oom "--chunk-size" "$portasim" life --width 2097152 --height 2097152 --steps 1 --output out.npy --quiet
# In HDF5 a grid must fit one chunk (4 GiB): refused as bad input before anything is allocated.
check
bad_inputs=$((bad_inputs + 1))
"$portasim" life --width 2097152 --height 2097152 --steps 1 --output out.h5 --quiet > err.txt 2>&1
rc=$?
[ $rc = 2 ] && grep -q "does not fit one HDF5 chunk" err.txt || fail "life .h5 2^21 x 2^21: exit $rc: $(cat err.txt)"
[ -z "$(ls | grep -v '^err.txt$')" ] || { fail "life .h5 2^21 x 2^21 left files"; ls; }
rm -f err.txt
# hh's first allocation of that size is a Kokkos View (the host vectors of the output come
# after the run), so this runs under AddressSanitizer too.
expect_oom "--neurons" "$portasim" hh --neurons 400000000000 --t-ms 1 --output out.h5 --quiet
# toolkit: arrays of 10^12 float32 elements (4 TB each) from the memory pool; the message
# names the option that asked for them.
expect_oom "--n = 1000000000000" "$portasim" toolkit --n 1000000000000 --output out.h5 --quiet
if [ $asan = 0 ]; then
  # Sizes a large machine would run, inside a 2 GiB address space.
  expect_oom "--chunk-size" bash -c "ulimit -v 2097152 && exec '$portasim' life --width 16384 --height 16384 --steps 4 --chunk-size 4 --output out.npy --quiet"
  expect_oom "--chunk-size" bash -c "ulimit -v 2097152 && exec '$portasim' life --width 16384 --height 16384 --steps 64 --chunk-size 64 --output out.h5 --quiet"
  expect_oom "--neurons" bash -c "ulimit -v 2097152 && exec '$portasim' hh --neurons 100000000 --t-ms 1 --output out.h5 --quiet"
  expect_oom "--n = 200000000" bash -c "ulimit -v 2097152 && exec '$portasim' toolkit --n 200000000 --output out.h5 --quiet"
  expect_oom "--matrix-n" bash -c "ulimit -v 2097152 && exec '$portasim' toolkit --n 1000 --matrix-n 12000 --output out.h5 --quiet"
  # Chunk buffers hold the generations a chunk records: recording generations 0 and 1000 of
  # a 4096 x 4096 run in chunks of 1000 needs a grid per slot, not 1000, and runs in 4 GiB.
  check
  bash -c "ulimit -v 4194304 && exec '$portasim' life --width 4096 --height 4096 --steps 1000 --chunk-size 1000 --every 1000 --format h5 --output x.h5 --quiet" > err.txt 2>&1 \
    || fail "life recording 2 of 1000 generations in 4 GiB: $(cat err.txt)"
  if have_h5py "the recorded generations of x.h5"; then
    check
    py -c "import h5py; f = h5py.File('x.h5'); assert list(f['generation_index'][()]) == [0, 1000], f['generation_index'][()]" \
      || fail "x.h5 does not hold generations 0 and 1000"
  fi
  rm -f x.h5 err.txt
fi

finish
