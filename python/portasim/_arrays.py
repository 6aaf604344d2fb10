"""Argument checks shared by the modules: a wrong array raises TypeError or ValueError with
a message naming the argument, before anything runs. A call's arrays are all NumPy or, in a
CUDA build, all CuPy on portasim's GPU; results come back as the same kind."""

import numpy as np

from . import _portasim

_device_id = None


def _gpu_id():
    global _device_id
    if _device_id is None:
        _device_id = _portasim.info()["device"]
    return _device_id


def is_device_array(value):
    return hasattr(value, "__cuda_array_interface__")


def array_module(device):
    """numpy, or cupy for device arrays."""
    if device:
        import cupy
        return cupy
    return np


def where(*named):
    """Where a call's arrays live, as the extension takes it: (True, the caller's current CUDA
    stream) for CuPy arrays, (False, 0) for NumPy. `named` holds (name, array) pairs; None
    entries are skipped. Mixed kinds, other types and CuPy arrays on a host build or on
    another GPU are refused."""
    device = None
    for name, value in named:
        if value is None:
            continue
        if is_device_array(value):
            if not _portasim.device_arrays():
                raise TypeError(
                    f"{name}: a device array (CuPy) was given, but this portasim runs on the "
                    "host; pass NumPy arrays (cupy.asnumpy(...) converts one)")
            if type(value).__module__.split(".")[0] != "cupy":
                raise TypeError(f"{name}: device arrays must be cupy.ndarray, got "
                                f"{type(value).__module__}.{type(value).__name__}")
            kind = True
        elif isinstance(value, np.ndarray):
            kind = False
        else:
            allowed = "numpy.ndarray or cupy.ndarray" if _portasim.device_arrays() else \
                "numpy.ndarray"
            raise TypeError(f"{name} must be a {allowed}, got {type(value).__name__}")
        if device is None:
            device = kind
        elif device != kind:
            raise TypeError(f"{name}: the arrays of one call must be all NumPy or all CuPy")
    if not device:
        return (False, 0)
    import cupy
    for name, value in named:
        if value is not None and value.device.id != _gpu_id():
            raise ValueError(f"{name} is on GPU {value.device.id}, but portasim runs on GPU "
                             f"{_gpu_id()}")
    return (True, cupy.cuda.get_current_stream().ptr)


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def check_integer(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)
