#!/usr/bin/python3
"""Plot every toolkit benchmark: the Google Benchmark JSON of portasim_bench_toolkit_elementwise
(elementwise, launch shapes, reductions, device copy), portasim_bench_toolkit_linalg (matmul,
trace, SVD), portasim_bench_transfers (copies pageable/pinned) and portasim_bench_memory_pool
(pool vs plain allocation), or any other JSON whose benchmark names read
"<family>/<variant...>/<size_key>:<size>[/...]/manual_time".

PNGs in --outdir:
  <family>.png          every rate/time counter against size, one line per variant and input
                        file, when variants have several sizes (elementwise, reduction, copy,
                        matmul, trace, ...);
  <family>_sweep.png    horizontal bars per variant when each variant has a single size (the
                        launch-shape sweep, SVD);
  toolkit_memory.png    host <-> device copies (GB/s vs size, pageable and pinned, H2D and
                        D2H) beside allocate+free time vs size (Kokkos View, caching pool,
                        stream-ordered pool), from the transfers and pool benchmarks; their
                        rows are printed as a table too.
CuPy peer lines (shared/peers/blas_cupy.py and perf/toolkit/axis_cupy.py output, --peer,
repeatable) are overlaid where their anchor matches a family and counter (PEER_SERIES below;
add a row for a new peer figure).

usage: perf/toolkit/plot_bench_toolkit.py --outdir DIR BENCH.json [BENCH.json ...]
                                          [--peer blas_cupy.jsonl] [--peer axis_cupy.jsonl]
"""
import collections
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402

# Argument names that give a benchmark's size (its x axis), in order of preference.
SIZE_KEYS = ("n", "size", "N", "m", "dim", "bytes", "KiB", "MiB", "copy_MiB", "elements")
# Families drawn together in toolkit_memory.png instead of one PNG each: host <-> device
# transfers (GB_per_s against bytes) and allocation (us_per_pair against bytes).
TRANSFER_FAMILY = re.compile(r"^copy_(h2d|d2h)_")
ALLOCATION_COUNTER = "us_per_pair"
# Counters worth a plot: rates and times. Parameters (n, team, chunk, ...) are not.
PLOTTED = re.compile(r"(per_s|GBps|TFLOP|GFLOP|^us_|^ms_|_us$|_ms$|seconds|_s$|percent|ratio)")
STANDARD_FIELDS = {
    "name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
    "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index",
    "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message", "skipped",
}

# (peer anchor, family regex, counter regex, x field, x unit, y function, label). x units:
# "count" for element counts, "MiB" for transfer sizes (converted when the family's size key
# is bytes or KiB).
PEER_SERIES = [
    ("axpb_cupy", r"^elementwise", r"GB_per_s|GBps", "n", "count", lambda r: r["GBps"], "CuPy ElementwiseKernel y=x1*x2+B"),
    ("axpb_cupy", r"^elementwise", r"^us_per_call$", "n", "count", lambda r: 1e6 * r["s"], "CuPy ElementwiseKernel y=x1*x2+B"),
    ("axpb_cupy", r"^(launch_shape)", r"GB_per_s|GBps", "n", "count", lambda r: r["GBps"], "CuPy ElementwiseKernel"),
    ("axpb_cupy", r"^reduction$", r"GB_per_s|GBps", "n", "count", lambda r: r["l2_GBps"], "CuPy ReductionKernel L2 norm"),
    ("axpb_cupy", r"^reduction$", r"^us_per_call$", "n", "count", lambda r: 1e6 * r["l2_s"], "CuPy ReductionKernel L2 norm"),
    ("axis_cupy", r"^reduction_axis$", r"GB_per_s|GBps", "n", "count", lambda r: r["GBps"], "CuPy sum {case}"),
    ("axis_cupy", r"^reduction_axis$", r"^us_per_call$", "n", "count", lambda r: 1e6 * r["s"], "CuPy sum {case}"),
    ("matmul_cupy", r"matmul|gemm|linalg", r"TFLOP", "n", "count", lambda r: r["TFLOPs"], "CuPy matmul {dtype}"),
    ("matmul_cupy", r"trace", r"^us_per_call$|_us$", "n", "count", lambda r: 1e6 * r["trace_s"], "CuPy trace {dtype}"),
    ("svd_cupy", r"svd", r"seconds|_s$", "n", "count", lambda r: r["s"], "CuPy SVD"),
    ("svd_cupy", r"svd", r"_ms$|^ms_", "n", "count", lambda r: 1e3 * r["s"], "CuPy SVD"),
    ("copy_cupy", r"transfer|copy_h|h2d|d2h", r"GB", "MiB", "MiB", lambda r: (r["pageable_h2d_GBps"], r["pinned_h2d_GBps"]), "CuPy H2D {kind}"),
    ("copy_cupy", r"transfer|copy_h|h2d|d2h", r"GB", "MiB", "MiB", lambda r: (r["pageable_d2h_GBps"], r["pinned_d2h_GBps"]), "CuPy D2H {kind}"),
]


