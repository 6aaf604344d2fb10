"""The f-I curve of the Hodgkin-Huxley neuron: one neuron per DC amplitude, in one call.

usage: python3 hh_fi_curve.py [--neurons N] [--t-ms T] [--output DIR]
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import portasim  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neurons", type=int, default=400)
    parser.add_argument("--t-ms", type=float, default=500.0)
    parser.add_argument("--output", default=".")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)

    amplitudes = np.linspace(0.0, 40.0, args.neurons)  # uA/cm^2, any per-neuron values
    r = portasim.hh.simulate(args.neurons, args.t_ms, amplitude=amplitudes)
    # Sustained firing: 1 / the mean interspike interval over the second half of the run,
    # after the onset transient (0 where fewer than two spikes fall there).
    half = args.t_ms / 2

    def rate_hz(times):
        times = times[times >= half]
        return 1000.0 / np.mean(np.diff(times)) if len(times) >= 2 else 0.0

    rate = np.array([rate_hz(r.spikes.of(k)) for k in range(args.neurons)])

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(amplitudes, rate, lw=1.2)
    ax.set_xlabel("DC amplitude (uA/cm$^2$)")
    ax.set_ylabel("firing rate (Hz)")
    ax.set_title("HH f-I curve: no firing, then a jump to ~50 Hz (type II)")
    fig.tight_layout()
    path = os.path.join(args.output, "example_hh_fi_curve.png")
    fig.savefig(path, dpi=110)
    onset = amplitudes[np.argmax(rate > 0)] if rate.any() else float("nan")
    print(f"{args.neurons} neurons x {args.t_ms:g} ms in {r.seconds:.3g} s; sustained firing "
          f"from {onset:.2f} uA/cm^2; wrote {path}")


if __name__ == "__main__":
    main()
