#!/usr/bin/env python3
"""The rows of docs/performance.md's CPU table from one perf/cpu/run_cpu_suite.sh folder: per
thread count, each workload's figure, its peer's from the same run, the ratio, and the
fraction of the CPU's limit measured in the same run (bench_cpu_peak: STREAM triad and FMA).
The reductions and gemm ran in alternating rounds (ours, then NumPy's): each side's figure is
its best round, both sides alike, with the lowest round beside it.

usage: python3 summarize_cpu.py OUT_DIR
       python3 summarize_cpu.py --merge-rounds ROUNDS_DIR OUT_DIR/rounds_tT.json  (the suite's)
"""
import glob
import json
import os
import re
import sys

# Floating-point work of one HH RK4 neuron-step, counted from integrators.hpp and rates.hpp:
# 4 derivatives of 59 operations (gate rates 30, dV/dt 17, gate equations 12), 3 stage
# updates of 8 and the final combination of 24, plus 16 exponentials (3 exp and one expm1 per
# derivative) taken at 15 operations each, about what a vector exp costs in FMAs.
HH_FLOP_PER_NEURON_STEP = 4 * 59 + 3 * 8 + 24 + 16 * 15


def benchmarks_of(data):
    """name -> result of one Google Benchmark JSON document; with repetitions, the median."""
    results = {}
    for b in data["benchmarks"]:
        if "error_occurred" in b:
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                results[b["run_name"]] = b
        elif b.get("run_name", b["name"]) not in results:
            results[b.get("run_name", b["name"])] = b
    return results


def load_benchmarks(path):
    return benchmarks_of(json.load(open(path))) if os.path.exists(path) else {}


def lines_of(text):
    return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def load_lines(path):
    return lines_of(open(path).read()) if os.path.exists(path) else []


def merge_rounds(folder, path):
    """Writes the round files of one thread count (reduce_rR.json, gemm_rR.json,
    numpy_rR.jsonl in `folder`, R = 1, 2, ...) as one JSON file: {"rounds": [{"reduce": ...,
    "gemm": ..., "numpy": [...]}, ...]} in the order they ran."""
    rounds, r = [], 1
    while os.path.exists(f"{folder}/reduce_r{r}.json"):
        rounds.append({"reduce": json.load(open(f"{folder}/reduce_r{r}.json")),
                       "gemm": json.load(open(f"{folder}/gemm_r{r}.json")),
                       "numpy": load_lines(f"{folder}/numpy_r{r}.jsonl")})
        r += 1
    with open(path, "w") as f:
        json.dump({"rounds": rounds}, f, indent=1)


def load_rounds(out, t):
    """The alternating rounds of thread count t as (reduce, gemm, peers) lists: from
    rounds_tT.json, or the one round of an older run (reduce_tT.json, gemm_tT.json, numpy_tT.jsonl)."""
    path = f"{out}/rounds_t{t}.json"
    if os.path.exists(path):
        rounds = json.load(open(path))["rounds"]
        return ([benchmarks_of(r["reduce"]) for r in rounds],
                [benchmarks_of(r["gemm"]) for r in rounds], [r["numpy"] for r in rounds])
    return ([load_benchmarks(f"{out}/reduce_t{t}.json")], [load_benchmarks(f"{out}/gemm_t{t}.json")],
            [load_lines(f"{out}/numpy_t{t}.jsonl")])


def best_of_rounds(values):
    """(best, lowest, count) of the rounds' figures (higher is better)."""
    values = [v for v in values if v]
    return (max(values), min(values), len(values)) if values else (None, None, 0)


def with_spread(best, lowest, count, unit):
    """A best-of-rounds figure and the lowest round: "47.9 GB/s (5 rounds, lowest 45.1 G)"."""
    if best is None:
        return "-"
    if count < 2:
        return fmt(best, unit)
    return f"{fmt(best, unit)} ({count} rounds, lowest {fmt(lowest)})"


def find(benchmarks, pattern):
    for name, b in benchmarks.items():
        if re.search(pattern, name):
            return b
    return None


