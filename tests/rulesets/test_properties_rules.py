"""Property tests of every registered array rule (hypothesis): odd but valid
inputs never give a silent wrong answer.

Each function of the registry that takes arrays has a recipe below (a call
built from arrays the test draws), and each recipe runs in every variant of
its arrays: 0-d, empty, non-contiguous (x[..., ::2]), negative strides,
Fortran order, read-only, byte-swapped, float16, float32, complex64 and an
ndarray subclass.  The property: either the primal raises and so does the
rule (an exception of the primal's class), or the rule returns the primal's
Ω, and its cotangents (frule: its ΔΩ) have the dtype and shape of their
arguments and match central finite differences, to a tolerance set by the
precision.  The layout variants are applied to the seed ȳ too (a pullback
must not write into it).  Byte order is storage, not type: the tangent of a
'>f8' array may be native float64.

The values are drawn on a grid (distinct, well apart) so that max, sort,
clip and the rounding functions are differentiable at the points drawn.
test_every_registered_function_is_covered keeps the recipes complete."""

import builtins
import cmath
import copy
import functools
import itertools
import math
import operator
import warnings

import numpy as np
import pytest
import scipy.special as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chainrules as cr
from chainrules import AbstractZero, NoTangent, NotImplementedTangent, frule, rrule, unthunk
from chainrules.finite_differences import central_fdm
from chainrules.ad.autograd.misc.fixed_points import _fixed_point
from chainrules.ad.checkpointing import _checkpoint_call
from chainrules.rulesets import elementwise
from chainrules.rulesets.elementwise import interop as elementwise_interop
from chainrules.testing import rand_tangent, test_approx
from chainrules.testing.finite_difference_calls import fd_jvp, materialize

# NumPy 2.5 deprecates np.fix, which these tests call themselves (as a primal to check)
pytestmark = pytest.mark.filterwarnings(r"ignore:.*numpy\.fix.*:DeprecationWarning")

VARIANTS = ["0d", "empty", "strided", "reversed", "fortran", "readonly", "byteswapped",
            "float16", "float32", "complex64", "subclass"]
