#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/). Run once; the
files are kept in the repository. Crash inputs found later go next to them (crash-*)."""
import os
import random

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def put(target, name, data):
    folder = os.path.join(here, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


rle = {
    "glider": "#N Glider\nx = 3, y = 3, rule = B3/S23\nbob$2bo$3o!\n",
    "gosper_gun": "#N Gosper glider gun\nx = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!\n",
    "crlf_no_rule": "x = 2, y = 2\r\n2o$2o!\r\n",
    "highlife": "x = 3, y = 3, rule = B36/S23\nbo!\n",
    "unterminated": "x = 3, y = 1\n3o\n",
    "outside": "x = 2, y = 1\n3o!\n",
    "huge": "x = 100000000000, y = 100000000000\no!\n",
    "negative": "x = -1, y = 3\n!\n",
    "bad_tag": "x = 3, y = 1\nobz!\n",
    "no_header": "bob$2bo$3o!\n",
    "empty": "",
    "rows_past_end": "x = 1, y = 1\no99999999$!\n",
}
for name, text in rle.items():
    put("fuzz_rle", name + ".rle", text)


def npy_bytes(array, version=(1, 0)):
    import io
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=version)
    return buffer.getvalue()


grid = (np.arange(12).reshape(3, 4) % 2).astype(np.uint8)
put("fuzz_npy", "grid_v1.npy", npy_bytes(grid))
put("fuzz_npy", "grid_v2.npy", npy_bytes(grid, (2, 0)))
put("fuzz_npy", "generations.npy", npy_bytes(np.stack([grid, 1 - grid])))
put("fuzz_npy", "bool.npy", npy_bytes(grid.astype(bool)))
put("fuzz_npy", "float.npy", npy_bytes(grid.astype(np.float32)))
put("fuzz_npy", "fortran.npy", npy_bytes(np.asfortranarray(grid.T.copy().T)))
put("fuzz_npy", "values_2.npy", npy_bytes(grid * 2))
put("fuzz_npy", "truncated.npy", npy_bytes(grid)[:-3])
put("fuzz_npy", "one_d.npy", npy_bytes(grid.ravel()))
put("fuzz_npy", "bad_magic.npy", b"\x93NUMPX" + npy_bytes(grid)[6:])
put("fuzz_npy", "huge_shape.npy", npy_bytes(grid).replace(b"(3, 4)", b"(99999999999999999999, 4)"[:6], 1))

# The HDF5 target reads its bytes as a description of a file (see fuzz_hdf5_inputs.cpp):
# random descriptions of a few lengths are enough for the fuzzer to start from.
rng = random.Random(8)
for n in (4, 16, 64, 256, 1024):
    for k in range(3):
        put("fuzz_hdf5_inputs", "random_%d_%d.bin" % (n, k), bytes(rng.randrange(256) for _ in range(n)))
