"""The NumPy peers of the OpenMP backend: each CPU workload of portasim written as a NumPy
user writes it, timed on the same machine, one JSON line per measurement.

  hh       RK4 over arrays of neurons (float32 and float64), the HH model of the CuPy peer
           (shared/peers/hh_cupy.py): neuron-steps/s
  l2norm   np.linalg.norm of 1e7 float32          sum   np.sum of 1e7 float32
  matmul   a @ b, float32 and float64, n^3 (NumPy's BLAS)
  axpb     x1 * x2 + B over 1e7 float32 (the seed's elementwise example): GB/s moved
  life     one Game of Life generation by np.roll, uint8 grid: cells/s

NumPy threads come from its BLAS (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS); everything but
matmul runs on one core, as NumPy does.

usage: python3 numpy_peers.py [--parts hh,l2norm,sum,matmul,axpb,life] [--quick]
"""
import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

V0, M0, H0, N0 = -65.0, 0.05, 0.6, 0.32
C_M, G_NA, G_K, G_L, E_NA, E_K, E_L = 1.0, 120.0, 36.0, 0.3, 50.0, -77.0, -54.387


def median_seconds(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def emit(**row):
    row.update(peer="numpy", numpy=np.__version__, machine=platform.processor() or platform.machine(),
               blas_threads=os.environ.get("OPENBLAS_NUM_THREADS", os.environ.get("OMP_NUM_THREADS", "")))
    print(json.dumps(row), flush=True)


def hh_derivatives(V, m, h, n, current, one):
    e = np.exp
    am = 0.1 * (V + 40.0) / (one - e(-(V + 40.0) / 10.0))
    bm = 4.0 * e(-(V + 65.0) / 18.0)
    ah = 0.07 * e(-(V + 65.0) / 20.0)
    bh = one / (one + e(-(V + 35.0) / 10.0))
    an = 0.01 * (V + 55.0) / (one - e(-(V + 55.0) / 10.0))
    bn = 0.125 * e(-(V + 65.0) / 80.0)
    i_ion = G_NA * m ** 3 * h * (V - E_NA) + G_K * n ** 4 * (V - E_K) + G_L * (V - E_L)
    return ((current - i_ion) / C_M, am * (one - m) - bm * m, ah * (one - h) - bh * h,
            an * (one - n) - bn * n)


def hh(neurons, steps, dtype):
    """RK4 over arrays, dt = 0.01 ms, a DC sweep 0..20 uA/cm^2; returns neuron-steps/s."""
    dt, one = dtype(0.01), dtype(1.0)
    state = [np.full(neurons, x, dtype=dtype) for x in (V0, M0, H0, N0)]
    current = np.linspace(0, 20, neurons).astype(dtype)

    def run():
        y = [s.copy() for s in state]
        for _ in range(steps):
            k1 = hh_derivatives(*y, current, one)
            k2 = hh_derivatives(*(a + dt / 2 * k for a, k in zip(y, k1)), current, one)
            k3 = hh_derivatives(*(a + dt / 2 * k for a, k in zip(y, k2)), current, one)
            k4 = hh_derivatives(*(a + dt * k for a, k in zip(y, k3)), current, one)
            y = [a + dt / 6 * (p + 2 * q + 2 * r + s) for a, p, q, r, s in zip(y, k1, k2, k3, k4)]
        return y

    return neurons * steps / median_seconds(run, 3)


def life_step(grid):
    n = sum(np.roll(np.roll(grid, dy, 0), dx, 1)
            for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    return ((n == 3) | ((grid == 1) & (n == 2))).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="hh,l2norm,sum,matmul,axpb,life")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    rng = np.random.default_rng(1)
    big = 10 ** 5 if args.quick else 10 ** 7
    if "hh" in parts:
        neurons, steps = (1000, 20) if args.quick else (100_000, 200)
        for dtype in (np.float32, np.float64):
            emit(workload="hh_rk4", dtype=np.dtype(dtype).name, neurons=neurons, steps=steps,
                 neuron_steps_per_s=hh(neurons, steps, dtype))
    x = rng.random(big, dtype=np.float32)
    if "l2norm" in parts:
        s = median_seconds(lambda: np.linalg.norm(x), 20)
        emit(workload="l2_norm", dtype="float32", n=big, seconds=s, gb_per_s=x.nbytes / s / 1e9)
    if "sum" in parts:
        s = median_seconds(lambda: np.sum(x), 20)
        emit(workload="sum", dtype="float32", n=big, seconds=s, gb_per_s=x.nbytes / s / 1e9)
    if "axpb" in parts:
        y = rng.random(big, dtype=np.float32)
        s = median_seconds(lambda: x * y + np.float32(2.0), 20)
        emit(workload="axpb", dtype="float32", n=big, seconds=s, gb_per_s=3 * x.nbytes / s / 1e9)
    if "matmul" in parts:
        for n in ((64,) if args.quick else (512, 1024)):
            for dtype in (np.float32, np.float64):
                a = rng.random((n, n)).astype(dtype)
                b = rng.random((n, n)).astype(dtype)
                s = median_seconds(lambda: a @ b, 10)
                emit(workload="matmul", dtype=np.dtype(dtype).name, n=n, seconds=s,
                     gflop_per_s=2 * n ** 3 / s / 1e9)
    if "life" in parts:
        side = 256 if args.quick else 2048
        grid = (rng.random((side, side)) < 0.3).astype(np.uint8)
        s = median_seconds(lambda: life_step(grid), 10)
        emit(workload="life_roll", side=side, seconds=s, cells_per_s=side * side / s)


if __name__ == "__main__":
    main()
