"""portasim.hh.simulate: the job `portasim hh` runs, so its arrays are the command line's
HDF5 datasets bit for bit; the result's parts agree with each other; bad options raise."""

import os
import subprocess

import h5py
import numpy as np
import pytest

import portasim


def run_cli(tmp_path, *args):
    out = tmp_path / "cli.h5"
    subprocess.run([os.environ["PORTASIM_CLI"], "hh", *args, "--output", str(out), "--quiet"],
                   check=True)
    return h5py.File(out, "r")


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_simulate_is_the_command_line(tmp_path, precision):
    r = portasim.hh.simulate(6, 40.0, amplitude=(0, 15), record="v", every=20,
                             precision=precision, noise_sd=0.5, seed=3)
    with run_cli(tmp_path, "--neurons", "6", "--t-ms", "40", "--amplitude", "0:15", "--record",
                 "v", "--every", "20", "--precision", precision, "--noise-sd", "0.5",
                 "--seed", "3") as f:
        np.testing.assert_array_equal(r.spikes.count, f["/spikes/count"][()])
        np.testing.assert_array_equal(r.spikes.offsets, f["/spikes/offsets"][()])
        np.testing.assert_array_equal(r.spikes.times, f["/spikes/times"][()])
        np.testing.assert_array_equal(r.final.v, f["/final/V"][()])
        np.testing.assert_array_equal(r.v, f["/V"][()])
    assert r.v.dtype == (np.float32 if precision == "f32" else np.float64)
    assert r.v.shape == (r.samples, 6) and r.samples == 40.0 / 0.01 / 20 + 1
    assert r.m is None


def test_result_parts_agree(tmp_path):
    r = portasim.hh.simulate(5, 100.0, amplitude=(0, 20), record="all", every=50)
    assert r.spikes.count[0] == 0 and r.spikes.count[-1] > 3  # no current: no spikes
    assert r.spikes.offsets[-1] == len(r.spikes.times) == r.spikes.count.sum()
    assert np.all(np.diff(r.spikes.of(4)) > 0)
    assert all(x.shape == (r.samples, 5) for x in (r.v, r.m, r.h, r.n))
    assert np.isnan(r.firing_rate_hz[0]) or r.firing_rate_hz[0] == 0
    assert r.steps == 10000 and r.neuron_steps_per_second > 0
    path = tmp_path / "again.h5"
    r.to_hdf5(path)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(r.spikes.times, f["/spikes/times"][()])
        np.testing.assert_array_equal(r.n, f["/n"][()])


def test_bad_options_raise():
    with pytest.raises(ValueError, match="--neurons"):
        portasim.hh.simulate(0, 10.0)
    with pytest.raises(ValueError, match="record"):
        portasim.hh.simulate(1, 10.0, record="everything")
    with pytest.raises(TypeError, match="unexpected keyword"):
        portasim.hh.simulate(1, 10.0, step_on=3)
    with pytest.raises(TypeError, match="amplitude"):
        portasim.hh.simulate(2, 10.0, amplitude=np.ones(2))
    with pytest.raises(ValueError, match="--t-ms"):
        portasim.hh.simulate(1, -1.0)
