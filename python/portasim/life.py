"""The Game of Life (B3/S23) on a 2-D grid of 0/1 cells."""

import numpy as np

from . import _portasim
from ._arrays import check_choice, host_array


def step(grid, generations=1, boundary="torus", engine="auto"):
    """The grid after `generations` generations, as a new uint8 array of the same shape.

    grid: 2-D C-contiguous numpy array of uint8 (or bool) holding 0 and 1.
    boundary: "torus" (wrap around) or "dead" (cells beyond the border are dead).
    engine: "byte" (one byte per cell), "bits" (64 cells per word, width a multiple of 64)
    or "auto" (bits where the width allows). Every engine gives the same cells.
    """
    grid = host_array("grid", grid)
    if grid.dtype == np.bool_:
        grid = grid.view(np.uint8)
    if grid.dtype != np.uint8:
        raise TypeError(f"grid must have dtype uint8 or bool, got {grid.dtype}")
    if grid.ndim != 2:
        raise ValueError(f"grid must be 2-D, got shape {grid.shape}")
    if grid.size == 0:
        raise ValueError(f"grid must not be empty, got shape {grid.shape}")
    if not grid.flags.c_contiguous:
        raise ValueError("grid must be C-contiguous (numpy.ascontiguousarray(grid) makes it so)")
    if grid.max() > 1:
        raise ValueError("grid cells must be 0 or 1")
    if isinstance(generations, bool) or not isinstance(generations, (int, np.integer)):
        raise TypeError(f"generations must be an integer, got {type(generations).__name__}")
    if generations < 0:
        raise ValueError(f"generations must be >= 0, got {generations}")
    check_choice("boundary", boundary, ("torus", "dead"))
    check_choice("engine", engine, ("auto", "byte", "bits"))
    if engine == "auto":
        engine = "bits" if grid.shape[1] % 64 == 0 else "byte"
    if engine == "bits" and grid.shape[1] % 64 != 0:
        raise ValueError(f"engine 'bits' needs a width that is a multiple of 64, got {grid.shape[1]}")
    return _portasim.life_step(grid, int(generations), boundary, engine)
