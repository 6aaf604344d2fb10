"""A Game of Life run streamed into a Python callback: the population of every generation
and a few snapshots, without writing the generations anywhere.

usage: python3 life_chunk_callback.py [--size N] [--generations G] [--output DIR]
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
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--generations", type=int, default=500)
    parser.add_argument("--output", default=".")
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)

    population, snapshots = {}, {}
    wanted = {0, args.generations // 4, args.generations}

    def receive(cells, generations):
        # cells: (count, size, size) uint8, valid during the call only; copy what you keep.
        for grid, generation in zip(cells, generations):
            population[int(generation)] = int(grid.sum(dtype=np.int64))
            if generation in wanted:
                snapshots[int(generation)] = grid.copy()

    r = portasim.life.run(height=args.size, width=args.size, density=0.3, seed=42,
                          generations=args.generations, chunk_size=50, output=receive)

    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6),
                             gridspec_kw={"width_ratios": [1, 1, 1, 1.6]})
    for ax, generation in zip(axes, sorted(snapshots)):
        ax.imshow(snapshots[generation], cmap="binary", interpolation="nearest")
        ax.set_title(f"generation {generation}")
        ax.axis("off")
    gens = sorted(population)
    axes[3].plot(gens, [population[g] for g in gens], lw=1)
    axes[3].set_xlabel("generation")
    axes[3].set_ylabel("live cells")
    fig.tight_layout()
    path = os.path.join(args.output, "example_life_population.png")
    fig.savefig(path, dpi=110)
    print(f"{args.size}^2 x {args.generations} generations, {r.chunks} chunks, "
          f"{r.cells_per_second:.3g} cells/s; final population {r.final_population}; wrote {path}")


if __name__ == "__main__":
    main()
