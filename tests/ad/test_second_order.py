"""Second derivatives through the rules themselves (a rule evaluated on values
tracked by an enclosing differentiation is differentiated by it): each
element-wise function of Python's scalar modules and of NumPy at real points (negative ones included) and at complex points,
then reductions, shape functions and products, in all four nestings (forward
over forward, forward over reverse, reverse over forward, reverse over
reverse) and `hessian`, each against central finite differences of the first
derivative."""

import cmath
import math
import operator

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad._routing import SCALARS_ON_TRACKED
from chainrules.rulesets.elementwise.interop import scalar_row
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.testing import test_approx

FDM = central_fdm(5, 1, max_range=0.05)
TOL = dict(rtol=1e-6, atol=1e-7)


def _name(f):
    mod = getattr(f, "__module__", None) or type(f).__name__
    return f"{mod.lstrip('_')}.{getattr(f, '__name__', f)}"


# ----- the element-wise functions and their domains -------------------------------

REAL_POINTS = (-0.7, 0.4, 1.3)
# (name -> real points) where the default points leave the domain
DOMAIN = {
    "asin": (-0.6, 0.3), "acos": (-0.6, 0.3), "atanh": (-0.6, 0.3),
    "arcsin": (-0.6, 0.3), "arccos": (-0.6, 0.3), "arctanh": (-0.6, 0.3),
    "acosh": (1.4, 2.5), "arccosh": (1.4, 2.5),
    "log": (0.4, 1.7), "log2": (0.4, 1.7), "log10": (0.4, 1.7), "sqrt": (0.4, 1.7),
    "log1p": (-0.5, 0.8), "reciprocal": (-0.7, 1.3),
}
# near the branch cuts on purpose (-2 + 0.1j: acosh's sign, log's cut), but off them
COMPLEX_POINTS = (0.3 + 0.4j, -0.6 + 0.2j, -2.0 + 0.1j, 1.5 - 0.5j, -0.4 - 1.2j)


def _accepts_complex(f):
    if getattr(f, "__module__", None) == "cmath" or f in (operator.neg, operator.pos):
        return True
    if isinstance(f, np.ufunc):
        return any("D" in t.split("->")[0] for t in f.types) and f not in (np.fabs,)
    return False


# Python's scalar functions (math, cmath, operator, builtins) and NumPy's ufuncs
# run the element-wise table's generic rule bodies under nesting
NUMPY_1 = [getattr(np, n) for n in (
    "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh exp exp2 expm1 log "
    "log2 log10 log1p sqrt cbrt degrees radians fabs square reciprocal negative positive").split()]
NUMPY_2 = [getattr(np, n) for n in (
    "add subtract multiply true_divide power floor_divide arctan2 hypot maximum minimum").split()]
# Python's scalar functions: each has its table row registered on the tracked types
_MATH_1 = ("sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 "
           "log1p sqrt cbrt erf erfc degrees radians fabs").split()
SCALAR_1 = [getattr(m, n) for m in (math, cmath) for n in _MATH_1 if hasattr(m, n)] + [operator.neg, operator.pos]
SCALAR_2 = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, pow, math.pow,
            operator.floordiv, math.atan2, math.hypot, max, min, math.log, cmath.log]
UNARY = sorted(set(SCALAR_1) | set(NUMPY_1), key=_name) + [np.absolute]
BINARY = sorted(set(SCALAR_2) | set(NUMPY_2), key=_name)


def test_the_scalar_functions_have_their_rows_on_tracked_values():
    for f in SCALAR_1 + [abs, operator.abs]:
        assert f in SCALARS_ON_TRACKED and scalar_row(f, 1) is not None, f
    for f in SCALAR_2:
        assert f in SCALARS_ON_TRACKED, f


def _real_cases():
    for f in UNARY:
        if getattr(f, "__module__", None) == "cmath":
            continue            # complex results: at the complex points below
        for x in DOMAIN.get(f.__name__, REAL_POINTS):
            yield pytest.param(f, x, id=f"{_name(f)}({x})")


