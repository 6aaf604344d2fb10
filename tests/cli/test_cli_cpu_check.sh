#!/usr/bin/env bash
# A portasim built for a CPU level (PORTASIM_CPU_ARCH, e.g. x86-64-v3) on a CPU without its
# features stops at once with exit status 5 and a message naming what is missing, never with
# an illegal instruction; and `portasim info` says which level it was built for.
#   - on a CPU told to lack AVX2 (PORTASIM_CPU_PRETEND_MISSING, read by the check itself);
#   - on a real CPU without it: qemu's user-mode emulator playing an Intel Nehalem (SSE4.2, no
#     AVX), as scripts/bootstrap.sh installs it (qemu-user).
# usage: test_cli_cpu_check.sh PATH/TO/portasim
portasim=$1
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

check
"$portasim" info > info.txt 2>&1 || fail "info exited $?: $(cat info.txt)"
level=$(sed -n 's/^  CPU level *\([^ ]*\).*/\1/p' info.txt)
[ -n "$level" ] || fail "info names no CPU level: $(cat info.txt)"
case $level in none) echo "built for the compiler's default CPU: nothing to refuse"; finish ;; esac
grep -q "CPU level *$level (uses .*avx2" info.txt || fail "info does not list the features: $(grep 'CPU level' info.txt)"

refused() {  # WHAT COMMAND...: the command must exit 5 naming avx2, and not die on a signal
  local what=$1
  shift
  check
  "$@" > out.txt 2>&1
  local code=$?
  [ $code -eq 5 ] || fail "$what: exit $code, expected 5: $(head -5 out.txt)"
  grep -q "built for the CPU level '$level'.*lacks:.* avx2" out.txt ||
    fail "$what: the message does not name the level and avx2: $(head -5 out.txt)"
  grep -q "PORTASIM_CPU_ARCH" out.txt || fail "$what: the message does not say how to rebuild"
  grep -qi "illegal instruction\|core dumped" out.txt && fail "$what: died on an instruction: $(head -5 out.txt)"
}
refused "told to lack avx2" env PORTASIM_CPU_PRETEND_MISSING=avx2 "$portasim" info
check
PORTASIM_CPU_PRETEND_MISSING=avx512f "$portasim" info > out.txt 2>&1 ||
  case $level in native) ;; *) fail "a feature the build does not use stopped it: $(head -3 out.txt)" ;; esac

# A sanitized build cannot run under qemu-user (ASan maps terabytes of shadow memory, which
# the emulator cannot give it); the openmp preset's run of this test covers the emulation.
if [ "${PORTASIM_CPU_CHECK_EMULATE:-1}" = 0 ]; then
  echo "SKIPPED: the emulated CPUs: this is a sanitized build"
  finish
  exit
fi
case $(uname -m) in x86_64)
  if need_tool "qemu-user (qemu-x86_64)" "the run on a CPU without AVX" qemu-x86_64 -version; then
    refused "on an emulated Nehalem" qemu-x86_64 -cpu Nehalem "$portasim" info
    check
    qemu-x86_64 -cpu Haswell "$portasim" --help > out.txt 2>&1 ||
      case $level in native) ;; *) fail "an emulated Haswell (AVX2) was refused: $(head -3 out.txt)" ;; esac
  fi ;;
esac
finish
