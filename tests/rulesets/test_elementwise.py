"""The element-wise table (chainrules/rulesets/elementwise/table.py) and the rules
built from it (elementwise/rules.py) on NumPy arrays: every C scalar row
agrees with the table's partials, every row with a NumPy function agrees
with the NumPy rule, and the generic rules pass the testing kit's finite
difference checks (float64, float32, complex, broadcasting, Python numbers,
edge points)."""

import builtins
import cmath
import math
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent, unthunk
from chainrules._core import _scalar_rows
from chainrules.rulesets.elementwise.interop import scalar_row
from chainrules.rulesets.elementwise import NEG_ONE, ONE, STANDARD, TABLE
from chainrules.rulesets.elementwise.rules import register_row, rules_for
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

cnp = pytest.importorskip("array_api_compat.numpy")

RNG = np.random.default_rng(12)
NT = NoTangent()
F32 = dict(rtol=3e-2, atol=3e-2)

# ----- points in each row's domain ---------------------------------------------

UNARY_POINTS = {"acosh": [1.5, 3.0], "asin": [0.3, -0.6], "acos": [0.3, -0.6], "atanh": [0.3, -0.6],
                "log": [0.5, 2.0], "log2": [0.5, 2.0], "log10": [0.5, 2.0], "sqrt": [0.5, 2.0],
                "log1p": [0.5, -0.5], "cbrt": [2.0, -8.0], "reciprocal": [1.5, -2.0],
                "round": [2.3, -1.7], "floor": [2.5, -1.5], "ceil": [2.5, -1.5], "trunc": [2.5, -1.5]}
BINARY_POINTS = {"pow": [(1.5, 2.5), (2.0, -1.0)], "remainder": [(7.5, 2.0), (-7.5, 2.0)],
                 "fmod": [(7.5, 2.0), (-7.5, 2.0)], "floor_divide": [(7.5, 2.0)], "ldexp": [(1.5, 3)],
                 "maximum": [(1.5, 2.5), (2.5, 1.5)], "minimum": [(1.5, 2.5), (2.5, 1.5)],
                 "fmax": [(1.5, 2.5), (2.5, 1.5)], "fmin": [(1.5, 2.5), (2.5, 1.5)]}
COMPLEX_POINTS = [0.5 + 0.3j, -1.2 + 0.7j]


def _points(row):
    if row.arity == 1:
        return UNARY_POINTS.get(row.name, [0.3, -0.7])
    return BINARY_POINTS.get(row.name, [(1.5, -2.5), (0.7, 0.4)])


def _partials(row, f, args):
    """The table's partials of `row` at args (xp = NumPy, 0-d arrays; Ω = f(*args))."""
    Ω = np.asarray(f(*args))
    xs = [np.asarray(a, dtype=Ω.dtype) if not isinstance(a, int) or row.name != "ldexp" else np.asarray(a)
          for a in args]
    out = []
    for d in row.partials:
        if d is None:
            out.append(0.0)
        elif d is ONE or d is NEG_ONE:
            out.append(float(d.sign))
        else:
            out.append(complex(d(np, *xs, Ω)))
    return out


# ----- every C scalar row agrees with the table ----------------------------------

# C rows with no table row, and why
_NOT_IN_TABLE = {
    (math.gamma, 1): "Γ' = Γ·ψ needs digamma, which no array namespace has (scipy.special's rules)",
    (math.lgamma, 1): "ψ: as gamma",
    (math.log, 2): "log(x, base) is not an element-wise function of the standard",
    (cmath.log, 2): "as math.log(x, base)",
    (math.hypot, 1): "hypot(x) = |x|: the n-ary math.hypot, not the binary hypot",
}


# the row of a C-row function called with `arity` arguments (the lookup chainrules.ad
# uses for Python's scalar functions on tracked values)
_row_of = scalar_row


def _c_rows():
    return [(f, n) for f, r in _scalar_rows().items() for n in r.arities]


C_ROWS = sorted(_c_rows(), key=lambda fa: (getattr(fa[0], "__module__", None) or "numpy", fa[0].__name__, fa[1]))


