#!/usr/bin/python3
"""Speedup and efficiency over MPI ranks from run_scaling.py's JSON, as PNG.

usage: perf/scale/plot_scaling.py scaling.json [OUT_PREFIX]
Writes OUT_PREFIX_speedup.png and OUT_PREFIX_efficiency.png (default prefix: the JSON's path
without its extension): one line per module and mode (strong solid, weak dashed), and the ideal.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402


def plot(series, context, key, label, path):
    fig, ax = plt.subplots(figsize=(6, 4.2))
    top = 1
    for (module, mode), points in sorted(series.items()):
        points.sort(key=lambda p: p["ranks"])
        ranks = [p["ranks"] for p in points]
        top = max(top, max(ranks))
        ax.plot(ranks, [p[key] for p in points], marker="o", ls="-" if mode == "strong" else "--",
                label=f"{module} {mode}")
    ax.plot([1, top], [1, top] if key == "speedup" else [1, 1], color="gray", lw=0.8, label="ideal")
    ax.set_xscale("log", base=2)
    ticks = sorted({p["ranks"] for points in series.values() for p in points})
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()
    if key == "speedup":
        ax.set_yscale("log", base=2)
    else:
        ax.set_ylim(0, 1.15)
    where = ", ".join(context.get("gpus", [])[:1]) or context.get("host", "")
    ax.set_xlabel("MPI ranks" + (" (one per GPU)" if context.get("gpus") else ""))
    ax.set_ylabel(label)
    ax.set_title(f"portasim scaling ({context.get('preset', '')}{', ' + where if where else ''})", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    plotting.save(fig, path, dpi=130)


def main():
    parser = plotting.parser(__doc__)
    parser.add_argument("scaling", help="JSON written by perf/scale/run_scaling.py")
    parser.add_argument("prefix", nargs="?", help="default: the JSON's path without its extension")
    args = parser.parse_args()
    data = plotting.load_json(args.scaling)
    if not isinstance(data, dict) or not data.get("results"):
        plotting.fail(f"'{args.scaling}' has no results (expected run_scaling.py's JSON)")
    prefix = args.prefix or os.path.splitext(args.scaling)[0]
    series = {}
    for point in data["results"]:
        series.setdefault((point["module"], point["mode"]), []).append(point)
    context = data.get("context", {})
    for key, label in [("speedup", "speedup over 1 rank"), ("efficiency", "parallel efficiency")]:
        plot(series, context, key, label, f"{prefix}_{key}.png")


if __name__ == "__main__":
    main()
