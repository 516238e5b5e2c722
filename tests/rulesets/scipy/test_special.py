"""Tests of chainrules/rulesets/scipy/special.py through chainrules.testing:
the ufuncs on scalars, arrays (broadcast pairs for xlogy/xlog1py), float32 and
complex where holomorphic; logsumexp (axis, keepdims, b, return_sign),
softmax and log_softmax (axis); the xlogy(0, y) convention."""

import numpy as np
import pytest
import scipy.special as sp

import chainrules as cr
from chainrules import NoTangent, ZeroTangent
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule, test_scalar

NT = NoTangent()


def rand(seed, *shape, dtype=np.float64, low=None, high=None):
    rng = np.random.default_rng(seed)
    if low is not None:
        x = rng.uniform(low, high, shape)
    else:
        x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(f, *args, fkwargs=None, rtol=None, atol=None):
    test_frule(f, *args, fkwargs=fkwargs, rtol=rtol, atol=atol)
    test_rrule(f, *args, fkwargs=fkwargs, rtol=rtol, atol=atol)


# (function, domain (low, high), holomorphic for complex input)
UNARY = [
    (sp.gammaln, (0.5, 4.0), False),
    (sp.gamma, (0.5, 3.0), True),
    (sp.digamma, (0.5, 4.0), False),
    (sp.erf, (-2.0, 2.0), True),
    (sp.erfc, (-2.0, 2.0), True),
    (sp.erfinv, (-0.9, 0.9), False),
    (sp.erfcinv, (0.1, 1.9), False),
    (sp.ndtr, (-3.0, 3.0), False),
    (sp.log_ndtr, (-3.0, 3.0), False),
    (sp.ndtri, (0.05, 0.95), False),
    (sp.expit, (-4.0, 4.0), False),
    (sp.log_expit, (-4.0, 4.0), False),
    (sp.logit, (0.05, 0.95), False),
    (sp.entr, (0.1, 3.0), False),
]


@pytest.mark.parametrize("f,domain,holomorphic", UNARY, ids=[u[0].__name__ for u in UNARY])
def test_unary(f, domain, holomorphic):
    lo, hi = domain
    x = 0.5 * (lo + hi) + 0.123
    test_scalar(f, x)
    check(f, rand(1, 3, 4, low=lo, high=hi))
    check(f, np.float32(x))
    check(f, np.array(x))                     # 0-d
    check(f, np.full((0, 2), x))              # empty
    check(f, rand(2, 5, low=lo, high=hi, dtype=np.float32))
    if holomorphic:
        test_scalar(f, complex(x, 0.3))
        check(f, (rand(3, 4, low=lo, high=hi) + 0.2j * rand(4, 4)).astype(np.complex128))
    else:
        assert cr.rrule(f, np.array([x + 0.1j])) is None


def test_psi_is_digamma_and_polygamma():
    test_scalar(sp.psi, 1.7)
    check(sp.polygamma, PrimalAndTangent(1, NT), rand(1, 4, low=0.5, high=3.0))
    check(sp.polygamma, PrimalAndTangent(np.array([0, 1, 2]), NT), rand(1, 2, 3, low=0.5, high=3.0))


@pytest.mark.parametrize("f", [sp.xlogy, sp.xlog1py])
def test_xlogy_xlog1py(f):
    check(f, 1.3, 2.1)
    check(f, rand(1, 3, 4), rand(2, 4, low=0.2, high=3.0))
    check(f, rand(1, 3, 1), rand(2, 1, 4, low=0.2, high=3.0))
    check(f, rand(1, 4, dtype=np.float32), rand(2, 4, low=0.2, high=3.0, dtype=np.float32))
    check(f, rand(1, 4, dtype=np.complex128), (rand(2, 4, low=0.5, high=2.0) + 0.3j).astype(np.complex128))