def _c_derivatives(f, args):
    """The C row's partials at args: the frule with one unit tangent at a time."""
    out = []
    for i in range(len(args)):
        if f in (math.ldexp, np.ldexp) and i == 1:
            out.append(0.0)
            continue
        unit = 1.0 + 0j if isinstance(args[i], complex) else 1.0
        tangents = tuple(unit if j == i else (NT if f in (math.ldexp, np.ldexp) else 0.0)
                         for j in range(len(args)))
        out.append(complex(unthunk(cr.frule((NT,) + tangents, f, *args)[1])))
    return out


def test_every_c_row_has_a_table_row_or_a_reason():
    missing = [(f, n) for f, n in C_ROWS if _row_of(f, n) is None and (f, n) not in _NOT_IN_TABLE]
    assert not missing, f"C scalar rows without a table row: {missing}"
    assert len(C_ROWS) > 100


def _complex_ok(f, row):
    if not row.holomorphic or f in (operator.floordiv, operator.ifloordiv, operator.mod, operator.imod):
        return False
    if getattr(f, "__module__", None) == "math" or f in (builtins.max, builtins.min):
        return False
    if isinstance(f, np.ufunc):
        return any(t.startswith("D" * f.nin) for t in f.types)
    return True


@pytest.mark.parametrize("f,arity", [fa for fa in C_ROWS if fa not in _NOT_IN_TABLE],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_c_row_agrees_with_the_table(f, arity):
    row = _row_of(f, arity)
    points = _points(row)
    if arity == 1:
        points = [(p,) for p in points]
    for args in points:
        got, want = _c_derivatives(f, args), _partials(row, f, args)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (f, args, got, want)
    if _complex_ok(f, row):
        for z in COMPLEX_POINTS:
            args = (z,) * arity if arity == 1 else (z, 0.8 - 0.2j)
            got, want = _c_derivatives(f, args), _partials(row, f, args)
            assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (f, args, got, want)


def test_the_table_has_the_standard_functions():
    names = {"abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
             "log1p", "log2", "log10", "negative", "positive", "real", "imag", "conj", "sin", "sinh", "sqrt",
             "square", "tan", "tanh", "sign", "round", "floor", "ceil", "trunc", "add", "subtract",
             "multiply", "divide", "pow", "atan2", "hypot", "logaddexp", "maximum", "minimum", "copysign"}
    assert names <= STANDARD
    assert all(TABLE[n].zero for n in ("round", "floor", "ceil", "trunc", "floor_divide"))
    assert not any(TABLE[n].holomorphic for n in ("abs", "real", "imag", "conj", "sign"))


# ----- every row with a NumPy function agrees with the NumPy rule ---------------

def _numpy_cases():
    cases = []
    for row in TABLE.values():
        for n in dict.fromkeys(row.numpy):
            f = getattr(np, n, None)
            if f is not None:
                cases.append((row, f, n))
    return cases


def _array_points(row, dtype=np.float64):
    if row.arity == 1:
        x = np.asarray(_points(row) + [p * 0.9 for p in _points(row)], dtype=dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 0.3j
        return (x,)
    x, y = (np.asarray(v, dtype=float) for v in zip(*_points(row)))
    if row.name == "ldexp":
        return x, np.asarray(y, dtype=int)
    if np.dtype(dtype).kind == "c":
        return x + 0.2j, y - 0.3j
    return x, y


def _compare_rules(f, row, args):
    fr, rr = rules_for(f, row)
    ȳ = np.asarray(RNG.standard_normal(np.shape(f(*args))), dtype=np.result_type(f(*args)))
    Ω, pb = rr(*args)
    Ωn, pbn = cr.rrule(f, *args)
    assert np.array_equal(Ω, Ωn, equal_nan=True)
    for got, want in zip(pb(ȳ)[1:], pbn(ȳ)[1:]):
        _same_tangent(unthunk(got), unthunk(want))
    Δ = tuple(np.asarray(RNG.standard_normal(np.shape(a)), dtype=np.result_type(a))
              if np.result_type(a).kind in "fc" else NT for a in args)
    _same_tangent(unthunk(fr((NT,) + Δ, *args)[1]), unthunk(cr.frule((NT,) + Δ, f, *args)[1]))


def _same_tangent(got, want):
    """Equal tangents: NoTangent only with NoTangent, ZeroTangent as zeros,
    arrays of the same dtype and values."""
    if isinstance(got, NoTangent) or isinstance(want, NoTangent):
        assert type(got) is type(want), (got, want)
        return
    if isinstance(got, ZeroTangent) or isinstance(want, ZeroTangent):
        other = want if isinstance(got, ZeroTangent) else got
        assert isinstance(other, ZeroTangent) or np.all(np.asarray(other) == 0), (got, want)
        return
    assert np.asarray(got).dtype == np.asarray(want).dtype, (got, want)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True), (got, want)


@pytest.mark.parametrize("row,f,n", _numpy_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_row_agrees_with_the_numpy_rule(row, f, n):
    _compare_rules(f, row, _array_points(row))
    if (row.holomorphic or row.complex_rule) and isinstance(f, np.ufunc) \
            and any(t.startswith("D" * f.nin) for t in f.types) or n in ("real", "imag"):
        _compare_rules(f, row, _array_points(row, np.complex128))


EDGES = [
    ("abs", np.absolute, (np.array([0.0, -1.5, 2.0]),)),
    ("abs", np.absolute, (np.array([0j, 1 - 1j]),)),
    ("sign", np.sign, (np.array([0j, 0.3 - 0.4j]),)),
    ("sqrt", np.sqrt, (np.array([0.0, 4.0]),)),
    ("pow", np.power, (np.array([0.0, 0.0, 0.0, 0.0, -2.0]), np.array([0.0, 1.0, 2.0, 0.5, 3.0]))),
    ("maximum", np.maximum, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))),
    ("minimum", np.minimum, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0]))),
    ("hypot", np.hypot, (np.array([0.0, 3.0]), np.array([0.0, -4.0]))),
    ("log", np.log, (np.array([-1.0, 0.0]),)),
    # on the branch cuts, each side (the sign of the zero part)
    *[(name, f, (np.array([2 + 0j, 1.5 + 0j, -2 + 0j, complex(2, -0.0), complex(-2, -0.0)]),))
      for name, f in (("asin", np.arcsin), ("acos", np.arccos), ("acosh", np.arccosh))],
    ("asinh", np.arcsinh, (np.array([2j, -2j, complex(-0.0, 2), complex(-0.0, -2)]),)),
]


