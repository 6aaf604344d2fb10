#!/usr/bin/env bash
# Checks that every tracked C++ source (*.hpp *.cpp *.h *.cu *.cuh, outside the fuzz corpus)
# is laid out as .clang-format says; lists the files that are not and exits 1. Never rewrites
# a file unless given --fix.
#
# usage: scripts/check_format.sh [--fix] [FILE ...]   (default: every tracked source)
# env:   CLANG_FORMAT  the clang-format to run (default: clang-format-14, else clang-format)
#        CI=true       a missing clang-format is an error (outside CI the check is skipped)
# The layout is clang-format 14's (Debian 12's `clang-format`, installed by
# scripts/bootstrap.sh); other versions may disagree on some lines.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '[format] %s\n' "$*" >&2; }

fix=0
if [ "${1:-}" = --fix ]; then fix=1; shift; fi
case ${1:-} in -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; -*) log "unknown option '$1'"; exit 2 ;; esac

clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null; then clang_format=$candidate; break; fi
  done
fi
if [ -z "$clang_format" ] || ! command -v "$clang_format" >/dev/null; then
  if [ "${CI:-}" = true ]; then
    log "error: clang-format not found (scripts/bootstrap.sh installs Debian's clang-format)"
    exit 1
  fi
  log "clang-format not found: skipping the layout check (apt-get install clang-format)"
  exit 0
fi
version=$("$clang_format" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
[ "$version" = 14 ] || log "warning: $clang_format is version ${version:-unknown}; .clang-format is laid out for 14"
# An option this clang-format does not know is an error here rather than a file's failure.
"$clang_format" --style=file --dump-config >/dev/null

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.hpp' '*.cpp' '*.h' '*.cu' '*.cuh' ':!:tests/fuzz/corpus/**')
fi
[ ${#files[@]} -gt 0 ] || { log "no C++ sources found"; exit 1; }

if [ $fix = 1 ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$(nproc)" "$clang_format" -i --style=file
  log "formatted ${#files[@]} files with $clang_format"
  exit 0
fi

# One clang-format per file so that each failing file is named once.
mapfile -t bad < <(printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$(nproc)" sh -c '
  cf=$1; shift
  for f; do "$cf" --dry-run -Werror --style=file "$f" >/dev/null 2>&1 || printf "%s\n" "$f"; done
' sh "$clang_format" | sort)

if [ ${#bad[@]} -eq 0 ]; then
  log "${#files[@]} files laid out as .clang-format says"
  exit 0
fi
log "${#bad[@]} of ${#files[@]} files are not laid out as .clang-format says:"
printf '  %s\n' "${bad[@]}" >&2
log "the first one's difference:"
"$clang_format" --style=file "${bad[0]}" | diff -u --label "${bad[0]}" --label "${bad[0]} (formatted)" "${bad[0]}" - | head -n 40 >&2 || true
log "fix with: scripts/check_format.sh --fix   (then review and commit the result)"
exit 1