def _complex_cases():
    for f in UNARY + [abs, np.angle, np.real, np.imag, np.conjugate, np.sign]:
        if _accepts_complex(f) or f in (abs, np.absolute, np.angle, np.real, np.imag, np.conjugate):
            for z in COMPLEX_POINTS:
                yield pytest.param(f, z, id=f"{_name(f)}({z})")


def _callable(f):
    """f callable on tracked values: math/cmath functions and builtins through wrap."""
    return ad.wrap(f) if not isinstance(f, np.ufunc) and f not in (np.angle, np.real, np.imag) else f


def _four_ways(g):
    """The second derivative of the real g: R → R at 0 in every nesting."""
    return {
        "forward over forward": lambda t: ad.derivative(lambda s: ad.derivative(g, s), t),
        "forward over reverse": lambda t: ad.derivative(lambda s: ad.gradient(g, s), t),
        "reverse over forward": lambda t: ad.gradient(lambda s: ad.derivative(g, s), t),
        "reverse over reverse": lambda t: ad.gradient(lambda s: ad.gradient(g, s), t),
        "hessian": lambda t: ad.hessian(g, t),
    }


def _check_all_ways(g, t0=0.0, msg=""):
    expected = FDM(lambda t: ad.derivative(g, t), t0)
    for how, d2 in _four_ways(g).items():
        got = d2(t0)
        assert not np.iscomplexobj(got), f"{msg}: {how} gave the complex {got} for a real function"
        test_approx(got, expected, msg=f"{msg}: {how}", **TOL)


@pytest.mark.parametrize("f, x0", list(_real_cases()))
def test_unary_at_real_points(f, x0):
    h = _callable(f)
    _check_all_ways(lambda t: h(x0 + t), msg=_name(f))
    # inside an expression, with the constant on both sides
    _check_all_ways(lambda t: h(x0 + 0.5 * t) * (1.0 + t), msg=_name(f))


@pytest.mark.parametrize("f, z0", list(_complex_cases()))
def test_unary_at_complex_points(f, z0):
    h = _callable(f)
    c = 0.6 - 0.8j
    # a real function of a real t through a complex argument, in both parts
    _check_all_ways(lambda t: np.real(h(z0 + c * t)), msg=f"Re {_name(f)}")
    _check_all_ways(lambda t: np.imag(h(z0 + c * t) * (1 + 2j)), msg=f"Im {_name(f)}")


@pytest.mark.parametrize("f, z0", [c for c in _complex_cases()
                                   if c.values[0] not in (abs, np.absolute, np.angle, np.real, np.imag,
                                                          np.conjugate, np.sign)])
def test_holomorphic_at_complex_inputs(f, z0):
    # a complex input: f'' by forward over forward against f' along the real axis
    h = _callable(f)
    expected = FDM(lambda t: ad.derivative(h, z0 + t), 0.0)
    test_approx(ad.derivative(lambda s: ad.derivative(h, s), z0), expected, msg=_name(f), **TOL)
    test_approx(ad.derivative(lambda s: ad.derivative(lambda u: h(u) * u, s), z0),
                FDM(lambda t: ad.derivative(lambda u: h(u) * u, z0 + t), 0.0), msg=_name(f), **TOL)


REAL_PAIRS = {
    "default": ((0.7, 1.6), (-0.7, 1.3), (1.2, -0.4)),
    "pow": ((0.7, 1.6), (1.3, -0.5), (0.4, 3.0)), "power": ((0.7, 1.6), (1.3, -0.5), (0.4, 3.0)),
    "log": ((0.7, 2.5), (3.0, 0.4)),
    "maximum": ((0.7, 1.6), (1.6, 0.7), (-0.5, -0.9)), "minimum": ((0.7, 1.6), (1.6, 0.7), (-0.5, -0.9)),
    "max": ((0.7, 1.6), (1.6, 0.7)), "min": ((0.7, 1.6), (1.6, 0.7)),
}
COMPLEX_PAIRS = ((0.3 + 0.4j, -0.6 + 0.2j), (-2.0 + 0.1j, 1.5 - 0.5j), (1.2 - 0.3j, 0.7))
DIRECTIONS = ((1.0, 0.0), (0.0, 1.0), (1.0, -0.5))


