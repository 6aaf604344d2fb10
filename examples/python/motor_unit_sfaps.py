"""A MyoGen-style motor unit and its SFAPs through portasim, with MyoGen's one-line change.

MyoGen computes a motor unit's single-fiber action potentials with
    mu.calc_sfaps(index, dt, dz, electrode_positions)
and portasim does the same with
    portasim.sfap.calc_sfaps_for(mu, dt, dz, electrode_positions)
setting mu.sfaps (Nt, N_electrodes, N_fibers), after the nerve-path delays, as MyoGen does.
Here the motor unit is a small stand-in with the attributes MyoGen's MotorUnitSim has after
sim_nmj_branches_two_layers; with MyoGen installed, use its MotorUnitSim instead.

usage: python3 motor_unit_sfaps.py [--fibers N] [--electrodes N] [--output DIR]
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import portasim  # noqa: E402


class MotorUnit:
    """The MotorUnitSim attributes calc_sfaps reads, for `fibers` fibers scattered over a
    circular territory, their end plates near the muscle's middle and nerve paths to them."""

    def __init__(self, fibers, muscle_length_mm=40.0, radius_mm=1.5, seed=7):
        rng = np.random.default_rng(seed)
        r = radius_mm * np.sqrt(rng.random(fibers))
        angle = 2 * np.pi * rng.random(fibers)
        self.muscle_fiber_centers__mm = np.column_stack([r * np.cos(angle), r * np.sin(angle)])
        self.muscle_length__mm = muscle_length_mm
        self.muscle_fiber_diameters__mm = rng.normal(55e-3, 5e-3, (fibers, 1))
        self.muscle_fiber_conduction_velocity__mm_per_s = rng.normal(4000.0, 200.0, (fibers, 1))
        self._neuromuscular_z_coordinates__mm = rng.normal(muscle_length_mm / 2, 0.5, (fibers, 1))
        self.nerve_paths = np.column_stack([rng.uniform(5, 10, fibers), rng.uniform(0, 2, fibers)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fibers", type=int, default=100)
    parser.add_argument("--electrodes", type=int, default=8)
    parser.add_argument("--output", default=".")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)

    mu = MotorUnit(args.fibers)
    # A needle's electrodes along the fibers, 0.5 mm off the territory's centre.
    electrodes = np.column_stack([np.zeros(args.electrodes), np.full(args.electrodes, 0.5),
                                  np.linspace(16.0, 24.0, args.electrodes)])
    dt, dz = 1 / 10240, 0.1  # s, mm

    # MyoGen: mu.calc_sfaps(0, dt, dz, electrodes)
    portasim.sfap.calc_sfaps_for(mu, dt, dz, electrodes)
    muap = mu.sfaps.sum(axis=2)  # MyoGen's calc_muap(0)

    t_ms = np.arange(mu.sfaps.shape[0]) * dt * 1e3
    fig, ax = plt.subplots(figsize=(7, 4.5))
    spacing = 1.2 * np.abs(muap).max()
    for e in range(args.electrodes):
        ax.plot(t_ms, muap[:, e] - e * spacing, lw=1)
        ax.text(t_ms[-1], -e * spacing, f" z = {electrodes[e, 2]:.1f} mm", va="center",
                fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.set_yticks([])
    ax.set_title(f"MUAP of {args.fibers} fibers at {args.electrodes} electrodes "
                 f"(portasim.sfap.calc_sfaps_for)")
    fig.tight_layout()
    path = os.path.join(args.output, "example_motor_unit_muap.png")
    fig.savefig(path, dpi=110)
    print(f"sfaps {mu.sfaps.shape}, peak MUAP {np.abs(muap).max():.4g}; wrote {path}")


if __name__ == "__main__":
    main()