LAYOUTS = {"strided", "reversed", "fortran", "readonly", "subclass"}
# rtol = atol by the precision the rule computes in (finite differences run in float64)
TOL = {"float16": 3e-2, "float32": 2e-3, "complex64": 2e-3}
TOL64 = 1e-6
# Steps no larger than 1e-3: the drawn values are at least ~0.02 apart.
FDM = central_fdm(5, 1, max_range=1e-3)
# A few examples per (recipe, variant); HYPOTHESIS_PROFILE=explore draws more.
EXAMPLES = max(1, settings.default.max_examples // 50)


class Sub(np.ndarray):
    """A plain ndarray subclass (np.matrix, whose * is not element-wise, is issue 11 item 3)."""


# ----- drawing arrays -------------------------------------------------------------

def _grid(data, n, lo, hi):
    """n distinct values in (lo, hi), at least (hi - lo) / (2n) apart: the
    cells of a grid in a drawn order, each value jittered inside its cell."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="values"))
    u = (rng.permutation(n) + 0.5 + rng.uniform(-0.25, 0.25, n)) / n
    return lo + (hi - lo) * u


def _realize(v, variant):
    """The float64/complex128 array v in the layout or dtype of the variant
    (same values)."""
    if variant == "strided" and v.ndim:
        big = np.zeros(v.shape[:-1] + (2 * v.shape[-1],), v.dtype)
        big[..., ::2] = v
        return big[..., ::2]
    if variant == "reversed":
        return np.flip(np.ascontiguousarray(np.flip(v)))
    if variant == "fortran":
        return np.asfortranarray(v)
    if variant == "readonly":
        v = v.copy()
        v.flags.writeable = False
        return v
    if variant == "byteswapped":
        return v.astype(v.dtype.newbyteorder("S"))
    if variant in ("float16", "float32", "complex64"):
        return v.astype(variant)
    if variant == "subclass":
        return v.view(Sub)
    return v


def _square(v, kind):
    """Structured square matrices (the last two axes) for the linear algebra."""
    if v.ndim < 2 or v.shape[-2] != v.shape[-1] or v.shape[-1] == 0:
        return v
    n = v.shape[-1]
    eye = np.eye(n)
    if kind == "well":                       # diagonally dominant
        return v + n * eye
    h = (v + np.swapaxes(v, -1, -2).conj()) / 2
    if kind == "spd":                        # Hermitian positive definite
        return h + n * eye
    return h + np.diag(4.0 * np.arange(n))   # "sym": Hermitian, eigenvalues well apart


class Maker:
    """Draws the arrays of one call, all in one variant."""

    def __init__(self, variant, data):
        self.variant = variant
        self.data = data
        self.complex = variant == "complex64"

    def shape(self, shape):
        if self.variant == "0d":
            return ()
        if self.variant == "empty":
            return tuple(0 if d == shape[0] else d for d in shape) if shape else (0,)
        return tuple(shape)

    def __call__(self, shape, lo=0.2, hi=0.8, kind=None, real=False):
        shape = self.shape(shape)
        n = int(np.prod(shape))
        v = _grid(self.data, n, lo, hi).reshape(shape)
        if self.complex and not real:
            v = v + 1j * _grid(self.data, n, lo, hi).reshape(shape)
        if kind is not None:
            v = _square(v, kind)
        return _realize(v, self.variant)

    def pair(self, shape, lo=0.2, hi=0.8):
        """Two arrays whose values are all distinct and well apart (max, min)."""
        shape = self.shape(shape)
        n = int(np.prod(shape))
        v = _grid(self.data, 2 * n, lo, hi)
        if self.complex:
            v = v + 1j * _grid(self.data, 2 * n, lo, hi)
        return _realize(v[:n].reshape(shape), self.variant), _realize(v[n:].reshape(shape), self.variant)


# ----- the recipes ----------------------------------------------------------------

class Recipe:
    """A call of f built from drawn arrays: `build(A)` returns the positional
    arguments, or (args, kwargs).  `fd=False`: the values are not compared
    with finite differences (only Ω, dtype and shape); `omega=False`: Ω is not
    compared either (np.empty_like); `gauge=True`: complex outputs are
    defined up to a phase (eigenvectors, singular vectors), so complex values
    are not compared (numpy/test_linalg.py differentiates them through
    phase-invariant functions); `declines`: the variants for which the rule
    may return None (no rule) though the primal runs."""

    def __init__(self, f, build, name=None, fd=True, omega=True, gauge=False, declines=()):
        self.f = f
        self.build = build
        self.name = name or _name(f)
        self.fd = fd
        self.omega = omega
        self.gauge = gauge
        self.declines = set(declines)

    def __repr__(self):
        return f"Recipe({self.name})"

    def call(self, A):
        out = self.build(A)
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict) and isinstance(out[0], tuple):
            return out
        return tuple(out), {}


def _name(f):
    owner = getattr(f, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"{owner.__name__}.{f.__name__}"
    mod = getattr(f, "__module__", None) or ""
    qual = getattr(f, "__qualname__", None) or getattr(f, "__name__", repr(f))
    mod = {"numpy": "np", "numpy.linalg": "linalg", "numpy.fft": "fft", "_operator": "operator"}.get(mod, mod)
    if "scipy" in mod or type(f) is np.ufunc and f not in NUMPY_UFUNCS:
        mod = "sp"
    return f"{mod}.{qual}" if mod and mod != "builtins" else qual


NUMPY_UFUNCS = {v for v in vars(np).values() if isinstance(v, np.ufunc)}
S = (2, 3)        # the default shape
SQ = (3, 3)


def unary(fs, declines=(), **kw):
    return [Recipe(f, lambda A, kw=kw: (A(S, **kw),), declines=declines) for f in fs]


def binary(fs, shapes=(S, S), suffix="", **kw):
    return [Recipe(f, lambda A, kw=kw: (A(shapes[0], **kw), A(shapes[1], **kw)), name=_name(f) + suffix)
            for f in fs]


def paired(fs):
    return [Recipe(f, lambda A: A.pair(S)) for f in fs]


def method(name):
    return getattr(np.ndarray, name)


def ufunc_method(u, name):
    """The registered bound method u.name (a new object on every access)."""
    for f in cr._core._registered_functions():
        if getattr(f, "__self__", None) is u and getattr(f, "__name__", None) == name:
            return f
    raise LookupError(f"{u.__name__}.{name} is not registered")


def _cond(A):
    return np.arange(int(np.prod(A.shape(S)))).reshape(A.shape(S)) % 2 == 0


ROUNDING = dict(lo=0.05, hi=0.45)      # no integer or half-integer between
ONE_BINADE = dict(lo=0.27, hi=0.48)    # spacing and frexp are smooth in [0.25, 0.5)

RECIPES = [
    # ----- element-wise, one argument (numpy/ufuncs.py) -----
    *unary([np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh,
            np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sqrt, np.cbrt,
            np.square, np.reciprocal, np.sinc, np.negative, np.positive, np.conjugate, np.deg2rad, np.radians,
            np.rad2deg, np.degrees, np.absolute, np.fabs, np.sign, np.angle, np.real, np.imag, np.nan_to_num,
            np.modf, np.real_if_close, method("__neg__"), method("__pos__"), method("__abs__"),
            method("conj"), method("conjugate")]),
    *unary([np.arccosh], lo=1.2, hi=1.8),
    *unary([np.floor, np.ceil, np.rint, np.trunc, np.fix, np.round, np.around, method("round")], **ROUNDING),
    *unary([np.spacing, np.frexp], **ONE_BINADE),
    # predicates: no tangent
    *unary([np.isnan, np.isinf, np.isfinite, np.signbit, np.isnat, np.isposinf, np.isneginf, np.iscomplex,
            np.isreal, np.iscomplexobj, np.isrealobj, np.logical_not, np.invert]),
    # ----- element-wise, two arguments -----
    *binary([np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power, np.arctan2, np.hypot,
             np.logaddexp, np.logaddexp2, np.copysign, np.nextafter, method("__add__"), method("__radd__"),
             method("__sub__"), method("__rsub__"), method("__mul__"), method("__rmul__"), method("__truediv__"),
             method("__rtruediv__"), method("__pow__"), method("__rpow__"), operator.add, operator.sub,
             operator.mul, operator.truediv, operator.pow]),
    *binary([np.add, np.multiply, np.divide, np.power], shapes=(S, S[-1:]), suffix="(broadcast)"),
    Recipe(np.heaviside, lambda A: (A(S) - 0.5, A(S))),
    Recipe(np.ldexp, lambda A: (A(S), np.full(A.shape(S), 2))),
    *[Recipe(f, lambda A: (A(S), A(S, lo=1.5, hi=2.5)))
      for f in (np.remainder, np.fmod, np.floor_divide, np.divmod, method("__mod__"), operator.mod)],
    Recipe(method("__rmod__"), lambda A: (A(S, lo=1.5, hi=2.5), A(S))),
    *paired([np.maximum, np.minimum, np.fmax, np.fmin]),
    # ufunc.outer: the binary ufunc's rule on x with y's axes appended
    *binary([ufunc_method(f, "outer") for f in (np.add, np.subtract, np.multiply, np.divide, np.power,
                                                np.float_power, np.arctan2, np.hypot, np.logaddexp,
                                                np.logaddexp2, np.copysign, np.nextafter)], suffix=".outer"),
    *paired([ufunc_method(f, "outer") for f in (np.maximum, np.minimum, np.fmax, np.fmin)]),
    Recipe(ufunc_method(np.heaviside, "outer"), lambda A: (A(S) - 0.5, A(S))),
    Recipe(ufunc_method(np.ldexp, "outer"), lambda A: (A(S), np.full(A.shape(S), 2))),
    *[Recipe(ufunc_method(f, "outer"), lambda A: (A(S), A(S, lo=1.5, hi=2.5))) for f in (np.remainder, np.fmod)],
    *binary([np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal, np.logical_and,
             np.logical_or, np.logical_xor, np.isclose, np.allclose, np.array_equal, np.array_equiv,
             np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift, np.gcd, np.lcm,
             operator.lt, operator.le, operator.eq, operator.ne, operator.ge, operator.gt]),
    *unary([operator.neg, operator.pos, operator.abs, operator.not_, operator.truth]),
    # ----- reductions (numpy/reductions.py…) -----
    *unary([np.sum, np.nansum, np.mean, np.nanmean, np.prod, np.nanprod, np.var, np.std, np.nanvar, np.nanstd,
            np.cumsum, np.cumprod, np.diff, np.average, method("sum"), method("mean"), method("prod"),
            method("var"), method("std"), method("cumsum"), method("cumprod"),
            ufunc_method(np.add, "reduce"), ufunc_method(np.multiply, "reduce"),
            ufunc_method(np.add, "accumulate"), ufunc_method(np.multiply, "accumulate")]),
    *[Recipe(f, lambda A, f=f: ((A(S),), {"axis": -1}), name=_name(f) + "(axis=-1)")
      for f in (np.sum, np.mean, np.prod, np.var, np.std, np.max, np.min, np.cumsum)],
    # NumPy >= 2.1's cumulative_sum/cumulative_prod (the array-API bodies of cumsum/cumprod)
    *[Recipe(f, lambda A, f=f, kw=kw: ((A(S),), {"axis": -1, **kw}), name=f"{_name(f)}(axis=-1{more})")
      for f in ((np.cumulative_sum, np.cumulative_prod) if hasattr(np, "cumulative_sum") else ())
      for kw, more in (({}, ""), ({"include_initial": True}, ", include_initial"))],
    Recipe(np.average, lambda A: ((A(S),), {"weights": A(S, lo=1.0, hi=2.0), "axis": 0}), name="np.average(weights)"),
    *unary([np.max, np.amax, np.min, np.amin, np.nanmax, np.nanmin, np.ptp, method("max"), method("min"),
            ufunc_method(np.maximum, "reduce"), ufunc_method(np.minimum, "reduce")]),
    Recipe(builtins.max, lambda A: (A((3,)),), declines={"complex64"}),
    Recipe(builtins.min, lambda A: (A((3,)),), declines={"complex64"}),
    *unary([np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argwhere, np.nonzero,
            np.flatnonzero, np.count_nonzero, np.any, np.all, method("argmax"), method("argmin"),
            method("argsort"), method("nonzero"), method("any"), method("all")]),
    Recipe(np.argpartition, lambda A: (A(S), 1)),
    Recipe(np.searchsorted, lambda A: (np.sort(A((4,)), axis=None), A(S))),
    Recipe(np.digitize, lambda A: (A(S), np.array([0.3, 0.5, 0.7]))),
    # ----- shapes and indexing (numpy/shapes.py…) -----
    *unary([np.ravel, method("ravel"), method("flatten"), np.transpose, method("transpose"), np.matrix_transpose,
            np.squeeze, method("squeeze"), np.flip, np.flipud, np.fliplr, np.rot90, np.diagonal,
            method("diagonal"), np.linalg.diagonal, np.diag, np.triu, np.tril, np.atleast_1d, np.atleast_2d,
            np.atleast_3d, np.sort, np.sort_complex, np.copy, np.array, np.asarray, np.asanyarray, np.ascontiguousarray,
            np.asfortranarray, method("copy"), np.shape, np.ndim, np.size, np.zeros_like, np.ones_like,
            np.result_type]),
    Recipe(np.empty_like, lambda A: (A(S),), omega=False, fd=False),
    Recipe(np.reshape, lambda A: (A(S), -1)),
    # NumPy >= 2.1's np.astype (the array-API astype rule, chainrules/rulesets/array_api/dtypes.py)
    *([Recipe(np.astype, lambda A: (A(S), np.complex128))] if hasattr(np, "astype") else []),
    Recipe(method("reshape"), lambda A: (A(S), -1)),
    Recipe(np.transpose, lambda A: (A((2, 3, 2)), (2, 0, 1)), name="np.transpose(axes)"),
    Recipe(np.swapaxes, lambda A: (A(S), 0, -1)),
    Recipe(method("swapaxes"), lambda A: (A(S), 0, -1)),
    Recipe(np.moveaxis, lambda A: (A(S), 0, -1)),
    Recipe(np.rollaxis, lambda A: (A(S), -1)),
    Recipe(np.squeeze, lambda A: (A((2, 1, 3)),), name="np.squeeze(2, 1, 3)"),
    Recipe(np.expand_dims, lambda A: (A(S), 0)),
    Recipe(np.broadcast_to, lambda A: ((x := A(S)), (2,) + x.shape)),
    Recipe(np.broadcast_arrays, lambda A: (A(S), A(S[-1:]))),
    Recipe(np.tile, lambda A: (A(S), 2)),
    Recipe(np.repeat, lambda A: (A(S), 2)),
    Recipe(method("repeat"), lambda A: ((A(S), 2), {"axis": -1})),
    Recipe(np.roll, lambda A: (A(S), 1)),
    Recipe(np.pad, lambda A: (A(S), 1)),
    Recipe(np.concatenate, lambda A: ([A(S), A(S)],)),
    Recipe(np.stack, lambda A: ([A(S), A(S)],)),
    *[Recipe(f, lambda A: ([A(S), A(S)],)) for f in (np.hstack, np.vstack, np.dstack, np.column_stack)],
    Recipe(np.append, lambda A: (A(S), A(S))),
    Recipe(np.split, lambda A: (A(S), 2)),
    Recipe(np.array_split, lambda A: (A(S), 2)),
    Recipe(np.hsplit, lambda A: (A(S), 3)),
    Recipe(np.vsplit, lambda A: (A(S), 2)),
    Recipe(np.dsplit, lambda A: (A((2, 3, 2)), 2)),
    Recipe(np.where, lambda A: (_cond(A), A(S), A(S))),
    Recipe(np.where, lambda A: (A(S) > 0.5,), name="np.where(cond)"),
    # the bounds sit between the grid's cells (see _grid)
    Recipe(np.clip, lambda A: (A(S), 0.4, 0.6)),
    Recipe(method("clip"), lambda A: (A(S), 0.4, 0.6)),
    Recipe(np.partition, lambda A: (A(S), 1)),
    Recipe(np.take, lambda A: (A(S), [0, 1, 1])),
    Recipe(method("take"), lambda A: ((A(S), [0, 1, 1]), {"axis": -1})),
    Recipe(np.take_along_axis, lambda A: (A(S), np.zeros((1, 1), int), -1)),
    Recipe(method("__getitem__"), lambda A: (A(S), (Ellipsis, slice(None, None, -2)))),
    Recipe(operator.getitem, lambda A: (A(S), 0)),
    Recipe(method("item"), lambda A: (A(S), 0)),
    Recipe(method("astype"), lambda A: (A(S), np.float64)),
    # ----- linear algebra (numpy/linalg/) -----
    *[Recipe(f, lambda A: (A(S), A(S[::-1])))
      for f in (np.matmul, np.linalg.matmul, method("__matmul__"), operator.matmul, np.dot, method("dot"),
                np.tensordot, np.linalg.tensordot, np.kron)],
    Recipe(method("__rmatmul__"), lambda A: (A(S[::-1]), A(S))),
    *[Recipe(f, lambda A: (A(S), A(S))) for f in (np.inner, np.vdot, np.vecdot, np.linalg.vecdot, np.outer)],
    Recipe(np.linalg.outer, lambda A: (A((3,)), A((2,)))),
    Recipe(np.einsum, lambda A: ("ij,kj->ik", A(S), A(S))),
    *unary([np.trace, method("trace"), np.linalg.trace]),
    *[Recipe(f, lambda A: (A(S), A(S))) for f in (np.cross, np.linalg.cross)],
    *[Recipe(f, lambda A: (A(SQ, kind="well"),)) for f in (np.linalg.inv, np.linalg.det, np.linalg.slogdet)],
    Recipe(np.linalg.solve, lambda A: (A(SQ, kind="well"), A((3, 2)))),
    Recipe(np.linalg.cholesky, lambda A: (A(SQ, kind="spd"),)),
    Recipe(np.linalg.qr, lambda A: (A((3, 2)),)),
    Recipe(np.linalg.svd, lambda A: ((A((3, 2)),), {"full_matrices": False}), gauge=True),
    Recipe(np.linalg.svdvals, lambda A: (A((3, 2)),)),
    Recipe(np.linalg.eigh, lambda A: (A(SQ, kind="sym"),), gauge=True),
    Recipe(np.linalg.eigvalsh, lambda A: (A(SQ, kind="sym"),)),
    *unary([np.linalg.norm, np.linalg.vector_norm, np.linalg.matrix_norm]),
    Recipe(np.linalg.pinv, lambda A: (A((3, 2)),)),
    Recipe(np.linalg.lstsq, lambda A: (A((3, 2)), A((3,)))),
    Recipe(np.linalg.matrix_power, lambda A: (A(SQ, kind="well"), 3)),
    # ----- FFT (numpy/fft.py) -----
    *unary([np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn, np.fft.rfft,
            np.fft.rfft2, np.fft.rfftn, np.fft.irfft, np.fft.irfft2, np.fft.irfftn, np.fft.hfft, np.fft.ihfft]),
    # ----- statistics (numpy/statistics.py) -----
    *[Recipe(f, lambda A, q=q: (A(S), q))
      for f, q in ((np.quantile, 0.3), (np.nanquantile, 0.3), (np.percentile, 30.0), (np.nanpercentile, 30.0))],
    *unary([np.median, np.nanmedian, np.cov, np.corrcoef]),
    # ----- scipy.special (scipy/special.py) -----
    *unary([sp.gammaln, sp.gamma, sp.erf, sp.erfc, sp.erfinv, sp.erfcinv, sp.ndtri, sp.expit, sp.log_expit,
            sp.logit, sp.entr, sp.logsumexp]),
    # real rules only: no rule (None) for complex arguments, which SciPy accepts
    *unary([sp.psi, sp.ndtr, sp.log_ndtr, sp.softmax, sp.log_softmax], declines={"complex64"}),
    Recipe(sp.polygamma, lambda A: (np.ones(A.shape(S), int), A(S))),
    *binary([sp.xlogy, sp.xlog1py]),
    # zeta(s, q) (s an integer order here)
    *[Recipe(f, lambda A: (np.full(A.shape(S), 3), A(S) + 0.5), declines={"complex64"})
      for f in (sp.zeta, sp._ufuncs._zeta)],
]

# Registered functions that take no arrays, or whose arguments are functions:
# covered elsewhere, by name of the test file.
NOT_ARRAY_RULES = {
    "the C scalar table (tests/core/test_scalar_*.py)": [
        *[v for v in vars(math).values() if callable(v)], *[v for v in vars(cmath).values() if callable(v)],
        operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv, operator.imod,
        operator.ipow, builtins.float, builtins.complex, complex.conjugate],
    "rules of Python numbers, not arrays (tests/rulesets/python/)": [
        builtins.pow, builtins.abs, builtins.divmod, builtins.sum, builtins.round, operator.floordiv],
    "non-differentiable Python functions (tests/rulesets/python/test_nondiff.py)": [
        operator.is_, operator.is_not, operator.index, operator.and_, operator.or_, operator.xor, operator.invert,
        operator.inv, operator.lshift, operator.rshift, operator.iand, operator.ior, operator.ixor,
        operator.ilshift, operator.irshift, operator.contains, operator.countOf, operator.indexOf,
        operator.length_hint, builtins.int, builtins.bool, builtins.len, builtins.isinstance, builtins.issubclass,
        builtins.hash, builtins.id, builtins.callable, builtins.hasattr, builtins.all, builtins.any, builtins.range,
        builtins.ord, builtins.chr, builtins.bin, builtins.hex, builtins.oct, builtins.repr, builtins.ascii,
        builtins.str, builtins.format],
    "functions of shapes and indices, no array argument (tests/rulesets/numpy/test_shapes.py)": [
        np.indices, np.unravel_index, np.ravel_multi_index, np.tril_indices, np.triu_indices, np.diag_indices,
        np.broadcast_shapes],
    "higher-order functions (tests/rulesets/test_higher_order.py)": [
        functools.reduce, itertools.accumulate, np.apply_along_axis, builtins.map, builtins.sorted,
        cr.ignore_derivatives],
    "chainrules.ad.checkpoint's call (tests/ad/test_checkpoint.py)": [_checkpoint_call],
    # issue 24: the kit at orders 1 and 2 in tests/rulesets/numpy/test_indexing.py and the registry sweep
    "trim_zeros (its output's shape follows the zeros drawn: no finite differences), asarray_chkfinite "
    "(raises on the odd inputs' inf and nan, as NumPy does), row_stack (vstack's rules; deprecated: "
    "every call warns), einsum_path (non-differentiable): tests/rulesets/numpy/test_indexing.py": [
        np.trim_zeros, np.asarray_chkfinite, np.einsum_path, *([np.row_stack] if hasattr(np, "row_stack") else [])],
    "chainrules.ad.autograd.misc's fixed point (tests/ad/test_autograd_misc.py)": [_fixed_point],
    "np.linalg.matrix_rank (integer output, declared non-differentiable): "
    "tests/rulesets/numpy/test_linalg_one_body.py": [np.linalg.matrix_rank],
}


def _key(f):
    owner = getattr(f, "__self__", None)
    return (id(owner), f.__name__) if isinstance(owner, np.ufunc) else f


def _from_a_test(f):
    """f was registered by another test of the suite (not every test cleans up
    with the registry fixture)."""
    mod = getattr(f, "__module__", None) or ""
    return mod.rsplit(".", 1)[-1].startswith("test_")


_NEW_FAMILIES = ("chainrules.rulesets.numpy.sequences", "chainrules.rulesets.numpy.polynomials",
                 "chainrules.rulesets.numpy.gathers", "chainrules.rulesets.numpy.convolution",
                 "chainrules.rulesets.numpy.calculus", "chainrules.rulesets.numpy.piecewise",
                 "chainrules.rulesets.numpy.linalg.spectral", "chainrules.rulesets.numpy.linalg.tensor",
                 "chainrules.rulesets.scipy", "chainrules.rulesets._by_signature")
# np.linalg.matrix_transpose shares np.matrix_transpose's rule (its recipe is there)
_SHARED = {"linalg.matrix_transpose"}


def _rules_from(f, modules):
    """Every rule of f was written in one of these modules (or a submodule)."""
    rules = [r for rs in cr._core._rules_of(f) for r in rs]
    mods = [getattr(r.fn, "__module__", None) or "" for r in rules]
    return bool(mods) and all(m.startswith(modules) for m in mods)


def test_every_registered_function_is_covered():
    covered = {_key(r.f) for r in RECIPES}
    for fs in NOT_ARRAY_RULES.values():
        covered.update(_key(f) for f in fs)
    # the families added on 2026-11-28 (NumPy's sequences, polynomials, gathers,
    # convolutions, calculus, eig/cond/tensor; scipy.special's table, scipy.linalg,
    # signal, integrate): the kit at orders 1 and 2 in their own tests and the
    # registry sweep (their SWEEP_CASES); no property recipe here yet
    covered.update(_key(f) for f in cr._core._registered_functions() if _rules_from(f, _NEW_FAMILIES))
    # other libraries' element-wise functions: test_elementwise_interop.py
    covered.update(_key(f) for f in elementwise_interop.REGISTERED)
    # and the stand-ins the table's rows are registered on for them (torch.ldexp's:
    # elementwise.STAND_INS), checked there too
    covered.update(_key(f) for f in elementwise.STAND_INS.values())
    # the array-API rules of other libraries (registered when one is imported,
    # and on the wrappers their tests use) are checked in tests/rulesets/array_api/
    from chainrules.rulesets.array_api._common import registered
    array_api = {id(f) for f in registered()}
    # (a function whose rules a test's registry restore removed keeps an empty table: not counted)
    missing = [_name(f) for f in cr._core._registered_functions()
               if _key(f) not in covered and not _from_a_test(f) and id(f) not in array_api
               and cr._core._rules_of(f) != ((), ())]
    missing = [m for m in missing if m not in _SHARED or np.linalg.matrix_transpose is np.matrix_transpose]
    assert not missing, f"registered functions without a recipe here: {missing}"


# ----- the property -------------------------------------------------------------

# Known failures, each with its issue 11 item: (recipe name, variant) -> reason.
XFAIL = {}


def _cases():
    for r in RECIPES:
        for v in VARIANTS:
            reason = XFAIL.get((r.name, v))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(r, v, id=f"{r.name}-{v}", marks=marks)


def _arrays(args):
    """The positions of the differentiable arrays among args."""
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]


def _check_type(x, dx, what):
    """dx is a tangent of the array x: zero, or an array of x's shape and
    dtype (byte order aside; real for complex allowed, as check_tangent_type)."""
    d = unthunk(dx)
    if isinstance(d, (AbstractZero, NotImplementedTangent)):
        return
    assert isinstance(d, np.ndarray), f"{what}: the tangent of an array must be an array, got {type(d).__name__}"
    assert d.shape == x.shape, f"{what}: shape {d.shape}, the primal's is {x.shape}"
    want, got = x.dtype.newbyteorder("="), d.dtype.newbyteorder("=")
    ok = got == want or (want.kind == "c" and got.kind == "f" and got.itemsize * 2 == want.itemsize)
    assert ok, f"{what}: dtype {d.dtype}, the primal's is {x.dtype}"


def _check_output_type(want, got, what, scalar_ok=False):
    """got has the type of the primal output want (arrays: shape and dtype;
    tuples and lists: part by part).  `scalar_ok`: a NumPy scalar may stand
    for a 0-d array (reductions of a subclass give 0-d arrays; which type a
    subclass gets back is issue 11 item 3)."""
    got = unthunk(got)
    if isinstance(got, (AbstractZero, NotImplementedTangent)):
        return
    if scalar_ok and isinstance(want, np.ndarray) and want.ndim == 0 and isinstance(got, np.generic):
        got = np.asarray(got)
    if isinstance(want, np.ndarray) and want.dtype.kind in "fc":
        _check_type(want, got, what)
    elif isinstance(want, (tuple, list)):
        for i, (w, g) in enumerate(zip(want, got)):
            _check_output_type(w, g, f"{what}[{i}]", scalar_ok)
    elif isinstance(want, np.inexact):
        assert not isinstance(got, np.ndarray) or got.ndim == 0, f"{what}: an array for the scalar {want!r}"
        if isinstance(got, np.inexact):
            assert got.dtype.itemsize in (want.dtype.itemsize, want.dtype.itemsize // 2), \
                f"{what}: {got.dtype} for a {want.dtype} scalar"


def _layout_seed(ȳ, variant):
    if variant not in LAYOUTS:
        return ȳ
    if isinstance(ȳ, np.ndarray):
        return _realize(np.asarray(ȳ), variant)
    if isinstance(ȳ, list):
        return [_layout_seed(v, variant) for v in ȳ]
    return ȳ


def _is_zero(t):
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return True
    if isinstance(t, np.ndarray):
        return not np.any(t)
    try:
        return all(_is_zero(v) for v in t)
    except TypeError:
        return t == 0


def _snapshot(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _same_args(args, before, who):
    for i, (a, b) in enumerate(zip(args, before)):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), f"the {who} changed argument {i}"


def check_recipe(recipe, variant, data):
    f = recipe.f
    args, kwargs = recipe.call(Maker(variant, data))
    before = _snapshot(args)
    tol = TOL.get(variant, TOL64)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="tangent seed"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = materialize(f(*copy.copy(args), **kwargs))
        except Exception as e:        # noqa: BLE001 - the rule must raise the same
            _check_raises(f, args, kwargs, type(e), e)
            return
        active = _arrays(args)
        ẋ = [rand_tangent(a, rng) if i in active else NoTangent() for i, a in enumerate(args)]
        ȳ = rand_tangent(want, rng)
        x̄ = _check_rrule(recipe, args, kwargs, want, variant, tol, ȳ)
        if x̄ is None:
            return                    # a declined variant: no rule
        _same_args(args, before, "rrule or its pullback")
        ΔΩ = _check_frule(recipe, args, kwargs, want, variant, tol, ẋ)
        _same_args(args, before, "frule")
        if isinstance(ȳ, NoTangent) or not _compare_values(recipe, variant, args, active, want):
            return
        # One finite difference along ẋ checks both rules: ΔΩ = Jẋ, and
        # ⟨x̄, ẋ⟩ = ⟨ȳ, Jẋ⟩ for the pullback's x̄ = Jᵀȳ (real inner products).
        fd = fd_jvp(FDM, f, kwargs, [f, *args], [NoTangent(), *ẋ], [1 + i for i in active])
    test_approx(ΔΩ, fd, "the frule's ΔΩ (got) differs from finite differences Jẋ", rtol=tol, atol=tol)
    lhs = sum(_inner(x̄[1 + i], ẋ[i]) for i in active)
    rhs = _inner(ȳ, fd)
    scale = max(1.0, _norm(ȳ) * _norm(fd), sum(_norm(x̄[1 + i]) * _norm(ẋ[i]) for i in active))
    assert abs(lhs - rhs) <= tol * scale, (
        f"the pullback's x̄ = Jᵀȳ fails ⟨x̄, ẋ⟩ = ⟨ȳ, Jẋ⟩ with Jẋ by finite differences: "
        f"{lhs!r} vs {rhs!r}, difference {abs(lhs - rhs):.3g}, tolerance {tol * scale:.3g}")


def _parts(t):
    """The numeric leaves of a tangent, in order."""
    t = unthunk(t)
    if isinstance(t, (AbstractZero, NotImplementedTangent)):
        return []
    if isinstance(t, np.ndarray) and t.dtype.kind != "O" or isinstance(t, (int, float, complex, np.number)):
        return [np.asarray(t, dtype=complex).ravel()]
    return [v for part in t for v in _parts(part)]


def _inner(a, b):
    """The real inner product Re Σ conj(a)·b of two tangents of one primal."""
    pa, pb = _parts(a), _parts(b)
    if not pa or not pb:
        return 0.0
    va, vb = np.concatenate(pa), np.concatenate(pb)
    return float(np.real(np.vdot(va, vb)))


def _norm(t):
    parts = _parts(t)
    return float(np.linalg.norm(np.concatenate(parts))) if parts else 0.0


def _check_raises(f, args, kwargs, cls, err):
    for which, call in (("rrule", lambda: rrule(f, *args, **kwargs)),
                        ("frule", lambda: frule((NoTangent(),) + tuple(rand_tangent(a) for a in args), f, *args,
                                                **kwargs))):
        try:
            res = call()
        except cls:
            continue
        except Exception as e:        # noqa: BLE001
            raise AssertionError(f"the primal raises {cls.__name__}: {err}; the {which} raises "
                                 f"{type(e).__name__}: {e}") from e
        if res is None:               # no rule: the caller runs the primal, which raises
            continue
        raise AssertionError(f"the primal raises {cls.__name__}: {err}; the {which} returns {res!r:.200}")


def _compare_values(recipe, variant, args, active, want):
    """Are the values compared with finite differences?  Not where they mean
    nothing: no input element to move (empty), a NaN output, a phase."""
    if not recipe.fd or not active or all(args[i].size == 0 for i in active):
        return False
    if recipe.gauge and variant == "complex64":
        return False
    return not any(np.isnan(np.asarray(w, dtype=complex)).any() for w in _leaves(want))


def _leaves(want):
    if isinstance(want, (tuple, list)):
        return [v for w in want for v in _leaves(w)]
    return [want] if isinstance(want, (np.ndarray, np.number, float, complex)) else []


def _check_rrule(recipe, args, kwargs, want, variant, tol, ȳ):
    """Runs the rrule and its pullback on ȳ; checks Ω and the types of the
    cotangents; returns them (None: the rule declined, as allowed)."""
    res = rrule(recipe.f, *args, **kwargs)
    if res is None and variant in recipe.declines:
        return None
    assert res is not None, "no rrule for these arguments"
    Ω, pullback = res
    Ω = materialize(Ω)
    if recipe.omega:
        test_approx(Ω, want, "the rrule's Ω differs from the primal's", rtol=tol, atol=tol)
        _check_output_type(want, Ω, "the rrule's Ω", scalar_ok=variant == "subclass")
    x̄ = pullback(_layout_seed(ȳ, variant))
    assert isinstance(x̄, tuple) and len(x̄) == 1 + len(args), f"the pullback returned {x̄!r:.200}"
    assert isinstance(x̄[0], NoTangent), f"∂self is {x̄[0]!r}"
    for i in _arrays(args):
        _check_type(args[i], x̄[1 + i], f"the cotangent of argument {i}")
        if isinstance(ȳ, NoTangent):   # an output without tangent space
            assert _is_zero(x̄[1 + i]), f"the cotangent of argument {i} is not zero for a non-differentiable output"
    return x̄


def _check_frule(recipe, args, kwargs, want, variant, tol, ẋ):
    """Runs the frule; checks Ω and the type of ΔΩ; returns ΔΩ."""
    res = frule((NoTangent(), *ẋ), recipe.f, *args, **kwargs)
    assert res is not None, "no frule for these arguments"
    Ω, ΔΩ = res
    Ω = materialize(Ω)
    if recipe.omega:
        test_approx(Ω, want, "the frule's Ω differs from the primal's", rtol=tol, atol=tol)
    _check_output_type(want, ΔΩ, "the frule's ΔΩ", scalar_ok=variant == "subclass")
    if isinstance(rand_tangent(want), NoTangent):
        assert _is_zero(ΔΩ), "ΔΩ is not zero for a non-differentiable output"
    return ΔΩ


@pytest.mark.parametrize("recipe, variant", list(_cases()))
@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_rule_on_odd_inputs(recipe, variant, data):
    check_recipe(recipe, variant, data)


_OWN_SETTINGS = test_rule_on_odd_inputs._hypothesis_internal_use_settings


@pytest.fixture(autouse=True)
def _settings_do_not_pile_up():
    """hypothesis' pytest plugin wraps a parametrized test's settings in a new
    child on each call (to disable a health check); over this test's ~1000
    cases the chain of parents overflows the stack.  Each case starts from
    the test's own settings."""
    yield
    test_rule_on_odd_inputs._hypothesis_internal_use_settings = _OWN_SETTINGS
