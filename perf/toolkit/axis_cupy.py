#!/usr/bin/env python3
"""CuPy's float32 sums along an axis, the cases of bench_elementwise's reduction_axis/*
(axis_cases.py), timed the way shared/peers/blas_cupy.py times its kernels: 20 calls
between two events. CuPy reduces along an axis with CUB's segmented reductions.

usage: axis_cupy.py [n ...]   (default 1e7 1e8); JSON lines with anchor "axis_cupy"
"""
import sys

import cupy as cp

from axis_cases import run, sizes_from


def gpu_time(fn, reps=20):
    fn()
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / 1e3 / reps


def make_sum(shape, axis):
    m = cp.full(shape, 0.25, dtype=cp.float32)
    out = cp.empty(shape[1 - axis], dtype=cp.float32)
    return (lambda: cp.sum(m, axis=axis, out=out)), (lambda: float(out[0]))


if __name__ == "__main__":
    run(sizes_from(sys.argv[1:]), "axis_cupy", "CuPy", make_sum, gpu_time)