@pytest.mark.parametrize("f,log", [(sp.xlogy, np.log), (sp.xlog1py, np.log1p)])
def test_xlogy_at_x_zero(f, log):
    # xlogy(0, y) = 0 for every y: no derivative in y, log(y) in x; no NaN at y = 0 (or y = −1)
    x = np.array([0.0, 0.0, 2.0])
    y = np.array([0.0, 3.0, 3.0]) - (1.0 if f is sp.xlog1py else 0.0)
    _, pb = cr.rrule(f, x, y)
    _, x̄, ȳ = pb(np.ones(3))
    np.testing.assert_array_equal(ȳ, [0.0, 0.0, 2.0 / (y[2] + (f is sp.xlog1py))])
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(x̄, log(y))
    _, ż = cr.frule((NT, np.zeros(3), np.ones(3)), f, x, y)
    assert not np.any(np.isnan(ż))
    check(f, PrimalAndTangent(np.array([0.0, 1.5]), np.zeros(2)), np.array([2.0, 0.7]))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), ((0, 2), False), (-1, True)])
def test_logsumexp(axis, keepdims):
    check(sp.logsumexp, rand(1, 3, 4, 2), fkwargs={"axis": axis, "keepdims": keepdims})


def test_logsumexp_weights_sign_and_complex():
    a, b = rand(1, 3, 4), rand(2, 3, 4, low=0.2, high=2.0)
    check(sp.logsumexp, a, PrimalAndTangent(1, NT), b)
    check(sp.logsumexp, a, PrimalAndTangent(None, NT), rand(2, 4, low=0.2, high=2.0))   # b broadcast
    check(sp.logsumexp, a, fkwargs={"axis": 0, "b": b})                                 # keyword b: no tangent
    b_mixed = np.array([[1.0, -0.5, 2.0, 0.3]] * 3)
    check(sp.logsumexp, a, PrimalAndTangent(1, NT), b_mixed, PrimalAndTangent(False, NT),
          PrimalAndTangent(True, NT))
    check(sp.logsumexp, rand(1, 5, dtype=np.complex128))
    check(sp.logsumexp, rand(1, 3, 4, dtype=np.float32), fkwargs={"axis": 1})
    test_scalar(sp.logsumexp, 0.7)


def test_logsumexp_of_empty_slices_is_not_nan():
    a = np.array([[-np.inf, -np.inf], [0.0, 1.0]])
    _, pb = cr.rrule(sp.logsumexp, a, 1)
    ā = pb(np.ones(2))[1]
    assert np.all(np.isfinite(ā)) and np.all(ā[0] == 0)


@pytest.mark.parametrize("f", [sp.softmax, sp.log_softmax])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_softmax_log_softmax(f, axis):
    check(f, rand(1, 3, 4), fkwargs={"axis": axis})
    check(f, rand(1, 3, 4, dtype=np.float32), fkwargs={"axis": axis})


def test_softmax_positional_axis_and_zero_seed():
    check(sp.softmax, rand(1, 3, 4), PrimalAndTangent(1, NT))
    check(sp.log_softmax, rand(1, 5))
    _, pb = cr.rrule(sp.softmax, rand(1, 3))
    assert pb(ZeroTangent()) == (NT, ZeroTangent())


def test_ufunc_out_is_rejected():
    with pytest.raises(TypeError, match="out="):
        cr.rrule(sp.erf, np.ones(2), out=np.empty(2))


# Order 2 (the rules differentiated by chainrules.ad): the derivatives of digamma and
# polygamma are computed through the Hurwitz zeta ufunc, which has a rule; logsumexp,
# softmax and log_softmax compute their primal with NumPy functions on tracked values.
ORDER2 = [
    ("digamma", sp.digamma, (rand(1, 2, 3, low=0.5, high=3.0),), {}),
    ("psi", sp.psi, (rand(2, 4, low=0.5, high=3.0),), {}),
    ("polygamma", sp.polygamma, (PrimalAndTangent(np.array([0, 1, 2]), NT), rand(3, 2, 3, low=0.5, high=3.0)), {}),
    ("zeta", sp.zeta, (np.array([2.0, 3.5]), rand(4, 2, low=0.5, high=3.0)), {}),
    ("logsumexp", sp.logsumexp, (rand(5, 3, 4),), {"axis": 1}),
    ("logsumexp-b", sp.logsumexp, (rand(6, 3, 4), PrimalAndTangent(0, NT), rand(7, 3, 4, low=0.2, high=2.0)), {}),
    ("logsumexp-complex", sp.logsumexp, (rand(8, 5, dtype=np.complex128),), {}),
    ("softmax", sp.softmax, (rand(9, 3, 4),), {"axis": 0}),
    ("log_softmax", sp.log_softmax, (rand(10, 3, 4),), {"axis": None}),
]


