"""The toolkit on NumPy or CuPy arrays: the seed examples' elementwise kernels
(squared_difference, multiply_add, softplus) and a fused expression, sum and L2 norm (of the
whole array or along an axis), matmul, trace and svd.

Arrays are float32 or float64, C-contiguous, and all of one dtype within a call; nothing is
converted behind the caller's back (x.astype(...) and ascontiguousarray(x) do it). They are
all NumPy or, on a CUDA build, all CuPy on portasim's GPU; array results are of the same
kind and dtype (CuPy results never leave the GPU, and the work is ordered on CuPy's current
stream). Scalar results (sum, l2_norm of the whole array, trace) are Python floats.
Sums and norms accumulate in the arrays' dtype, as NumPy and CuPy do.
"""

import numbers

import numpy as np

from . import _portasim
from ._arrays import array_module, check_choice, where

_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# The most dimensions an elementwise operand may have (the library's toolkit::max_rank).
_MAX_ELEMENTWISE_NDIM = 3


def _checked(name, value, ndim=None):
    """`value` (a NumPy or CuPy array, as where() has made sure) if it is float32/float64,
    C-contiguous and, where `ndim` is given, of that many dimensions."""
    if value.dtype not in _FLOAT_DTYPES:
        raise TypeError(f"{name} must have dtype float32 or float64, got {value.dtype}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {value.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{name} must be C-contiguous (ascontiguousarray({name}) makes it so)")
    return value


def _same_dtype(named):
    """Refuses arrays of one call whose dtypes differ, naming the first that differs."""
    first_name, first = named[0]
    for name, value in named[1:]:
        if value.dtype != first.dtype:
            raise TypeError(f"{name} has dtype {value.dtype}, but {first_name} has "
                            f"{first.dtype}: the arrays of one call share a dtype "
                            f"({name}.astype(...) converts)")


def _arrays(*named, ndim=None):
    """The place of a call (where()) after checking each (name, array) pair and their
    dtypes."""
    place = where(*named)
    for name, value in named:
        _checked(name, value, ndim)
    _same_dtype(named)
    return place


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _elementwise(kernel, named, addend=None):
    """Runs `kernel(place, *operands[, b])` on arrays broadcast against each other (NumPy
    rules, at most 3 dimensions). `addend` is ("b", value) for the B of x1 * x2 + B: a
    real number (taken in the arrays' dtype) or an array like the others. Returns an array
    of the broadcast shape."""
    arrays = list(named)
    scalar = None
    if addend is not None:
        if _is_number(addend[1]):
            scalar = float(addend[1])
        else:
            arrays.append(addend)
    place = _arrays(*arrays)
    shape = ()
    for i, (name, value) in enumerate(arrays):
        if value.ndim > _MAX_ELEMENTWISE_NDIM:
            raise ValueError(f"{name} must have at most {_MAX_ELEMENTWISE_NDIM} dimensions, "
                             f"got shape {value.shape}")
        try:
            shape = np.broadcast_shapes(shape, value.shape)
        except ValueError:
            before = ", ".join(f"{n} {v.shape}" for n, v in arrays[:i])
            raise ValueError(f"{name} of shape {value.shape} does not broadcast against "
                             f"{before}") from None
    # The extension takes operands of one rank: 1 (the library's fast path for vectors), or
    # 3 for 2-D and 3-D shapes. Leading extents of 1 broadcast, and reshaping a C-contiguous
    # array is a view, not a copy.
    rank = 1 if len(shape) <= 1 else _MAX_ELEMENTWISE_NDIM
    operands = [value.reshape((1,) * (rank - value.ndim) + value.shape)
                for _, value in arrays]
    if scalar is not None:
        operands.append(scalar)
    return kernel(place, *operands).reshape(shape)


def squared_difference(a, b):
    """(a - b)**2 element by element, in one kernel (the seed example's squared difference;
    the library's fn::SquaredDifference)."""
    return _elementwise(_portasim.toolkit_squared_difference, [("a", a), ("b", b)])


def multiply_add(x1, x2, b):
    """x1 * x2 + b element by element, in one kernel (the seed example's y = x1 * x2 + B;
    the library's fn::MultiplyAdd). b is a real number (taken in the arrays' dtype) or an
    array; arrays broadcast against each other."""
    return _elementwise(_portasim.toolkit_multiply_add, [("x1", x1), ("x2", x2)], ("b", b))


