# Shared by the shell tests of tests/cli and tests/reliability: a scratch folder as the
# working directory (removed at exit, after the cleanup_hooks), pass/fail counters, small
# helpers, and the closing summary, whose "[reliability] <what> <n>" lines
# scripts/reliability_counts.py sums over a CTest log.
# The caller sets portasim=PATH and sources this file.
set -u
case $portasim in /*) ;; *) portasim=$PWD/$portasim ;; esac  # the tests run in a scratch folder
work=$(mktemp -d)
cleanup_hooks=()
cleanup() {
  local hook
  for hook in "${cleanup_hooks[@]+"${cleanup_hooks[@]}"}"; do eval "$hook"; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
failures=0 checks=0 bad_inputs=0 faults=0 data_lost=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }
lost() { echo "DATA LOST: $*"; data_lost=$((data_lost + 1)); failures=$((failures + 1)); }
# need_tool, require_tool, have_h5py: a tool the bootstrap installs is missing -> FAIL in CI,
# a skip that says why elsewhere.
source "$(dirname "${BASH_SOURCE[0]}")/harness/require_tool.sh"
# Readers look at files that a running portasim holds open (HDF5 1.10 locks them).
py() { HDF5_USE_FILE_LOCKING=FALSE /usr/bin/python3 "$@"; }

# Waits until `test` (a command) succeeds, for at most `seconds`.
wait_for() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.05
  done
}

# expect_failure CODE PATTERN ARGS...: `portasim ARGS...` must exit with CODE, name the
# problem (PATTERN, grep -i), report no internal error, and leave the folder as it was.
expect_failure() {
  local code=$1 pattern=$2
  shift 2
  check
  bad_inputs=$((bad_inputs + 1))
  local before
  before=$(ls -a | sort | md5sum)
  "$portasim" "$@" > err.txt 2>&1
  local rc=$?
  [ "$rc" = "$code" ] || fail "'$*' exited $rc, expected $code: $(cat err.txt)"
  grep -qi -- "$pattern" err.txt || fail "'$*' message lacks '$pattern': $(cat err.txt)"
  grep -q "internal error" err.txt && fail "'$*' reported an internal error: $(cat err.txt)"
  rm -f err.txt
  [ "$(ls -a | sort | md5sum)" = "$before" ] || { fail "'$*' changed the folder"; ls -a; }
}

finish() {
  echo "[reliability] bad-inputs $bad_inputs"
  echo "[reliability] faults $faults"
  echo "[reliability] data-lost $data_lost"
  echo "$((checks - failures)) passed, $failures failed"
  [ $failures = 0 ]
}