@pytest.mark.parametrize("name,f,args", EDGES, ids=[e[0] for e in EDGES])
def test_edge_points_as_the_numpy_rules(name, f, args):
    with np.errstate(all="ignore"):
        _compare_rules(f, TABLE[name], args)


def test_conventions_at_zero():
    _, pb = rules_for(np.sqrt, "sqrt")[1](np.array([0.0, 4.0]))
    with np.errstate(divide="ignore"):
        assert np.array_equal(pb(np.ones(2))[1], [np.inf, 0.25])
    _, pb = rules_for(np.abs, "abs")[1](np.array([0.0, -2.0]))
    assert np.array_equal(pb(np.ones(2))[1], [0.0, -1.0])
    _, pb = rules_for(np.maximum, "maximum")[1](np.array([1.0]), np.array([1.0]))
    assert [float(unthunk(c)[0]) for c in pb(np.ones(1))[1:]] == [0.0, 1.0]      # a tie goes to y


# ----- the generic rules against finite differences (array_api_compat.numpy) --------

def _primal(row):
    """A function computing the row with array_api_compat's NumPy namespace
    (NumPy's own ufuncs keep their rules; this one gets the generic ones)."""
    fn = getattr(cnp, row.name, None)
    for n in row.numpy:
        fn = fn or getattr(np, n, None)
    if fn is None:          # erf, erfc: math's, element by element
        fn = np.vectorize(getattr(math, row.name), otypes=[float])

    def primal(*args):
        return fn(*args)
    primal.__name__ = primal.__qualname__ = row.name
    return primal


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


def _domain_array(row, shape, dtype=np.float64):
    lo, hi = {"acosh": (1.3, 2.0), "log1p": (0.2, 0.8)}.get(row.name, (0.2, 0.8))
    x = RNG.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(0.2, 0.6, shape)
    return np.asarray(x, dtype=dtype)