def _binary_real_cases():
    for f in BINARY:
        if getattr(f, "__module__", None) == "cmath":
            continue
        for x, y in REAL_PAIRS.get(f.__name__, REAL_PAIRS["default"]):
            yield pytest.param(f, x, y, id=f"{_name(f)}({x}, {y})")


def _binary_complex_cases():
    for f in BINARY:
        if getattr(f, "__module__", None) == "cmath" or f in (operator.add, operator.sub, operator.mul,
                                                              operator.truediv, operator.pow, pow) \
                or (isinstance(f, np.ufunc) and _accepts_complex(f) and f not in (np.maximum, np.minimum)):
            for x, y in COMPLEX_PAIRS:
                yield pytest.param(f, x, y, id=f"{_name(f)}({x}, {y})")


@pytest.mark.parametrize("f, x0, y0", list(_binary_real_cases()))
def test_binary_at_real_points(f, x0, y0):
    h = _callable(f)
    for u, v in DIRECTIONS:
        _check_all_ways(lambda t: h(x0 + u * t, y0 + v * t), msg=f"{_name(f)} along ({u}, {v})")


@pytest.mark.parametrize("f, x0, y0", list(_binary_complex_cases()))
def test_binary_at_complex_points(f, x0, y0):
    h = _callable(f)
    c = 0.6 - 0.8j
    for u, v in DIRECTIONS:
        _check_all_ways(lambda t: np.real(h(x0 + c * u * t, y0 + c * v * t)),
                        msg=f"Re {_name(f)} along ({u}, {v})")
        _check_all_ways(lambda t: np.imag(h(x0 + u * t, y0 + v * t)), msg=f"Im {_name(f)} along ({u}, {v})")


# ----- the ufuncs on arrays --------------------------------------------------------


def fd_hessian(f, x):
    return fd_jacobian(FDM, lambda z: ad.gradient(f, z), x)[0].reshape(np.shape(x) * 2)


def _check_hessian(f, x0, msg=""):
    """hessian (forward over reverse), reverse over reverse and a forward over
    forward directional second derivative of the real f at the array x0."""
    expected = fd_hessian(f, x0)
    h = ad.hessian(f, x0)
    assert h.dtype == np.float64, f"{msg}: hessian of dtype {h.dtype}"
    test_approx(h, expected, msg=f"{msg}: hessian", **TOL)
    test_approx(ad.jacobian(lambda z: ad.gradient(f, z), x0, mode="reverse"), expected,
                msg=f"{msg}: reverse over reverse", **TOL)
    v = np.linspace(0.3, -0.6, np.size(x0)).reshape(np.shape(x0))
    line = lambda t: f(x0 + t * v)                      # noqa: E731
    test_approx(ad.derivative(lambda t: ad.derivative(line, t), 0.0), v @ expected @ v,
                msg=f"{msg}: forward over forward", **TOL)
    test_approx(ad.gradient(lambda t: ad.derivative(line, t), 0.0), v @ expected @ v,
                msg=f"{msg}: reverse over forward", **TOL)


UFUNCS_1 = [f for f in UNARY if isinstance(f, np.ufunc)]
UFUNCS_2 = [f for f in BINARY if isinstance(f, np.ufunc)]


@pytest.mark.parametrize("f", UFUNCS_1, ids=_name)
def test_unary_ufuncs_on_arrays(f):
    x0 = np.array(DOMAIN.get(f.__name__, REAL_POINTS))
    w = np.linspace(1.0, 2.0, x0.size)
    _check_hessian(lambda x: np.sum(w * f(x)), x0, _name(f))
    _check_hessian(lambda x: np.sum(f(x) * x[::-1]), x0, _name(f))
    if _accepts_complex(f):
        z0 = np.array(COMPLEX_POINTS[:3])
        c = 0.6 - 0.8j
        _check_hessian(lambda x: np.sum(np.real(np.array([1.0, 2.0, 3.0]) * f(z0 + c * x))), np.zeros(3),
                       f"Re {_name(f)}")
        _check_hessian(lambda x: np.sum(np.imag(f(z0 + x * x[::-1]))), np.array([0.1, -0.2, 0.3]),
                       f"Im {_name(f)}")