def parse_name(name):
    """family, variant, size key, size of a benchmark name ('BM_' and '/manual_time' go)."""
    return plotting.parse_name(name, SIZE_KEYS)


def is_memory_row(b):
    return bool(TRANSFER_FAMILY.match(b["name"])) or ALLOCATION_COUNTER in b


def load(paths):
    """{family: {(variant, where): {counter: [(size, value)]}}}, size keys per family."""
    data = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    size_keys = {}
    for path in paths:
        doc = plotting.load_json(path)
        where = plotting.where_of(doc.get("context", {}))
        if len(paths) > 1:
            where += f" [{os.path.basename(path)}]"
        for b in plotting.iterations(doc):
            if is_memory_row(b):
                continue
            family, variant, size_key, size = parse_name(b["name"])
            if size is None:
                size_key, size = "case", 0.0
            size_keys.setdefault(family, size_key)
            series = data[family][(variant, where)]
            unit = b.get("time_unit", "ns")
            series[f"time_per_iteration_{unit}"].append((size, b["real_time"]))
            for key, value in b.items():
                if key in STANDARD_FIELDS or not isinstance(value, (int, float)) or not PLOTTED.search(key):
                    continue
                series[key].append((size, float(value)))
    return data, size_keys


def peer_lines(rows, family, counter, size_key):
    """[(label, [(x, y)])] of the peer figures that belong on this family/counter plot."""
    lines = collections.defaultdict(list)
    for anchor, fam_re, counter_re, xfield, xunit, value, label in PEER_SERIES:
        if not re.search(fam_re, family) or not re.search(counter_re, counter):
            continue
        for r in rows:
            if r.get("anchor") != anchor or xfield not in r:
                continue
            x = float(r[xfield])
            if xunit == "MiB" and size_key == "bytes":
                x *= 2**20
            elif xunit == "MiB" and size_key == "KiB":
                x *= 1024
            try:
                y = value(r)
            except KeyError:
                continue
            if isinstance(y, tuple):  # pageable, pinned
                for kind, v in zip(("pageable", "pinned"), y):
                    lines[label.format(kind=kind, **r)].append((x, v))
            else:
                lines[label.format(**r)].append((x, y))
    return [(label, sorted(points)) for label, points in sorted(lines.items())]


def plot_family_lines(family, series, size_key, peer_rows, outdir):
    counters = sorted({c for s in series.values() for c in s}, key=lambda c: (c.startswith("time_per"), c))
    cols = min(3, len(counters))
    rows = math.ceil(len(counters) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4.2 * rows), squeeze=False)
    for axis, counter in zip(axes.flat, counters):
        for (variant, where), s in sorted(series.items()):
            if counter in s:
                points = sorted(s[counter])
                axis.plot(*zip(*points), **plotting.PORTASIM_LINE, label=f"{variant} ({where})")
        for label, points in peer_lines(peer_rows, family, counter, size_key):
            axis.plot(*zip(*points), **plotting.PEER_LINE, color="black", alpha=0.6, label=label)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(size_key)
        axis.set_ylabel(counter)
        axis.grid(alpha=0.3, which="both")
        axis.legend(fontsize=6)
    for axis in list(axes.flat)[len(counters):]:
        axis.set_visible(False)
    fig.suptitle(f"portasim toolkit: {family}")
    return plotting.save(fig, os.path.join(outdir, f"{family}.png"))


