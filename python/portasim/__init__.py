"""portasim from Python: the library's simulations on NumPy arrays.

    import portasim
    portasim.info()                      # backends, devices, versions
    portasim.life.step(grid, 100)        # Game of Life generations of a 2-D uint8 array
    portasim.hh.simulate(1000, 100.0)    # batched Hodgkin-Huxley neurons
    portasim.sfap.calc_sfaps(...)        # MyoGen's SFAPs of a motor unit

Each call runs the same job as the portasim command line (docs/python.md). Kokkos starts
on the first call and stops when the interpreter exits.
"""

from . import _portasim
from . import hh, life, sfap


def info():
    """The build and the machine: version, backends, default backend, devices, host."""
    return _portasim.info()


__all__ = ["info", "hh", "life", "sfap"]
