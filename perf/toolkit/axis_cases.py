"""The cases of bench_elementwise's reduction_axis/* and the loop that times a peer library's
float32 sums on them (axis_cupy.py: CuPy; axis_torch.py: PyTorch), so that the peers and
portasim run the same shapes in one device call:

  (n/1024, 1024) along axis 1 and 0, (16, n/16) along axis 1, (n/16, 16) along axis 0.

Each case prints one JSON line: the anchor ("axis_cupy", "axis_torch"), the case name as in
the benchmark (sum_last_axis_float, ...), n, seconds per call and GB/s of bytes read.
"""
import json

CASES = [  # (benchmark case, shape of n elements, axis)
    ("sum_last_axis_float", lambda n: (n // 1024, 1024), 1),
    ("sum_first_axis_float", lambda n: (n // 1024, 1024), 0),
    ("sum_last_axis_16_rows_float", lambda n: (16, n // 16), 1),
    ("sum_first_axis_16_cols_float", lambda n: (n // 16, 16), 0),
]


def sizes_from(args):
    return [int(float(a)) for a in args] or [10**7, 10**8]


def run(sizes, anchor, library, make_sum, seconds_per_call):
    """make_sum(shape, axis) -> (sum_call, first_output); seconds_per_call(call) -> seconds.
    Every array holds 0.25, so each output must be 0.25 x the axis length."""
    for n in sizes:
        for name, shape_of, axis in CASES:
            shape = shape_of(n)
            call, first_output = make_sum(shape, axis)
            seconds = seconds_per_call(call)
            want = 0.25 * shape[axis]
            got = first_output()
            if abs(got - want) > 1e-5 * want:
                raise SystemExit(f"{name}: {library}'s sum {got} is not {want}")
            elements = shape[0] * shape[1]
            print(json.dumps(dict(anchor=anchor, case=name, n=elements, s=seconds,
                                  GBps=4 * elements / seconds / 1e9)), flush=True)
            del call, first_output
