"""Single-fiber action potentials of intramuscular EMG: MyoGen's calc_sfaps (with shift_sfaps
and calc_muap when delays are on), as `portasim sfap` computes them, on NumPy or CuPy
arrays; and calc_sfaps_for, the drop-in for MyoGen's MotorUnitSim.calc_sfaps."""

import math
import os

import numpy as np

from . import _portasim
from ._arrays import array_module, where

# MyoGen's neuromuscular-junction conduction velocities (mm/s) of the two nerve-path parts.
_NMJ_VELOCITIES = (5000.0, 2000.0)


class Result:
    """t (Nt,) in s; sfaps_pre_shift (Nt, N_electrodes, N_fibers) in MyoGen's raw units;
    sfaps_post_shift and muap (Nt, N_electrodes) with delays, else None; sfaps_jittered
    with jitter, else None; delays_s (N_fibers,) with delays, else None. Arrays are NumPy
    or CuPy, like the inputs."""

    def __init__(self, raw):
        self.t = raw["t"]
        self.sfaps_pre_shift = raw["sfaps_pre_shift"]
        self.sfaps_post_shift = raw["sfaps_post_shift"]
        self.sfaps_jittered = raw["sfaps_jittered"]
        self.muap = raw["muap"]
        self.delays_s = raw["delays_s"]
        self.dt_s = raw["dt_s"]
        self.dz_mm = raw["dz_mm"]
        self.min_radial_dist_mm = raw["min_radial_dist_mm"]


def _floats(xp, name, value, shape):
    """`value` as a C-contiguous float64 array of `shape` (None: any length there), of its
    own kind (a float32 CuPy array is converted on the device)."""
    if not np.issubdtype(value.dtype, np.floating):
        raise TypeError(f"{name} must be a floating-point array, got dtype {value.dtype}")
    if value.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, value.shape)):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + \
            ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {want}, got {value.shape}")
    return xp.ascontiguousarray(value, dtype=xp.float64)


def calc_sfaps(fiber_centers, endplate_z, conduction_velocity, diameter, electrode_positions, *,
               muscle_length_mm, dt_s, dz_mm, nerve_paths=None, min_radial_dist_mm=None,
               delays=True, corrected_source=False, dz_weighted=False, jitter_sd_s=0.0,
               jitter_seed=0, _nmj_velocities=_NMJ_VELOCITIES):
    """The SFAPs of one motor unit. Arrays have the shapes and units of the /inputs datasets
    of the SFAP reference files: fiber_centers (N, 2) mm, endplate_z, conduction_velocity
    (mm/s) and diameter (N,), electrode_positions (N_electrodes, 3) mm, nerve_paths (N, 2) mm
    (needed with delays). They are all NumPy or all CuPy; the result is of the same kind.
    min_radial_dist_mm=None takes MyoGen's default, the mean diameter.
    """
    names = ("fiber_centers", "endplate_z", "conduction_velocity", "diameter",
             "electrode_positions", "nerve_paths")
    arrays = (fiber_centers, endplate_z, conduction_velocity, diameter, electrode_positions,
              nerve_paths)
    place = where(*zip(names, arrays))
    xp = array_module(place[0])
    centers = _floats(xp, "fiber_centers", fiber_centers, (None, 2))
    n = centers.shape[0]
    z = _floats(xp, "endplate_z", endplate_z, (n,))
    v = _floats(xp, "conduction_velocity", conduction_velocity, (n,))
    d = _floats(xp, "diameter", diameter, (n,))
    electrodes = _floats(xp, "electrode_positions", electrode_positions, (None, 3))
    if nerve_paths is None:
        if delays:
            raise ValueError("nerve_paths (N, 2) is needed with delays=True (the per-fiber "
                             "delay is p0/5000 + p1/2000 s)")
        paths = xp.zeros((0, 2), dtype=xp.float64)
    else:
        paths = _floats(xp, "nerve_paths", nerve_paths, (n, 2))
    options = dict(muscle_length_mm=float(muscle_length_mm), dt_s=float(dt_s),
                   dz_mm=float(dz_mm),
                   min_radial_dist_mm=math.nan if min_radial_dist_mm is None
                   else float(min_radial_dist_mm),
                   delays=bool(delays), corrected_source=bool(corrected_source),
                   dz_weighted=bool(dz_weighted), jitter_sd_s=float(jitter_sd_s),
                   jitter_seed=int(jitter_seed), nmj_velocity_0=float(_nmj_velocities[0]),
                   nmj_velocity_1=float(_nmj_velocities[1]))
    return Result(_portasim.sfap_calc(place, centers, z, v, d, electrodes, paths, options))


