"""The array kinds a test runs with: NumPy always, CuPy too where this portasim is a CUDA
build and CuPy can reach a GPU (the GPU machine's run of the suite)."""

import numpy as np
import pytest

import portasim


def _kinds():
    kinds = ["numpy"]
    if portasim._portasim.device_arrays():
        kinds.append("cupy")
    return kinds


@pytest.fixture(params=_kinds())
def xp(request):
    """numpy or cupy, as the module the test's arrays come from."""
    if request.param == "cupy":
        import cupy
        return cupy
    return np


def as_numpy(array):
    """A result as NumPy, for comparisons (CuPy results are copied off the GPU)."""
    return array.get() if hasattr(array, "__cuda_array_interface__") else np.asarray(array)
