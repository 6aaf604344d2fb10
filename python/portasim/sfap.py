"""Single-fiber action potentials of intramuscular EMG: MyoGen's calc_sfaps (with
shift_sfaps and calc_muap when delays are on), as `portasim sfap` computes them."""

import math

import numpy as np

from . import _portasim
from ._arrays import host_array


class Result:
    """t (Nt,) in s; sfaps_pre_shift (Nt, N_electrodes, N_fibers) in MyoGen's raw units;
    sfaps_post_shift and muap (Nt, N_electrodes) with delays, else None; sfaps_jittered
    with jitter, else None; delays_s (N_fibers,) with delays."""

    def __init__(self, raw):
        self.t = raw["t"]
        self.sfaps_pre_shift = raw["sfaps_pre_shift"]
        self.sfaps_post_shift = raw["sfaps_post_shift"]
        self.sfaps_jittered = raw["sfaps_jittered"]
        self.muap = raw["muap"]
        self.delays_s = raw["delays_s"] if raw["sfaps_post_shift"] is not None else None
        self.dz_mm = raw["dz_mm"]
        self.min_radial_dist_mm = raw["min_radial_dist_mm"]
        self.seconds = raw["seconds"]
        self.warnings = list(raw["warnings"])


def _floats(name, value, shape):
    """`value` as a C-contiguous float64 array of `shape` (None: any length there)."""
    value = host_array(name, value)
    if not np.issubdtype(value.dtype, np.floating):
        raise TypeError(f"{name} must be a floating-point array, got dtype {value.dtype}")
    if value.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, value.shape)):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {want}, got {value.shape}")
    return np.ascontiguousarray(value, dtype=np.float64)


def calc_sfaps(fiber_centers, endplate_z, conduction_velocity, diameter, electrode_positions, *,
               muscle_length_mm, dt_s, dz_mm, nerve_paths=None, min_radial_dist_mm=None,
               delays=True, corrected_source=False, dz_weighted=False, jitter_sd_s=0.0,
               jitter_seed=0):
    """The SFAPs of one motor unit. Arrays have the shapes and units of the /inputs datasets
    of the SFAP reference files: fiber_centers (N, 2) mm, endplate_z, conduction_velocity
    (mm/s) and diameter (N,), electrode_positions (N_electrodes, 3) mm, nerve_paths (N, 2) mm
    (needed with delays). min_radial_dist_mm=None takes MyoGen's default, the mean diameter.
    """
    centers = _floats("fiber_centers", fiber_centers, (None, 2))
    n = centers.shape[0]
    z = _floats("endplate_z", endplate_z, (n,))
    v = _floats("conduction_velocity", conduction_velocity, (n,))
    d = _floats("diameter", diameter, (n,))
    electrodes = _floats("electrode_positions", electrode_positions, (None, 3))
    if nerve_paths is None:
        if delays:
            raise ValueError("nerve_paths (N, 2) is needed with delays=True (the per-fiber "
                             "delay is p0/5000 + p1/2000 s)")
        paths = np.zeros((0,), dtype=np.float64)
    else:
        paths = _floats("nerve_paths", nerve_paths, (n, 2))
    options = dict(muscle_length_mm=float(muscle_length_mm), dt_s=float(dt_s),
                   dz_mm=float(dz_mm),
                   min_radial_dist_mm=math.nan if min_radial_dist_mm is None
                   else float(min_radial_dist_mm),
                   delays=bool(delays), corrected_source=bool(corrected_source),
                   dz_weighted=bool(dz_weighted), jitter_sd_s=float(jitter_sd_s),
                   jitter_seed=int(jitter_seed))
    return Result(_portasim.sfap_calc(centers, z, v, d, electrodes, paths, options))
