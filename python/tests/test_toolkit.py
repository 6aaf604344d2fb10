"""portasim.toolkit against NumPy, in float32 and float64, on NumPy arrays and (on a CUDA
build with CuPy) on CuPy arrays; and its argument checks.

Tolerances are the worst-case rounding bounds of each operation in the arrays' dtype (eps
is its machine epsilon), as the library's own checks use, so they hold for any summation
order a backend picks. Sums of small integers are exact in either dtype, whatever the
order: those tests compare for equality and catch an element read twice or not at all,
which a rounding bound of a long float32 sum could hide."""

import numpy as np
import pytest

import portasim
from conftest import as_numpy as host  # results come back as the inputs' kind
from portasim import toolkit

DTYPES = [np.float32, np.float64]


@pytest.fixture(params=DTYPES, ids=["float32", "float64"])
def dtype(request):
    return request.param


def eps(dtype):
    return float(np.finfo(dtype).eps)


def random(xp, dtype, shape, seed, low=-1.0, high=1.0):
    """Values uniform in [low, high) made on the host, as an array of xp and dtype, and the
    same values as float64 NumPy for the references."""
    values = np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
    return xp.asarray(values), values.astype(np.float64)


def small_integers(xp, dtype, shape, seed):
    values = np.random.default_rng(seed).integers(-8, 9, shape).astype(dtype)
    return xp.asarray(values), values.astype(np.float64)


def check_result(result, xp, dtype, shape):
    assert type(result) is type(xp.empty(0)), "the result is of the inputs' kind"
    assert result.dtype == dtype and result.shape == shape


# --- elementwise --------------------------------------------------------------------------

def test_squared_difference(xp, dtype):
    a, ha = random(xp, dtype, 4099, 1)
    b, hb = random(xp, dtype, 4099, 2)
    got = toolkit.squared_difference(a, b)
    check_result(got, xp, dtype, (4099,))
    want = (ha - hb) ** 2
    # one rounding for a - b, one for the square
    np.testing.assert_allclose(host(got), want, rtol=4 * eps(dtype), atol=0)


def test_multiply_add_with_scalar_and_array_b(xp, dtype):
    x1, h1 = random(xp, dtype, (33, 65), 3)
    x2, h2 = random(xp, dtype, (33, 65), 4)
    for b, hb in [(2.0, 2.0), random(xp, dtype, (65,), 5)]:
        got = toolkit.multiply_add(x1, x2, b)
        check_result(got, xp, dtype, (33, 65))
        # one rounding each for the product and the sum (or one for a fused multiply-add)
        bound = 2 * eps(dtype) * (np.abs(h1 * h2) + np.abs(hb))
        assert np.all(np.abs(host(got) - (h1 * h2 + hb)) <= bound)


def reference_softplus(x):
    return np.logaddexp(0.0, x)  # log(e^0 + e^x), stable in float64


def test_softplus_is_stable(xp, dtype):
    # Beyond log(max) of the dtype (88.7 in float32, 709.8 in float64) the naive
    # log(1 + exp(x)) overflows; far below zero it rounds to 0 where the answer is e^x.
    extremes = np.array([-700.0, -100.0, -30.0, 0.0, 30.0, 100.0, 700.0])
    if dtype == np.float32:
        extremes = extremes[np.abs(extremes) <= 100]
    values = np.concatenate([np.linspace(-20, 20, 1001), extremes]).astype(dtype)
    got = host(toolkit.softplus(xp.asarray(values)))
    check_result(toolkit.softplus(xp.asarray(values)), xp, dtype, values.shape)
    assert np.all(np.isfinite(got))
    # a few roundings in exp, log1p and the sum; results below the normal range (float32's
    # e^-100) keep only absolute accuracy
    np.testing.assert_allclose(got, reference_softplus(values.astype(np.float64)),
                               rtol=8 * eps(dtype), atol=float(np.finfo(dtype).tiny))


