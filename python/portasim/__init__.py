"""portasim from Python: the library's simulations and its array toolkit on NumPy arrays
(or CuPy arrays on a CUDA build).

    import portasim
    portasim.info()                      # backends, devices, versions
    portasim.life.step(grid, 100)        # Game of Life generations of a 2-D uint8 array
    portasim.hh.simulate(1000, 100.0)    # batched Hodgkin-Huxley neurons
    portasim.sfap.calc_sfaps(...)        # MyoGen's SFAPs of a motor unit
    portasim.toolkit.matmul(a, b)        # the toolkit: elementwise, sum, L2 norm, matmul, svd

The simulations run the same jobs as the portasim command line (docs/python.md). Kokkos starts
on the first call and stops when the interpreter exits.
"""

from . import _cpu

_cpu.check()  # before the extension: on a CPU without its instructions it could not load

from . import _portasim  # noqa: E402
from . import hh, life, sfap, toolkit  # noqa: E402


def info():
    """The build and the machine: version, backends, default backend, devices, host."""
    return _portasim.info()


__all__ = ["info", "hh", "life", "sfap", "toolkit"]
