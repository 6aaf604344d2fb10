"""portasim.hh.simulate: the job `portasim hh` runs, so its arrays are the command line's
HDF5 datasets bit for bit; the result's parts agree with each other; bad options raise."""

import os
import subprocess

import h5py
import numpy as np
import pytest

import portasim
from conftest import as_numpy


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
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        portasim.hh.simulate(2, 10.0, amplitude=np.ones(3))
    with pytest.raises(TypeError, match="amplitude"):
        portasim.hh.simulate(2, 10.0, amplitude="high")
    with pytest.raises(ValueError, match="amplitudes"):
        portasim.hh.simulate(2, 10.0, amplitude=np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="--t-ms"):
        portasim.hh.simulate(1, -1.0)


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_model_facts(precision):
    """The default squid axon, one neuron per DC amplitude: rest at -64.996 mV, one spike
    needs just above 2.24 uA/cm^2, sustained (type II) firing starts near 6.26 uA/cm^2 at
    about 52 Hz, and action potentials peak near +40 mV."""
    amplitudes = np.array([0.0, 2.20, 2.30, 6.20, 6.30, 10.0])
    r = portasim.hh.simulate(len(amplitudes), 500.0, amplitude=amplitudes, record="v",
                             precision=precision)
    assert abs(r.final.v[0] - (-64.996)) < 0.001 and r.spikes.count[0] == 0
    assert r.spikes.count[1] == 0 and r.spikes.count[2] == 1
    assert r.spikes.of(3)[-1] < 300.0  # firing at 6.20 dies out
    sustained = r.spikes.of(4)
    assert len(sustained) >= 10 and sustained[-1] > 480.0
    tail_isi = (sustained[-1] - sustained[-6]) / 5.0
    assert abs(1000.0 / tail_isi - 52.0) < 5.0
    assert abs(r.v[:, 5].max() - 40.0) < 5.0


def test_per_neuron_amplitudes_are_the_sweep(xp):
    """An array that is the linspace gives the same run as the (a0, a1) sweep, and results
    of the array's kind."""
    swept = portasim.hh.simulate(7, 60.0, amplitude=(2.0, 14.0), precision="f64")
    given = portasim.hh.simulate(7, 60.0, amplitude=xp.linspace(2.0, 14.0, 7),
                                 precision="f64", record="v")
    assert type(given.final.v) is type(xp.zeros(1)) and type(given.v) is type(xp.zeros(1))
    np.testing.assert_array_equal(swept.spikes.times, as_numpy(given.spikes.times))
    np.testing.assert_array_equal(swept.final.v, as_numpy(given.final.v))


def test_ctrl_c_stops_a_long_run(tmp_path):
    """SIGINT during a run that would take about half a minute raises KeyboardInterrupt
    within a few of its twentieths (the job checks at each progress block). A GPU steps
    a thousand times more neurons in that time."""
    neurons = 2_000_000 if portasim._portasim.device_arrays() else 1000
    import signal
    import sys
    import time
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import time, portasim\n"
         "portasim.info(); print('ready', flush=True); t0 = time.time()\n"
         "try:\n"
         f"    portasim.hh.simulate({neurons}, 2000.0)\n"
         "    print('finished', time.time() - t0)\n"
         "except KeyboardInterrupt:\n"
         "    print('interrupted', time.time() - t0)\n"],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, OMP_NUM_THREADS="2"))
    for line in child.stdout:  # Kokkos may print warnings first
        if line.strip() == "ready":
            break
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0, out
    word, seconds = out.split()[-2:]
    assert word == "interrupted" and float(seconds) < 8.0, out