def test_fused_softplus_multiply_add(xp, dtype):
    x1, h1 = random(xp, dtype, (7, 9, 11), 6, -4, 4)
    x2, h2 = random(xp, dtype, (9, 1), 7, -4, 4)  # broadcast against x1
    got = toolkit.fused_softplus_multiply_add(x1, x2, -0.5)
    check_result(got, xp, dtype, (7, 9, 11))
    want = reference_softplus(h1 * h2 - 0.5)
    # softplus's own roundings, plus the rounding of x1 * x2 + b carried through a slope
    # of at most 1
    bound = 8 * eps(dtype) * np.abs(want) + 2 * eps(dtype) * (np.abs(h1 * h2) + 0.5)
    assert np.all(np.abs(host(got) - want) <= bound)
    unfused = host(toolkit.softplus(toolkit.multiply_add(x1, x2, -0.5)))
    assert np.all(np.abs(host(got) - unfused) <= 2 * bound)


def test_elementwise_broadcasting_and_shapes(xp, dtype):
    a, ha = random(xp, dtype, (4, 1, 3), 8)
    b, hb = random(xp, dtype, (2, 3), 9)
    got = toolkit.squared_difference(a, b)
    check_result(got, xp, dtype, (4, 2, 3))
    np.testing.assert_allclose(host(got), (ha - hb) ** 2, rtol=4 * eps(dtype))
    # 0-d arrays give a 0-d result; empty arrays an empty one
    zero_d = toolkit.multiply_add(xp.asarray(dtype(2)), xp.asarray(dtype(3)), 1)
    check_result(zero_d, xp, dtype, ())
    assert float(zero_d) == 7.0
    empty = toolkit.softplus(xp.zeros((0, 5), dtype=dtype))
    check_result(empty, xp, dtype, (0, 5))


# --- reductions ---------------------------------------------------------------------------

def test_sum_and_l2_norm_of_the_whole_array(xp, dtype):
    x, hx = random(xp, dtype, (61, 67), 10)  # 4087 elements, any number of dimensions
    n = hx.size
    got_sum, got_norm = toolkit.sum(x), toolkit.l2_norm(x)
    assert type(got_sum) is float and type(got_norm) is float
    # worst cases of a sum of n terms in any order (the norm: n squares, then the root)
    assert abs(got_sum - hx.sum()) <= (n + 2) * eps(dtype) * np.abs(hx).sum()
    want_norm = np.sqrt((hx * hx).sum())
    assert abs(got_norm - want_norm) <= (n + 4) * eps(dtype) * want_norm


def test_whole_array_sums_of_integers_are_exact(xp, dtype):
    x, hx = small_integers(xp, dtype, 10007, 11)
    assert toolkit.sum(x) == hx.sum()
    assert toolkit.l2_norm(x) == float(np.sqrt(dtype((hx * hx).sum())))  # exact squares
    assert toolkit.sum(xp.zeros(0, dtype=dtype)) == 0.0
    assert toolkit.l2_norm(xp.zeros((0, 3), dtype=dtype)) == 0.0


@pytest.mark.parametrize("shape", [(37, 53), (1, 300), (300, 1), (5, 6, 7)])
def test_sum_and_l2_norm_along_an_axis(xp, dtype, shape):
    x, hx = random(xp, dtype, shape, 12)
    for axis in range(-len(shape), len(shape)):
        length = shape[axis]
        got = toolkit.sum(x, axis=axis)
        want_shape = hx.sum(axis=axis).shape
        check_result(got, xp, dtype, want_shape)
        bound = (length + 2) * eps(dtype) * np.abs(hx).sum(axis=axis)
        assert np.all(np.abs(host(got) - hx.sum(axis=axis)) <= bound), axis
        got = toolkit.l2_norm(x, axis=axis)
        check_result(got, xp, dtype, want_shape)
        want = np.linalg.norm(hx, axis=axis)
        assert np.all(np.abs(host(got) - want) <= (length + 4) * eps(dtype) * want), axis


