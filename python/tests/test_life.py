"""portasim.life.step against a NumPy reference (the eight np.roll-ed neighbours, as the
Python tool portasim replaces counts them), and its argument checks."""

import numpy as np
import pytest

import portasim


def reference_step(grid, boundary):
    if boundary == "dead":
        padded = np.pad(grid, 1)
        n = sum(np.roll(np.roll(padded, dy, 0), dx, 1)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))[1:-1, 1:-1]
    else:
        n = sum(np.roll(np.roll(grid, dy, 0), dx, 1)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((grid == 1) & (n == 2))).astype(np.uint8)


@pytest.mark.parametrize("shape", [(37, 23), (20, 128)])
@pytest.mark.parametrize("boundary", ["torus", "dead"])
@pytest.mark.parametrize("engine", ["auto", "byte", "bits"])
def test_step_matches_the_reference(shape, boundary, engine):
    if engine == "bits" and shape[1] % 64:
        pytest.skip("the bits engine needs a width that is a multiple of 64")
    rng = np.random.default_rng(7)
    grid = (rng.random(shape) < 0.35).astype(np.uint8)
    expected = grid
    for _ in range(9):
        expected = reference_step(expected, boundary)
    result = portasim.life.step(grid, 9, boundary=boundary, engine=engine)
    assert result.dtype == np.uint8 and result.shape == shape
    np.testing.assert_array_equal(result, expected)
    assert grid is not result and grid.sum() > 0  # the input is left as it was


def test_bool_grids_and_zero_generations():
    grid = np.zeros((8, 8), dtype=bool)
    grid[1, 2] = grid[2, 3] = grid[3, 1] = grid[3, 2] = grid[3, 3] = True  # a glider
    np.testing.assert_array_equal(portasim.life.step(grid, 0), grid.astype(np.uint8))
    moved = np.roll(np.roll(grid, 1, 0), 1, 1).astype(np.uint8)
    np.testing.assert_array_equal(portasim.life.step(grid, 4), moved)


@pytest.mark.parametrize("grid, error, words", [
    (np.zeros((4, 4), dtype=np.int32), TypeError, "dtype"),
    (np.zeros(16, dtype=np.uint8), ValueError, "2-D"),
    (np.zeros((8, 8), dtype=np.uint8)[:, ::2], ValueError, "C-contiguous"),
    (np.full((4, 4), 2, dtype=np.uint8), ValueError, "0 or 1"),
    ([[0, 1], [1, 0]], TypeError, "numpy.ndarray"),
])
def test_bad_grids_raise(grid, error, words):
    with pytest.raises(error, match=words):
        portasim.life.step(grid, 1)


def test_bad_options_raise():
    grid = np.zeros((4, 100), dtype=np.uint8)
    with pytest.raises(ValueError, match="boundary"):
        portasim.life.step(grid, 1, boundary="klein")
    with pytest.raises(ValueError, match="multiple of 64"):
        portasim.life.step(grid, 1, engine="bits")
    with pytest.raises(ValueError, match="generations"):
        portasim.life.step(grid, -1)