@pytest.mark.parametrize("f", UFUNCS_2, ids=_name)
def test_binary_ufuncs_on_arrays(f):
    pairs = REAL_PAIRS.get(f.__name__, REAL_PAIRS["default"])
    x0 = np.array([p[0] for p in pairs] + [p[1] for p in pairs])
    n = len(pairs)
    _check_hessian(lambda x: np.sum(f(x[:n], x[n:]) * np.linspace(1.0, 2.0, n)), x0, _name(f))
    # a scalar against an array, both ways
    _check_hessian(lambda x: np.sum(f(x[0], x[1:]) + f(x[1:], x[0])), np.abs(x0[: n + 1]) + 0.5, _name(f))
    if _accepts_complex(f) and f not in (np.maximum, np.minimum, np.floor_divide):
        z0 = np.array([p[0] for p in COMPLEX_PAIRS])
        z1 = np.array([p[1] for p in COMPLEX_PAIRS])
        _check_hessian(lambda x: np.sum(np.real(f(z0 + x, z1 - 1j * x[::-1]))), np.zeros(3),
                       f"Re {_name(f)}")



# ----- reductions, shape functions, products -----------------------------------------
# Each op of the nested engine's linear, locally linear and multilinear sets,
# and of its rules, inside a loss with a non-zero Hessian; the complex variants
# take x into complex values first.

X6 = np.array([0.7, -1.3, 2.1, 0.4, -0.2, 1.1])
C6 = np.array([0.6 - 0.8j, 1.0 + 0.5j, -0.3 + 1.0j, 0.2 - 0.1j, 1.5 + 0.0j, -0.7 - 0.4j])
M = np.array([[3.0, 1.0, 0.5], [1.0, 4.0, 1.0], [0.2, 1.0, 5.0]])


def _sq(y):
    return np.sum(np.sin(y) * y)


def _csq(y):
    return np.real(np.sum(y * y * (0.3 + 0.7j) + np.conjugate(y) * y))


