"""portasim.sfap.calc_sfaps against MyoGen's reference outputs (1e-12 relative, as the
command line is held to) and its argument checks."""

import pathlib

import h5py
import numpy as np
import pytest

import portasim
from conftest import as_numpy

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "tests/data/sfap/r1_20f_4e_dz0p1.h5"


def reference_inputs():
    with h5py.File(REFERENCE, "r") as f:
        g = f["/inputs"]
        arrays = {k: g[k][()] for k in ("fiber_centers", "endplate_z", "conduction_velocity",
                                        "diameter", "electrode_positions", "nerve_paths")}
        scalars = dict(muscle_length_mm=g.attrs["muscle_length_mm"], dt_s=g.attrs["dt_s"],
                       dz_mm=g.attrs["dz_mm"], min_radial_dist_mm=g.attrs["min_radial_dist_mm"])
        outputs = {k: f["/outputs"][k][()] for k in ("t", "sfaps_pre_shift",
                                                     "sfaps_post_shift", "muap")}
    return arrays, scalars, outputs


def relative_error(got, want):
    return np.linalg.norm(got - want) / np.linalg.norm(want)


def test_calc_sfaps_reproduces_myogen(xp):
    arrays, scalars, want = reference_inputs()
    a = {k: xp.asarray(v) for k, v in arrays.items()}
    r = portasim.sfap.calc_sfaps(a["fiber_centers"], a["endplate_z"], a["conduction_velocity"],
                                 a["diameter"], a["electrode_positions"],
                                 nerve_paths=a["nerve_paths"], **scalars)
    assert type(r.sfaps_pre_shift) is type(a["diameter"])
    np.testing.assert_array_equal(as_numpy(r.t), want["t"])
    for name in ("sfaps_pre_shift", "sfaps_post_shift", "muap"):
        got = as_numpy(getattr(r, name))
        assert got.shape == want[name].shape, name
        assert relative_error(got, want[name]) < 1e-12, name
    assert r.sfaps_jittered is None


def test_without_delays_and_with_jitter():
    arrays, scalars, want = reference_inputs()
    paths = arrays.pop("nerve_paths")
    plain = portasim.sfap.calc_sfaps(*arrays.values(), delays=False, **scalars)
    assert plain.sfaps_post_shift is None and plain.muap is None
    assert relative_error(plain.sfaps_pre_shift, want["sfaps_pre_shift"]) < 1e-12
    jittered = portasim.sfap.calc_sfaps(*arrays.values(), nerve_paths=paths, jitter_sd_s=35e-6,
                                        jitter_seed=4, **scalars)
    again = portasim.sfap.calc_sfaps(*arrays.values(), nerve_paths=paths, jitter_sd_s=35e-6,
                                     jitter_seed=4, **scalars)
    np.testing.assert_array_equal(jittered.muap, again.muap)
    np.testing.assert_allclose(jittered.muap, jittered.sfaps_jittered.sum(axis=2), rtol=1e-12,
                               atol=1e-12 * np.abs(jittered.muap).max())
    assert relative_error(jittered.muap, want["muap"]) > 1e-6  # the jitter moved it


def test_bad_arrays_raise():
    arrays, scalars, _ = reference_inputs()
    args = list(arrays.values())[:5]
    with pytest.raises(ValueError, match="nerve_paths"):
        portasim.sfap.calc_sfaps(*args, **scalars)
    bad = list(args)
    bad[1] = bad[1][:-1]
    with pytest.raises(ValueError, match="endplate_z must have shape"):
        portasim.sfap.calc_sfaps(*bad, delays=False, **scalars)
    bad = list(args)
    bad[3] = bad[3].astype(np.int64)
    with pytest.raises(TypeError, match="floating-point"):
        portasim.sfap.calc_sfaps(*bad, delays=False, **scalars)
    with pytest.raises(ValueError, match="dz"):
        portasim.sfap.calc_sfaps(*args, delays=False, **dict(scalars, dz_mm=-1.0))


class MotorUnitStandIn:
    """The attributes MyoGen's MotorUnitSim has after sim_nmj_branches_two_layers, in its
    shapes: (N, 1) columns for the per-fiber values, as MotorUnitSim.__init__ makes them."""

    def __init__(self, arrays, scalars):
        self.muscle_fiber_centers__mm = arrays["fiber_centers"]
        self.muscle_length__mm = float(scalars["muscle_length_mm"])
        self.muscle_fiber_diameters__mm = arrays["diameter"][:, None]
        self.muscle_fiber_conduction_velocity__mm_per_s = arrays["conduction_velocity"][:, None]
        self._neuromuscular_z_coordinates__mm = arrays["endplate_z"][:, None]
        self.nerve_paths = arrays["nerve_paths"]
        self.neuromuscular_junction_conduction_velocities__mm_per_s = [5000.0, 2000.0]


def test_calc_sfaps_for_sets_what_myogen_sets(xp):
    arrays, scalars, want = reference_inputs()
    mu = MotorUnitStandIn(arrays, scalars)
    portasim.sfap.calc_sfaps_for(mu, scalars["dt_s"], scalars["dz_mm"],
                                 arrays["electrode_positions"], use_gpu=xp is not np)
    assert isinstance(mu.sfaps, np.ndarray) and mu.sfaps.dtype == np.float64
    assert mu.sfaps.shape == want["sfaps_post_shift"].shape
    assert relative_error(mu.sfaps, want["sfaps_post_shift"]) < 1e-12
    np.testing.assert_allclose(mu.mnap_delays[:, 0], arrays["nerve_paths"][:, 0] / 5000.0 +
                               arrays["nerve_paths"][:, 1] / 2000.0, rtol=1e-15)
    assert mu.mnap_delays.shape == (len(arrays["endplate_z"]), 1)
    assert (mu.dt, mu.dz, mu.Npt) == (scalars["dt_s"], scalars["dz_mm"],
                                      arrays["electrode_positions"].shape[0])


def test_calc_sfaps_for_refuses_what_it_cannot_do():
    arrays, scalars, _ = reference_inputs()
    mu = MotorUnitStandIn(arrays, scalars)
    mu.nerve_paths = None
    with pytest.raises(ValueError, match="mu.nerve_paths"):
        portasim.sfap.calc_sfaps_for(mu, scalars["dt_s"], scalars["dz_mm"],
                                     arrays["electrode_positions"], use_gpu=False)
    if not portasim.info()["devices"]:
        with pytest.raises(RuntimeError, match="use_gpu=True"):
            portasim.sfap.calc_sfaps_for(MotorUnitStandIn(arrays, scalars), scalars["dt_s"],
                                         scalars["dz_mm"], arrays["electrode_positions"],
                                         use_gpu=True)


def test_arrays_of_the_wrong_memory_or_kind_raise(xp):
    arrays, scalars, _ = reference_inputs()
    args = [xp.asarray(a) for a in list(arrays.values())[:5]]

    class DeviceArray:  # what a host build sees of a GPU array
        __cuda_array_interface__ = {"shape": (20,), "typestr": "<f8", "data": (0, False),
                                    "version": 3}

    mixed = list(args)
    mixed[1] = DeviceArray() if xp is np else arrays["endplate_z"]
    with pytest.raises(TypeError, match="endplate_z"):
        portasim.sfap.calc_sfaps(*mixed, delays=False, **scalars)
    listed = list(args)
    listed[2] = list(arrays["conduction_velocity"])
    with pytest.raises(TypeError, match="conduction_velocity must be a numpy.ndarray"):
        portasim.sfap.calc_sfaps(*listed, delays=False, **scalars)
