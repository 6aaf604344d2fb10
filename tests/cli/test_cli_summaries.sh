#!/usr/bin/env bash
# Summaries print figures for people (three significant digits, 6.8e7, 0.5): a statistic that does not exist (no spikes, no
# intervals, no generations) reads "none" or is left out, never "nan" or "inf".
# usage: test_cli_summaries.sh PATH/TO/portasim SFAP_UNIT.h5
portasim=$1
unit=$2
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

# summary_of EXPECTED ARGS...: `portasim ARGS` succeeds, prints EXPECTED (grep), and no nan/inf.
summary_of() {
  local expected=$1
  shift
  check
  "$portasim" "$@" > out.txt 2>&1 || { fail "'$*' failed: $(cat out.txt)"; return; }
  grep -q -- "$expected" out.txt || fail "'$*' summary lacks '$expected': $(cat out.txt)"
  if grep -qiwE "nan|-?inf" out.txt; then fail "'$*' summary prints nan or inf: $(cat out.txt)"; fi
  # Figures for people (core/human_number.hpp): 6.8e7, not 6.8e+07 or 0.300000.
  if grep -qE "[0-9]e[+]|[0-9]\.[0-9]*000000" out.txt; then fail "'$*' summary prints raw figures: $(cat out.txt)"; fi
}

# No neuron fires: a rate of 0, but no interval and no CV.
summary_of "mean rate 0 Hz, mean ISI none, mean ISI CV none" hh --neurons 3 --amplitude 0 --t-ms 20 --output quiet.h5
# One spike each: a rate, but no interval.
summary_of "mean ISI none, mean ISI CV none" hh --neurons 2 --amplitude 10 --t-ms 8 --output one.h5
# Regular firing: every statistic exists.
summary_of "mean ISI [0-9.]* ms, mean ISI CV [0-9.e-]*$" hh --neurons 2 --amplitude 10 --t-ms 100 --output many.h5
# No generations to time.
summary_of "final population" life --width 16 --height 16 --steps 0 --seed 1 --output zero.npy
summary_of "final population" life --width 16 --height 16 --steps 0 --seed 1 --output zero.h5
# Figures: the density as given, rates and times without "e+".
summary_of "random, density 0.3, seed 1)" life --width 64 --height 64 --steps 20 --seed 1 --density 0.3 --output d.npy
summary_of "neuron-steps/s" hh --neurons 100 --amplitude 10 --t-ms 20 --output rates.h5
summary_of "time [0-9.e-]* s" sfap --input "$unit" --output s.h5
finish
