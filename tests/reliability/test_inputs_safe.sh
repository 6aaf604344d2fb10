#!/usr/bin/env bash
# No command writes over its own inputs, a failed run leaves no temporary file and no damaged
# output, and sizes that cannot be represented are refused as bad input (exit 2).
# usage: test_inputs_safe.sh PATH/TO/portasim SFAP_DATA_DIR FUZZ_CORPUS_DIR
portasim=$1
data=$2
corpus=$3
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# refused_over_input CHECKED_FILE PATTERN ARGS...: `portasim ARGS` exits 2 naming both
# options (PATTERN), and CHECKED_FILE (the input) is byte for byte what it was.
refused_over_input() {
  local input=$1 pattern=$2
  shift 2
  local before
  before=$(md5sum < "$input")
  expect_failure 2 "$pattern" "$@"
  [ "$(md5sum < "$input")" = "$before" ] || lost "'$*' changed its input $input"
}

# --- SFAP: the input file, however it is named -----------------------------------------------
cp "$data/r1_20f_4e_dz0p1.h5" unit.h5
mkdir sub
ln -s unit.h5 link.h5
ln unit.h5 hard.h5
for output in unit.h5 ./unit.h5 sub/../unit.h5 "$PWD/unit.h5" link.h5 hard.h5; do
  refused_over_input unit.h5 "--output '$output' would write over --input 'unit.h5'" \
    sfap --input unit.h5 --output "$output"
done
refused_over_input unit.h5 "--output 'unit.h5' would write over --input './link.h5'" \
  sfap --input ./link.h5 --output unit.h5
# An input named like the output's temporary file would be truncated by its creation.
cp unit.h5 result.h5.partial
refused_over_input result.h5.partial "temporary file 'result.h5.partial'.*--input" \
  sfap --input result.h5.partial --output result.h5
rm result.h5.partial
# A different output name still runs, and leaves the input as it was.
check
before=$(md5sum < unit.h5)
"$portasim" sfap --input unit.h5 --output result.h5 --quiet > out.txt 2>&1 || fail "sfap to another file: $(cat out.txt)"
[ "$(md5sum < unit.h5)" = "$before" ] || lost "sfap changed its input"
rm -f result.h5 out.txt

# --- HH: the stimulus file (whole file or FILE.h5:/dataset) -----------------------------------
# A run's own V traces (11 samples x 2 neurons for 1 ms at dt 0.1) are a valid stimulus file.
"$portasim" hh --neurons 2 --t-ms 1 --dt-ms 0.1 --record v --output stim.h5 --quiet || fail "making stim.h5"
for spec in stim.h5:/v ./stim.h5:/v; do
  refused_over_input stim.h5 "--output 'stim.h5' would write over --stimulus-file 'stim.h5'\|--output 'stim.h5' would write over --stimulus-file './stim.h5'" \
    hh --neurons 2 --t-ms 1 --dt-ms 0.1 --stimulus-file "$spec" --output stim.h5
done
ln -s stim.h5 stim_link.h5
refused_over_input stim.h5 "--output 'stim_link.h5' would write over --stimulus-file" \
  hh --neurons 2 --t-ms 1 --dt-ms 0.1 --stimulus-file stim.h5:/v --output stim_link.h5

# --- Life: patterns and initial grids, also under the chunk names an .npy output derives -----
cp "$corpus/fuzz_rle/glider.rle" glider.rle
refused_over_input glider.rle "--output 'glider.rle' would write over --pattern" \
  life --width 16 --height 16 --steps 4 --pattern glider.rle --format h5 --output glider.rle
"$portasim" life --width 16 --height 16 --steps 4 --chunk-size 2 --seed 1 --output run.npy --quiet \
  || fail "making run_*.npy"
"$portasim" life --width 16 --height 16 --steps 4 --seed 1 --output grid.h5 --quiet || fail "making grid.h5"
# run_000000.npy is generation 0 of run.npy: a new run.npy would write that chunk again.
refused_over_input run_000000.npy "--output 'run.npy' chunk file '.*run_000000.npy' would write over --initial" \
  life --width 16 --height 16 --steps 4 --chunk-size 2 --initial run_000000.npy --output run.npy
refused_over_input run_000001-000002.npy "chunk file '.*run_000001-000002.npy' would write over --pattern" \
  life --width 16 --height 16 --steps 4 --chunk-size 2 --pattern run_000001-000002.npy --output run.npy
