#!/usr/bin/python3
"""Pictures of a `portasim hh` run: voltage traces and the f-I curve of a sweep, as PNG.

usage: scripts/plot_hh.py RUN.h5 [--output-prefix PREFIX] [--neurons K]
Writes PREFIX_traces.png (needs --record v or all) and PREFIX_fi_curve.png (needs a
generated stimulus, whose per-neuron amplitudes are stored in /stimulus/amplitude).
Uses Debian's python3-h5py and python3-matplotlib (run it with /usr/bin/python3).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402


def main():
    parser = plotting.parser(__doc__)
    parser.add_argument("run", help="HDF5 file written by portasim hh")
    parser.add_argument("--output-prefix", help="default: the input path without .h5")
    parser.add_argument("--neurons", type=int, default=6, help="traces to draw (evenly spread)")
    args = parser.parse_args()
    if args.neurons < 1:
        parser.error(f"--neurons must be >= 1, got {args.neurons}")
    prefix = plotting.output_prefix(args.run, args.output_prefix)
    f = plotting.open_h5(args.run)
    wrote = []
    with f:
        amplitude = f["stimulus/amplitude"][()] if "stimulus/amplitude" in f else None
        if "V" in f and "time" in f:
            time, voltage = f["time"][()], f["V"]
            neurons = voltage.shape[1]
            chosen = plotting.spread(neurons, args.neurons)
            fig, axes = plt.subplots(len(chosen), 1, sharex=True, figsize=(8, 1.4 * len(chosen) + 1), squeeze=False)
            for axis, k in zip(axes[:, 0], chosen):
                axis.plot(time, voltage[:, k], lw=0.8)
                label = f"neuron {k}" + (f", I = {amplitude[k]:.2f}" if amplitude is not None else "")
                axis.set_ylabel("V (mV)")
                axis.set_title(label, fontsize=8, loc="left")
            axes[-1, 0].set_xlabel("time (ms)")
            fig.suptitle(f"Hodgkin-Huxley voltage traces ({f.attrs['precision']}, {f.attrs['integrator']})")
            wrote.append(plotting.save(fig, prefix + "_traces.png"))
        if amplitude is not None and "spikes/firing_rate_hz" in f:
            rate = f["spikes/firing_rate_hz"][()]
            fig, axis = plt.subplots(figsize=(6, 4))
            axis.plot(amplitude, rate, ".-", ms=3)
            axis.set_xlabel("injected current (uA/cm$^2$)")
            axis.set_ylabel("firing rate (Hz)")
            axis.set_title(f"f-I curve over {len(rate)} neurons, T = {f.attrs['t_ms']} ms")
            axis.grid(alpha=0.3)
            wrote.append(plotting.save(fig, prefix + "_fi_curve.png"))
    if not wrote:
        plotting.fail(f"'{args.run}' has neither traces (/V) nor a generated sweep (/stimulus/amplitude)")


if __name__ == "__main__":
    main()