@pytest.mark.parametrize("f,args,kw", [c[1:] for c in ORDER2], ids=[c[0] for c in ORDER2])
def test_order_two(f, args, kw):
    test_frule(f, *args, fkwargs=kw, order=2)
    test_rrule(f, *args, fkwargs=kw, order=2)


def test_third_derivatives_of_digamma_and_polygamma():
    from chainrules import ad
    polygamma = ad.wrap(sp.polygamma)           # a Python function: through its rule
    for f, x in [(sp.digamma, 1.3), (lambda u: polygamma(1, u), 0.8)]:
        d3 = ad.derivative(lambda y: ad.derivative(lambda u: ad.derivative(f, u), y), x)
        n = 3 if f is sp.digamma else 4                      # f''' = polygamma(n, x)
        assert d3 == pytest.approx(float(sp.polygamma(n, x)), rel=1e-10)


def test_zeta_in_s_and_q_against_mpmath():
    # ∂ζ/∂s by its own series (Euler–Maclaurin; the functional equation below 0), ∂ζ/∂q = −sζ(s+1, q):
    # Hurwitz's ζ(s, q), Riemann's ζ(x) (also below 1, through the analytic continuation) and zetac
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    from chainrules.rulesets.scipy.special_series import dzeta_ds
    for s, q in [(1.05, 0.05), (1.5, 0.5), (2.0, 1.0), (3.7, 2.5), (10.0, 0.1), (25.0, 30.0), (60.0, 100.0),
                 (4.0, 100.0), (1.2, 7.0)]:
        assert float(dzeta_ds(s, q)) == pytest.approx(float(mp.zeta(s, q, 1)), rel=1e-9), (s, q)
    for x in [-60.0, -33.3, -9.5, -4.0, -2.5, -2.0, -1.0, -0.5, -1e-3, 0.0, 0.3, 0.99, 1.01, 2.0, 25.0]:
        assert float(dzeta_ds(x, 1.0)) == pytest.approx(float(mp.zeta(x, 1, 1)), rel=1e-9), x
    assert np.isnan(dzeta_ds(0.5, 2.0)) and np.isnan(dzeta_ds(2.0, -1.0))        # SciPy's NaN there
    _, ẏ = cr.frule((NT, 1.0, 0.0), sp.zeta, 2.5, 1.5)
    assert ẏ == pytest.approx(float(mp.zeta(2.5, 1.5, 1)), rel=1e-10)
    _, s̄, q̄ = cr.rrule(sp.zeta, 2.5, 1.5)[1](1.0)
    assert s̄ == pytest.approx(float(mp.zeta(2.5, 1.5, 1)), rel=1e-10)
    assert q̄ == pytest.approx(-2.5 * float(sp.zeta(3.5, 1.5)))
    assert cr.rrule(sp.zeta, 2.5, 1.5)[1](cr.ZeroTangent())[1] == cr.ZeroTangent()
    # Riemann's (one argument; a keyword q is a constant) and zetac, at order 1 and 2
    x = np.array([-3.3, 0.4, 2.2])
    for f in (sp.zeta, sp._ufuncs._riemann_zeta, sp.zetac):
        test_rrule(f, x, order=2)
        test_frule(f, x, order=2)
    assert cr.rrule(sp.zeta, 3.0, q=2.0)[1](1.0)[1] == pytest.approx(float(mp.zeta(3, 2, 1)), rel=1e-10)
    test_rrule(sp.zeta, 3.3, 1.7, order=2)
    from chainrules import ad
    d2 = ad.derivative(lambda t: ad.derivative(ad.wrap(sp.zeta), t), -3.5)
    assert d2 == pytest.approx(float(mp.zeta(-3.5, 1, 2)), rel=1e-9)
