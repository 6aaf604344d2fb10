"""The Game of Life (B3/S23) on a 2-D grid of 0/1 cells: step() on NumPy or CuPy arrays, and
run(), the streaming job of `portasim life`."""

import os
from types import SimpleNamespace

import numpy as np

from . import _portasim
from ._arrays import check_choice, check_integer, is_device_array, where


def _checked_grid(grid):
    """`grid` as a 2-D C-contiguous uint8 array of 0/1 of its own kind (NumPy or CuPy)."""
    if grid.dtype == np.bool_:
        grid = grid.view(np.uint8)
    if grid.dtype != np.uint8:
        raise TypeError(f"grid must have dtype uint8 or bool, got {grid.dtype}")
    if grid.ndim != 2:
        raise ValueError(f"grid must be 2-D, got shape {grid.shape}")
    if grid.size == 0:
        raise ValueError(f"grid must not be empty, got shape {grid.shape}")
    if not grid.flags.c_contiguous:
        raise ValueError("grid must be C-contiguous (ascontiguousarray(grid) makes it so)")
    if int(grid.max()) > 1:
        raise ValueError("grid cells must be 0 or 1")
    return grid


def _engine_for(engine, width):
    check_choice("engine", engine, ("auto", "byte", "bits"))
    if engine == "auto":
        return "bits" if width % 64 == 0 else "byte"
    if engine == "bits" and width % 64 != 0:
        raise ValueError(f"engine 'bits' needs a width that is a multiple of 64, got {width}")
    return engine


def step(grid, generations=1, boundary="torus", engine="auto"):
    """The grid after `generations` generations, as a new uint8 array of the same shape and
    kind (NumPy, or CuPy on a CUDA build: then it never leaves the GPU and the work is
    ordered on CuPy's current stream).

    grid: 2-D C-contiguous array of uint8 (or bool) holding 0 and 1.
    boundary: "torus" (wrap around) or "dead" (cells beyond the border are dead).
    engine: "byte" (one byte per cell), "bits" (64 cells per word, width a multiple of 64)
    or "auto" (bits where the width allows). Every engine gives the same cells.
    """
    place = where(("grid", grid))
    grid = _checked_grid(grid)
    generations = check_integer("generations", generations, 0)
    check_choice("boundary", boundary, ("torus", "dead"))
    engine = _engine_for(engine, grid.shape[1])
    return _portasim.life_step(grid, place, generations, boundary, engine)


def run(grid=None, *, generations, output=None, chunk_size=10, every=1, boundary="torus",
        engine="auto", height=None, width=None, density=None, seed=None, pattern=None,
        pattern_offset=None, packed=False, resume=False, progress=None):
    """The streaming job of `portasim life`: runs `generations` generations and hands every
    `every`-th one, `chunk_size` generations at a time, to `output` while the next chunk
    computes.

    The initial grid: `grid` (a 2-D uint8/bool NumPy or CuPy array of 0/1), a `pattern`
    file (RLE or .npy) placed at `pattern_offset` (y, x) or centred on a height x width
    grid, or a random height x width grid of `density` (0.5) drawn with `seed`.
    output: None, a path (BASE.npy for chunk files BASE_*.npy, or FILE.h5), or a callable
    `output(cells, generations)` that gets each chunk as a NumPy uint8 array of shape
    (count, height, width) (width / 8 bytes per row with packed=True, numpy.packbits order
    'little') and the int64 generation numbers; chunks arrive in host memory, as they
    do for files. resume=True continues an interrupted file output.
    progress: a callable that gets the fraction done after each chunk.
    Ctrl-C stops after the chunk in hand with KeyboardInterrupt; every chunk file written
    so far is complete, and resume=True continues from it.

    Returns a namespace with final_grid (NumPy), final_population, first_generation,
    last_generation, chunks, the times (seconds, compute_seconds, copy_seconds,
    write_seconds, setup_seconds), cells_per_second, initial, seed, resumed_after, written.
    """
    generations = check_integer("generations", generations, 0)
    check_choice("boundary", boundary, ("torus", "dead"))
    initial = None
    if grid is not None:
        if pattern is not None:
            raise ValueError("give grid or pattern, not both")
        where(("grid", grid))
        grid = _checked_grid(grid)
        if is_device_array(grid):
            grid = grid.get()  # the job starts from host memory, where its chunks go too
        if (height is not None and height != grid.shape[0]) or \
                (width is not None and width != grid.shape[1]):
            raise ValueError(f"height and width must match the grid's shape {grid.shape}")
        height, width = grid.shape
        initial = grid
    elif height is None or width is None:
        raise ValueError("height and width are needed without a grid")
    if callable(output):
        receive, path = output, ""
    elif output is None:
        receive, path = None, ""
    elif isinstance(output, (str, os.PathLike)):
        receive, path = None, os.fspath(output)
    else:
        raise TypeError("output must be None, a path or a callable, got "
                        f"{type(output).__name__}")
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable")
    options = dict(height=int(height), width=int(width), generations=generations,
                   chunk_size=check_integer("chunk_size", chunk_size, 1),
                   every=check_integer("every", every, 1), boundary=boundary,
                   engine=_engine_for(engine, int(width)), packed=bool(packed),
                   pattern="" if pattern is None else os.fspath(pattern),
                   pattern_offset=None if pattern_offset is None else tuple(pattern_offset),
                   density=None if density is None else float(density),
                   seed=None if seed is None else int(seed), output=path, resume=bool(resume),
                   progress=progress)
    return SimpleNamespace(**_portasim.life_run(options, initial, receive))
