#!/usr/bin/python3
"""Pictures of a `portasim sfap` run: the MUAP at every electrode and the SFAPs of a few
fibers at the first electrode, as PNG.

usage: scripts/plot_sfap.py OUT.h5 [--output PREFIX]
Uses Debian's python3-h5py and python3-matplotlib (run it with /usr/bin/python3).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402


def main():
    p = plotting.parser(__doc__)
    p.add_argument("run")
    p.add_argument("--output", help="prefix (default: the input without .h5)")
    a = p.parse_args()
    prefix = plotting.output_prefix(a.run, a.output)
    f = plotting.open_h5(a.run)
    with f:
        if "outputs/t" not in f or "outputs/sfaps_pre_shift" not in f:
            plotting.fail(f"'{a.run}' has no /outputs/t and /outputs/sfaps_pre_shift (not a portasim sfap output)")
        out = f["outputs"]
        t_ms = out["t"][()] * 1e3
        pre = out["sfaps_pre_shift"]
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for fiber in plotting.spread(pre.shape[2], 6):
            axes[0].plot(t_ms, pre[:, 0, fiber], lw=0.8, label=f"fiber {fiber}")
        axes[0].set_title("SFAPs at electrode 0 (before delays)")
        axes[0].set_xlabel("time (ms)")
        axes[0].set_ylabel("potential (MyoGen units)")
        axes[0].legend(fontsize=7)
        muap = out["muap"][()] if "muap" in out else pre[()].sum(axis=2)
        for e in range(muap.shape[1]):
            axes[1].plot(t_ms, muap[:, e], lw=0.8, label=f"electrode {e}" if muap.shape[1] <= 8 else None)
        axes[1].set_title("MUAP per electrode" + ("" if "muap" in out else " (sum of undelayed SFAPs)"))
        axes[1].set_xlabel("time (ms)")
        if muap.shape[1] <= 8:
            axes[1].legend(fontsize=7)
        fig.suptitle(f"{pre.shape[2]} fibers x {pre.shape[1]} electrodes, {pre.shape[0]} samples")
        plotting.save(fig, prefix + "_sfap.png")


if __name__ == "__main__":
    main()