DIFFERENTIABLE = [r for r in TABLE.values() if not r.zero]
UNARY = [r for r in DIFFERENTIABLE if r.arity == 1]
BINARY = [r for r in DIFFERENTIABLE if r.arity == 2]
COMPLEX_UNARY = [r for r in UNARY if r.holomorphic or r.complex_rule]
COMPLEX_BINARY = [r for r in BINARY if r.holomorphic]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("row", UNARY, ids=lambda r: r.name)
def test_unary_float64(registry, row, shape):
    f = _primal(row)
    register_row(f, row)
    _both(f, _domain_array(row, shape))


@pytest.mark.parametrize("row", [r for r in UNARY if r.name not in ("erf", "erfc")], ids=lambda r: r.name)
def test_unary_float32_keeps_dtype(registry, row):
    f = _primal(row)
    register_row(f, row)
    x = _domain_array(row, (2, 3), np.float32)
    _both(f, x, **F32)
    dx = unthunk(cr.rrule(f, x)[1](np.ones((2, 3), np.float32))[1])
    assert isinstance(dx, ZeroTangent) if row.partials[0] is None else dx.dtype == np.float32


@pytest.mark.parametrize("row", COMPLEX_UNARY, ids=lambda r: r.name)
def test_unary_complex(registry, row):
    f = _primal(row)
    register_row(f, row)
    _both(f, _domain_array(row, (3,), np.complex128))
    _both(f, _domain_array(row, (), np.complex128))


def _binary_pair(row, sx, sy, dtype=np.float64):
    x, y = _domain_array(row, sx, dtype), _domain_array(row, sy, dtype) + 1.0
    if row.name == "ldexp":
        y = RNG.integers(-3, 4, sy)
    return x, y


PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((2, 3), (2, 3)), ((3, 1), (4,)), ((1, 3), (2, 1))]


@pytest.mark.parametrize("sx,sy", PAIRS, ids=str)
@pytest.mark.parametrize("row", BINARY, ids=lambda r: r.name)
def test_binary_broadcasting(registry, row, sx, sy):
    f = _primal(row)
    register_row(f, row)
    x, y = _binary_pair(row, sx, sy)
    if row.name == "ldexp":
        _both(f, x, PrimalAndTangent(y, NT))
    else:
        _both(f, x, y)
        _both(f, y, x)


@pytest.mark.parametrize("row", [r for r in BINARY if r.name != "ldexp"], ids=lambda r: r.name)
def test_binary_float32_and_python_numbers(registry, row):
    f = _primal(row)
    register_row(f, row)
    x, y = _binary_pair(row, (3,), (3,), np.float32)
    _both(f, x, y, **F32)
    _both(f, x, 1.7, **F32)            # a Python float: a Python float cotangent
    _both(f, 1.7, y, **F32)
    _, pb = cr.rrule(f, x, 1.7)
    x̄, c̄ = (unthunk(c) for c in pb(np.ones(3, np.float32))[1:])
    assert x̄.dtype == np.float32
    assert isinstance(c̄, ZeroTangent) if row.partials[1] is None else type(c̄) is float


@pytest.mark.parametrize("row", COMPLEX_BINARY, ids=lambda r: r.name)
def test_binary_complex(registry, row):
    f = _primal(row)
    register_row(f, row)
    x, y = _binary_pair(row, (3,), (2, 1), np.complex128)
    _both(f, x, y)
    _both(f, x, 0.5 - 0.2j)
    # a real argument with a complex one: its cotangent stays real
    _, pb = cr.rrule(f, x.real.copy(), y)
    assert unthunk(pb(np.ones((2, 3), complex))[1]).dtype == np.float64


def test_integer_arguments_have_no_tangent(registry):
    f = _primal(TABLE["multiply"])
    register_row(f, TABLE["multiply"])
    _, pb = cr.rrule(f, np.arange(3), np.ones(3))
    x̄, ȳ = pb(np.ones(3))[1:]
    assert x̄ == NT and np.array_equal(unthunk(ȳ), [0.0, 1.0, 2.0])
    g = _primal(TABLE["sin"])
    register_row(g, TABLE["sin"])
    assert cr.rrule(g, np.arange(3))[1](np.ones(3)) == (NT, NT)