def _attribute(mu, name):
    value = getattr(mu, name, None)
    if value is None:
        raise ValueError(f"mu.{name} is not set (MotorUnitSim sets it when the motor unit "
                         "is built)")
    return value


def calc_sfaps_for(mu, dt, dz, electrode_positions, use_gpu=None):
    """MyoGen's `mu.calc_sfaps(index, dt, dz, electrode_positions)` for a MotorUnitSim-like
    `mu`: computes the motor unit's SFAPs with their nerve-path delays and sets what
    MyoGen's method sets: mu.sfaps (Nt, N_electrodes, N_fibers) after shift_sfaps, as a
    NumPy float64 array; mu.mnap_delays (N_fibers, 1) in s; mu.dt, mu.dz, mu.Npt. Returns
    the whole Result as well (sfaps_pre_shift, muap, t).

    It reads mu.muscle_fiber_centers__mm (N, 2), mu.muscle_length__mm,
    mu.muscle_fiber_diameters__mm and mu.muscle_fiber_conduction_velocity__mm_per_s (N or
    (N, 1)), mu._neuromuscular_z_coordinates__mm ((N, 1)), mu.nerve_paths (N, 2) and, where
    set, mu.neuromuscular_junction_conduction_velocities__mm_per_s.
    dt: the sampling step in s; dz: the spatial step in mm; electrode_positions
    (N_electrodes, 3) mm.
    use_gpu: as MyoGen's. None uses the GPU where this portasim has one, unless the
    environment variable MYOGEN_DISABLE_GPU is 1, true or yes; True on a build without a
    GPU raises RuntimeError. A CUDA build computes on its GPU either way; use_gpu decides
    whether the inputs travel as CuPy arrays.
    """
    gpu = _portasim.device_arrays()
    if use_gpu is None:
        use_gpu = gpu and os.environ.get("MYOGEN_DISABLE_GPU", "").lower() not in ("1", "true", "yes")
    elif use_gpu and not gpu:
        raise RuntimeError("use_gpu=True, but this portasim was built without a GPU backend")
    xp = array_module(bool(use_gpu))

    def column(name):
        value = np.asarray(_attribute(mu, name), dtype=np.float64)
        if value.ndim == 2 and value.shape[1] == 1:
            value = value[:, 0]
        return xp.asarray(value)

    velocities = getattr(mu, "neuromuscular_junction_conduction_velocities__mm_per_s", None)
    electrodes = electrode_positions if hasattr(electrode_positions, "__cuda_array_interface__") \
        else np.asarray(electrode_positions, dtype=np.float64)
    r = calc_sfaps(xp.asarray(np.asarray(_attribute(mu, "muscle_fiber_centers__mm"),
                                         dtype=np.float64)),
                   column("_neuromuscular_z_coordinates__mm"),
                   column("muscle_fiber_conduction_velocity__mm_per_s"),
                   column("muscle_fiber_diameters__mm"), xp.asarray(electrodes),
                   muscle_length_mm=float(_attribute(mu, "muscle_length__mm")), dt_s=dt,
                   dz_mm=dz,
                   nerve_paths=xp.asarray(np.asarray(_attribute(mu, "nerve_paths"),
                                                     dtype=np.float64)),
                   _nmj_velocities=_NMJ_VELOCITIES if velocities is None
                   else tuple(float(x) for x in velocities))
    post, delays = r.sfaps_post_shift, r.delays_s
    if use_gpu:
        post, delays = post.get(), delays.get()
    mu.dt, mu.dz, mu.Npt = dt, dz, r.sfaps_pre_shift.shape[1]
    mu.sfaps = post
    mu.mnap_delays = delays[:, None]
    return r
