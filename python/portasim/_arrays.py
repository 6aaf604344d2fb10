"""Argument checks shared by the modules: a wrong array raises TypeError or ValueError with
a message naming the argument, before anything runs."""

import numpy as np


def host_array(name, value):
    """`value` as the NumPy array it is; CuPy and other device arrays are refused."""
    if hasattr(value, "__cuda_array_interface__"):
        raise TypeError(
            f"{name}: a device array (CuPy) was given; this portasim takes NumPy arrays "
            "(cupy.asnumpy(...) converts one)")
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy.ndarray, got {type(value).__name__}")
    return value


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
