#!/usr/bin/python3
"""Plot the toolkit's matmul benchmark: TFLOP/s against n, one line per algorithm and
precision, with CuPy's (cuBLAS) figures when given; prints trace and SVD times next to
CuPy's.

usage: perf/toolkit/plot_bench_linalg.py --output linalg_matmul.png toolkit_linalg.json
                                         [--peer blas_cupy.jsonl]
toolkit_linalg.json: Google Benchmark JSON from portasim_bench_linalg.
blas_cupy.jsonl: the JSON lines printed by shared/peers/blas_cupy.py.
"""
import argparse
import collections
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_peer(path):
    records = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                records.append(json.loads(line))
    return records


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench")
    parser.add_argument("--peer")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    with open(args.bench) as f:
        data = json.load(f)
    context = data.get("context", {})
    where = context.get("device_0", context.get("default_backend", "?"))
    matmul = collections.defaultdict(list)
    others = []
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = b["name"]
        if name.startswith("BM_matmul/"):
            family = "/".join(name.split("/")[1:3])  # algorithm/precision
            matmul[family].append((b["n"], b["TFLOP_per_s"]))
        else:
            others.append((name, b["real_time"], b["time_unit"]))

    fig, axis = plt.subplots(figsize=(8, 5))
    for family, points in sorted(matmul.items()):
        points.sort()
        axis.plot(*zip(*points), "o-", ms=3, label=f"portasim {family}")
    peer = read_peer(args.peer) if args.peer else []
    cupy = collections.defaultdict(list)
    for r in peer:
        if r.get("anchor") == "matmul_cupy":
            cupy["float" if r["dtype"] == "float32" else "double"].append((r["n"], r["TFLOPs"]))
    for precision, points in sorted(cupy.items()):
        axis.plot(*zip(*sorted(points)), "s--", ms=4, label=f"CuPy matmul {precision}")
    axis.set_xscale("log", base=2)
    axis.set_xlabel("n (n x n x n)")
    axis.set_ylabel("TFLOP/s = 2 n^3 / t")
    axis.set_title(f"matmul ({where})")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)

    for name, time, unit in others:
        print(f"{name}: {time:.4g} {unit}")
    for r in peer:
        if r.get("anchor") == "matmul_cupy":
            print(f"CuPy trace n={r['n']} {r['dtype']}: {r['trace_s'] * 1e6:.4g} us")
        elif r.get("anchor") == "svd_cupy":
            print(f"CuPy svd n={r['n']} float64: {r['s'] * 1e3:.4g} ms")


if __name__ == "__main__":
    main()
