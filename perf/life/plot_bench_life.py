#!/usr/bin/python3
"""Plot Life benchmark results: cells/s of both engines against grid side, with the CuPy
peer's figures (np.roll style and RawKernel stencil) when given.

usage: perf/life/plot_bench_life.py LIFE.json [--peer gol_cupy.jsonl] --output life_engines.png
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402


def main():
    p = plotting.parser(__doc__)
    p.add_argument("bench", nargs="+")
    p.add_argument("--peer")
    p.add_argument("--output", required=True)
    a = p.parse_args()
    fig, ax = plt.subplots(figsize=(8, 5))
    for path in a.bench:
        data = plotting.load_json(path)
        where = plotting.where_of(data.get("context", {}))
        lines = collections.defaultdict(list)
        for b in plotting.iterations(data):
            if not b["name"].startswith("BM_life_engine"):
                continue
            family = b["name"].split("/side:")[0].replace("BM_life_engine/", "")
            lines[family].append((int(b["name"].split("side:")[1].split("/")[0]), b["cells_per_s"]))
        for family, pts in sorted(lines.items()):
            ax.plot(*zip(*sorted(pts)), **plotting.PORTASIM_LINE, label=f"portasim {family} engine ({where})")
    if a.peer:
        roll, stencil = [], []
        for r in plotting.load_peer(a.peer):
            roll.append((r["side"], r["roll_cells_per_s"]))
            stencil.append((r["side"], r["stencil_cells_per_s"]))
        if roll:
            ax.plot(*zip(*sorted(roll)), **plotting.PEER_LINE, label="CuPy np.roll style")
            ax.plot(*zip(*sorted(stencil)), **plotting.PEER_LINE, label="CuPy RawKernel stencil")
    plotting.log_axes(ax, "grid side (cells)", "cells / s", "Game of Life B3/S23 on a torus, 20 generations per measurement",
                        xbase=2)
    plotting.save(fig, a.output)


if __name__ == "__main__":
    main()
