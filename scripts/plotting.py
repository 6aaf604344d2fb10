"""What portasim's plot scripts share: Matplotlib without a display, saving figures, the
line styles and labels of portasim's and the peers' figures, opening a run's HDF5 file,
reading Google Benchmark JSON and the CuPy peers' JSON lines, and clear exits.

Its users: scripts/plot_hh.py, plot_sfap.py, plot_toolkit.py, render_life.py (a run's
output) and perf/*/plot_*.py (benchmark results). A script in scripts/ imports it with
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
and one in perf/<module>/ with
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts"))
followed by `import plotting` and `from plotting import plt`.

Exit codes of the scripts: 2 for input they cannot use (a missing or unreadable file, bad
options), 1 for a missing tool (h5py, ffmpeg) or a failed write.
Uses Debian's python3-numpy, python3-matplotlib and, for HDF5 input, python3-h5py (run the
scripts with /usr/bin/python3; scripts/bootstrap.sh installs them).
"""
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402  (re-exported: plotting.plt)
import numpy as np  # noqa: E402

# Resolution of every PNG unless a script or its --dpi says otherwise.
DPI = 110
# portasim's measured lines, and the peers' (CuPy, PyTorch, MyoGen) beside them.
PORTASIM_LINE = {"marker": "o", "ls": "-", "ms": 3}
PEER_LINE = {"marker": "s", "ls": "--", "ms": 3}


def tool_name():
    """The running script's file name, for messages."""
    return os.path.basename(sys.argv[0]) or "plotting"


def fail(message, code=2):
    """Prints 'SCRIPT: message' to stderr and exits with `code` (2: unusable input, 1: missing tool)."""
    print(f"{tool_name()}: {message}", file=sys.stderr)
    sys.exit(code)


def parser(doc):
    """An argument parser whose description is the first line of the script's docstring."""
    import argparse
    return argparse.ArgumentParser(description=doc.strip().splitlines()[0])


def output_prefix(run, chosen, suffixes=(".h5",)):
    """The pictures' path prefix: the chosen one, else the run's path without its suffix. Its
    folder is created."""
    prefix = chosen
    if not prefix:
        prefix = run
        for suffix in suffixes:
            if run.endswith(suffix):
                prefix = run[:-len(suffix)]
                break
    folder = os.path.dirname(prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    return prefix


def open_h5(path):
    """The HDF5 file at `path`, open for reading; exits 2 when it cannot be read, 1 without h5py."""
    try:
        import h5py
    except ImportError:
        fail("reading HDF5 needs h5py: apt-get install python3-h5py (scripts/bootstrap.sh does)", 1)
    if not os.path.isfile(path):
        fail(f"'{path}' does not exist")
    try:
        return h5py.File(path, "r")
    except OSError as error:
        fail(f"cannot read '{path}' as HDF5: {error}")


def spread(count, k):
    """At most k distinct indices of range(count), evenly spread from the first to the last."""
    if count <= 0 or k <= 0:
        return []
    return sorted({int(i) for i in np.linspace(0, count - 1, min(k, count)).round()})


def save(fig, path, dpi=DPI, tight=True):
    """Writes the figure (its folder created), releases it, says so, and returns the path."""
    if tight:
        fig.tight_layout()
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    print(f"wrote {path}")
    return path


# --- Google Benchmark JSON (--benchmark_out=PATH) and the peers' JSON lines ----------------

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SIZE_RE = re.compile(r"(?:([A-Za-z_]\w*):)?(\d+(?:\.\d+)?)")


def load_json(path):
    """The whole JSON document at `path`; exits 2 when it is missing or not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        fail(f"cannot read '{path}' as JSON: {error}")


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
    """The JSON objects of a peer's output (the peer scripts print one per line among other text)."""
    rows = []
    if path:
        try:
            with open(path) as f:
                for number, line in enumerate(f, 1):
                    line = line.strip()
                    if line.startswith("{"):
                        try:
                            rows.append(json.loads(line))
                        except ValueError as error:
                            fail(f"'{path}' line {number} is not JSON: {error}")
        except OSError as error:
            fail(f"cannot read '{path}': {error}")
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
