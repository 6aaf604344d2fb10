#!/usr/bin/python3
"""Pictures of a `portasim toolkit` run, as PNG.

usage: scripts/plot_toolkit.py RUN.h5 [--output-prefix PREFIX]
Writes PREFIX_softplus.png (the stable softplus against the naive log(1 + e^x) and their
errors), PREFIX_singular_values.png (the SVD's spectrum, when the run had one) and
PREFIX_timings.png (device time per call of every example: mean with std, min; rates).
Uses Debian's python3-h5py and python3-matplotlib (run it with /usr/bin/python3).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402
import numpy as np  # noqa: E402


def plot_softplus(f, out, where):
    s = f["softplus"]
    x, y, naive, ref = s["x"][()], s["y"][()], s["naive"][()], s["reference"][()]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    finite = np.isfinite(naive)
    left.plot(x, ref, "k-", lw=3, alpha=0.25, label="reference (long double, rounded)")
    left.plot(x, y, "-", label="stable: max(0, x) + log1p(exp(-|x|))")
    left.plot(x[finite], naive[finite], "--", label="naive: log(1 + exp(x))")
    if (~finite).any():
        left.axvline(x[~finite].min(), color="red", lw=1, ls=":",
                     label=f"naive not finite from x = {x[~finite].min():g} ({(~finite).sum()} values)")
    left.set_yscale("symlog", linthresh=1e-3)
    left.set_ylim(bottom=0)
    left.set_xlabel("x")
    left.set_ylabel("softplus(x)")
    left.legend(fontsize=8)
    tiny = np.finfo(y.dtype if y.dtype.kind == "f" else np.float64).tiny
    scale = np.maximum(np.abs(ref), tiny)
    with np.errstate(invalid="ignore"):
        right.semilogy(x, np.abs(y - ref) / scale + 1e-20, ".", ms=3, label="stable")
        right.semilogy(x[finite], np.abs(naive[finite] - ref[finite]) / scale[finite] + 1e-20, ".", ms=3, label="naive (finite values)")
    right.set_xlabel("x")
    right.set_ylabel("relative error (+1e-20)")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3, which="both")
    fig.suptitle(f"softplus over [{x[0]:g}, {x[-1]:g}], {where}")
    plotting.save(fig, out)


def plot_singular_values(f, out, where):
    s = f["svd/singular_values"][()]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.semilogy(np.arange(1, len(s) + 1), s, "o-", ms=3, label="portasim svd")
    if "svd/matrix" in f:
        ax.semilogy(np.arange(1, len(s) + 1), np.linalg.svd(f["svd/matrix"][()], compute_uv=False), "k--", lw=1,
                    label="numpy.linalg.svd of the same matrix")
    attrs = f["svd"].attrs
    text = [f"|sum s^2 - ||A||_F^2| / ||A||_F^2 = {attrs['frobenius_energy_relative_error']:.2g}"]
    if "reconstruction_relative_error" in attrs:
        text.append(f"||A - U S Vt||_F / ||A||_F = {attrs['reconstruction_relative_error']:.2g}")
    ax.text(0.02, 0.03, "\n".join(text), transform=ax.transAxes, fontsize=8)
    ax.set_xlabel("index")
    ax.set_ylabel("singular value")
    ax.set_title(f"singular values of a {len(s)} x {len(s)} matrix of uniform values in [-0.5, 0.5), {where}")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    plotting.save(fig, out)


def plot_timings(f, out, where):
    groups = sorted(f["timings"].values(), key=lambda g: g.attrs["index"])
    names = [g.name.rsplit("/", 1)[1] for g in groups]
    mean = np.array([g.attrs["device_mean_ms"] for g in groups])
    std = np.array([g.attrs["device_std_ms"] for g in groups])
    low = np.array([g.attrs["device_min_ms"] for g in groups])
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(names) + 1.5))
    rows = np.arange(len(names))
    ax.barh(rows, mean, xerr=std, color="C0", alpha=0.8, label="mean +- std")
    ax.plot(low, rows, "k|", ms=12, label="min")
    for row, g, m in zip(rows, groups, mean):
        unit = g.attrs["rate_unit"]
        if unit:
            ax.text(m * 1.15, row, f"{g.attrs['rate']:.3g} {unit}", va="center", fontsize=7)
    ax.set_yticks(rows)
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(right=ax.get_xlim()[1] * 8)
    ax.set_xlabel("device time per call (ms)")
    count = groups[0].attrs["count"] if groups else 0
    ax.set_title(f"portasim toolkit examples, {where} ({count} timed calls each)", fontsize=9)
    ax.grid(alpha=0.3, axis="x", which="both")
    ax.legend(fontsize=8, loc="lower right")
    plotting.save(fig, out)


def main():
    parser = plotting.parser(__doc__)
    parser.add_argument("run", help="HDF5 file written by portasim toolkit")
    parser.add_argument("--output-prefix", help="default: the input path without .h5")
    args = parser.parse_args()
    prefix = plotting.output_prefix(args.run, args.output_prefix)
    f = plotting.open_h5(args.run)
    with f:
        if f.attrs.get("generator") != "portasim toolkit":
            plotting.fail(f"'{args.run}' was not written by portasim toolkit")
        where = f"{f.attrs['precision']} on {f.attrs['backend']}"
        if "softplus" in f:
            plot_softplus(f, prefix + "_softplus.png", where)
        if "svd/singular_values" in f:
            plot_singular_values(f, prefix + "_singular_values.png", where)
        if "timings" in f:
            plot_timings(f, prefix + "_timings.png", where)


if __name__ == "__main__":
    main()