def seconds(b):
    """A benchmark's time per iteration in seconds."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


def numpy_row(rows, **match):
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def fmt(x, unit=""):
    if x is None:
        return "-"
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {suffix}{unit}"
    return f"{x:.3g} {unit}"


def ratio(ours, theirs, higher_is_better=True):
    if not ours or not theirs:
        return "-"
    return f"{(ours / theirs if higher_is_better else theirs / ours):.2f}x"


def summarize(out):
    threads = sorted(int(re.search(r"_t(\d+)\.json$", p).group(1))
                     for p in glob.glob(os.path.join(out, "peak_t*.json")))
    print("| threads | workload | portasim | peer (same run) | ratio | limit | fraction |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        peak = load_benchmarks(f"{out}/peak_t{t}.json")
        triad = find(peak, "triad")
        bandwidth = triad["bytes_per_s"] if triad else None
        read = find(peak, "read_double/n:5000000/") or find(peak, "read_double")  # 40 MB
        read_bandwidth = read["bytes_per_s"] if read else None
        fma = {s: (find(peak, f"fma_{s}") or {}).get("flop_per_s") for s in ("float", "double")}
        peers = load_lines(f"{out}/numpy_t{t}.jsonl")

        def row(workload, ours, peer, ratio_text, limit, fraction):
            print(f"| {t} | {workload} | {ours} | {peer} | {ratio_text} | {limit} | {fraction} |")

        hh = load_benchmarks(f"{out}/hh_t{t}.json")
        for scalar, dtype in (("float", "float32"), ("double", "float64")):
            b = find(hh, f"BM_hh_rk4/{scalar}/spikes")
            p = numpy_row(peers, workload="hh_rk4", dtype=dtype)
            ours = b["neuron_steps_per_s"] if b else None
            theirs = p["neuron_steps_per_s"] if p else None
            flops = ours * HH_FLOP_PER_NEURON_STEP if ours else None
            row(f"HH RK4 {scalar}, 1e5 neurons", fmt(ours, "neuron-steps/s"),
                f"NumPy {fmt(theirs)}", ratio(ours, theirs), f"FMA {fmt(fma[scalar], 'FLOP/s')}",
                f"{flops / fma[scalar]:.0%} (~{HH_FLOP_PER_NEURON_STEP} FLOP/step)"
                if flops and fma[scalar] else "-")
        # Reductions and gemm: each side's best of the alternating rounds (run_cpu_suite.sh).
        reduce_rounds, gemm_rounds, peer_rounds = load_rounds(out, t)
        for name, workload, peer_name in (("l2_norm", "l2_norm", "np.linalg.norm"),
                                          ("sum", "sum", "np.sum")):
            bs = [find(r, f"reduction/{name}_float/n:10000000") for r in reduce_rounds]
            ps = [numpy_row(r, workload=workload) for r in peer_rounds]
            ours, ours_low, ours_n = best_of_rounds([b["GB_per_s"] * 1e9 for b in bs if b])
            theirs, theirs_low, theirs_n = best_of_rounds([p["gb_per_s"] * 1e9 for p in ps if p])
            row(f"{name}, 1e7 float", with_spread(ours, ours_low, ours_n, "B/s"),
                f"{peer_name} {with_spread(theirs, theirs_low, theirs_n, 'B/s')}",
                ratio(ours, theirs), f"read {fmt(read_bandwidth, 'B/s')}",
                f"{ours / read_bandwidth:.0%}" if ours and read_bandwidth else "-")
        for scalar, dtype in (("float", "float32"), ("double", "float64")):
            bs = [find(r, f"matmul/blas/{scalar}/n:1024") for r in gemm_rounds]
            ps = [numpy_row(r, workload="matmul", dtype=dtype, n=1024) for r in peer_rounds]
            ours, ours_low, ours_n = best_of_rounds([2 * 1024 ** 3 / seconds(b) for b in bs if b])
            theirs, theirs_low, theirs_n = best_of_rounds(
                [p["gflop_per_s"] * 1e9 for p in ps if p])
            row(f"gemm {scalar} 1024^3", with_spread(ours, ours_low, ours_n, "FLOP/s"),
                f"NumPy a @ b {with_spread(theirs, theirs_low, theirs_n, 'FLOP/s')}",
                ratio(ours, theirs), f"FMA {fmt(fma[scalar], 'FLOP/s')}",
                f"{ours / fma[scalar]:.0%}" if ours and fma[scalar] else "-")
        life = load_benchmarks(f"{out}/life_t{t}.json")
        p = numpy_row(peers, workload="life_roll")
        theirs = p["cells_per_s"] if p else None
        for engine in ("byte", "bits"):
            b = find(life, f"BM_life_engine/{engine}/side:2048")
            ours = b["cells_per_s"] if b else None
            bytes_per_cell = 2 if engine == "byte" else 0.25  # read and write once per generation
            row(f"Life {engine} 2048^2", fmt(ours, "cells/s"), f"np.roll {fmt(theirs)}",
                ratio(ours, theirs), f"triad {fmt(bandwidth, 'B/s')}",
                f"{ours * bytes_per_cell / bandwidth:.0%}" if ours and bandwidth else "-")
        sfap = load_benchmarks(f"{out}/sfap_t{t}.json")
        b = find(sfap, "bench_200x25/with_delays")
        myogen = load_lines(f"{out}/myogen_t{t}.jsonl")
        ours = seconds(b) if b else None
        theirs = myogen[0]["seconds_median"] if myogen else None
        row("SFAP 200 x 25 with delays", f"{ours:.3f} s" if ours else "-",
            f"MyoGen NumPy {theirs:.3f} s" if theirs else "MyoGen not run",
            ratio(ours, theirs, higher_is_better=False), "-", "-")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--merge-rounds":
        merge_rounds(sys.argv[2], sys.argv[3])
    else:
        summarize(sys.argv[1])
