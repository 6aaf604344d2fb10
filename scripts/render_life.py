#!/usr/bin/python3
"""Pictures of a `portasim life` run: PNG frames, a contact sheet and an MP4 animation.

usage: scripts/render_life.py [INPUT | --input INPUT] [--output ANIMATION.mp4 | --no-mp4]
           [--prefix PREFIX] [--frames N|all | --generations G [G ...]]
           [--first G] [--last G] [--every K] [--fps 15] [--cmap binary] [--dpi 100]
           [--scale S] [--max-pixels 1024]

INPUT (default simulation.npy, the default output of `portasim life`):
  a chunked .npy run: its base (simulation.npy, or simulation) or any of its chunk files
    (simulation_000000.npy, simulation_000001-000010.npy): uint8 (generations, H, W) each;
  an HDF5 run (FILE.h5, or FILE.h5.partial of an unfinished run): /generations (n, H, W)
    uint8, or (n, H, W/8) bit-packed (attribute packed = 1, bitorder little), numbered by
    /generation_index.
The animation shows every stored generation from --first to --last, every K-th of them
(--every), at --fps frames per second. Every frame, in the MP4 and as PNG, shows one cell as
S x S pixels (--scale; default: the largest S that keeps the longer side within 512 pixels);
a grid with a side over --max-pixels is first reduced by blocks (a block is alive if any of
its cells is). The MP4 (H.264, yuv420p) needs even sides: an odd side gets one more row or
column of dead cells.
Outputs: the MP4 (--output; default PREFIX.mp4; needs ffmpeg), PNG frames
PREFIX_frame_GGGGGG.png (--frames N evenly spread over the animation's generations, default 4;
--frames all: every one; --generations: those exact stored generations) and a contact sheet
PREFIX_frames.png of up to 8 of them (matplotlib, at --dpi). PREFIX defaults to INPUT without
its chunk suffix and extension.
Options shared with the Python tool's renderer: --input, --output (the MP4), --fps 15,
--cmap binary, --dpi 100 (here: the contact sheet's resolution; --scale sizes the frames).
Exit codes: 0 done, 2 unusable input or options, 1 a missing tool (ffmpeg, h5py) or a failed
write. Uses Debian's python3-numpy, python3-matplotlib, python3-h5py (HDF5 input) and ffmpeg
(run it with /usr/bin/python3; scripts/bootstrap.sh installs them).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import plotting  # noqa: E402  (matplotlib without a display)
from plotting import plt  # noqa: E402
import matplotlib  # noqa: E402
import matplotlib.image  # noqa: E402
import numpy as np  # noqa: E402

CHUNK_SUFFIX = re.compile(r"_(\d{6,})(?:-(\d{6,}))?\.npy$")
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
SHEET_FRAMES = 8
AUTO_SCALE_PIXELS = 512


def is_hdf5(path):
    if path.endswith(".h5") or path.endswith(".h5.partial"):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(8) == HDF5_SIGNATURE
    except OSError:
        return False


def default_prefix(path):
    return re.sub(r"(_\d{6,}(-\d{6,})?)?\.(npy|h5)(\.partial)?$", "", path)


class NpyRun:
    """The chunk files {base}_000000.npy, {base}_{a:06d}-{b:06d}.npy, ... of one run."""

    def __init__(self, path):
        base = path[:-4] if path.endswith(".npy") else path
        m = CHUNK_SUFFIX.search(path)
        if m:
            base = path[:m.start()]
        folder, stem = os.path.split(base)
        pattern = re.compile(re.escape(stem) + CHUNK_SUFFIX.pattern)
        try:
            names = os.listdir(folder or ".")
        except OSError as error:
            plotting.fail(f"cannot list '{folder or '.'}': {error}")
        self.chunks = []  # (first, last, path, array)
        shape = None
        for name in sorted(names):
            m = pattern.fullmatch(name)
            if not m:
                continue
            first = int(m.group(1))
            last = int(m.group(2)) if m.group(2) else first
            file = os.path.join(folder, name)
            try:
                data = np.load(file, mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError) as error:
                plotting.fail(f"cannot read chunk file '{file}': {error}")
            if data.dtype != np.uint8 or data.ndim != 3:
                plotting.fail(f"chunk file '{file}' holds {data.dtype} {data.shape}, expected uint8 (generations, H, W)")
            if last < first or data.shape[0] != last - first + 1:
                plotting.fail(f"chunk file '{file}' holds {data.shape[0]} generations, its name says {first}..{last}")
            if shape is not None and data.shape[1:] != shape:
                plotting.fail(f"chunk file '{file}' has grids of {data.shape[1:]}, the run's other chunks {shape}")
            shape = data.shape[1:]
            self.chunks.append((first, last, file, data))
        if not self.chunks:
            plotting.fail(f"no chunk files {base}_*.npy (the output of `portasim life --output {base}.npy`)")
        self.chunks.sort(key=lambda c: c[0])
        for before, after in zip(self.chunks, self.chunks[1:]):
            if after[0] <= before[1]:
                plotting.fail(f"chunk files '{before[2]}' and '{after[2]}' overlap (left from another run?)")
        self.index = np.concatenate([np.arange(first, last + 1) for first, last, _, _ in self.chunks])
        self.name = f"{base}_*.npy"

    def grid(self, generation):
        for first, last, _, data in self.chunks:
            if first <= generation <= last:
                return np.asarray(data[generation - first])
        raise KeyError(generation)


class H5Run:
    """/generations and /generation_index of a portasim life HDF5 file (complete or .partial)."""

    def __init__(self, path):
        # A running portasim holds its .partial open; HDF5's file locking would refuse a reader.
        os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
        self.file = plotting.open_h5(path)
        self.name = path
        f = self.file
        if "generations" not in f or "generation_index" not in f:
            plotting.fail(f"'{path}' has no /generations and /generation_index (not a portasim life output)")
        generations, index = f["generations"], f["generation_index"]
        if generations.dtype != np.uint8 or generations.ndim != 3 or index.ndim != 1:
            plotting.fail(f"'{path}': /generations is {generations.dtype} {generations.shape}, /generation_index "
                          f"{index.shape}; expected uint8 (n, H, W or W/8) and (n)")
        # An interrupted run can leave one dataset longer than the other, or numbers a failed
        # write never filled: keep the increasing prefix that both hold.
        numbers = index[:min(len(generations), len(index))]
        count = len(numbers)
        if count > 1:
            steps = np.flatnonzero(np.diff(numbers) <= 0)
            if steps.size:
                count = int(steps[0]) + 1
        if count == 0:
            plotting.fail(f"'{path}' holds no generations yet")
        self.index = np.asarray(numbers[:count])
        self.packed = bool(f.attrs.get("packed", 0))
        self.width = generations.shape[2]
        if self.packed:
            bitorder = f.attrs.get("bitorder", "little")
            bitorder = bitorder.decode() if isinstance(bitorder, bytes) else str(bitorder)
            if bitorder != "little":
                plotting.fail(f"'{path}' is packed with bitorder '{bitorder}', expected 'little'")
            self.width = int(f.attrs.get("width", generations.shape[2] * 8))
            if not 0 < self.width <= generations.shape[2] * 8:
                plotting.fail(f"'{path}': width {self.width} does not fit rows of {generations.shape[2]} bytes")
        self.position = {int(g): i for i, g in enumerate(self.index)}

    def grid(self, generation):
        g = self.file["generations"][self.position[generation]]
        if self.packed:
            g = np.unpackbits(g, axis=-1, bitorder="little")[:, :self.width]
        return g


def open_run(path):
    return H5Run(path) if is_hdf5(path) else NpyRun(path)


class Painter:
    """Grids to RGB frames: reduced by blocks to at most max_pixels a side, each cell scale x
    scale pixels, coloured by the colormap at 0 (dead) and 1 (alive)."""

    def __init__(self, shape, cmap, scale, max_pixels):
        h, w = shape
        self.block = max(1, -(-max(h, w) // max_pixels))
        self.cells = (-(-h // self.block), -(-w // self.block))
        self.scale = scale or max(1, AUTO_SCALE_PIXELS // max(self.cells))
        colours = matplotlib.colormaps[cmap](np.array([0.0, 1.0]))[:, :3]
        self.lut = np.round(colours * 255).astype(np.uint8)
        self.size = (self.cells[0] * self.scale, self.cells[1] * self.scale)  # (height, width) in pixels

    def reduce(self, grid):
        if self.block == 1:
            return grid
        f = self.block
        h, w = grid.shape
        padded = np.zeros((self.cells[0] * f, self.cells[1] * f), dtype=np.uint8)
        padded[:h, :w] = grid
        return padded.reshape(self.cells[0], f, self.cells[1], f).max(axis=(1, 3))

    def frame(self, grid):
        cells = self.reduce(grid)
        pixels = np.repeat(np.repeat(cells, self.scale, axis=0), self.scale, axis=1)
        return self.lut[pixels]

    def even(self, frame):
        """The frame with one more row/column of dead cells where a side is odd (yuv420p)."""
        h, w = frame.shape[:2]
        if h % 2 == 0 and w % 2 == 0:
            return frame
        out = np.empty((h + h % 2, w + w % 2, 3), dtype=np.uint8)
        out[...] = self.lut[0]
        out[:h, :w] = frame
        return out


def checked_grid(run, generation):
    grid = run.grid(generation)
    if grid.size and grid.max() > 1:
        plotting.fail(f"{run.name}: generation {generation} has a value other than 0 or 1")
    return grid


def write_mp4(run, generations, painter, fps, path):
    h, w = painter.even(np.zeros(painter.size + (3,), dtype=np.uint8)).shape[:2]
    partial = path + ".partial"
    command = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
               "-s", f"{w}x{h}", "-r", f"{fps:g}", "-i", "-", "-an", "-c:v", "libx264", "-pix_fmt", "yuv420p",
               "-f", "mp4", partial]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for g in generations:
            process.stdin.write(painter.even(painter.frame(checked_grid(run, g))).tobytes())
        process.stdin.close()
    except BrokenPipeError:
        pass
    except SystemExit:
        process.kill()
        process.wait()
        if os.path.exists(partial):
            os.remove(partial)
        raise
    error = process.stderr.read().decode(errors="replace").strip()
    if process.wait() != 0:
        if os.path.exists(partial):
            os.remove(partial)
        plotting.fail(f"ffmpeg could not write '{path}': {error or 'exit ' + str(process.returncode)}", 1)
    os.replace(partial, path)
    print(f"wrote {path} ({len(generations)} frames of {w} x {h} pixels at {fps:g} fps)")


def write_sheet(run, generations, frames, dpi, path):
    chosen = [generations[i] for i in plotting.spread(len(generations), SHEET_FRAMES)]
    columns = min(4, len(chosen))
    rows = -(-len(chosen) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3 * columns, 3.3 * rows), squeeze=False)
    for axis in axes.flat:
        axis.axis("off")
    for axis, g in zip(axes.flat, chosen):
        axis.imshow(frames[g], interpolation="nearest")
        axis.set_title(f"generation {g}, population {int(checked_grid(run, g).sum())}", fontsize=8)
    plotting.save(fig, path, dpi=dpi)


def frame_count(text):
    if text == "all":
        return text
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        import argparse
        raise argparse.ArgumentTypeError(f"expected a count >= 0 or 'all', got '{text}'")
    return value


def main():
    p = plotting.parser(__doc__)
    p.add_argument("input", nargs="?", help="the run: BASE.npy, a chunk file, or FILE.h5 (default simulation.npy)")
    p.add_argument("--input", dest="input_option", metavar="INPUT", help="the run, as the positional INPUT")
    p.add_argument("--output", metavar="FILE.mp4", help="the MP4 animation (default PREFIX.mp4; needs ffmpeg)")
    p.add_argument("--no-mp4", action="store_true", help="write the PNG pictures only")
    p.add_argument("--prefix", metavar="PREFIX", help="path prefix of the PNG files (default: INPUT without chunk suffix and extension)")
    p.add_argument("--frames", metavar="N|all", type=frame_count, help="PNG frames, evenly spread, or 'all' (default 4)")
    p.add_argument("--generations", type=int, nargs="+", metavar="G", help="PNG frames of these stored generations")
    p.add_argument("--first", metavar="G", type=int, help="first generation of the animation (default: the first stored)")
    p.add_argument("--last", metavar="G", type=int, help="last generation of the animation (default: the last stored)")
    p.add_argument("--every", metavar="K", type=int, default=1, help="animate every K-th stored generation (default 1)")
    p.add_argument("--fps", metavar="FPS", type=float, default=15, help="frames per second of the MP4 (default 15)")
    p.add_argument("--cmap", metavar="NAME", default="binary", help="Matplotlib colormap, dead at 0 and alive at 1 (default binary)")
    p.add_argument("--dpi", metavar="DPI", type=int, default=100, help="resolution of the contact sheet (default 100)")
    p.add_argument("--scale", metavar="S", type=int, help="pixels per cell side (default: the longer side within 512 pixels)")
    p.add_argument("--max-pixels", metavar="N", type=int, default=1024, help="reduce grids to at most this many cells a side")
    a = p.parse_args()
    if a.input and a.input_option and a.input != a.input_option:
        p.error(f"two inputs given: '{a.input}' and --input '{a.input_option}'")
    source = a.input or a.input_option or "simulation.npy"
    if a.output and a.no_mp4:
        p.error("--output names the MP4; it cannot go with --no-mp4")
    if a.output and not a.output.endswith(".mp4"):
        p.error(f"--output names the MP4 animation (FILE.mp4), got '{a.output}'; PNG files go to --prefix PREFIX")
    if a.generations is not None and a.frames is not None:
        p.error("give --frames or --generations, not both")
    for name in ("every", "fps", "dpi", "max_pixels"):
        if getattr(a, name) <= 0:
            p.error(f"--{name.replace('_', '-')} must be > 0, got {getattr(a, name):g}")
    if a.scale is not None and a.scale <= 0:
        p.error(f"--scale must be > 0, got {a.scale}")
    if a.cmap not in matplotlib.colormaps:
        p.error(f"--cmap '{a.cmap}' is not a Matplotlib colormap")
    if not a.no_mp4 and not shutil.which("ffmpeg"):
        plotting.fail("the MP4 needs ffmpeg (apt-get install ffmpeg; scripts/bootstrap.sh installs it); "
                      "--no-mp4 writes the PNG pictures only", 1)

    run = open_run(source)
    prefix = plotting.output_prefix(default_prefix(source), a.prefix, suffixes=())
    mp4 = None if a.no_mp4 else a.output or prefix + ".mp4"
    stored = [int(g) for g in run.index]
    first = stored[0] if a.first is None else a.first
    last = stored[-1] if a.last is None else a.last
    animated = [g for g in stored if first <= g <= last][::a.every]
    if not animated:
        plotting.fail(f"{run.name} stores no generation in {first}..{last} (it stores {stored[0]}..{stored[-1]})")
    if a.generations is not None:
        missing = sorted(set(a.generations) - set(stored))
        if missing:
            plotting.fail(f"generations {missing} are not stored in {run.name}")
        pictured = sorted(set(a.generations))
    elif a.frames == "all":
        pictured = animated
    else:
        pictured = [animated[i] for i in plotting.spread(len(animated), 4 if a.frames is None else a.frames)]

    painter = Painter(run.grid(stored[0]).shape, a.cmap, a.scale, a.max_pixels)
    frames = {}
    for g in pictured:
        frames[g] = painter.frame(checked_grid(run, g))
        path = f"{prefix}_frame_{g:06d}.png"
        matplotlib.image.imsave(path, frames[g])
        print(f"wrote {path}")
    if pictured:
        write_sheet(run, pictured, frames, a.dpi, f"{prefix}_frames.png")
    if mp4:
        if os.path.dirname(mp4):
            os.makedirs(os.path.dirname(mp4), exist_ok=True)
        write_mp4(run, animated, painter, a.fps, mp4)


if __name__ == "__main__":
    main()
