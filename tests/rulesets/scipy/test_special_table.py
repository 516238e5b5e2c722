"""Tests of the scipy.special table (chainrules/rulesets/scipy/special_table.py
and its rows, special_rows_*.py): every row by the testing kit at its sample
points (order 1 at every point, order 2 at the main point, broadcasting of
its arguments, float32, complex for holomorphic rows), its first derivative
against mpmath at high precision, against jax.grad where jax.scipy.special
has the function, the not-implemented arguments named, third derivatives.
The sample points and the mpmath functions are in special_samples.py."""

import math

import numpy as np
import pytest
import scipy.special as sp

import chainrules as cr
from chainrules import NoTangent, NotImplementedTangent, ZeroTangent
from chainrules.rulesets.scipy import special_rows_basic as basic
from chainrules.rulesets.scipy import special_rows_bessel as bessel
from chainrules.rulesets.scipy import special_rows_other as other
from chainrules.rulesets.scipy.special_table import INT, NI, ROWS
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from .._order2 import F32, Case
from .special_samples import INVERSE, MP, MP_DERIVATIVE, POINTS

mp = pytest.importorskip("mpmath")
NT = NoTangent()

FAMILIES = {
    "convenience": basic.CONVENIENCE, "gamma": basic.GAMMA, "error": basic.ERROR,
    "distributions": basic.DISTRIBUTIONS, "inverses": basic.INVERSES, "cylindrical": bessel.CYLINDRICAL + bessel.DERIVATIVES,
    "spherical": bessel.SPHERICAL, "kelvin": bessel.KELVIN, "struve-airy-integrals": bessel.OTHER,
    "exponential": other.EXPONENTIAL, "hypergeometric": other.HYPERGEOMETRIC,
    "polynomials": other.POLYNOMIALS, "elliptic": other.ELLIPTIC, "wright-parabolic": other.MISC, "more": other.MORE,
}
BY_NAME = {r.name: r for r in ROWS}

# looser tolerances where SciPy's own function is less accurate than double precision
# (the kit's finite differences of it are then noisier)
# (SciPy's itairy is accurate to ~1e-5 relative at x = 2.5: its finite differences are that
# noisy there; mpmath checks the derivative to 1e-9)
TOL = {"itairy": dict(rtol=2e-4, atol=1e-8), "pbwa": dict(rtol=1e-4, atol=1e-6), "pbvv": dict(rtol=1e-5, atol=1e-7),
       "wright_bessel": dict(rtol=1e-6, atol=1e-8), "log_wright_bessel": dict(rtol=1e-6, atol=1e-8),
       "hyperu": dict(rtol=1e-6, atol=1e-8), "struve": dict(rtol=1e-6, atol=1e-8),
       "modstruve": dict(rtol=1e-6, atol=1e-8), "itstruve0": dict(rtol=1e-6, atol=1e-8),
       "it2struve0": dict(rtol=1e-6, atol=1e-8), "itmodstruve0": dict(rtol=1e-6, atol=1e-8)}
# cdflib's inverses in a shape parameter are root searches (to ~1e-10): their finite differences
# are that noisy; mpmath checks their first derivatives to 1e-9
TOL.update({r.name: dict(rtol=1e-5, atol=1e-7) for r in basic.INVERSES})
TOL.update({"tklmbda": dict(rtol=1e-6, atol=1e-8), "kolmogi": dict(rtol=1e-6, atol=1e-8), "chndtrix": dict(rtol=1e-6, atol=1e-8),
            "chndtr": dict(rtol=1e-6, atol=1e-8), "besselpoly": dict(rtol=1e-6, atol=1e-8)})


# complex-valued functions of real arguments (the rule conjugates the complex partial and takes
# the real part of the argument's cotangent)
REAL_ARGUMENTS = {"sph_harm_y", "kelvin", "modfresnelp", "modfresnelm"}


