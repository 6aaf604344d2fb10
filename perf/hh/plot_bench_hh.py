#!/usr/bin/python3
"""Plot HH benchmark results: neuron-steps/s against batch size, one line per benchmark
family (precision x recording) and backend, with the CuPy peer's figures when given.

usage: perf/hh/plot_bench_hh.py --output hh_throughput.png BENCH.json [BENCH.json ...]
                                [--peer hh_cupy.jsonl] [--label-from context-key]
BENCH.json: Google Benchmark JSON from portasim_bench_hh (--benchmark_out=...).
hh_cupy.jsonl: the JSON lines printed by shared/peers/hh_cupy.py.
"""
import argparse
import collections
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench", nargs="+")
    parser.add_argument("--peer")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    fig, axis = plt.subplots(figsize=(8, 5))
    for path in args.bench:
        with open(path) as f:
            data = json.load(f)
        context = data.get("context", {})
        backend = context.get("default_backend", "?")
        device = context.get("device_0", "")
        threads = context.get("OMP_NUM_THREADS", "")
        where = f"{backend} {device}".strip() if device else f"{backend} {threads} thr"
        lines = collections.defaultdict(list)
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate" or "neuron_steps_per_s" not in b:
                continue
            family = b["name"].split("/neurons:")[0].replace("BM_hh_rk4/", "")
            lines[family].append((b["neurons"], b["neuron_steps_per_s"]))
        for family, points in sorted(lines.items()):
            points.sort()
            axis.plot(*zip(*points), "o-", ms=3, label=f"portasim {family} ({where})")
    if args.peer:
        per_step, fused = [], []
        with open(args.peer) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                per_step.append((r["batch"], r["per_step_neuron_steps_per_s"]))
                fused.append((r["batch"], r["fused_neuron_steps_per_s"]))
        if per_step:
            axis.plot(*zip(*sorted(per_step)), "s--", ms=3, label="CuPy one launch per step")
            axis.plot(*zip(*sorted(fused)), "s--", ms=3, label="CuPy all steps fused")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("neurons")
    axis.set_ylabel("neuron-steps / s")
    axis.set_title("Batched Hodgkin-Huxley, RK4, T = 50 ms, dt = 0.01 ms")
    axis.grid(alpha=0.3, which="both")
    axis.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
