"""Batched Hodgkin-Huxley neurons: the job of `portasim hh`, from Python."""

import math
from types import SimpleNamespace

import numpy as np

from . import _portasim
from ._arrays import check_choice, is_device_array, where

# The generated stimulus and the spike options, by their command-line names (--step-on-ms
# is step_on_ms), with the command line's defaults.
_STIMULUS_DEFAULTS = {
    "step_on_ms": 0.0,
    "step_off_ms": math.inf,
    "pulse_period_ms": 0.0,
    "pulse_width_ms": 0.0,
    "ramp_per_ms": 0.0,
    "noise_sd": 0.0,
    "threshold_mv": 0.0,
    "max_spikes": 0,
}


class Spikes:
    """Spike times in CSR form, as the /spikes group of the HDF5 output: neuron k's times
    (ms) are times[offsets[k]:offsets[k + 1]]; count[k] includes crossings beyond the stored
    capacity."""

    def __init__(self, count, offsets, times):
        self.count, self.offsets, self.times = count, offsets, times

    def of(self, neuron):
        return self.times[self.offsets[neuron]:self.offsets[neuron + 1]]


class Result:
    """What simulate() returns: spikes, the recorded traces (samples x neurons; None when not
    recorded), the final state, per-neuron statistics and the run's figures."""

    def __init__(self, raw, options, device=False):
        if device:  # CuPy in, CuPy out: the host results are copied to the GPU once
            import cupy
            raw = {k: cupy.asarray(v) if isinstance(v, np.ndarray) else v for k, v in raw.items()}
        self._options = options
        self.spikes = Spikes(raw["spike_count"], raw["spike_offsets"], raw["spike_times"])
        self.v, self.m, self.h, self.n = (raw["trace_" + k] for k in "vmhn")
        self.final = SimpleNamespace(v=raw["final_v"], m=raw["final_m"], h=raw["final_h"],
                                     n=raw["final_n"])
        self.firing_rate_hz = raw["firing_rate_hz"]
        self.mean_isi_ms = raw["mean_isi_ms"]
        self.isi_cv = raw["isi_cv"]
        self.steps, self.samples = raw["steps"], raw["samples"]
        self.spikes_dropped = raw["spikes_dropped"]
        self.seconds = raw["seconds"]
        self.neuron_steps_per_second = raw["neuron_steps_per_second"]
        self.warnings = list(raw["warnings"])

    def to_hdf5(self, path):
        """Writes the command line's HDF5 layout (docs/formats.md) to `path`. The job runs
        again with the file as its output: a run is deterministic, so the file holds this
        result bit for bit."""
        _portasim.hh_simulate(dict(self._options, output=str(path)))


def _amplitudes(amplitude, neurons):
    """(a0, a1, per-neuron array or None) of the amplitude argument."""
    if isinstance(amplitude, (int, float, np.integer, np.floating)) and not isinstance(amplitude, bool):
        return float(amplitude), float(amplitude), None
    if isinstance(amplitude, (tuple, list)) and len(amplitude) == 2:
        return float(amplitude[0]), float(amplitude[1]), None
    if is_device_array(amplitude) or isinstance(amplitude, np.ndarray):
        where(("amplitude", amplitude))
        if is_device_array(amplitude):
            amplitude = amplitude.get()  # a run's inputs are read on the host
        if not (np.issubdtype(amplitude.dtype, np.floating) or
                np.issubdtype(amplitude.dtype, np.integer)):
            raise TypeError(f"amplitude must be a numeric array, got dtype {amplitude.dtype}")
        if amplitude.shape != (neurons,):
            raise ValueError(f"amplitude must have shape ({neurons},), one value per neuron, "
                             f"got {amplitude.shape}")
        values = np.ascontiguousarray(amplitude, dtype=np.float64)
        return float(values[0]), float(values[-1]), values
    raise TypeError("amplitude must be a number (uA/cm^2), a pair (a0, a1) spread over the "
                    f"neurons or an array of one value per neuron; got {type(amplitude).__name__}")


def simulate(neurons, t_ms, dt_ms=0.01, amplitude=10.0, *, record="spikes", every=1,
             integrator="rk4", precision="f32", seed=0, **stimulus):
    """Runs `neurons` HH neurons for `t_ms` ms, as `portasim hh` does.

    amplitude: a DC current in uA/cm^2, (a0, a1) spread linearly over the neurons, or an
    array of one amplitude per neuron (NumPy, or CuPy on a CUDA build). The result's arrays
    are NumPy, or CuPy when the amplitudes are: the job streams spikes and traces to host
    memory, and they are copied to the GPU once at the end.
    record: "spikes", "v", "all" (V and the gates) or "none"; every: record every k-th step.
    integrator: "rk4", "euler", "rush-larsen" or "rk45"; precision: "f32" or "f64".
    stimulus: step_on_ms, step_off_ms, pulse_period_ms, pulse_width_ms, ramp_per_ms,
    noise_sd (with seed), threshold_mv, max_spikes, as the command-line options.
    """
    unknown = sorted(set(stimulus) - set(_STIMULUS_DEFAULTS))
    if unknown:
        raise TypeError(f"simulate() got unexpected keyword arguments: {', '.join(unknown)}")
    check_choice("record", record, ("spikes", "v", "all", "none"))
    check_choice("integrator", integrator, ("rk4", "euler", "rush-larsen", "rk45"))
    check_choice("precision", precision, ("f32", "f64"))
    device = is_device_array(amplitude)
    a0, a1, per_neuron = _amplitudes(amplitude, int(neurons))
    options = dict(_STIMULUS_DEFAULTS, **stimulus)
    options.update(neurons=int(neurons), t_ms=float(t_ms), dt_ms=float(dt_ms), every=int(every),
                   record=record, integrator=integrator, precision=precision, seed=int(seed),
                   amplitude_first=a0, amplitude_last=a1, amplitudes=per_neuron, output="")
    return Result(_portasim.hh_simulate(options), options, device)
