#!/usr/bin/python3
"""Plot Life benchmark results: cells/s of both engines against grid side, with the CuPy
peer's figures (np.roll style and RawKernel stencil) when given.

usage: perf/life/plot_bench_life.py LIFE.json [--peer gol_cupy.jsonl] --output life_engines.png
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import bench_plot  # noqa: E402
from bench_plot import plt  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bench", nargs="+")
    p.add_argument("--peer")
    p.add_argument("--output", required=True)
    a = p.parse_args()
    fig, ax = plt.subplots(figsize=(8, 5))
    for path in a.bench:
        data = bench_plot.load(path)
        where = data.get("context", {}).get("device_0") or data.get("context", {}).get("default_backend", "")
        lines = collections.defaultdict(list)
        for b in bench_plot.iterations(data):
            if not b["name"].startswith("BM_life_engine"):
                continue
            family = b["name"].split("/side:")[0].replace("BM_life_engine/", "")
            lines[family].append((int(b["name"].split("side:")[1].split("/")[0]), b["cells_per_s"]))
        for family, pts in sorted(lines.items()):
            ax.plot(*zip(*sorted(pts)), "o-", ms=3, label=f"portasim {family} engine ({where})")
    if a.peer:
        roll, stencil = [], []
        for r in bench_plot.load_peer(a.peer):
            roll.append((r["side"], r["roll_cells_per_s"]))
            stencil.append((r["side"], r["stencil_cells_per_s"]))
        ax.plot(*zip(*sorted(roll)), "s--", ms=3, label="CuPy np.roll style")
        ax.plot(*zip(*sorted(stencil)), "s--", ms=3, label="CuPy RawKernel stencil")
    bench_plot.log_axes(ax, "grid side (cells)", "cells / s", "Game of Life B3/S23 on a torus, 20 generations per measurement",
                        xbase=2)
    bench_plot.save(fig, a.output, dpi=110)


if __name__ == "__main__":
    main()
