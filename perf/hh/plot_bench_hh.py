#!/usr/bin/python3
"""Plot HH benchmark results: neuron-steps/s against batch size, one line per benchmark
family (precision x recording) and backend, with the CuPy peer's figures when given.

usage: perf/hh/plot_bench_hh.py --output hh_throughput.png BENCH.json [BENCH.json ...]
                                [--peer hh_cupy.jsonl] [--label-from context-key]
BENCH.json: Google Benchmark JSON from portasim_bench_hh (--benchmark_out=...).
hh_cupy.jsonl: the JSON lines printed by shared/peers/hh_cupy.py.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402


def main():
    parser = plotting.parser(__doc__)
    parser.add_argument("bench", nargs="+")
    parser.add_argument("--peer")
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    fig, axis = plt.subplots(figsize=(8, 5))
    for path in args.bench:
        data = plotting.load_json(path)
        where = plotting.where_of(data.get("context", {}))
        lines = collections.defaultdict(list)
        for b in plotting.iterations(data):
            if "neuron_steps_per_s" not in b:
                continue
            family = b["name"].split("/neurons:")[0].replace("BM_hh_rk4/", "")
            lines[family].append((b["neurons"], b["neuron_steps_per_s"]))
        for family, points in sorted(lines.items()):
            points.sort()
            axis.plot(*zip(*points), **plotting.PORTASIM_LINE, label=f"portasim {family} ({where})")
    if args.peer:
        per_step, fused = [], []
        for r in plotting.load_peer(args.peer):
            per_step.append((r["batch"], r["per_step_neuron_steps_per_s"]))
            fused.append((r["batch"], r["fused_neuron_steps_per_s"]))
        if per_step:
            axis.plot(*zip(*sorted(per_step)), **plotting.PEER_LINE, label="CuPy one launch per step")
            axis.plot(*zip(*sorted(fused)), **plotting.PEER_LINE, label="CuPy all steps fused")
    plotting.log_axes(axis, "neurons", "neuron-steps / s", "Batched Hodgkin-Huxley, RK4, T = 50 ms, dt = 0.01 ms")
    plotting.save(fig, args.output)


if __name__ == "__main__":
    main()
