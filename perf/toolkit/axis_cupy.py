#!/usr/bin/env python3
"""CuPy's float32 sums along an axis, the cases of bench_elementwise's reduction_axis/*.

shared/peers/blas_cupy.py has whole-array reductions only; this measures CuPy (CUB
segmented reductions) on the same shapes as portasim's axis benchmark, timed the way the
peer times its kernels (20 calls between two events), so the two run in one device call:

  (n/1024, 1024) along axis 1 and 0, (16, n/16) along axis 1, (n/16, 16) along axis 0.

Prints one JSON line per case and size: anchor "axis_cupy", case name as in the
benchmark (sum_last_axis_float, ...), n, seconds per call and GB/s of bytes read.
"""
import json
import sys

import cupy as cp


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


CASES = [  # (benchmark case, shape of n elements, axis)
    ("sum_last_axis_float", lambda n: (n // 1024, 1024), 1),
    ("sum_first_axis_float", lambda n: (n // 1024, 1024), 0),
    ("sum_last_axis_16_rows_float", lambda n: (16, n // 16), 1),
    ("sum_first_axis_16_cols_float", lambda n: (n // 16, 16), 0),
]


def main():
    sizes = [int(float(a)) for a in sys.argv[1:]] or [10**7, 10**8]
    for n in sizes:
        for name, shape_of, axis in CASES:
            shape = shape_of(n)
            m = cp.full(shape, 0.25, dtype=cp.float32)
            out = cp.empty(shape[1 - axis], dtype=cp.float32)
            seconds = gpu_time(lambda: cp.sum(m, axis=axis, out=out))
            want = 0.25 * shape[axis]
            if abs(float(out[0]) - want) > 1e-5 * want:
                raise SystemExit(f"{name}: CuPy's sum {float(out[0])} is not {want}")
            elements = shape[0] * shape[1]
            print(json.dumps(dict(anchor="axis_cupy", case=name, n=elements, s=seconds,
                                  GBps=4 * elements / seconds / 1e9)), flush=True)
            del m, out


if __name__ == "__main__":
    main()
