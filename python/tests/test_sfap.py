"""portasim.sfap.calc_sfaps against MyoGen's reference outputs (1e-12 relative, as the
command line is held to) and its argument checks."""

import pathlib

import h5py
import numpy as np
import pytest

import portasim

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


def test_calc_sfaps_reproduces_myogen():
    arrays, scalars, want = reference_inputs()
    r = portasim.sfap.calc_sfaps(arrays["fiber_centers"], arrays["endplate_z"],
                                 arrays["conduction_velocity"], arrays["diameter"],
                                 arrays["electrode_positions"], nerve_paths=arrays["nerve_paths"],
                                 **scalars)
    np.testing.assert_array_equal(r.t, want["t"])
    for name in ("sfaps_pre_shift", "sfaps_post_shift", "muap"):
        got = getattr(r, name)
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