OPS = {
    "sum": lambda x: np.sum(x) ** 2 + np.sum(np.reshape(x, (2, 3)) ** 2, axis=0) @ x[:3],
    "mean": lambda x: np.mean(x) ** 3 + np.sum(np.mean(np.reshape(x, (2, 3)), axis=1) ** 2),
    "reshape": lambda x: _sq(np.reshape(x, (3, 2))[:, 1]),
    "transpose": lambda x: _sq(np.transpose(np.reshape(x, (2, 3)))[0] * x[:2]),
    "ravel": lambda x: _sq(np.ravel(np.outer(x[:2], x[2:4]))),
    "squeeze": lambda x: _sq(np.squeeze(np.reshape(x, (1, 6, 1)))),
    "expand_dims": lambda x: _sq(np.expand_dims(x, 0) * x),
    "broadcast_to": lambda x: _sq(np.broadcast_to(x[:3], (2, 3)) * np.reshape(x, (2, 3))),
    "getitem": lambda x: _sq(x[1:4] * x[::-2]),
    "concatenate": lambda x: _sq(np.concatenate([x[:2], x[3:] * x[0]])),
    "stack": lambda x: _sq(np.stack([x[:3], x[3:]], axis=1) * x[:2]),
    "hstack": lambda x: _sq(np.hstack([x[:2], x[4:]]) * x[:4]),
    "vstack": lambda x: _sq(np.vstack([x[:3], x[3:]]) * x[:3]),
    "cumsum": lambda x: _sq(np.cumsum(x) * x),
    "trace": lambda x: np.trace(np.outer(x[:3], x[3:])) ** 2,
    "swapaxes": lambda x: _sq(np.swapaxes(np.reshape(x, (2, 3)), 0, 1)[1] * x[4:]),
    "moveaxis": lambda x: _sq(np.moveaxis(np.reshape(x, (1, 2, 3)), 2, 0)[0, 0] * x[:2]),
    "flip": lambda x: _sq(np.flip(x) * x),
    "roll": lambda x: _sq(np.roll(x, 2) * x),
    "tile": lambda x: _sq(np.tile(x[:3], 2) * x),
    "repeat": lambda x: _sq(np.repeat(x[:3], 2) * x),
    "diagonal": lambda x: _sq(np.diagonal(np.outer(x, x[::-1]))),
    "diag": lambda x: _sq(np.diag(x[:3]) @ x[3:]) + _sq(np.diag(np.outer(x, x))),
    "atleast_2d": lambda x: _sq(np.atleast_2d(x[0] * x)[0] + np.atleast_1d(x[1])),
    "diff": lambda x: _sq(np.diff(x * x[0])),
    "where": lambda x: _sq(np.where(np.arange(6) % 2 == 0, x, x[::-1] * x)),
    "add_subtract": lambda x: _sq(np.subtract(np.add(x, x[::-1] * x), -x) - (-x) + (+x)),
    "fft": lambda x: np.sum(np.abs(np.fft.fft(x * x[0])) ** 2) + np.sum(np.real(np.fft.ifft(x) * x)),
    "rfft": lambda x: np.sum(np.abs(np.fft.rfft(x * x[0])) ** 2) + np.sum(np.fft.irfft(np.fft.rfft(x) * x[0]) * x),
    "fft2": lambda x: np.sum(np.abs(np.fft.fft2(np.reshape(x * x[1], (2, 3)))) ** 2)
    + np.sum(np.real(np.fft.ifftn(np.reshape(x, (3, 2)) * x[0]))),
    "sort": lambda x: _sq(np.sort(x * x[0]) * x),
    "max_min": lambda x: np.max(x * x[1]) ** 2 + np.min(np.reshape(x, (2, 3)) * x[0], axis=0) @ x[3:]
    + np.amax(x * x) * np.amin(x),
    "clip": lambda x: _sq(np.clip(x * x[0], -0.5, 1.0) * x),
    "take": lambda x: _sq(np.take(x, [0, 2, 2, 5]) * x[:4]) + _sq(np.take_along_axis(x, np.argsort(x), 0) * x),
    "median_quantile": lambda x: np.median(x * x[0]) ** 2 + np.quantile(x * x, 0.3) * x[1]
    + np.percentile(x, 70.0) ** 2,
    "nanmax_ptp": lambda x: np.nanmax(x * x[2]) ** 2 + np.nanmin(x) * x[0] + np.ptp(x * x[3]) ** 2,
    "partition": lambda x: _sq(np.partition(x * x[0], 2) * x),
    "matmul": lambda x: _sq(np.reshape(x, (2, 3)) @ M @ x[:3]) + _sq(x[:3] @ np.reshape(x, (3, 2))),
    "dot_inner_vdot": lambda x: np.dot(x, x[::-1]) ** 2 + np.inner(x[:3], M @ x[3:]) * np.vdot(x, x),
    "outer_kron": lambda x: _sq(np.outer(x[:2], x[2:])) + _sq(np.kron(x[:2], x[4:])),
    "tensordot_einsum": lambda x: _sq(np.tensordot(np.reshape(x, (2, 3)), M, axes=1))
    + np.einsum("i,ij,j->", x[:3], M, x[3:]) ** 2,
    "cross": lambda x: _sq(np.cross(x[:3], x[3:])),
    "multiply": lambda x: _sq(np.multiply(x, x[::-1]) * x),
    "prod": lambda x: np.prod(x[:4]) + np.sum(np.prod(np.reshape(x, (2, 3)), axis=1) ** 2),
    "cumprod": lambda x: _sq(np.cumprod(x[:4] + 3.0)),
    "var_std": lambda x: np.var(x * x[0]) + np.std(x) ** 3 + np.sum(np.std(np.reshape(x, (2, 3)), axis=0)),
    "norm": lambda x: np.linalg.norm(x) ** 3 + np.linalg.norm(np.reshape(x, (2, 3)) * x[0]),
    "linalg": lambda x: np.linalg.det(M + np.diag(x[:3])) + np.sum(np.linalg.inv(M + np.diag(x[3:])) * M)
    + x[:3] @ np.linalg.solve(M + np.outer(x[:3], x[3:]), x[3:]) + np.linalg.slogdet(M + np.diag(x[:3] ** 2))[1],
}