def _args(r, point, convert=lambda a: a):
    """The kit's arguments: integer and not-implemented arguments held fixed (NoTangent)."""
    out = []
    for i, a in enumerate(point):
        if r.partials[i] is INT or r.partials[i] is NI:
            out.append(PrimalAndTangent(a, NT))
        else:
            out.append(convert(a))
    return out


def _differentiable(r, point):
    return [i for i in range(len(point)) if r.partials[i] not in (INT, NI)]


def _broadcast(r, point):
    """The main point with its differentiable arguments as arrays that broadcast against
    each other: (2, 1), (3,), (1, 1, 2)… (small steps away from the point)."""
    shapes = [(2, 1), (3,), (2, 1, 1)]
    out, k = list(point), 0
    for i in _differentiable(r, point):
        shape = shapes[k % 3]
        n = int(np.prod(shape))
        out[i] = (point[i] + 0.01 * np.arange(n) * (1 if point[i] >= 0 else -1)).reshape(shape) \
            if not isinstance(point[i], complex) else (point[i] + 0.01 * np.arange(n)).reshape(shape)
        k += 1
    return out


def _kit(r, args, order=1, **tol):
    kw = dict(TOL.get(r.name, {}))
    kw.update(tol)
    test_frule(r.f, *args, order=order, **kw)
    test_rrule(r.f, *args, order=order, **kw)


def _run(failures, what, fn):
    try:
        fn()
    except Exception as e:      # collect every failure of the family in one message
        failures.append(f"{what}: {type(e).__name__}: {str(e)[:300]}")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_rows_by_the_kit(family):
    failures = []
    for r in FAMILIES[family]:
        points = POINTS[r.name]
        main = points[0]
        for p in points:
            _run(failures, f"{r.name}{p} order 1", lambda: _kit(r, _args(r, p)))
        _run(failures, f"{r.name}{main} order 2", lambda: _kit(r, _args(r, main), order=2))
        _run(failures, f"{r.name}{main} broadcast",
             lambda: _kit(r, _args(r, _broadcast(r, main))))
        if not any(isinstance(a, complex) for a in main):
            _run(failures, f"{r.name}{main} float32",
                 lambda: _kit(r, _args(r, main, np.float32), **F32))
        if r.holomorphic and r.name not in REAL_ARGUMENTS:
            last = _differentiable(r, main)[-1]         # z: the parameters are real
            shifted = [a + 0.1j if i == last and not isinstance(a, complex) else a
                       for i, a in enumerate(main)]
            _run(failures, f"{r.name}{tuple(shifted)} complex", lambda: _kit(r, _args(r, shifted)))
    assert not failures, "\n".join(failures)


# ----- mpmath: the first derivative at high precision -----------------------------------------

def _ours(r, point):
    """Our first derivatives at the point: per differentiable argument, per output."""
    out = {}
    for i in _differentiable(r, point):
        tangents = [NT] + [ZeroTangent()] * len(point)
        tangents[i + 1] = 1.0
        _, t = cr.frule(tuple(tangents), r.f, *point)
        out[i] = [complex(v) for v in (tuple(t) if r.outputs > 1 else (t,))]
    return out


def _theirs(r, point):
    args = [mp.mpf(a) if not isinstance(a, complex) else mp.mpc(a) for a in point]
    name = r.name
    if name in MP_DERIVATIVE:
        return {_differentiable(r, point)[0]: [complex(v) for v in MP_DERIVATIVE[name](*args)]}
    if name in INVERSE:
        forward, to_forward, yi = INVERSE[name]
        o = mp.mpf(float(r.f(*point)))
        def G(vals, o):
            return forward(*to_forward(*vals, o)) - vals[yi]
        dG_do = mp.diff(lambda t: G(args, t), o)
        out = {}
        for i in _differentiable(r, point):
            dG_di = mp.diff(lambda t: G(args[:i] + [t] + args[i + 1:], o), args[i])
            out[i] = [complex(-dG_di / dG_do)]
        return out
    f = MP[name]
    out = {}
    for i in _differentiable(r, point):
        def g(t, j):
            v = f(*(args[:i] + [t] + args[i + 1:]))
            return v[j] if r.outputs > 1 else v
        out[i] = [complex(mp.diff(lambda t: g(t, j), args[i])) for j in range(r.outputs)]
    return out


