"""Mixed partials through NumPy's ufuncs on scalars (issue 21, item 6): when the
inner function has a part that does not depend on the outer variable
(∂x∂y of sin(x + sin(y)), of x·sin(y)), the pullback of the ufunc at a plain
scalar y is seeded with a value tracked by the outer differentiation; it
computes with that value's arithmetic instead of refusing it.  Every unary
and binary ufunc with a rule, every scalar kind (float, np.float64, 0-d
array, complex where the ufunc is), every nesting, against finite
differences of the inner derivative taken at plain outer values."""

import numpy as np

from chainrules import ad, rrule
from chainrules.finite_differences import central_fdm
from chainrules.rulesets.elementwise import TABLE

FDM = central_fdm(5, 1)
X0 = 0.3
# a point in each ufunc's domain (default 0.7; binary: (0.7, 1.3))
POINT = {np.arccosh: 1.7, np.log: 1.3, np.log2: 1.3, np.log10: 1.3}
POINT2 = {np.ldexp: (0.7, 3)}



def _forward(f, y):
    """The derivative of f at y by forward mode (a 0-d array through jvp)."""
    if isinstance(y, np.ndarray):
        return ad.jvp(f, (y,), (np.ones_like(y),))[1]
    return ad.derivative(f, y)


NESTINGS = {
    "forward over reverse": (ad.derivative, ad.gradient),
    "reverse over reverse": (ad.gradient, ad.gradient),
    "reverse over forward": (ad.gradient, _forward),
    "forward over forward": (ad.derivative, _forward),
}


def _ufuncs(arity):
    out = {}
    for row in TABLE.values():
        for n in row.numpy:
            f = getattr(np, n, None)
            if isinstance(f, np.ufunc) and f.nin == arity and row.arity == arity:
                args = (POINT.get(f, 0.7),) if arity == 1 else POINT2.get(f, (0.7, 1.3))
                if rrule(f, *args) is not None:
                    out[f] = None
    return list(out)


UNARY = _ufuncs(1)
BINARY = _ufuncs(2)


def _has_complex_loop(f):
    return any(t.startswith("D" * f.nin) for t in f.types)


def _kinds(f, real_point):
    """(label, point) for each scalar kind f takes."""
    kinds = [("float", real_point), ("np.float64", np.float64(real_point)), ("0-d array", np.array(real_point))]
    if _has_complex_loop(f):
        kinds.append(("complex", complex(real_point, 0.4)))
    return kinds


def _check(label, h, y0):
    """∂x∂y h at (X0, y0) by every nesting, against finite differences in x
    of the inner derivative at plain x.  A complex inner result is read
    through one real number (its real part plus 0.7 times its imaginary
    part) so that reverse mode can differentiate it."""
    failures = []
    if np.iscomplexobj(y0):                 # a real function of complex y (gradients need one)
        h = (lambda h: lambda x, y: np.real(h(x, y)))(h)
    for nesting, (outer, inner) in NESTINGS.items():
        def q(x):
            v = inner(lambda y: h(x, y), y0)
            return np.real(v) + 0.7 * np.imag(v) if np.iscomplexobj(y0) else v
        want = FDM(lambda x: float(q(x)), X0)
        try:
            got = outer(q, X0)
        except Exception as e:          # noqa: BLE001 -- reported with the case below
            failures.append(f"{label}, {nesting}: {type(e).__name__}: {e}")
            continue
        if not np.isclose(got, want, rtol=1e-6, atol=1e-7):
            failures.append(f"{label}, {nesting}: {got} != {want} (finite differences)")
    return failures


def test_unary_ufuncs_on_scalars_under_every_nesting():
    failures = []
    for f in UNARY:
        y_real = POINT.get(f, 0.7)
        for kind, y0 in _kinds(f, y_real):
            c = y_real - X0 - f(y_real)            # so that f's argument is in its domain below
            shapes = {
                # f in both places: inside, seeded by the outer f's tracked partial
                "f(x + f(y))": lambda x, y: f(x + f(y) + c),
                "sin(x + f(y))": lambda x, y: np.sin(x + f(y)),
                "x·f(y)": lambda x, y: x * f(y),
            }
            for name, h in shapes.items():
                failures += _check(f"{f.__name__}: {name} at a {kind}", h, y0)
    assert not failures, "\n".join(failures)


def test_binary_ufuncs_on_scalars_under_every_nesting():
    failures = []
    for f in BINARY:
        a0, b0 = POINT2.get(f, (0.7, 1.3))
        for kind, y0 in _kinds(f, a0):
            real_b = f is not np.ldexp               # (ldexp's exponent is an integer)
            k = b0 if not real_b else np.array(b0) if kind == "0-d array" else type(y0)(b0)
            shapes = {
                "f(x, y)": (lambda x, y: f(x + (a0 - X0), y + (b0 - a0)), real_b),
                "x·f(y, b)": (lambda x, y: x * f(y, k), True),
                "sin(x + f(y, b))": (lambda x, y: np.sin(x + f(y, k)), True),
                "x·f(a, y)": (lambda x, y: x * f(a0, y + (b0 - a0)), real_b),
                "sin(x + f(a, y))": (lambda x, y: np.sin(x + f(a0, y + (b0 - a0))), real_b),
            }
            for name, (h, applies) in shapes.items():
                if applies:
                    failures += _check(f"{f.__name__}: {name} at a {kind}", h, y0)
    assert not failures, "\n".join(failures)


def test_non_differentiable_ufuncs_on_scalars_under_every_nesting():
    failures = []
    for f in (np.isnan, np.isinf, np.isfinite, np.signbit, np.spacing, np.logical_not):
        for kind, y0 in _kinds(np.sin, 0.7)[:3]:
            failures += _check(f"{f.__name__}: x·f(y) at a {kind}", lambda x, y: x * f(y), y0)
    for f in (np.heaviside, np.greater, np.equal, np.logical_and):
        for kind, y0 in _kinds(np.sin, 0.7)[:3]:
            failures += _check(f"{f.__name__}: x·f(y, b) at a {kind}", lambda x, y: x * f(y, 0.5), y0)
    assert not failures, "\n".join(failures)


def test_the_cases_of_the_issue():
    want = -np.sin(0.3 + np.sin(0.5)) * np.cos(0.5)
    for y0 in (0.5, np.float64(0.5), np.array(0.5)):
        assert np.isclose(ad.derivative(lambda x: ad.gradient(lambda y: np.sin(x + np.sin(y)), y0), 0.3), want,
                          rtol=1e-14)
        assert np.isclose(ad.gradient(lambda x: ad.gradient(lambda y: x * np.sin(y), y0), 0.3), np.cos(0.5),
                          rtol=1e-14)


def test_a_seed_that_is_no_tangent_is_still_refused():
    import pytest
    _, pb = rrule(np.sin, 0.5)
    with pytest.raises(TypeError, match="pullback of numpy.sin: seed must be a tangent .*got a str"):
        pb("1.0")
    _, pb = rrule(np.sin, 0.5 + 0.1j)
    with pytest.raises(TypeError, match="seed must be a tangent .*got None"):
        pb(None)