COMPLEX_OPS = {
    "sum_mean": lambda z: np.abs(np.sum(z * z)) ** 2 + _csq(np.mean(np.reshape(z, (2, 3)), axis=0)),
    "shapes": lambda z: _csq(np.concatenate([np.reshape(z, (2, 3))[:, ::-1].T.ravel(), np.roll(z, 1)]) * z[0]),
    "real_imag_conj": lambda z: np.sum(np.real(z) ** 3 + np.imag(z * z) ** 2 + np.real(np.conjugate(z) * z[0])),
    "cumsum_diff": lambda z: _csq(np.cumsum(z) * np.diff(np.concatenate([z, z[:1]]))),
    "where_stack": lambda z: _csq(np.where(np.arange(6) < 3, z, np.conjugate(z)) * np.stack([z, z])),
    "fft": lambda z: np.sum(np.abs(np.fft.fft(z * z[1])) ** 2),
    "matmul": lambda z: _csq(np.reshape(z, (2, 3)) @ (M @ z[:3])) + np.abs(np.vdot(z, z[::-1])) ** 2,
    "einsum_outer": lambda z: _csq(np.einsum("i,j->ij", z[:3], z[3:])) + _csq(np.outer(z, z)),
    "prod_cumprod": lambda z: np.abs(np.prod(z)) ** 2 + _csq(np.cumprod(z[:3] + 2.0)),
    "var_std_norm": lambda z: np.var(z * z) + np.std(z) ** 3 + np.linalg.norm(z * z[0]) ** 3,
    "abs_angle": lambda z: np.sum(np.abs(z * z) ** 1.5 + np.angle(z * z[::-1]) ** 2),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_array_functions(name):
    _check_hessian(OPS[name], X6, name)


@pytest.mark.parametrize("name", sorted(COMPLEX_OPS))
def test_array_functions_of_complex_values(name):
    f = COMPLEX_OPS[name]
    _check_hessian(lambda x: f(C6 + x * (1 - 0.5j) + x[::-1] * 1j), 0.1 * X6, name)



@pytest.mark.parametrize("name", ["sort", "max_min", "median_quantile", "clip", "take", "nanmax_ptp",
                                  "partition", "var_std", "prod", "matmul", "fft", "where", "norm"])
def test_third_derivatives(name):
    f = OPS[name]
    v = np.linspace(0.3, -0.6, 6)
    line = lambda t: f(X6 + t * v)                      # noqa: E731
    d2 = lambda s: ad.hvp(line, s, 1.0)                 # noqa: E731
    expected = FDM(d2, 0.0)
    test_approx(ad.derivative(d2, 0.0), expected, msg=f"{name}: forward", **TOL)
    test_approx(ad.gradient(d2, 0.0), expected, msg=f"{name}: reverse", **TOL)
    rrr = lambda s: ad.gradient(lambda t: ad.gradient(line, t), s)     # noqa: E731
    test_approx(ad.gradient(rrr, 0.0), expected, msg=f"{name}: reverse over reverse over reverse", **TOL)


# ----- the cases of issue 11, item 5 ---------------------------------------------------

def test_a_real_input_gets_a_real_second_derivative_through_complex_values():
    f = lambda a: np.sin(np.real(a * (1 + 1j)))         # noqa: E731
    h = ad.hessian(f, 0.5)
    assert not np.iscomplexobj(h)
    test_approx(h, -math.sin(0.5))
    g = ad.gradient(lambda a: ad.gradient(f, a), 0.5)
    assert not np.iscomplexobj(g)
    test_approx(g, -math.sin(0.5))
    x = np.array([0.5, -0.2])
    H = ad.hessian(lambda x: np.sum(np.sin(np.real(x * (1 + 1j)))), x)
    assert H.dtype == np.float64
    test_approx(H, np.diag(-np.sin(x)))


def test_forward_over_forward_keeps_the_broadcast_shape():
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: s + np.ones(4), t), 0.5)
    test_approx(d2, np.zeros(4))
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: s * s + np.ones(4), t), 0.5)
    test_approx(d2, np.full(4, 2.0))
    d1 = ad.derivative(lambda t: ad.derivative(lambda s: t * s + np.ones(3), 1.0), 0.5)
    test_approx(d1, np.ones(3))