def test_axis_sums_of_integers_are_exact(xp, dtype):
    x, hx = small_integers(xp, dtype, (129, 257), 13)
    for axis in (0, 1):
        np.testing.assert_array_equal(host(toolkit.sum(x, axis=axis)), hx.sum(axis=axis))
        # the square root of an exact sum of squares, correctly rounded to the dtype
        np.testing.assert_array_equal(host(toolkit.l2_norm(x, axis=axis)),
                                      np.sqrt((hx * hx).sum(axis=axis).astype(dtype)))
    # a 1-D array along its axis is the whole array
    assert toolkit.sum(x[0], axis=0) == hx[0].sum()


# --- linear algebra -----------------------------------------------------------------------

ALGORITHMS = ["auto", "blas", "tiled", "naive"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_matmul_non_square(xp, dtype, algorithm):
    a, ha = random(xp, dtype, (37, 23), 14)
    b, hb = random(xp, dtype, (23, 41), 15)
    got = toolkit.matmul(a, b, algorithm=algorithm)
    check_result(got, xp, dtype, (37, 41))
    # |c - ab| <= (k + 2) eps (|a| |b|) element by element, for any order of the k terms
    bound = (23 + 2) * eps(dtype) * (np.abs(ha) @ np.abs(hb))
    assert np.all(np.abs(host(got) - ha @ hb) <= bound)
    np.testing.assert_array_equal(host(a), ha.astype(dtype))  # inputs unchanged


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_matmul_of_integers_is_exact(xp, dtype, algorithm):
    a, ha = small_integers(xp, dtype, (65, 130), 16)
    b, hb = small_integers(xp, dtype, (130, 33), 17)
    np.testing.assert_array_equal(host(toolkit.matmul(a, b, algorithm)), ha @ hb)
    # an empty inner dimension is an empty sum
    zeros = toolkit.matmul(xp.zeros((3, 0), dtype), xp.zeros((0, 4), dtype), algorithm)
    np.testing.assert_array_equal(host(zeros), np.zeros((3, 4)))


def test_trace(xp, dtype):
    for shape in [(50, 50), (30, 70), (70, 30)]:
        a, ha = random(xp, dtype, shape, 18)
        got = toolkit.trace(a)
        assert type(got) is float
        diagonal = np.diagonal(ha)
        assert abs(got - diagonal.sum()) <= (diagonal.size + 2) * eps(dtype) * \
            np.abs(diagonal).sum()
    a, ha = small_integers(xp, dtype, (300, 200), 19)
    assert toolkit.trace(a) == np.trace(ha)


@pytest.mark.parametrize("shape", [(40, 40), (60, 25), (25, 60), (1, 7)])
def test_svd_reconstructs(xp, dtype, shape):
    a, ha = random(xp, dtype, shape, 20)
    m, n = shape
    k = min(m, n)
    u, s, vt = toolkit.svd(a)
    check_result(u, xp, dtype, (m, k))
    check_result(s, xp, dtype, (k,))
    check_result(vt, xp, dtype, (k, n))
    hu, hs, hvt = (host(r).astype(np.float64) for r in (u, s, vt))
    # backward-stable SVDs: errors a small multiple of max(m, n) eps relative to ||a||
    bound = 10 * max(m, n) * eps(dtype)
    assert np.all(hs >= 0) and np.all(np.diff(hs) <= 0), "descending, not negative"
    norm = np.linalg.norm(ha)
    assert np.linalg.norm(hu @ np.diag(hs) @ hvt - ha) <= bound * norm
    np.testing.assert_allclose(hs, np.linalg.svd(ha, compute_uv=False), rtol=0,
                               atol=bound * hs[0])
    assert np.abs(hu.T @ hu - np.eye(k)).max() <= bound
    assert np.abs(hvt @ hvt.T - np.eye(k)).max() <= bound
    np.testing.assert_array_equal(host(a), ha.astype(dtype))  # a unchanged


# --- argument checks ----------------------------------------------------------------------

def test_wrong_dtypes_raise_type_error(xp):
    ints = xp.arange(12).reshape(3, 4)
    for call in [lambda: toolkit.softplus(ints), lambda: toolkit.sum(ints.astype(xp.float16)),
                 lambda: toolkit.l2_norm(ints.astype(xp.complex64), axis=0)]:
        with pytest.raises(TypeError, match="x must have dtype float32 or float64"):
            call()
    with pytest.raises(TypeError, match="a must have dtype"):
        toolkit.matmul(ints, ints.T.astype(xp.float64))
    with pytest.raises(TypeError, match="x2 has dtype float64, but x1 has float32"):
        toolkit.multiply_add(xp.ones(3, xp.float32), xp.ones(3, xp.float64), 1.0)
    with pytest.raises(TypeError, match="b has dtype float32, but a has float64"):
        toolkit.matmul(xp.ones((2, 2)), xp.ones((2, 2), xp.float32))


def test_python_lists_and_other_objects_raise_type_error():
    with pytest.raises(TypeError, match="x must be a numpy.ndarray"):
        toolkit.sum([1.0, 2.0])
    with pytest.raises(TypeError, match="b must be a numpy.ndarray( or cupy.ndarray)?, got list"):
        toolkit.squared_difference(np.ones(2), [1.0, 2.0])
    with pytest.raises(TypeError, match="b must be a numpy.ndarray( or cupy.ndarray)?, got str"):
        toolkit.multiply_add(np.ones(2), np.ones(2), "2")
    with pytest.raises(TypeError, match="axis must be an integer"):
        toolkit.sum(np.ones((2, 2)), axis=1.0)


def test_wrong_shapes_raise_value_error(xp):
    cube = xp.ones((2, 3, 4))
    for call, name in [(lambda: toolkit.matmul(cube, cube), "a"),
                       (lambda: toolkit.matmul(xp.ones((2, 3)), xp.ones(3)), "b"),
                       (lambda: toolkit.trace(cube), "a"), (lambda: toolkit.svd(cube), "a")]:
        with pytest.raises(ValueError, match=f"{name} must be 2-D, got shape"):
            call()
    with pytest.raises(ValueError, match=r"b has shape \(4, 5\), but a of shape \(2, 3\) needs b "
                                         "to have 3 rows"):
        toolkit.matmul(xp.ones((2, 3)), xp.ones((4, 5)))
    with pytest.raises(ValueError, match=r"b of shape \(4,\) does not broadcast against a"):
        toolkit.squared_difference(xp.ones(3), xp.ones(4))
    with pytest.raises(ValueError, match="b of shape"):
        toolkit.multiply_add(xp.ones((2, 3)), xp.ones((2, 3)), xp.ones(2))
    with pytest.raises(ValueError, match="x must have at most 3 dimensions"):
        toolkit.softplus(xp.ones((1, 2, 3, 4)))
    with pytest.raises(ValueError, match="x must have at most 3 dimensions"):
        toolkit.sum(xp.ones((1, 2, 3, 4)), axis=0)
    with pytest.raises(ValueError, match=r"axis 2 is out of range for x of shape \(2, 3\)"):
        toolkit.l2_norm(xp.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match="a must have at least one row and one column"):
        toolkit.svd(xp.ones((0, 3)))
    with pytest.raises(ValueError, match="a must be finite"):
        toolkit.svd(xp.asarray([[1.0, float("nan")], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="algorithm must be one of"):
        toolkit.matmul(xp.ones((2, 2)), xp.ones((2, 2)), algorithm="fast")


def test_non_contiguous_arrays_raise_value_error(xp):
    m = xp.ones((6, 6))
    for call, name in [(lambda: toolkit.sum(m[:, ::2]), "x"),
                       (lambda: toolkit.l2_norm(m.T, axis=0), "x"),
                       (lambda: toolkit.squared_difference(m, m[::2]), "b"),
                       (lambda: toolkit.matmul(m, m.T), "b"),
                       (lambda: toolkit.svd(m[1:, 1:]), "a")]:
        with pytest.raises(ValueError, match=f"{name} must be C-contiguous"):
            call()


def test_the_package_exports_toolkit():
    assert portasim.toolkit is toolkit
    assert "toolkit" in portasim.__all__
