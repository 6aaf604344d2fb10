#!/usr/bin/env bash
# `portasim --help` and `portasim CMD --help` print portasim's help alone: Kokkos, which also
# reads an un-prefixed --help, must not print its banner of flags first.
# usage: test_cli_help.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

help_of() {  # EXPECTED ARGS...
  local expected=$1
  shift
  check
  "$portasim" "$@" > out.txt 2>&1 || { fail "'$*' exited $?: $(cat out.txt)"; return; }
  grep -q -- "$expected" out.txt || fail "'$*' lacks '$expected': $(head -20 out.txt)"
  if grep -qi "kokkos-help\|kokkos command line arguments\|--kokkos-threads" out.txt; then
    fail "'$*' printed Kokkos' help: $(head -20 out.txt)"
  fi
}
help_of "portasim: Hodgkin-Huxley" --help
help_of "portasim: Hodgkin-Huxley" -h
help_of "--neurons" hh --help
help_of "--chunk-size" life --help
help_of "--muscle-length-mm" sfap-input -h
finish
