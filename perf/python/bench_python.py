"""The cost of calling portasim from Python, against the same call from C++ in the same run.

  life.step, 256^2, 1 generation          per-call time (the overhead dominates)
  life.step, 8192^2 (4096^2 on CPUs), 50 generations: cells/s (the work dominates; target:
    within 10 % of C++)
  sfap.calc_sfaps, the 200 x 25 bench case with delays and MUAP

each with NumPy arrays and, in a CUDA build with CuPy, with CuPy arrays (timed with the
GPU synchronised around the call, as the C++ benchmarks time theirs). The C++ figures come
from Google Benchmark JSON files of portasim_bench_life (BM_life_run_call) and
portasim_bench_sfap (BM_bench_200x25/with_delays) given with --cpp.

usage: python3 bench_python.py --bench-file bench_200f_25e_dz0p1.h5 [--cpp A.json B.json]
       [--repeat N] [--output results.json]
"""
import argparse
import json
import statistics
import sys
import time

import h5py
import numpy as np

import portasim


def timed(call, repeat, synchronize):
    """Median seconds of `call()` over `repeat` calls after two warm-up calls."""
    for _ in range(2):
        call()
    synchronize()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def kinds():
    out = [("numpy", np, lambda: None)]
    if portasim._portasim.device_arrays():
        import cupy
        out.append(("cupy", cupy, lambda: cupy.cuda.get_current_stream().synchronize()))
    return out


def bench_inputs(path):
    with h5py.File(path, "r") as f:
        g = f["/inputs"]
        arrays = [g[k][()] for k in ("fiber_centers", "endplate_z", "conduction_velocity",
                                     "diameter", "electrode_positions", "nerve_paths")]
        scalars = dict(muscle_length_mm=float(g.attrs["muscle_length_mm"]),
                       dt_s=float(g.attrs["dt_s"]), dz_mm=float(g.attrs["dz_mm"]))
    return arrays, scalars


def measure(args):
    rows = []
    rng = np.random.default_rng(1)
    small = (rng.random((256, 256)) < 0.3).astype(np.uint8)
    side = args.large_side
    large = (rng.random((side, side)) < 0.3).astype(np.uint8)
    arrays, scalars = bench_inputs(args.bench_file)
    for name, xp, sync in kinds():
        g = xp.asarray(small)
        s = timed(lambda: portasim.life.step(g, 1), args.repeat, sync)
        rows.append(dict(case="life.step 256^2 x 1", arrays=name, seconds=s))
        g = xp.asarray(large)
        s = timed(lambda: portasim.life.step(g, 50), max(3, args.repeat // 20), sync)
        rows.append(dict(case=f"life.step {side}^2 x 50", arrays=name, seconds=s,
                         cells_per_s=float(side) ** 2 * 50 / s))
        a = [xp.asarray(v) for v in arrays]
        s = timed(lambda: portasim.sfap.calc_sfaps(*a[:5], nerve_paths=a[5], **scalars),
                  max(5, args.repeat // 10), sync)
        rows.append(dict(case="sfap.calc_sfaps bench 200x25 +delays", arrays=name, seconds=s))
    return rows


def cpp_figures(paths):
    """Seconds per call of the C++ counterparts, by the Python case they match."""
    match = {"BM_life_run_call/side:256/generations:1": "life.step 256^2 x 1",
             "BM_life_run_call/side:8192/generations:50": "life.step 8192^2 x 50",
             "BM_life_run_call/side:4096/generations:50": "life.step 4096^2 x 50",
             "BM_bench_200x25/with_delays": "sfap.calc_sfaps bench 200x25 +delays"}
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    out = {}
    for path in paths:
        with open(path) as f:
            for b in json.load(f)["benchmarks"]:
                for prefix, case in match.items():
                    if b["name"].startswith(prefix) and b.get("run_type", "iteration") == "iteration":
                        out[case] = b["real_time"] * unit[b["time_unit"]]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-file", required=True)
    parser.add_argument("--cpp", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--large-side", type=int,
                        default=8192 if portasim._portasim.device_arrays() else 4096,
                        help="side of the large life.step case (the C++ benchmark's: 8192 on "
                        "GPUs, 4096 on CPUs)")
    parser.add_argument("--output")
    args = parser.parse_args()
    rows = measure(args)
    cpp = cpp_figures(args.cpp)
    info = portasim.info()
    print(f"portasim {info['version']} on {info['default_backend']}"
          f" {[d['name'] for d in info['devices']]}, Python {sys.version.split()[0]}")
    print(f"{'case':40s} {'arrays':6s} {'Python':>12s} {'C++':>12s} {'overhead':>12s} {'ratio':>7s}")
    for r in rows:
        c = cpp.get(r["case"])
        r["cpp_seconds"] = c
        extra = f"{(r['seconds'] - c) * 1e6:9.1f} us {r['seconds'] / c:7.3f}" if c else ""
        print(f"{r['case']:40s} {r['arrays']:6s} {r['seconds'] * 1e3:9.4f} ms "
              f"{(c or float('nan')) * 1e3:9.4f} ms {extra}")
    if args.output:
        with open(args.output, "w") as f:
            json.dump(dict(info=info, python=sys.version, rows=rows), f, indent=1, default=str)


if __name__ == "__main__":
    main()