def test_abs_and_angle_of_a_tracked_complex_value():
    c, z0 = 1 + 2j, 1.0
    # |1 + a c|, angle(1 + a c) as functions of the real a, by hand
    r2 = lambda a: (1 + a) ** 2 + 4 * a * a          # noqa: E731
    abs2 = lambda a: (5 / math.sqrt(r2(a)) - (5 * a + 1) ** 2 / r2(a) ** 1.5)   # noqa: E731
    ang2 = lambda a: -2 * 2 * (5 * a + 1) / r2(a) ** 2   # d²/da² atan2(2a, 1 + a)  # noqa: E731
    for f, d2 in ((np.abs, abs2), (abs, abs2), (np.angle, ang2)):
        g = lambda a: f(a * c + z0)                     # noqa: E731
        test_approx(ad.hessian(g, 0.5), d2(0.5), msg=str(f))
        test_approx(ad.derivative(lambda t: ad.derivative(g, t), 0.5), d2(0.5), msg=str(f))


def test_the_std_of_one_element_has_zero_derivatives():
    assert ad.hessian(lambda w: np.std(w), 0.7) == 0.0
    test_approx(ad.hessian(lambda w: np.std(w), np.array([0.7])), np.zeros((1, 1)))
    assert ad.derivative(lambda t: ad.derivative(np.std, t), 0.7) == 0.0
    assert ad.gradient(lambda t: ad.gradient(np.std, t), 0.7) == 0.0


@pytest.mark.parametrize("acosh", [np.arccosh, ad.cmath.acosh])
def test_complex_acosh_keeps_its_branch_under_nesting(acosh):
    z = -2 + 0.1j
    expected = -z / (np.sqrt(z - 1) * np.sqrt(z + 1)) ** 3     # d²/dz² acosh, principal branch
    test_approx(ad.derivative(lambda s: ad.derivative(acosh, s), z), expected)


# ----- precision and ownership of the results (issue 11 leftovers) ---------------------------

def test_hessian_keeps_float32():
    x = np.array([0.5, 0.2], dtype=np.float32)
    h = ad.hessian(lambda w: np.sum(np.sin(w) ** 2), x)
    assert h.dtype == np.float32
    np.testing.assert_allclose(h, np.diag(2 * np.cos(2 * x.astype(float))), rtol=1e-5)
    hs = ad.hessian(lambda w: np.sin(w) ** 2, np.float32(0.5))
    assert type(hs) is np.float32
    assert type(ad.hessian(lambda w: w ** 3, 2)) is float     # a Python int: a real, float64


def test_a_derivative_array_is_the_callers_to_write_into():
    for x in (0.5, np.float32(0.5), np.float64(0.5)):
        d = ad.derivative(lambda s: s + np.ones(4), x)
        assert d.flags.writeable
        d[0] = 7.0                          # no error, and no rule's shared buffer changed
        np.testing.assert_array_equal(ad.derivative(lambda s: s + np.ones(4), x), np.ones(4))