# no mpmath counterpart: checked by the kit's finite differences only
NO_MPMATH = {"pbvv": "mpmath's pcfv is another normalization than SciPy's V_v",
             "chndtrix": "no noncentral χ² CDF in mpmath (chndtr's density is checked)"}
# rtol of the mpmath comparison where SciPy's primal is less accurate
MP_RTOL = {"pbwa": 1e-5, "pbdv": 1e-7, "wright_bessel": 1e-7, "log_wright_bessel": 1e-7, "hyperu": 1e-7,
           "struve": 1e-7, "modstruve": 1e-7, "itstruve0": 1e-7, "it2struve0": 1e-7, "itmodstruve0": 1e-7,
           "owens_t": 1e-8}


MP_ONE_POINT = {"kvp", "pbwa"}       # slow in mpmath (nested numerical derivatives)


def test_first_derivatives_against_mpmath():
    mp.mp.dps = 30
    failures, compared = [], 0
    try:
        for r in ROWS:
            if r.name in NO_MPMATH:
                continue
            for p in POINTS[r.name][:1 if r.name in MP_ONE_POINT else 2]:
                try:
                    ours, theirs = _ours(r, p), _theirs(r, p)
                except Exception as e:
                    failures.append(f"{r.name}{p}: {type(e).__name__}: {e}")
                    continue
                for i, t in theirs.items():
                    for j, (a, b) in enumerate(zip(ours[i], t)):
                        compared += 1
                        if not abs(a - b) <= MP_RTOL.get(r.name, 1e-9) * max(abs(b), 1e-8):
                            failures.append(f"{r.name}{p} ∂{r.params[i]} output {j}: {a} vs mpmath {b}")
    finally:
        mp.mp.dps = 15
    assert not failures, "\n".join(failures)
    assert compared > 250


def test_every_row_has_points_and_an_oracle():
    for r in ROWS:
        assert r.name in POINTS, r.name
        assert (r.name in MP or r.name in MP_DERIVATIVE or r.name in INVERSE
                or r.name in NO_MPMATH), r.name
    assert len({r.f for r in ROWS}) == len(ROWS)


# ----- JAX --------------------------------------------------------------------------------

# JAX compiles each function's derivative (hyp2f1 alone takes 12 s here): run once in CI
@pytest.mark.sweep
def test_against_jax():
    jax = pytest.importorskip("jax")
    jsp = pytest.importorskip("jax.scipy.special")
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    failures, compared = [], 0
    try:
        for r in ROWS:
            jf = getattr(jsp, r.name, None)
            if jf is None or r.outputs > 1 or r.holomorphic and r.name == "wofz":
                continue
            p = POINTS[r.name][0]
            ours = _ours(r, p)
            for i in ours:
                def g(t):
                    a = list(p)
                    a[i] = t
                    return jf(*a)
                try:
                    d = float(jax.grad(g)(float(p[i])))
                except Exception:           # JAX has the function but not this derivative
                    continue
                compared += 1
                if not math.isclose(d, ours[i][0].real, rel_tol=1e-8, abs_tol=1e-12):
                    failures.append(f"{r.name}{p} ∂{r.params[i]}: jax {d}, ours {ours[i][0]}")
    finally:
        jax.config.update("jax_enable_x64", before)
    assert not failures, "\n".join(failures)
    assert compared >= 20


# ----- not implemented, integer arguments, conventions --------------------------------------------

def test_not_implemented_names_the_argument():
    for f, args, i, name in [(sp.jv, (1.3, 0.7), 0, "v"), (sp.yv, (2.3, 1.4), 0, "v"),
                             (sp.jve, (2.3, 1.5), 0, "v"), (sp.hyp2f1, (0.6, 1.3, 2.2, 0.4), 2, "c")]:
        tangents = [NT] + [ZeroTangent()] * len(args)
        tangents[i + 1] = 1.0
        _, t = cr.frule(tuple(tangents), f, *args)
        assert isinstance(t, NotImplementedTangent) and f"derivative in {name}" in str(t.info)
        cot = cr.rrule(f, *args)[1](1.0)
        assert isinstance(cot[i + 1], NotImplementedTangent) and f"derivative in {name}" in str(cot[i + 1].info)
        assert not isinstance(cot[-1], NotImplementedTangent)     # the last argument has its derivative


