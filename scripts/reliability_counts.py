#!/usr/bin/env python3
"""Sums the "[reliability] <what> <n>" lines that the reliability tests, the CLI tests, the
fuzz-corpus replays and scripts/run_fuzzers.sh print, from CTest logs
(build/<preset>/Testing/Temporary/LastTest.log) or any saved output. Prints the totals the
README quotes and exits 1 if any data was lost.
usage: scripts/reliability_counts.py LOG [LOG ...]"""
import collections
import re
import sys

labels = {
    "bad-inputs": "bad inputs tried (CLI options and input files)",
    "fuzz-replayed": "fuzz corpus inputs replayed (every build)",
    "fuzz-executed": "fuzz inputs executed (libFuzzer, this run)",
    "faults": "faults injected (signals, kill -9, full disk, impossible allocations)",
    "data-lost": "completed chunks or earlier outputs lost or damaged",
}
totals = collections.Counter({key: 0 for key in labels})
pattern = re.compile(r"^\[reliability\] ([a-z-]+) (\d+)\s*$")
for path in sys.argv[1:]:
    with open(path, errors="replace") as f:
        for line in f:
            m = pattern.match(line.strip())
            if m:
                totals[m.group(1)] += int(m.group(2))
for key, label in labels.items():
    print("%-14s %9d  %s" % (key, totals[key], label))
sys.exit(1 if totals["data-lost"] else 0)
