#!/usr/bin/python3
"""Plot portasim_bench_sfap results: time vs dz (the dz sweep, 50 fibers x 25 electrodes).

Usage: perf/sfap/plot_bench_sfap.py RESULT.json [MORE.json ...] [--output sfap_dz_sweep.png]
(JSON from `portasim_bench_sfap --benchmark_out=RESULT.json`). Each file is one curve, labelled
with its backend and device (or thread count) from the benchmark context; the 200 x 25 and whole-muscle cases are
printed as a table. Uses Debian's /usr/bin/python3 with matplotlib.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402

seconds = plotting.seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--output", default="sfap_dz_sweep.png")
    args = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for path in args.json:
        data = plotting.load_json(path)
        rows = plotting.iterations(data)
        sweep = sorted((b["dz_mm"], seconds(b)) for b in rows if b["name"].startswith("BM_dz_sweep"))
        if sweep:
            ax.loglog([d for d, _ in sweep], [t for _, t in sweep], **plotting.PORTASIM_LINE,
                      label="portasim " + plotting.where_of(data.get("context", {})))
        for b in rows:
            if not b["name"].startswith("BM_dz_sweep"):
                print(f"{path}: {b['name']}: {seconds(b):.4g} s, {b.get('fibers_per_s', float('nan')):.4g} fibers/s, "
                      f"{int(b.get('fibers', 0))} fibers x {int(b.get('electrodes', 0))} electrodes, dz {b.get('dz_mm')}")
    # MyoGen's reported CuPy dz sweep (RTX 3090): 0.27 s at dz = 0.5 to 0.99 s at dz = 0.01
    ax.loglog([0.5, 0.01], [0.27, 0.99], "k--", alpha=0.5, label="MyoGen CuPy (RTX 3090), endpoints")
    ax.set_xlabel("dz (mm)")
    ax.set_ylabel("time per calc_sfaps (s)")
    ax.set_title("SFAPs, 50 fibers x 25 electrodes, pre-shift")
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plotting.save(fig, args.output, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
