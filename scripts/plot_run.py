"""Shared by the scripts that draw a portasim run's HDF5 output as PNG (plot_hh.py,
plot_sfap.py, plot_toolkit.py): matplotlib without a display, where the pictures go, and
opening the run with a clear exit when it cannot be read.
Uses Debian's python3-h5py and python3-matplotlib (run the scripts with /usr/bin/python3).
"""
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")


def output_prefix(run, chosen):
    """The PNGs' path prefix: the chosen one, else the run's path without .h5. Its folder is created."""
    prefix = chosen or (run[:-3] if run.endswith(".h5") else run)
    if os.path.dirname(prefix):
        os.makedirs(os.path.dirname(prefix), exist_ok=True)
    return prefix


def open_run(run, tool):
    """The run's HDF5 file, open for reading; exits naming `tool` and the file when it cannot be read."""
    try:
        return h5py.File(run, "r")
    except OSError as error:
        sys.exit(f"{tool}: cannot read '{run}': {error}")