def plot_family_sweep(family, series, size_key, peer_rows, outdir):
    counters = sorted({c for s in series.values() for c in s}, key=lambda c: (c.startswith("time_per"), c))
    counters = [c for c in counters if not c.startswith("time_per")] or counters
    labels = [f"{variant} ({where})" for (variant, where) in series]
    fig, axes = plt.subplots(1, len(counters), figsize=(7 * len(counters), 0.22 * len(labels) + 1.8), squeeze=False)
    for axis, counter in zip(axes.flat, counters):
        values = [s[counter][0][1] if counter in s else 0.0 for s in series.values()]
        axis.barh(range(len(labels)), values)
        axis.set_yticks(range(len(labels)))
        axis.set_yticklabels(labels, fontsize=6)
        axis.invert_yaxis()
        axis.set_xlabel(counter)
        sizes = sorted({p[0] for s in series.values() for p in s.get(counter, [])})
        for label, points in peer_lines(peer_rows, family, counter, size_key):
            for x, y in points:
                if x in sizes:
                    axis.axvline(y, color="black", ls="--", lw=1, label=f"{label}, {size_key}={x:g}")
        axis.grid(alpha=0.3, axis="x")
        if axis.get_legend_handles_labels()[0]:
            axis.legend(fontsize=6)
    size_text = ", ".join(f"{x:g}" for x in sorted({p[0] for s in series.values() for c in s.values() for p in c}))
    fig.suptitle(f"portasim toolkit: {family} ({size_key} = {size_text})")
    return plotting.save(fig, os.path.join(outdir, f"{family}_sweep.png"))


def memory_series(rows, x_key, y_key):
    out = {}
    for b in rows:
        out.setdefault(plotting.family_of(b["name"]), []).append((b[x_key], b[y_key]))
    return {k: sorted(v) for k, v in out.items()}


def plot_memory(paths, outdir):
    """toolkit_memory.png from the transfer and allocation rows of the files, if any."""
    transfers, pool, contexts = [], [], {}
    for path in paths:
        doc = plotting.load_json(path)
        rows = plotting.iterations(doc)
        moved = [b for b in rows if TRANSFER_FAMILY.match(b["name"])]
        allocated = [b for b in rows if ALLOCATION_COUNTER in b]
        transfers += moved
        pool += allocated
        for kind, found in (("transfers", moved), ("pool", allocated)):
            if found:
                contexts.setdefault(kind, doc.get("context", {}))
    if not transfers and not pool:
        return None
    # The machine as the transfers file states it (the pool file's when there is none).
    context = contexts.get("transfers", contexts.get("pool", {}))
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for family, points in memory_series(transfers, "bytes", "GB_per_s").items():
        left.semilogx([p[0] / 2**20 for p in points], [p[1] for p in points], "o-", label=family)
        for size, rate in points:
            print(f"{family:24s} {size / 2**20:8.0f} MiB {rate:8.2f} GB/s")
    left.set_xlabel("size (MiB)")
    left.set_ylabel("GB/s")
    left.set_title("host <-> device copies on an instance")
    for family, points in memory_series(pool, "bytes", ALLOCATION_COUNTER).items():
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
    return plotting.save(fig, os.path.join(outdir, "toolkit_memory.png"), dpi=120)


def main():
    parser = plotting.parser(__doc__)
    parser.add_argument("bench", nargs="+", help="Google Benchmark JSON files")
    parser.add_argument("--peer", action="append", default=[],
                        help="JSON lines of shared/peers/blas_cupy.py or perf/toolkit/axis_cupy.py (repeatable)")
    parser.add_argument("--outdir", default=".")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    data, size_keys = load(args.bench)
    peer_rows = [row for path in args.peer for row in plotting.load_peer(path)]
    for family, series in sorted(data.items()):
        sizes_per_variant = [len({p[0] for c in s.values() for p in c}) for s in series.values()]
        if max(sizes_per_variant) > 1:
            plot_family_lines(family, series, size_keys[family], peer_rows, args.outdir)
        else:
            plot_family_sweep(family, series, size_keys[family], peer_rows, args.outdir)
    plot_memory(args.bench, args.outdir)


if __name__ == "__main__":
    main()
