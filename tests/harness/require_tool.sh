# What a test does when a tool that scripts/bootstrap.sh installs is missing (h5py, mpirun,
# python3, ffmpeg, clang, ...). In CI (CI=true) the set-up is broken: the test FAILS, naming
# the tool. Elsewhere the test, or the part of it that needs the tool, is skipped and says
# why; a whole test skips with exit code 77, which its CMakeLists declares as
# SKIP_RETURN_CODE, so that CTest reports it as skipped rather than passed.
#
# Sourced by shell tests:
#   source tests/harness/require_tool.sh
#   require_tool "Debian's python3-h5py" /usr/bin/python3 -c "import h5py"   # whole test
#   if need_tool "ffmpeg" "the MP4 check" ffmpeg -version; then ...; fi        # one part
#   if have_h5py "the HDF5 layout check"; then ...; fi
# Run from CMake where a tool was not found at configure time (a test that only reports it):
#   bash tests/harness/require_tool.sh missing TOOL WHAT_NEEDS_IT

# True where the environment says this is a CI run (CI=true, as CI services set it).
in_ci() {
  case ${CI:-} in true | TRUE | True | 1 | yes) return 0 ;; *) return 1 ;; esac
}

# tool_missing TOOL WHAT: in CI prints the failure and exits 1; elsewhere prints the skip
# and returns 1.
tool_missing() {
  local tool=$1 what=$2
  if in_ci; then
    echo "FAIL: $what needs $tool, which is missing; scripts/bootstrap.sh installs it, so in CI (CI=$CI) this is a broken set-up, not a skip"
    exit 1
  fi
  echo "SKIPPED: $what: $tool is missing (scripts/bootstrap.sh installs it; in CI this fails)"
  return 1
}

# need_tool TOOL WHAT CHECK...: true when the command CHECK... succeeds (its output hidden);
# otherwise tool_missing.
need_tool() {
  local tool=$1 what=$2
  shift 2
  "$@" > /dev/null 2>&1 && return 0
  tool_missing "$tool" "$what"
}

# require_tool TOOL CHECK...: the whole test needs the tool; skipped (exit 77) without it.
require_tool() {
  local tool=$1
  shift
  need_tool "$tool" "this test" "$@" || exit 77
}

# have_h5py [WHAT]: Debian's Python with h5py and NumPy (the project's Python, /usr/bin/python3).
have_h5py() {
  need_tool "Debian's python3-h5py (h5py and NumPy for /usr/bin/python3)" "${1:-an HDF5 check}" \
    /usr/bin/python3 -c "import h5py, numpy"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  if [ "${1:-}" = missing ] && [ $# = 3 ]; then
    tool_missing "$2" "$3" || exit 77
  fi
  echo "usage: bash require_tool.sh missing TOOL WHAT_NEEDS_IT (or source it)" >&2
  exit 2
fi
