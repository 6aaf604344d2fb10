"""portasim.life.step against a NumPy reference (the eight np.roll-ed neighbours, as the
Python tool portasim replaces counts them), and its argument checks."""

import os

import numpy as np
import pytest

import portasim
from conftest import as_numpy


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
def test_step_matches_the_reference(xp, shape, boundary, engine):
    if engine == "bits" and shape[1] % 64:
        pytest.skip("the bits engine needs a width that is a multiple of 64")
    rng = np.random.default_rng(7)
    grid = (rng.random(shape) < 0.35).astype(np.uint8)
    expected = grid
    for _ in range(9):
        expected = reference_step(expected, boundary)
    given = xp.asarray(grid)
    result = portasim.life.step(given, 9, boundary=boundary, engine=engine)
    assert type(result) is type(given)  # NumPy in, NumPy out; CuPy in, CuPy out
    assert result.dtype == np.uint8 and result.shape == shape
    np.testing.assert_array_equal(as_numpy(result), expected)
    np.testing.assert_array_equal(as_numpy(given), grid)  # the input is left as it was


def test_bool_grids_and_zero_generations(xp):
    grid = np.zeros((8, 8), dtype=bool)
    grid[1, 2] = grid[2, 3] = grid[3, 1] = grid[3, 2] = grid[3, 3] = True  # a glider
    np.testing.assert_array_equal(as_numpy(portasim.life.step(xp.asarray(grid), 0)),
                                  grid.astype(np.uint8))
    moved = np.roll(np.roll(grid, 1, 0), 1, 1).astype(np.uint8)
    np.testing.assert_array_equal(as_numpy(portasim.life.step(xp.asarray(grid), 4)), moved)


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


def test_classic_patterns():
    blinker = np.zeros((5, 5), dtype=np.uint8)
    blinker[2, 1:4] = 1
    np.testing.assert_array_equal(portasim.life.step(blinker, 1), blinker.T)
    np.testing.assert_array_equal(portasim.life.step(blinker, 2), blinker)
    block = np.zeros((6, 64), dtype=np.uint8)
    block[2:4, 30:32] = 1
    for engine in ("byte", "bits"):
        np.testing.assert_array_equal(portasim.life.step(block, 7, engine=engine), block)


def test_run_hands_every_recorded_chunk_to_a_callable():
    rng = np.random.default_rng(3)
    grid = (rng.random((24, 64)) < 0.4).astype(np.uint8)
    chunks = []
    r = portasim.life.run(grid, generations=9, chunk_size=4, every=2,
                          output=lambda cells, gens: chunks.append((cells.copy(), gens.copy())))
    generations = np.concatenate([g for _, g in chunks])
    np.testing.assert_array_equal(generations, [0, 2, 4, 6, 8])
    cells = np.concatenate([c for c, _ in chunks])
    expected = grid
    for k in range(10):
        if k % 2 == 0:
            np.testing.assert_array_equal(cells[k // 2], expected)
        expected = reference_step(expected, "torus")
    np.testing.assert_array_equal(r.final_grid, portasim.life.step(grid, 9))
    assert r.last_generation == 9 and r.final_population == r.final_grid.sum()


def test_run_writes_files(tmp_path):
    import h5py
    r = portasim.life.run(height=32, width=64, density=0.3, seed=5, generations=6,
                          chunk_size=3, output=tmp_path / "life.h5")
    with h5py.File(tmp_path / "life.h5", "r") as f:
        generations = f["/generations"][()]
    assert generations.shape == (7, 32, 64)
    np.testing.assert_array_equal(generations[-1], r.final_grid)
    np.testing.assert_array_equal(portasim.life.step(generations[0], 6), r.final_grid)
    r = portasim.life.run(generations[0], generations=6, chunk_size=3,
                          output=tmp_path / "chunks.npy")
    files = sorted(tmp_path.glob("chunks_*.npy"))
    assert len(files) >= 2
    np.testing.assert_array_equal(np.load(files[-1])[-1], r.final_grid)


def test_ctrl_c_keeps_the_chunks_written_and_resume_finishes(tmp_path):
    """A KeyboardInterrupt raised during a run (here by the progress callback, as Ctrl-C
    would be between chunks) stops it; the chunk files so far are complete and resume=True
    finishes the same run."""
    import signal

    def interrupt_after_half(fraction):
        if 0.4 < fraction < 1.0:
            os.kill(os.getpid(), signal.SIGINT)

    options = dict(height=16, width=64, density=0.5, seed=9, generations=40, chunk_size=5,
                   output=tmp_path / "run.npy")
    with pytest.raises(KeyboardInterrupt):
        portasim.life.run(**options, progress=interrupt_after_half)
    kept = sorted(tmp_path.glob("run_*.npy"))
    assert 0 < len(kept) < 9
    for f in kept:
        np.load(f)  # complete
    finished = portasim.life.run(**options, resume=True)
    assert finished.resumed_after is not None and finished.last_generation == 40
    whole = portasim.life.run(height=16, width=64, density=0.5, seed=9, generations=40)
    np.testing.assert_array_equal(finished.final_grid, whole.final_grid)


def test_cupy_work_is_ordered_on_the_callers_stream(xp):
    """On a CuPy stream of the caller's, the grid made just before the call is what the call
    reads, and work queued just after it reads the call's result, with no synchronisation
    in between (CUDA builds only)."""
    if xp is np:
        pytest.skip("CuPy arrays: CUDA builds only")
    rng = np.random.default_rng(11)
    grid = (rng.random((1024, 1024)) < 0.4).astype(np.uint8)
    expected = portasim.life.step(grid, 30)
    with xp.cuda.Stream(non_blocking=True):
        source = xp.asarray(grid) * xp.uint8(1)  # queued on the caller's stream
        result = portasim.life.step(source, 30)
        population = int(result.sum(dtype=xp.int64))  # queued after the call's work
    assert population == int(expected.sum())
    np.testing.assert_array_equal(result.get(), expected)
