"""What the benchmark plot scripts (perf/*/plot_*.py) share: Matplotlib without a display,
Google Benchmark JSON files and their rows, benchmark names taken apart, labels from the
benchmark context, the CuPy peers' JSON lines, and log-log axes and saving.

A plot script imports it with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    import bench_plot  # noqa: E402
Uses Debian's /usr/bin/python3 with matplotlib.
"""
import json
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402,F401  (re-exported: bench_plot.plt)

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load(path):
    """The whole Google Benchmark JSON document (--benchmark_out=PATH)."""
    with open(path) as f:
        return json.load(f)


def iterations(doc):
    """The measured rows: no aggregates (mean/median/stddev of repetitions), no errors, no skips."""
    return [b for b in doc.get("benchmarks", [])
            if b.get("run_type", "iteration") == "iteration" and not b.get("error_occurred") and not b.get("skipped")]


def seconds(b):
    """A row's real time in seconds."""
    return b["real_time"] * UNIT_SECONDS[b.get("time_unit", "ns")]


def family_of(name):
    """The part of a benchmark name before its first '/'."""
    return re.sub(r"/.*", "", name)


SIZE_RE = re.compile(r"(?:([A-Za-z_]\w*):)?(\d+(?:\.\d+)?)")


def parse_name(name, size_keys=("n", "size", "N", "m", "dim", "bytes", "KiB", "MiB", "copy_MiB", "elements")):
    """family, variant, size key, size of "<family>/<variant...>/<key>:<size>[/...]/manual_time"
    ('BM_' and the timing suffix go). The size is the first argument named in size_keys (or
    unnamed), else the last numeric one; None when there is none."""
    parts = [p for p in name.split("/") if p not in ("manual_time", "real_time", "process_time")]
    family = re.sub(r"^BM_", "", parts[0])
    size_key, size, rest = None, None, []
    for part in parts[1:]:
        m = SIZE_RE.fullmatch(part)
        key = m.group(1) if m else None
        if m and size is None and (key in size_keys or key is None):
            size_key, size = key or "size", float(m.group(2))
        else:
            rest.append(part)
    if size is None:  # the last numeric argument, whatever its name
        for i in range(len(rest) - 1, -1, -1):
            m = SIZE_RE.fullmatch(rest[i])
            if m:
                size_key, size = m.group(1) or "size", float(m.group(2))
                del rest[i]
                break
    return family, "/".join(rest) or family, size_key, size


def where_of(context):
    """"<backend> <device>" for a GPU run, "<backend> <threads> thr" for a host run."""
    backend = context.get("default_backend", "?")
    device = context.get("device_0", "")
    threads = context.get("OMP_NUM_THREADS", "")
    return f"{backend} {device}".strip() if device else f"{backend} {threads} thr"


def load_peer(path):
    """The JSON objects of a peer's output (shared/peers/*.py print one per line among other text)."""
    rows = []
    if path:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    return rows


def log_axes(axis, xlabel, ylabel, title=None, xbase=10, legend_fontsize=7):
    """Log-log axes with labels, a light grid on both tick sets and a small legend."""
    axis.set_xscale("log", base=xbase)
    axis.set_yscale("log")
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    if title is not None:
        axis.set_title(title)
    axis.grid(alpha=0.3, which="both")
    axis.legend(fontsize=legend_fontsize)


def save(fig, path, dpi=110):
    """Writes the figure, releases it and says so."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(f"wrote {path}")
    return path
