#!/usr/bin/python3
"""Compares the HDF5 outputs of two folders (single-rank vs multi-rank runs of mpi_check.sh):
every dataset equal (NaN == NaN); where not bit for bit, within 1e-12 relative (SFAP's
tolerance) and reported as such. usage: compare_outputs.py SINGLE_DIR MPI_DIR"""
import glob, os, sys
import h5py, numpy as np

status = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.h5"))):
    other = os.path.join(sys.argv[2], os.path.basename(path))
    a, b = h5py.File(path, "r"), h5py.File(other, "r")
    names = []
    a.visit(lambda n: names.append(n) if isinstance(a[n], h5py.Dataset) else None)
    worst, bitwise = 0.0, True
    for n in names:
        x, y = a[n][()], b[n][()]
        if x.shape != y.shape or x.dtype != y.dtype:
            print(f"{os.path.basename(path)} {n}: shape/dtype {x.shape} {x.dtype} vs {y.shape} {y.dtype}")
            status = 1
            continue
        if np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            continue
        bitwise = False
        if x.dtype.kind != "f":
            print(f"{os.path.basename(path)} {n}: differs")
            status = 1
            continue
        err = float(np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-300))
        worst = max(worst, err)
    verdict = "bit for bit" if bitwise else f"max relative difference {worst:.3g}"
    if worst > 1e-12:
        status = 1
    print(f"{os.path.basename(path)}: {len(names)} datasets, {verdict}")
sys.exit(status)
