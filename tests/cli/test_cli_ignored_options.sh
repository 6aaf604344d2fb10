#!/usr/bin/env bash
# An option the run would accept and silently ignore is an error (exit 2) naming it and the
# option that makes it meaningless; nothing is written.
# usage: test_cli_ignored_options.sh PATH/TO/portasim PATTERN.rle SFAP_UNIT.h5
portasim=$1
pattern=$2
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cp "$pattern" glider.rle
"$portasim" hh --neurons 2 --t-ms 1 --dt-ms 0.1 --record v --output stim.h5 --quiet || fail "making stim.h5"

hh=(hh --neurons 2 --t-ms 1 --output out.h5)
expect_failure 2 "--every has no effect with --record spikes" "${hh[@]}" --every 10
expect_failure 2 "--every has no effect with --record none" "${hh[@]}" --record none --every 10
expect_failure 2 "--threshold-mv has no effect with --record none" "${hh[@]}" --record none --threshold-mv -20
expect_failure 2 "--max-spikes has no effect with --record none" "${hh[@]}" --record none --max-spikes 5
expect_failure 2 "--rtol has no effect with --integrator rk4" "${hh[@]}" --rtol 1e-8
expect_failure 2 "--atol has no effect with --integrator euler" "${hh[@]}" --integrator euler --atol 1e-8
expect_failure 2 "--pulse-width-ms has no effect without --pulse-period-ms" "${hh[@]}" --pulse-width-ms 1
for option in "--amplitude 5" "--step-on-ms 1" "--step-off-ms 2" "--pulse-period-ms 2" "--ramp-per-ms 1" \
              "--noise-sd 1" "--seed 3"; do
  # shellcheck disable=SC2086
  expect_failure 2 "${option% *} has no effect with --stimulus-file" "${hh[@]}" --stimulus-file stim.h5:/v $option
done
life=(life --width 16 --height 16 --steps 2 --output out.npy)
expect_failure 2 "--density has no effect with --pattern" "${life[@]}" --pattern glider.rle --density 0.3
expect_failure 2 "--seed has no effect with --pattern" "${life[@]}" --pattern glider.rle --seed 1
expect_failure 2 "--seed has no effect with --initial" "${life[@]}" --initial stim.h5 --seed 1
expect_failure 2 "--pattern-offset has no effect without --pattern" "${life[@]}" --pattern-offset 1,1
expect_failure 2 "--device-aware-mpi has no effect outside mpirun" "${life[@]}" --device-aware-mpi
sfap=(sfap --input "$3" --output out.h5)
expect_failure 2 "--jitter-sd-ms has no effect with --no-delays" "${sfap[@]}" --no-delays --jitter-sd-ms 0.1
expect_failure 2 "--jitter-seed has no effect without --jitter-sd-ms > 0" "${sfap[@]}" --jitter-seed 4
expect_failure 2 "--jitter-sd-ms must be finite and >= 0" "${sfap[@]}" --jitter-sd-ms -1

# The same options where they apply still run.
check
"$portasim" "${hh[@]}" --record v --every 10 --integrator rk45 --rtol 1e-7 --pulse-period-ms 0.5 \
  --pulse-width-ms 0.2 --quiet > out.txt 2>&1 || fail "hh with options that apply: $(cat out.txt)"
check
"$portasim" "${life[@]}" --pattern glider.rle --pattern-offset 2,2 --quiet > out.txt 2>&1 \
  || fail "life with options that apply: $(cat out.txt)"
check
"$portasim" "${sfap[@]}" --jitter-sd-ms 0.05 --jitter-seed 4 --quiet > out.txt 2>&1 \
  || fail "sfap with options that apply: $(cat out.txt)"
finish