def test_kv_in_v_at_complex_z_is_not_implemented():
    _, t = cr.frule((NT, 1.0, ZeroTangent()), sp.kv, 1.3, 0.7 + 0.2j)
    assert isinstance(t, NotImplementedTangent) and "derivative in v" in str(t.info)
    cot = cr.rrule(sp.kv, 1.3, 0.7 + 0.2j)[1](1.0)
    assert isinstance(cot[1], NotImplementedTangent) and not isinstance(cot[2], NotImplementedTangent)


# ----- the parameter derivatives by series and quadrature, across their domains ------------------

def test_parameter_series_against_mpmath_across_the_domain():
    from chainrules.rulesets.scipy.special_series import dbetainc_dab, dgammainc_da, div_dv, dkv_dv
    mp.mp.dps = 30
    failures = []
    try:
        A = [0.1, 0.5, 1.0, 2.5, 10.0, 50.0]
        X = [1e-3, 0.1, 1.0, 3.0, 11.0, 20.0, 51.5, 100.0, 150.0]
        a, x = np.meshgrid(A, X)
        for ai, xi, o in zip(a.ravel(), x.ravel(), dgammainc_da(a, x).ravel()):
            if xi > ai + 1:         # ∂P/∂a = −∂Q/∂a: mpmath resolves the small one
                ref = -mp.diff(lambda s: mp.gammainc(s, xi, mp.inf, regularized=True), ai)
            else:
                ref = mp.diff(lambda s: mp.gammainc(s, 0, xi, regularized=True), ai)
            if not abs(o - ref) <= 1e-9 * abs(ref):
                failures.append(f"dgammainc_da({ai}, {xi}) = {o}, mpmath {ref}")
        assert dgammainc_da(2.5, 0.0) == 0.0
        V = [-10.0, -2.5, -0.3, 0.7, 1.5, 4.0, 10.0]
        X = [0.05, 0.3, 1.0, 5.0, 20.0, 100.0]
        v, x = np.meshgrid(V, X)
        for vi, xi, o in zip(v.ravel(), x.ravel(), dkv_dv(v, x).ravel()):
            ref = mp.diff(lambda s: mp.besselk(s, xi), vi)
            if not abs(o - ref) <= 1e-9 * abs(ref):
                failures.append(f"dkv_dv({vi}, {xi}) = {o}, mpmath {ref}")
        assert dkv_dv(0.0, 1.3) == 0.0           # K_ν is even in ν
        V = [-3.5, -1.3, -0.5, 0.0, 0.3, 0.7, 1.5, 4.0, 10.0]
        X = [0.05, 0.3, 1.0, 5.0, 20.0, 50.0]
        v, x = np.meshgrid(V, X)
        for vi, xi, o in zip(v.ravel(), x.ravel(), div_dv(v, x).ravel()):
            ref = mp.diff(lambda s: mp.besseli(s, xi), vi) if vi else -mp.besselk(0, xi)
            if not abs(o - ref) <= 1e-9 * abs(ref):
                failures.append(f"div_dv({vi}, {xi}) = {o}, mpmath {ref}")
        X = [0.01, 0.3, 0.5, 0.7, 0.95, 0.99]
        for b in [0.5, 2.5, 40.0]:
            a, x = np.meshgrid([0.5, 1.0, 10.0, 40.0], X)
            da, db = dbetainc_dab(a, b, x)
            for ai, xi, o1, o2 in zip(a.ravel(), x.ravel(), da.ravel(), db.ravel()):
                # differentiate the smaller of I and 1 − I = I_{1−x}(b, a): mpmath resolves it
                small = mp.betainc(ai, b, 0, xi, regularized=True) < 0.5
                I = ((lambda s, t: mp.betainc(s, t, 0, xi, regularized=True)) if small else
                     (lambda s, t: -mp.betainc(t, s, 0, 1 - xi, regularized=True)))
                for o, ref, w in ((o1, mp.diff(lambda s: I(s, b), ai), "a"),
                                  (o2, mp.diff(lambda t: I(ai, t), b), "b")):
                    if not abs(o - ref) <= 1e-9 * abs(ref):
                        failures.append(f"dbetainc_dab({ai}, {b}, {xi}) in {w} = {o}, mpmath {ref}")
    finally:
        mp.mp.dps = 15
    assert not failures, "\n".join(failures)


