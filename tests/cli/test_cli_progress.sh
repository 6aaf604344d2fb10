#!/usr/bin/env bash
# `--progress` on every command that runs a job: a percentage on stderr that ends at 100 %,
# nothing of it on stdout, and the same output file as without it.
# usage: test_cli_progress.sh PATH/TO/portasim SFAP_UNIT.h5
portasim=$1
unit=$2
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

progress_of() {
  local name=$1
  shift
  check
  "$portasim" "$@" --progress > out.txt 2> err.txt || { fail "'$*' --progress failed: $(cat err.txt)"; return; }
  grep -q "\[portasim $name\] 100.0 %" err.txt || fail "'$*': no 100 % on stderr: $(tr '\r' '\n' < err.txt | tail -3)"
  grep -q "\[portasim $name\]" out.txt && fail "'$*': progress on stdout"
}
progress_of hh hh --neurons 4 --t-ms 5 --output hh.h5
progress_of life life --width 32 --height 32 --steps 20 --chunk-size 5 --seed 1 --output life.h5
progress_of sfap sfap --input "$unit" --output sfap.h5
progress_of toolkit toolkit --n 1000 --rows 10 --cols 10 --matrix-n 16 --svd-n 8 --repeat 1 --warmup 0 --output toolkit.h5
# The same files with and without it.
check
mkdir plain shown
"$portasim" life --width 32 --height 32 --steps 20 --chunk-size 5 --seed 1 --output plain/s.npy --quiet
"$portasim" life --width 32 --height 32 --steps 20 --chunk-size 5 --seed 1 --output shown/s.npy --quiet \
  --progress 2> /dev/null
diff -r plain shown > /dev/null || fail "life output differs with --progress"
finish
