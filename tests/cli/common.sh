# Shared by the CLI tests: a scratch folder as the working directory (removed at exit),
# pass/fail counters and the closing summary, whose "[reliability] bad-inputs <n>" line
# scripts/reliability_counts.py sums. The caller sets portasim=PATH and sources this file.
set -u
case $portasim in /*) ;; *) portasim=$PWD/$portasim ;; esac  # the tests run in the scratch folder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0 checks=0 bad_inputs=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { checks=$((checks + 1)); }
have_h5py() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2>/dev/null; }

finish() {
  echo "[reliability] bad-inputs $bad_inputs"
  echo "$((checks - failures)) passed, $failures failed"
  [ $failures = 0 ]
}
