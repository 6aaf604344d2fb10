# Shared by the reliability tests: counters printed as "[reliability] <what> <n>" lines that
# scripts/reliability_counts.py sums over a CTest log, and small helpers.
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
have_h5py() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2>/dev/null; }
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

finish() {
  echo "[reliability] bad-inputs $bad_inputs"
  echo "[reliability] faults $faults"
  echo "[reliability] data-lost $data_lost"
  echo "$((checks - failures)) passed, $failures failed"
  [ $failures = 0 ]
}