def test_edge_points_against_finite_differences(registry):
    for name, args in [("abs", (np.array([-1.5, 0.7]),)), ("sign", (np.array([0.3 - 0.4j, -1 + 0.2j]),)),
                       ("pow", (np.array([-2.0, 1.5]), PrimalAndTangent(np.array([3.0, 2.0]), NT))),
                       ("maximum", (np.array([1.0, 3.0]), np.array([2.0, 2.0])))]:
        f = _primal(TABLE[name])
        register_row(f, TABLE[name])
        (test_frule if name == "pow" else _both)(f, *args)   # pow: x < 0, the exponent held fixed


def test_bad_seed_and_bad_keywords_name_the_function(registry):
    f = _primal(TABLE["sin"])
    register_row(f, TABLE["sin"])
    _, pb = cr.rrule(f, np.ones(3))
    with pytest.raises(ValueError, match="sin"):
        pb(np.ones(4))
    with pytest.raises(TypeError, match="out="):
        cr.rrule(f, np.ones(3), out=np.empty(3))


def test_array_api_compat_numpy_functions_have_rules():
    # array_api_compat's NumPy namespace: NumPy's ufuncs (their NumPy rules) and
    # its own wrappers (the generic rules)
    x = _domain_array(TABLE["sin"], (3,))
    for name in ("sin", "sign", "pow", "atan2", "maximum", "abs"):
        f = getattr(cnp, name)
        assert cr.rrule(f, *((x,) if TABLE[name].arity == 1 else (x, x + 1))) is not None, name
    test_rrule(cnp.sign, x + 0.3j)
    test_frule(cnp.sign, x - 0.5j)


# ----- the x ** p table at x = 0, to second order ----------------------------------

def _second_derivatives(f, x):
    """d²f/dx² at x by forward over reverse (ad.hessian), reverse over reverse,
    forward over forward and reverse over forward."""
    from chainrules import ad
    return {"hessian": ad.hessian(f, x),
            "reverse over reverse": ad.gradient(lambda y: ad.gradient(f, y), x),
            "forward over forward": ad.derivative(lambda y: ad.derivative(f, y), x),
            "reverse over forward": ad.gradient(lambda y: ad.derivative(f, y), x)}


@pytest.mark.filterwarnings("error::RuntimeWarning")       # no 0·inf on the way
def test_pow_at_zero_second_derivatives():
    # d²/dx² x⁰ at 0 is 0 (x⁰ is 1 everywhere): it raised ZeroDivisionError (0.0 ** -1 in
    # the row's expression at x = 0) and gave 0·inf on arrays; d²/dp² 0ᵖ (p > 0) is 0
    from chainrules import ad
    powers = [("**", lambda x, p: x ** p), ("math.pow", lambda x, p: ad.math.pow(x, p)),
              ("np.power", np.power)]
    for name, pw in powers:
        cases = [(lambda x, pw=pw: pw(x, 0.0), 0.0, 0.0), (lambda x, pw=pw: pw(x, 1.0), 0.0, 0.0),
                 (lambda x, pw=pw: pw(x, 2.0), 0.0, 2.0), (lambda x, pw=pw: pw(x, 3.0), 0.0, 0.0),
                 (lambda x, pw=pw: pw(x, 0.0), 1.5, 0.0)]
        cases += [(lambda p, pw=pw: pw(0.0, p), p, 0.0) for p in (0.5, 1.0, 2.0)]
        for f, at, want in cases:
            for x in ((at, np.float64(at)) if name != "math.pow" else (at,)):
                for how, got in _second_derivatives(f, x).items():
                    assert got == want, (name, at, type(x).__name__, how, got)
    # arrays: the Hessian of Σ xᵢ⁰ and of Σ 0^pᵢ
    assert np.array_equal(ad.hessian(lambda x: np.sum(np.power(x, 0.0)), np.zeros(3)), np.zeros((3, 3)))
    assert np.array_equal(ad.hessian(lambda x: np.sum(x ** 0.0), np.array([0.0, 1.0])), np.zeros((2, 2)))
    assert np.array_equal(ad.hessian(lambda p: np.sum(np.power(0.0, p)), np.array([0.5, 2.0])),
                          np.zeros((2, 2)))
    # the second derivative away from 0 still agrees with finite differences
    test_rrule(operator.pow, 0.7, 0.0, order=2)
    test_rrule(np.power, np.array([0.3, 0.0]) + 0.5, np.array([0.0, 2.0]), order=2)


