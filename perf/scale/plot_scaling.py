#!/usr/bin/python3
"""Speedup and efficiency over ranks from run_scaling.py's JSON.
usage: plot_scaling.py scaling.json [OUT_PREFIX]  -> OUT_PREFIX_speedup.png, OUT_PREFIX_efficiency.png"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import bench_plot  # noqa: E402
from bench_plot import plt  # noqa: E402

data = json.load(open(sys.argv[1]))
prefix = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].rsplit(".", 1)[0]
series = {}
for p in data["results"]:
    series.setdefault((p["module"], p["mode"]), []).append(p)
ctx = data.get("context", {})
where = ", ".join(ctx.get("gpus", [])[:1]) or ctx.get("host", "")
for key, label in [("speedup", "speedup over 1 rank"), ("efficiency", "parallel efficiency")]:
    fig, ax = plt.subplots(figsize=(6, 4.2))
    top = 1
    for (module, mode), points in sorted(series.items()):
        points.sort(key=lambda p: p["ranks"])
        r = [p["ranks"] for p in points]
        top = max(top, max(r))
        ax.plot(r, [p[key] for p in points], marker="o", ls="-" if mode == "strong" else "--", label=f"{module} {mode}")
    ideal = [1, top]
    ax.plot(ideal, ideal if key == "speedup" else [1, 1], color="gray", lw=0.8, label="ideal")
    ax.set_xscale("log", base=2)
    ticks = sorted({p["ranks"] for points in series.values() for p in points})
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()
    if key == "speedup":
        ax.set_yscale("log", base=2)
    else:
        ax.set_ylim(0, 1.15)
    ax.set_xlabel("MPI ranks" + (" (one per GPU)" if ctx.get("gpus") else ""))
    ax.set_ylabel(label)
    ax.set_title(f"portasim scaling ({ctx.get('preset', '')}{', ' + where if where else ''})", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    bench_plot.save(fig, f"{prefix}_{key}.png", dpi=130)