def softplus(x):
    """log(1 + exp(x)) element by element, computed as max(x, 0) + log1p(exp(-|x|)) so that
    it neither overflows for large x nor loses the small values of very negative x (the seed
    example's stable softplus; the library's fn::Softplus)."""
    return _elementwise(_portasim.toolkit_softplus, [("x", x)])


def fused_softplus_multiply_add(x1, x2, b):
    """softplus(x1 * x2 + b) as one fused expression (the library's expression tree, the
    role of cupy.fuse): one kernel reads x1 and x2 once and writes the result once, with no
    temporary array for x1 * x2 + b. b is a number or an array, as for multiply_add. Equal
    to softplus(multiply_add(x1, x2, b)) but for that one rounding to the dtype."""
    return _elementwise(_portasim.toolkit_fused_softplus_multiply_add,
                        [("x1", x1), ("x2", x2)], ("b", b))


def _axis(x, axis):
    """`axis` as an index into x's dimensions (negative counts from the end)."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer or None, got {type(axis).__name__}")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of range for x of shape {x.shape}")
    return int(axis) % x.ndim


def _reduce(what, x, axis):
    place = _arrays(("x", x))
    if axis is not None:
        axis = _axis(x, axis)
        if x.ndim > 3:
            raise ValueError(f"x must have at most 3 dimensions for a reduction along an "
                             f"axis, got shape {x.shape}")
        if x.ndim >= 2:
            return _portasim.toolkit_reduce_along(place, x, axis, what)
    # The whole array (or a 1-D array along its only axis) as one vector: a view of it.
    return _portasim.toolkit_reduce_whole(place, x.reshape(-1), what)


def sum(x, axis=None):
    """The sum of x's elements: of the whole array (axis=None, any number of dimensions) as
    a Python float, or along `axis` of a 2-D or 3-D array as an array without that axis
    (x.sum(axis) of NumPy). Accumulates in x's dtype."""
    return _reduce("sum", x, axis)


def l2_norm(x, axis=None):
    """sqrt(sum(x**2)): of the whole array (axis=None) as a Python float, or along `axis` of
    a 2-D or 3-D array as an array without that axis (numpy.linalg.norm(x, axis=axis) for
    2-D x: axis=1 gives the norm of each row, axis=0 of each column). Accumulates in x's
    dtype without rescaling, so squares beyond the dtype's range overflow."""
    return _reduce("l2_norm", x, axis)


def matmul(a, b, algorithm="auto"):
    """The product a @ b of a (m, k) and b (k, n) 2-D arrays, a new (m, n) array.

    algorithm: "auto" (the vendor BLAS where the build has Kokkos Kernels, else "tiled"),
    "blas" (KokkosBlas::gemm: cuBLAS on CUDA), "tiled" (the toolkit's kernel staging tiles
    in team scratch memory) or "naive" (one thread per element of the product). All give
    the product to the dtype's rounding; they differ in speed.
    """
    check_choice("algorithm", algorithm, ("auto", "blas", "tiled", "naive"))
    place = _arrays(("a", a), ("b", b), ndim=2)
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"b has shape {b.shape}, but a of shape {a.shape} needs b to have "
                         f"{a.shape[1]} rows")
    return _portasim.toolkit_matmul(place, a, b, algorithm)


def trace(a):
    """The sum of the main diagonal of a 2-D array (min(m, n) elements, as numpy.trace), as
    a Python float."""
    place = _arrays(("a", a), ndim=2)
    return _portasim.toolkit_trace(place, a)


def svd(a):
    """The singular value decomposition of a 2-D (m, n) array, as
    numpy.linalg.svd(a, full_matrices=False): (u, s, vt) with k = min(m, n), u (m, k) with
    orthonormal columns, s (k,) the singular values in descending order (>= 0), vt (k, n)
    with orthonormal rows, and a = u @ diag(s) @ vt. Singular vectors are unique only up
    to sign (and to rotations within repeated singular values), so u and vt may differ
    from NumPy's by those; s agrees. LAPACK's gesdd on the host, cuSOLVER's gesvd on CUDA;
    a is left unchanged. a must be finite (ValueError otherwise: the vendor routines
    refuse NaN or return NaN for inf); an SVD that does not converge raises RuntimeError.
    """
    place = _arrays(("a", a), ndim=2)
    if a.size == 0:
        raise ValueError(f"a must have at least one row and one column, got shape {a.shape}")
    if not bool(array_module(place[0]).isfinite(a).all()):
        raise ValueError("a must be finite: it holds NaN or inf")
    return _portasim.toolkit_svd(place, a)
