#!/usr/bin/env python3
"""PyTorch's float32 sums along an axis, the cases of bench_elementwise's reduction_axis/*
(axis_cases.py), timed as axis_cupy.py times CuPy: 20 calls between two events. PyTorch
combines the pieces of a split axis inside its one reduction kernel (a global semaphore),
where CuPy calls CUB and portasim runs a second kernel.

usage: axis_torch.py [n ...]   (default 1e7 1e8); JSON lines with anchor "axis_torch"
"""
import sys

import torch

from axis_cases import run, sizes_from


def gpu_time(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def make_sum(shape, axis):
    m = torch.full(shape, 0.25, dtype=torch.float32, device="cuda")
    out = torch.empty(shape[1 - axis], dtype=torch.float32, device="cuda")
    return (lambda: torch.sum(m, dim=axis, out=out)), (lambda: float(out[0]))


if __name__ == "__main__":
    run(sizes_from(sys.argv[1:]), "axis_torch", "PyTorch", make_sum, gpu_time)