def test_pow_at_zero_first_derivatives_stay_the_tables():
    # ∂/∂x: 1 for p = 1, 0 for p = 0 or p > 1, inf for 0 < p < 1; ∂/∂p: 0 for p > 0
    from chainrules import ad
    for p, dx in ((0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (3.0, 0.0), (0.5, math.inf)):
        assert ad.gradient(lambda x: x ** p, 0.0) == dx
        assert ad.derivative(lambda x: x ** p, 0.0) == dx
        with np.errstate(divide="ignore"):
            assert ad.gradient(lambda x: np.power(x, p), np.float64(0.0)) == dx
            assert np.array_equal(ad.gradient(lambda x: np.sum(np.power(x, p)), np.zeros(2)), [dx, dx])
        assert cr.rrule(operator.pow, 0.0, p)[1](1.0)[1] == dx
        if p > 0:
            assert ad.gradient(lambda q: 0.0 ** q, p) == 0.0
            assert ad.gradient(lambda q: np.sum(np.power(0.0, q)), np.array([p])) == [0.0]


# ----- the rrules' fast path on real arrays traced by an enclosing differentiation (issue 25) ----

def _body_rrules(f):
    """f's element-wise rrules (those whose generic body is `body`)."""
    from chainrules._core import _rules_of
    fns = [r.fn for r in _rules_of(f)[1] if hasattr(r.fn, "body")]
    assert fns, f
    return fns


def _parts(v):
    v = unthunk(v)
    if isinstance(v, cr.AbstractZero) or isinstance(v, np.ndarray):
        return (v,)
    return (v.primal, v.tangent)


def test_the_traced_fast_path_computes_what_the_body_computes():
    """On Duals of real arrays (ad.hvp's inner gradient), the unary and binary
    rrules skip their seed, conjugate and projection layers: Ω and every
    cotangent must be the body's bit for bit, for a cotangent of Ω's layout
    (plain or traced) and for one to spread (a number: the body's own)."""
    from chainrules import ad
    x0, v0 = np.array([0.3, 0.7, 1.9]), np.array([0.5, -1.0, 2.0])
    y0 = np.array([1.4, 0.2, 0.6])
    unary = [np.sin, np.exp, np.log, np.tanh, np.sqrt, np.arctan, np.negative]
    binary = [np.multiply, np.add, np.subtract, np.divide, np.power, np.arctan2, np.hypot]
    checked = []

    def compare(rule, args):
        Ω, pullback = rule(*args)
        Ωb, body_pullback = rule.body(*args)
        assert all(np.array_equal(a, b) for a, b in zip(_parts(Ω), _parts(Ωb)))
        assert "traced" in pullback.__name__, rule        # the fast path served it (not vacuous)
        for ȳ in (y0, args[0] * y0 if not isinstance(args[0], np.ndarray) else args[-1] * y0, 1.0):
            got, want = pullback(ȳ), body_pullback(ȳ)
            assert len(got) == len(want)
            for g, w in zip(got[1:], want[1:]):
                g, w = _parts(g), _parts(w)
                assert len(g) == len(w) and all(np.array_equal(a, b) for a, b in zip(g, w)), (rule, ȳ)
        checked.append(rule)

    def inside(z):
        from chainrules.rulesets.elementwise.real import traced_real
        assert traced_real((z, y0)) == ((3,), np.dtype(np.float64)) and traced_real((y0, y0)) is None
        assert traced_real((z, y0.astype(np.float32))) is None and traced_real((z, y0[:2])) is None
        assert traced_real((z + 0j,)) is None and traced_real((z, 2.0)) is None
        for f in unary:
            for rule in _body_rrules(f):
                compare(rule, (z,))
        for f in binary:
            for rule in _body_rrules(f):
                for args in ((z, z * 0.5 + 1.0), (z, y0), (y0, z)):
                    compare(rule, args)
        return z

    ad.jvp(inside, (x0,), (v0,))
    assert len(checked) >= len(unary) + 3 * len(binary)
