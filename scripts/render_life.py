#!/usr/bin/python3
"""Pictures of a `portasim life` run: PNG frames, a contact sheet, and an MP4 animation
when ffmpeg is installed (the Python tool's renderer: --fps 15, --dpi 100, --cmap binary).

usage: scripts/render_life.py INPUT [--output PREFIX] [--frames N | --generations G ...]
                              [--mp4 FILE] [--fps 15] [--dpi 100] [--cmap binary] [--max-pixels 1024]
INPUT: the run's .npy base or any of its chunk files (simulation.npy, simulation_000000.npy)
or its HDF5 file (/generations, packed or not). Large grids are downsampled (a block is alive
if any of its cells is) to at most --max-pixels a side. Debian's python3-numpy, -h5py and
-matplotlib (run with /usr/bin/python3).
"""
import argparse
import glob
import os
import re
import shutil
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def npy_chunks(path):
    base = re.sub(r"(_\d{6,}(-\d{6,})?)?\.npy$", "", path)
    files = []
    for name in glob.glob(glob.escape(base) + "_*.npy"):
        m = re.search(r"_(\d{6,})(?:-(\d{6,}))?\.npy$", name)
        if m:
            files.append((int(m.group(1)), int(m.group(2) or m.group(1)), name))
    if not files:
        sys.exit(f"render_life: no chunk files {base}_*.npy")
    return sorted(files)


class Run:
    def __init__(self, path):
        self.h5 = None
        if path.endswith(".h5") or path.endswith(".h5.partial"):
            import h5py
            self.h5 = h5py.File(path, "r")
            self.index = self.h5["generation_index"][()]
            self.packed = bool(self.h5.attrs.get("packed", 0))
        else:
            self.chunks = npy_chunks(path)
            self.index = np.concatenate([np.arange(a, b + 1) for a, b, _ in self.chunks])

    def grid(self, generation):
        if self.h5 is not None:
            i = int(np.searchsorted(self.index, generation))
            g = self.h5["generations"][i]
            return np.unpackbits(g, axis=-1, bitorder="little") if self.packed else g
        for a, b, name in self.chunks:
            if a <= generation <= b:
                return np.load(name, mmap_mode="r")[generation - a]
        raise KeyError(generation)


def downsample(grid, max_pixels):
    h, w = grid.shape
    f = max(1, -(-max(h, w) // max_pixels))
    if f == 1:
        return np.asarray(grid)
    hh, ww = h // f * f, w // f * f
    return np.asarray(grid[:hh, :ww]).reshape(hh // f, f, ww // f, f).max(axis=(1, 3))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("--output", help="prefix of the PNG files (default: beside the input)")
    p.add_argument("--frames", type=int, default=4, help="evenly spaced frames to write")
    p.add_argument("--generations", type=int, nargs="*", help="exact generations to write")
    p.add_argument("--mp4", help="also write an MP4 animation of every stored generation (needs ffmpeg)")
    p.add_argument("--fps", type=int, default=15)
    p.add_argument("--dpi", type=int, default=100)
    p.add_argument("--cmap", default="binary")
    p.add_argument("--max-pixels", type=int, default=1024)
    a = p.parse_args()
    run = Run(a.input)
    prefix = a.output or re.sub(r"(_\d{6,}(-\d{6,})?)?\.(npy|h5)(\.partial)?$", "", a.input)
    stored = run.index.tolist()
    if a.generations:
        missing = [g for g in a.generations if g not in set(stored)]
        if missing:
            sys.exit(f"render_life: generations {missing} are not stored in {a.input}")
        gens = a.generations
    else:  # evenly spaced among the stored generations
        gens = sorted({stored[i] for i in np.linspace(0, len(stored) - 1, a.frames).round().astype(int)})
    wrote = []
    for g in gens:
        img = downsample(run.grid(g), a.max_pixels)
        path = f"{prefix}_frame_{g:06d}.png"
        plt.imsave(path, img, cmap=a.cmap, vmin=0, vmax=1)
        wrote.append(path)
    fig, axes = plt.subplots(1, len(gens), figsize=(3 * len(gens), 3.3), squeeze=False)
    for ax, g in zip(axes[0], gens):
        ax.imshow(downsample(run.grid(g), a.max_pixels), cmap=a.cmap, vmin=0, vmax=1, interpolation="nearest")
        ax.set_title(f"generation {g}, population {int(np.asarray(run.grid(g)).sum())}", fontsize=8)
        ax.axis("off")
    fig.tight_layout()
    sheet = f"{prefix}_frames.png"
    fig.savefig(sheet, dpi=a.dpi)
    plt.close(fig)
    wrote.append(sheet)
    if a.mp4:
        if not shutil.which("ffmpeg"):
            sys.exit("render_life: --mp4 needs ffmpeg (apt-get install ffmpeg); PNG frames were written")
        from matplotlib import animation
        fig, ax = plt.subplots(dpi=a.dpi)
        image = ax.imshow(downsample(run.grid(int(run.index[0])), a.max_pixels), cmap=a.cmap, vmin=0, vmax=1)
        ax.axis("off")
        movie = animation.FuncAnimation(fig, lambda g: [image.set_data(downsample(run.grid(int(g)), a.max_pixels))],
                                        frames=run.index, blit=False)
        movie.save(a.mp4, writer=animation.FFMpegWriter(fps=a.fps))
        wrote.append(a.mp4)
    for path in wrote:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