def test_integer_arguments_get_no_tangent_and_out_is_refused():
    cot = cr.rrule(sp.yn, 2, 0.7)[1](1.0)
    assert cot[1] is NT and cot[2] == pytest.approx(float(sp.yvp(2, 0.7)))
    cot = cr.rrule(sp.eval_hermite, np.array([1, 2]), np.array([0.3, 0.4]))[1](np.ones(2))
    assert cot[1] is NT
    with pytest.raises(TypeError, match="out="):
        cr.rrule(sp.jv, 1.0, np.ones(2), out=np.empty(2))
    assert cr.rrule(sp.exp2, 1.0 + 1j) is None          # a real function: no rule for complex input


def test_third_derivatives_through_chainrules_ad():
    from chainrules import ad
    mp.mp.dps = 30
    try:
        for f, mpf, x in [(lambda u: sp.jv(1.3, u), lambda u: mp.besselj(1.3, u), 0.9),
                          (sp.erfcx, lambda u: mp.exp(u * u) * mp.erfc(u), 0.7),
                          (lambda u: sp.kv(0.4, u), lambda u: mp.besselk(0.4, u), 1.1),
                          (lambda u: sp.betaln(u, 2.0), lambda u: mp.log(mp.beta(u, 2)), 1.5),
                          (lambda u: sp.gammainc(2.5, u), lambda u: mp.gammainc(2.5, 0, u, regularized=True), 1.2)]:
            d3 = ad.derivative(lambda y: ad.derivative(lambda v: ad.derivative(f, v), y), x)
            assert d3 == pytest.approx(float(mp.diff(mpf, x, 3)), rel=1e-8)
    finally:
        mp.mp.dps = 15


def test_kv_log_likelihood_gradient():
    # the docs' example: the log-density of a generalized inverse Gaussian, in its three
    # parameters (kv in its order by quadrature, in x by the recurrence), against mpmath
    from chainrules import ad
    x = np.array([0.5, 1.2, 2.4])

    def loglik(lam, chi, psi):
        norm = lam / 2 * np.log(psi / chi) - np.log(2 * sp.kv(lam, np.sqrt(chi * psi)))
        return np.sum(norm + (lam - 1) * np.log(x) - (chi / x + psi * x) / 2)

    def mp_loglik(lam, chi, psi):
        return mp.fsum(lam / 2 * mp.log(psi / chi) - mp.log(2 * mp.besselk(lam, mp.sqrt(chi * psi)))
                       + (lam - 1) * mp.log(xi) - (chi / xi + psi * xi) / 2 for xi in map(mp.mpf, x))
    g = ad.gradient(loglik, 0.7, 1.3, 2.1)
    mp.mp.dps = 30
    try:
        p = [mp.mpf(0.7), mp.mpf(1.3), mp.mpf(2.1)]
        for i in range(3):
            ref = mp.diff(lambda t: mp_loglik(*(p[:i] + [t] + p[i + 1:])), p[i])
            assert g[i] == pytest.approx(float(ref), rel=1e-10)
    finally:
        mp.mp.dps = 15


# ----- the registry sweep's cases: the main point of every row ----------------------------------

SWEEP_CASES = [Case(f"special-table-{r.name}", r.f, *_args(r, POINTS[r.name][0]), tol=TOL.get(r.name))
               for r in ROWS]