cp run_000000.npy gen0.npy
ln -s gen0.npy other_000000.npy
refused_over_input gen0.npy "chunk file '.*other_000000.npy' would write over --initial 'gen0.npy'" \
  life --width 16 --height 16 --steps 4 --initial gen0.npy --output other.npy
rm other_000000.npy
refused_over_input grid.h5 "--output 'grid.h5' would write over --initial 'grid.h5'" \
  life --width 16 --height 16 --steps 4 --initial grid.h5 --output grid.h5
refused_over_input grid.h5 "--output 'grid.h5' would write over --initial 'sub/../grid.h5'" \
  life --width 16 --height 16 --steps 4 --initial sub/../grid.h5 --output grid.h5 --resume
# Another output name runs from the same inputs.
check
"$portasim" life --width 16 --height 16 --steps 4 --initial run_000000.npy --output from_chunk.npy --quiet \
  > out.txt 2>&1 || fail "life from a chunk file: $(cat out.txt)"
rm -f from_chunk_*.npy out.txt

# --- A failed run leaves no temporary file, and an earlier output of its name untouched ------
# The output name is a folder (exit 3 before any work: nothing is written).
mkdir taken.h5
for command in "sfap --input unit.h5" "hh --neurons 2 --t-ms 1" "toolkit --n 1000 --rows 10 --cols 10 --matrix-n 8 --svd-n 0" \
               "life --width 16 --height 16 --steps 4"; do
  # shellcheck disable=SC2086
  expect_failure 3 "is a directory" $command --output taken.h5
done
# A chunk whose final name is taken by a folder fails at its rename (exit 3): its temporary
# is removed and the chunks before it stay complete.
mkdir blocked_000003-000004.npy
check
faults=$((faults + 1))
"$portasim" life --width 16 --height 16 --steps 4 --chunk-size 2 --seed 1 --output blocked.npy > out.txt 2>&1
rc=$?
[ $rc = 3 ] || fail "a blocked chunk exited $rc, expected 3: $(cat out.txt)"
grep -qi "cannot rename.*blocked_000003-000004.npy" out.txt || fail "no rename error: $(cat out.txt)"
compgen -G "*.partial" > /dev/null && lost "a failed chunk left a temporary file: $(ls ./*.partial)"
[ -f blocked_000001-000002.npy ] || lost "the chunk before the failed one is gone"
rm -rf blocked_* out.txt
# An earlier output survives a later run that fails on bad input, byte for byte.
"$portasim" sfap --input unit.h5 --output earlier.h5 --quiet || fail "making earlier.h5"
before=$(md5sum < earlier.h5)
expect_failure 2 "--dz" sfap --input unit.h5 --dz -1 --output earlier.h5
[ "$(md5sum < earlier.h5)" = "$before" ] || lost "a failed sfap run changed the earlier earlier.h5"

# --- Sizes that cannot be represented: exit 2, naming the options -----------------------------
expect_failure 2 "--t-ms / --dt-ms gives" hh --neurons 1 --t-ms 1e300 --dt-ms 1e-300 --output big.h5
expect_failure 2 "--t-ms / --dt-ms gives" hh --neurons 1 --t-ms 1e19 --dt-ms 1 --output big.h5
expect_failure 2 "--t-ms / --dt-ms gives" hh --neurons 1 --t-ms 1e13 --dt-ms 1 --output big.h5
expect_failure 2 "give --max-spikes" hh --neurons 1 --t-ms 1e11 --dt-ms 1e6 --output big.h5
expect_failure 2 "--neurons x samples" hh --neurons 4611686018427387904 --t-ms 1 --dt-ms 0.01 --record all --output big.h5
expect_failure 2 "ceil(--chunk-size / --every) x --height x --width" \
  life --width 2147483648 --height 2147483648 --chunk-size 4 --steps 4 --output big.h5
expect_failure 2 "recorded generations (--steps / --every + 1) x --height x --width" \
  life --width 2147483648 --height 1024 --steps 4611686018427387904 --format h5 --output big.h5
expect_failure 2 "--steps must be less than" life --steps 9223372036854775807 --output big.h5
expect_failure 2 "--n is too large" toolkit --n 2305843009213693952 --output big.h5

finish
