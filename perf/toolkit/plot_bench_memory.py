#!/usr/bin/python3
"""Plot the toolkit-memory benchmarks: copy bandwidth vs size (pageable/pinned, H2D/D2H) and
allocate+free time vs size (Kokkos View, caching pool, stream-ordered pool).

Usage: perf/toolkit/plot_bench_memory.py TRANSFERS.json POOL.json [--output memory.png]
(JSON from `portasim_bench_transfers` and `portasim_bench_memory_pool` with
--benchmark_out=FILE). Prints the rows as a table too. Uses Debian's /usr/bin/python3.
"""
import argparse
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path) as f:
        data = json.load(f)
    return [b for b in data["benchmarks"] if b.get("run_type", "iteration") == "iteration"], data.get("context", {})


def series(benchmarks, x_key, y_key):
    out = {}
    for b in benchmarks:
        family = re.sub(r"/.*", "", b["name"])
        out.setdefault(family, []).append((b[x_key], b[y_key]))
    return {k: sorted(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("transfers")
    ap.add_argument("pool")
    ap.add_argument("--output", default="toolkit_memory.png")
    args = ap.parse_args()
    transfers, context = rows(args.transfers)
    pool, _ = rows(args.pool)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for family, points in series(transfers, "bytes", "GB_per_s").items():
        left.semilogx([p[0] / 2**20 for p in points], [p[1] for p in points], "o-", label=family)
        for size, rate in points:
            print(f"{family:24s} {size / 2**20:8.0f} MiB {rate:8.2f} GB/s")
    left.set_xlabel("size (MiB)")
    left.set_ylabel("GB/s")
    left.set_title("host <-> device copies on an instance")
    for family, points in series(pool, "bytes", "us_per_pair").items():
        right.loglog([p[0] for p in points], [p[1] for p in points], "o-", label=family)
        for size, us in points:
            print(f"{family:30s} {size:12.0f} B {us:10.3f} us per allocate+free")
    right.set_xlabel("bytes")
    right.set_ylabel("us per allocate + free")
    right.set_title("allocation")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    devices = [v for k, v in context.items() if k.startswith("device_")]
    fig.suptitle(" / ".join([context.get("default_backend", "")] + devices))
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
