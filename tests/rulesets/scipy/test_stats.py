"""Tests of the scipy.stats rules (chainrules/rulesets/scipy/stats/): every
method of every distribution through the kit at order 1 (data and every
parameter), at order 2 in the registry sweep (SWEEP_CASES: one case per
method) and on a few points here, the formulas against SciPy's own values,
the keyword spellings and defaults, NoTangent for counts, NaN for invalid
parameters, and JAX's gradients as an oracle where JAX has the function."""

import math

import numpy as np
import pytest

st = pytest.importorskip("scipy.stats")

import chainrules as cr  # noqa: E402
from chainrules.rulesets.scipy.stats import METHODS  # noqa: E402
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule  # noqa: E402

from .._order2 import Case  # noqa: E402

NT = cr.NoTangent()

# ----- the points: shapes, loc, scale and standardized data inside the support -------------

LOC, SCALE = 0.3, 1.7
CONTINUOUS = {
    "norm": ((), [-1.3, 0.2, 1.9]),
    "t": ((3.5,), [-1.3, 0.2, 1.9]),
    "chi2": ((4.5,), [0.7, 2.3, 5.1]),
    "gamma": ((2.5,), [0.6, 1.9, 4.2]),
    "invgamma": ((3.2,), [0.2, 0.5, 1.3]),
    "beta": ((2.3, 3.1), [0.15, 0.4, 0.8]),
    "f": ((5.5, 7.5), [0.4, 1.1, 2.6]),
    "expon": ((), [0.3, 1.1, 2.7]),
    "laplace": ((), [-1.3, 0.4, 1.9]),
    "logistic": ((), [-1.3, 0.2, 1.9]),
    "cauchy": ((), [-1.3, 0.2, 1.9]),
    "uniform": ((), [0.15, 0.5, 0.85]),
    "gumbel_r": ((), [-0.8, 0.3, 1.9]),
    "gumbel_l": ((), [-1.9, -0.3, 0.8]),
    "halfnorm": ((), [0.3, 1.1, 2.2]),
    "halfcauchy": ((), [0.3, 1.1, 2.7]),
    "rayleigh": ((), [0.4, 1.2, 2.3]),
    "lognorm": ((0.7,), [0.5, 1.3, 2.9]),
    "pareto": ((2.7,), [1.2, 1.9, 3.4]),
    "weibull_min": ((1.8,), [0.4, 1.1, 2.1]),
    "vonmises": ((1.7,), [-1.2, 0.3, 2.1]),
    "gennorm": ((1.6,), [-1.3, 0.4, 1.9]),
    "truncnorm": ((-0.7, 1.6), [-0.5, 0.3, 1.2]),
}
# near the domain edges: small and large shapes, data in the tails
EDGES = {
    "t": ((0.7,), [-6.0, 0.05, 9.0]), "gamma": ((0.3,), [0.1, 0.5, 7.0]), "beta": ((0.4, 6.0), [0.08, 0.2, 0.6]),
    "chi2": ((0.8,), [0.05, 1.0, 9.0]), "weibull_min": ((0.6,), [0.05, 1.0, 4.0]),
    "truncnorm": ((0.5, 3.0), [0.6, 1.2, 2.8]), "lognorm": ((2.5,), [0.05, 1.0, 20.0]),
}
DISCRETE = {
    "poisson": ((3.2,), [0, 2, 5]),
    "binom": ((PrimalAndTangent(7, NT), 0.35), [0, 2, 5]),
    "nbinom": ((3.4, 0.45), [0, 2, 5]),
    "geom": ((0.3,), [1, 2, 5]),
    "bernoulli": ((0.35,), [0, 1, 1]),
    "betabinom": ((PrimalAndTangent(7, NT), 2.3, 1.6), [0, 2, 5]),
}
QS = [0.1, 0.45, 0.8]


def _plain(a):
    return a.primal if isinstance(a, PrimalAndTangent) else a


def _args(m, table=None):
    """The positional arguments of method m (a Method of METHODS) at its points."""
    dist, method = m.name.split(".")
    if dist in DISCRETE:
        shapes, ks = DISCRETE[dist]
        if method == "entropy":
            return (*shapes,)
        if method in ("ppf", "isf"):    # a step function of q: 0 between the steps
            return (np.array(QS), *shapes)
        if dist == "bernoulli" and method in ("sf", "logsf"):
            ks = [-1, 0, 0]         # sf = 0 at k = 1: logsf = −inf, no derivative
        return (PrimalAndTangent(np.array(ks), NT), *shapes)
    shapes, zs = (table or CONTINUOUS)[dist]
    if method == "entropy":
        return (*shapes, LOC, SCALE)
    first = np.array(QS) if method in ("ppf", "isf") else LOC + SCALE * np.array(zs)
    return (first, *shapes, LOC, SCALE)


def _tol(m):
    # the series of gammainc/betainc in their parameters, and the quadrature, are accurate to
    # ~1e-9; finite differences of the cdf in a shape parameter to ~1e-7
    return dict(rtol=1e-6, atol=1e-8)


SWEEP_CASES = [Case(f"stats-{m.name}", m.f, *_args(m), tol=_tol(m)) for m in METHODS]

# ----- the multivariate distributions ---------------------------------------------------------

_rng = np.random.default_rng(23)
MV_X = _rng.normal(size=(4, 3))
MV_MEAN = _rng.normal(size=3)
MV_DIAG = np.array([1.3, 0.7, 2.1])
_A = _rng.normal(size=(3, 3))
MV_COV = _A @ _A.T + 3 * np.eye(3)
DIR_ALPHA = np.array([1.5, 2.3, 3.1])
DIR_X = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]).T      # components on the first axis
MN_X = np.array([[1.0, 2.0, 3.0], [2.0, 0.0, 4.0]])
MN_P = np.array([0.2, 0.3, 0.5])
mvn, dirichlet, multinomial = st.multivariate_normal, st.dirichlet, st.multinomial
# (cov as its diagonal: finite differences of SciPy, which reads the lower triangle of a full
# matrix, see a symmetric matrix only along symmetric directions; those are tested below)
SWEEP_CASES += [
    Case("stats-multivariate_normal.logpdf", mvn.logpdf, MV_X, MV_MEAN, MV_DIAG),
    Case("stats-multivariate_normal.pdf", mvn.pdf, MV_X[0], MV_MEAN, 1.7),
    Case("stats-multivariate_normal.entropy", mvn.entropy, MV_MEAN, MV_DIAG),
    # x with its last component implied (SciPy's (k − 1, m) form): finite differences stay on the simplex
    Case("stats-dirichlet.logpdf", dirichlet.logpdf, DIR_X[:2], DIR_ALPHA),
    Case("stats-dirichlet.pdf", dirichlet.pdf, DIR_X[:2], DIR_ALPHA),
    Case("stats-dirichlet.entropy", dirichlet.entropy, DIR_ALPHA),
    Case("stats-multinomial.logpmf", multinomial.logpmf, PrimalAndTangent(MN_X, NT), PrimalAndTangent(6, NT), MN_P),
    Case("stats-multinomial.pmf", multinomial.pmf, PrimalAndTangent(MN_X, NT), PrimalAndTangent(6, NT), MN_P),
]
# Wishart in one dimension (x, scale 1 × 1: symmetric in every direction); 2 × 2 along symmetric
# directions in test_wishart_matrices
SWEEP_CASES += [Case(f"stats-{d}.{m}", getattr(getattr(st, d), m), np.array([0.5, 1.2, 0.8]), 3.5, 0.7)
                for d in ("wishart", "invwishart") for m in ("logpdf", "pdf")]


# ----- the tests --------------------------------------------------------------------------------

def test_every_distribution_has_rules():
    names = {m.name.split(".")[0] for m in METHODS}
    assert names >= set(CONTINUOUS) | set(DISCRETE)
    assert len(names) >= 29
    for m in METHODS:
        assert cr.rrule(m.f, *[_plain(a) for a in _args(m)]) is not None, m


def test_formulas_equal_scipy():
    """The formulas (the primal on tracked values, at order 2) equal SciPy's values."""
    failures = []
    for table in (CONTINUOUS, EDGES):
        for m in METHODS:
            dist = m.name.split(".")[0]
            if dist not in table and dist not in DISCRETE:
                continue
            args = [_plain(a) for a in _args(m, table)]
            want = m.f(*args)
            vals = [np.asarray(a, dtype=float) for a in args] + [np.asarray(m.defaults[p], dtype=float)
                                                                   for p in m.params[len(args):]]
            got = m.value(*vals)
            if not np.allclose(got, want, rtol=1e-9, atol=1e-12):
                failures.append(f"{m.name}: {got} != {want}")
    assert not failures, "\n".join(failures)


def _run(cases, order):
    failures = []
    for c in cases:
        try:
            c.run(order=order)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{c.id}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def test_rules_order1():
    _run(SWEEP_CASES, 1)


def test_rules_near_the_edges_order1():
    _run([Case(f"edge-{m.name}", m.f, *_args(m, EDGES), tol=dict(rtol=1e-5, atol=1e-8))
          for m in METHODS if m.name.split(".")[0] in EDGES], 1)


ORDER2 = ("norm.logpdf", "t.logpdf", "t.cdf", "gamma.cdf", "beta.logpdf", "beta.ppf", "poisson.logpmf",
          "nbinom.cdf", "truncnorm.logpdf", "vonmises.entropy", "vonmises.ppf", "vonmises.isf", "gennorm.logpdf", "binom.pmf")


def test_rules_order2():
    _run([c for c in SWEEP_CASES if c.id.removeprefix("stats-") in ORDER2], 2)


def test_keyword_spellings_and_defaults():
    x = np.array([-0.4, 0.9, 2.2])
    want = st.t.logpdf(x, 3.5, 0.3, 1.7)
    for args, kw in [((x, 3.5, 0.3, 1.7), {}), ((x, 3.5), {"loc": 0.3, "scale": 1.7}),
                     ((x,), {"df": 3.5, "loc": 0.3, "scale": 1.7}), ((x, 3.5, 0.3), {"scale": 1.7})]:
        y, pb = cr.rrule(st.t.logpdf, *args, **kw)
        np.testing.assert_allclose(y, want)
        grads = pb(np.ones(3))
        assert len(grads) == 1 + len(args)
        # keyword arguments get no tangents; the positional ones match the all-positional rule
        np.testing.assert_allclose(grads[1], cr.rrule(st.t.logpdf, x, 3.5, 0.3, 1.7)[1](np.ones(3))[1])
    test_rrule(st.norm.logpdf, x, fkwargs={"scale": 2.0})
    test_rrule(st.norm.cdf, x)          # loc = 0, scale = 1
    test_frule(st.gamma.logpdf, x + 1.0, 2.5, fkwargs={"scale": 0.7})
    with pytest.raises(TypeError, match="scipy.stats.norm.logpdf"):
        cr.rrule(st.norm.logpdf, x, 0.0, 1.0, 2.0)


def test_counts_get_no_tangent():
    _, pb = cr.rrule(st.poisson.logpmf, 3.0, 2.5)
    k̄, μ̄ = pb(1.0)[1:]
    assert k̄ is NT
    np.testing.assert_allclose(μ̄, 3.0 / 2.5 - 1)
    _, pb = cr.rrule(st.binom.pmf, 2, 7.0, 0.3, 1)
    assert pb(1.0)[1] is NT and pb(1.0)[2] is NT and pb(1.0)[4] is NT
    _, ẏ = cr.frule((NT, 1.0, 1.0, 0.0), st.binom.logpmf, 2.0, 7.0, 0.3)
    assert ẏ == 0 or isinstance(ẏ, cr.ZeroTangent)


def test_invalid_parameters_give_nan():
    y, pb = cr.rrule(st.norm.logpdf, np.array([0.5, 1.0]), 0.0, np.array([-1.0, 1.0]))
    assert np.isnan(y[0]) and not np.isnan(y[1])
    x̄ = pb(np.ones(2))[1]
    assert np.isnan(x̄[0]) and np.isfinite(x̄[1])
    y, pb = cr.rrule(st.gamma.logpdf, 1.0, -2.0)
    assert np.isnan(y) and np.isnan(pb(1.0)[2])


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jst = jax.scipy.stats
    x = np.array([0.4, 1.3, 2.6])
    cases = [
        (st.norm.logpdf, jst.norm.logpdf, (x, 0.3, 1.7)), (st.norm.cdf, jst.norm.cdf, (x, 0.3, 1.7)),
        (st.norm.logsf, jst.norm.logsf, (x, 0.3, 1.7)), (st.norm.ppf, jst.norm.ppf, (np.array(QS), 0.3, 1.7)),
        (st.t.logpdf, jst.t.logpdf, (x, 3.5, 0.3, 1.7)), (st.gamma.logpdf, jst.gamma.logpdf, (x, 2.5, 0.1, 1.7)),
        (st.gamma.cdf, jst.gamma.cdf, (x, 2.5, 0.1, 1.7)), (st.beta.logpdf, jst.beta.logpdf, (x / 3, 2.3, 3.1)),
        (st.chi2.logpdf, jst.chi2.logpdf, (x, 4.5, 0.1, 1.3)), (st.expon.logpdf, jst.expon.logpdf, (x, 0.1, 1.3)),
        (st.laplace.cdf, jst.laplace.cdf, (x, 0.1, 1.3)), (st.logistic.logpdf, jst.logistic.logpdf, (x, 0.1, 1.3)),
        (st.cauchy.logpdf, jst.cauchy.logpdf, (x, 0.1, 1.3)), (st.pareto.logpdf, jst.pareto.logpdf, (x + 1, 2.7, 0.0, 1.1)),
        (st.gennorm.logpdf, jst.gennorm.logpdf, (x, 1.6)), (st.vonmises.logpdf, jst.vonmises.logpdf, (x - 1, 1.7)),
        (st.truncnorm.logpdf, jst.truncnorm.logpdf, (x / 3, -0.7, 1.6)),
        (st.poisson.logpmf, jst.poisson.logpmf, (np.array([0.0, 2.0, 5.0]), 3.2)),
        (st.nbinom.logpmf, jst.nbinom.logpmf, (np.array([0.0, 2.0, 5.0]), 3.4, 0.45)),
        (st.geom.logpmf, jst.geom.logpmf, (np.array([1.0, 2.0, 5.0]), 0.3)),
        (st.betabinom.logpmf, jst.betabinom.logpmf, (np.array([0.0, 2.0, 5.0]), 7.0, 2.3, 1.6)),
    ]
    failures = []
    for f, jf, args in cases:
        first = 1 if f.__self__.name in DISCRETE else 0      # the count: no derivative
        skip = {0, 1} if f.__self__.name in ("betabinom", "binom") else ({0} if first else set())
        ours = cr.rrule(f, *args)[1](np.ones(3))[1:]
        live = tuple(i for i in range(len(args)) if i not in skip)
        # one jax.grad per case, in every differentiable argument at once (JAX traces per call)
        gs = jax.jit(jax.grad(lambda *a: jax.numpy.sum(jf(*a)), argnums=live))(
            *[jax.numpy.asarray(a, dtype=float) for a in args])
        for i, g in zip(live, gs):
            # JAX's betaln gradient is good to ~3e-7 here (ours agrees with mpmath to 1e-15:
            # test_betabinom_against_mpmath)
            rtol = 1e-6 if f.__self__.name == "betabinom" else 1e-7
            if not np.allclose(ours[i], np.asarray(g), rtol=rtol, atol=1e-10):
                failures.append(f"{f.__self__.name}.{f.__name__} in argument {i}: {ours[i]} != {np.asarray(g)}")
    assert not failures, "\n".join(failures)


def test_betabinom_against_mpmath():
    # mpmath (30 digits): d/da, d/db of Σ_k log betabinom.pmf(k; 7, a, b) at k = 0, 2, 5, a = 2.3, b = 1.6
    _, pb = cr.rrule(st.betabinom.logpmf, np.array([0.0, 2.0, 5.0]), 7, 2.3, 1.6)
    _, _, _, ā, b̄ = pb(np.ones(3))
    np.testing.assert_allclose([ā, b̄], [-1.28899527531555390149, 1.31483263180826527696], rtol=1e-13)


def _sym(rng, n):
    v = rng.normal(size=(n, n))
    return v + v.T


def test_multivariate_normal_full_cov():
    """A full covariance along symmetric directions (frule against finite differences), the
    pullback against the frule (⟨Σ̄, V⟩ = ΔΩ(V)), JAX's gradient, and allow_singular=True."""
    rng = np.random.default_rng(5)
    for f in (mvn.logpdf, mvn.pdf):
        for _ in range(3):
            test_frule(f, MV_X, MV_MEAN, PrimalAndTangent(MV_COV, _sym(rng, 3)))
        V, ȳ = _sym(rng, 3), rng.normal(size=4)
        _, ẏ = cr.frule((NT, cr.ZeroTangent(), cr.ZeroTangent(), V), f, MV_X, MV_MEAN, MV_COV)
        Σ̄ = cr.rrule(f, MV_X, MV_MEAN, MV_COV)[1](ȳ)[3]
        np.testing.assert_allclose(np.sum(Σ̄ * V), np.dot(ȳ, ẏ), rtol=1e-10)
        np.testing.assert_allclose(Σ̄, Σ̄.T, rtol=1e-12)
    # keywords and defaults
    y, pb = cr.rrule(mvn.logpdf, MV_X, mean=MV_MEAN, cov=MV_COV)
    np.testing.assert_allclose(y, mvn.logpdf(MV_X, MV_MEAN, MV_COV))
    np.testing.assert_allclose(pb(np.ones(4))[1], cr.rrule(mvn.logpdf, MV_X, MV_MEAN, MV_COV)[1](np.ones(4))[1])
    test_rrule(mvn.logpdf, MV_X[:, 0])                  # mean 0, cov 1, dim 1


def test_multivariate_normal_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jmvn = jax.scipy.stats.multivariate_normal
    ours = cr.rrule(mvn.logpdf, MV_X, MV_MEAN, MV_COV)[1](np.ones(4))[1:]
    for i in range(3):
        args = [MV_X, MV_MEAN, MV_COV]
        g = jax.grad(lambda v: jax.numpy.sum(jmvn.logpdf(*[v if j == i else args[j] for j in range(3)])))(args[i])
        g = np.asarray(g)
        if i == 2:
            g = 0.5 * (g + g.T)         # JAX reads the lower triangle (Cholesky): its symmetric part
        np.testing.assert_allclose(ours[i], g, rtol=1e-9, atol=1e-12)


def test_multivariate_normal_singular():
    """allow_singular=True: a rank-2 covariance in 3-d, x in its range; derivatives at fixed rank
    along directions that keep the rank and the support (tangents in the range)."""
    rng = np.random.default_rng(7)
    B = rng.normal(size=(3, 2))
    S = B @ B.T
    x = MV_MEAN + rng.normal(size=(4, 2)) @ B.T
    kw = {"allow_singular": True}
    y, pb = cr.rrule(mvn.logpdf, x, MV_MEAN, S, **kw)
    np.testing.assert_allclose(y, mvn.logpdf(x, MV_MEAN, S, **kw))
    x̄, m̄, Σ̄ = pb(np.ones(4))[1:4]
    # tangents in the range of Σ: ẋ = B u, Σ̇ = B W Bᵀ + (B W Bᵀ)ᵀ (rank and range kept)
    for _ in range(3):
        ẋ = rng.normal(size=(4, 2)) @ B.T
        W = rng.normal(size=(2, 2))
        Σ̇ = B @ W @ B.T
        Σ̇ = Σ̇ + Σ̇.T
        fd = (mvn.logpdf(x + 1e-6 * ẋ, MV_MEAN, S + 1e-6 * Σ̇, **kw)
              - mvn.logpdf(x - 1e-6 * ẋ, MV_MEAN, S - 1e-6 * Σ̇, **kw)) / 2e-6
        _, ẏ = cr.frule((NT, ẋ, cr.ZeroTangent(), Σ̇), mvn.logpdf, x, MV_MEAN, S, **kw)
        np.testing.assert_allclose(ẏ, fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(np.sum(x̄ * ẋ) + np.sum(Σ̄ * Σ̇), np.sum(fd), rtol=1e-6)


def test_dirichlet_full_form():
    """x with all k components: the frule along the simplex (tangents summing to zero) against
    finite differences, the pullback against the frule."""
    rng = np.random.default_rng(3)
    for f in (dirichlet.logpdf, dirichlet.pdf):
        ẋ = rng.normal(size=DIR_X.shape)
        ẋ -= ẋ.mean(axis=0)
        test_frule(f, PrimalAndTangent(DIR_X, ẋ), DIR_ALPHA)
        ȳ = rng.normal(size=2)
        x̄, ᾱ = cr.rrule(f, DIR_X, DIR_ALPHA)[1](ȳ)[1:]
        _, ẏ = cr.frule((NT, ẋ, cr.ZeroTangent()), f, DIR_X, DIR_ALPHA)
        np.testing.assert_allclose(np.sum(x̄ * ẋ), np.dot(ȳ, ẏ), rtol=1e-10)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    g = jax.grad(lambda a: jax.numpy.sum(jax.scipy.stats.dirichlet.logpdf(DIR_X, a)))(DIR_ALPHA)
    np.testing.assert_allclose(cr.rrule(dirichlet.logpdf, DIR_X, DIR_ALPHA)[1](np.ones(2))[2], g, rtol=1e-10)


def test_multivariate_order2():
    _run([c for c in SWEEP_CASES if c.id.split("-", 1)[1].split(".")[0]
          in ("multivariate_normal", "dirichlet", "multinomial", "wishart", "invwishart")], 2)


# ----- the frozen spelling: st.t(df, loc, scale).logpdf(x) --------------------------------------

def _self_cotangent(s̄, frozen):
    obj = s̄["__self__"]
    return [obj["args"][i] for i in range(len(frozen.args))], {k: obj["kwds"][k] for k in frozen.kwds}


def test_frozen_spelling():
    """Each frozen method: the value and the data cotangent equal the unfrozen rule's, the
    parameters' cotangents (in ∂self) equal finite differences, and the frule with a Δself
    of the same form agrees with the pullback."""
    from chainrules.finite_differences import central_fdm
    fdm = central_fdm(5, 1)
    rng = np.random.default_rng(11)
    failures = []
    for m in METHODS:
        dist, method = m.name.split(".")
        args = [_plain(a) for a in _args(m)]
        ndata = 0 if method == "entropy" else 1
        data, params = args[:ndata], args[ndata:]
        # the last parameter given by keyword (scale, or a discrete distribution's last shape)
        kw = {m.params[ndata + len(params) - 1]: params[-1]} if params else {}
        pos = params[:-1] if kw else params
        frozen = getattr(st, dist)(*pos, **kw)
        f = getattr(frozen, method)
        try:
            y, pb = cr.rrule(f, *data)
            np.testing.assert_allclose(y, m.f(*args), rtol=1e-12)
            ȳ = rng.normal(size=np.shape(y))
            s̄, *d̄ = pb(ȳ)
            want = cr.rrule(m.f, *args)[1](ȳ)
            for a, b in zip(d̄, want[1:1 + ndata]):
                assert a is b if isinstance(b, cr.NoTangent) else np.allclose(a, b, rtol=1e-12)
            ā, k̄ = _self_cotangent(s̄, frozen)
            for i, v in enumerate(pos):
                if isinstance(want[1 + ndata + i], cr.NoTangent):
                    assert isinstance(ā[i], cr.NoTangent)
                    continue
                fd = fdm(lambda t: np.sum(ȳ * getattr(getattr(st, dist)(*pos[:i], t, *pos[i + 1:], **kw), method)(*data)),
                         float(v))
                np.testing.assert_allclose(ā[i], fd, rtol=1e-6, atol=1e-8)
            for k, v in kw.items():
                if not isinstance(k̄[k], cr.NoTangent):
                    fd = fdm(lambda t: np.sum(ȳ * getattr(getattr(st, dist)(*pos, **{k: t}), method)(*data)), float(v))
                    np.testing.assert_allclose(k̄[k], fd, rtol=1e-6, atol=1e-8)
            # the frule along the same parameter directions: ⟨ȳ, ΔΩ⟩ = ⟨s̄, Δself⟩
            dirs = [0.0 if isinstance(a, cr.NoTangent) else rng.normal() for a in ā]
            kdirs = {k: 0.0 if isinstance(k̄[k], cr.NoTangent) else rng.normal() for k in k̄}
            Δ = cr.Tangent[type(f)](__self__=cr.Tangent[type(frozen)](args=cr.Tangent[tuple](*dirs),
                                                                         kwds=cr.Tangent[dict](**kdirs)))
            _, ẏ = cr.frule((Δ, *[cr.ZeroTangent()] * ndata), f, *data)
            lhs = np.sum(ȳ * ẏ)
            rhs = sum(d * a for d, a in zip(dirs, ā) if d) + sum(kdirs[k] * k̄[k] for k in kdirs if kdirs[k])
            np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-12)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{m.name}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def test_frozen_rule_declines_other_bound_methods():
    class A:
        def m(self, x):
            return 2 * x
    assert cr.rrule(A().m, 1.0) is None
    assert cr.frule((NT, 1.0), A().m, 1.0) is None
    assert cr.rrule(st.multivariate_normal(np.zeros(2)).logpdf, np.ones(2)) is None


def test_fast_primal_equals_scipy_and_fused_partials_equal_the_formulas():
    """The log-densities' own primal on plain values (the formula with SciPy's masks) equals
    SciPy's at ordinary points, outside the support, at invalid parameters and NaN data; the
    fused partials (t) equal the separate formulas."""
    failures = []
    for m in METHODS:
        if m.fast is None:
            continue
        dist = m.name.split(".")[0]
        shapes, zs = CONTINUOUS[dist]
        x = LOC + SCALE * np.array(zs + [-50.0, 50.0, np.nan])
        for shp, scale in [(shapes, SCALE), (shapes, -1.0), (tuple(-abs(s) for s in shapes), SCALE)]:
            args = (x, *shp, LOC, scale)
            with np.errstate(all="ignore"):
                want = m.f(*args)
                got, ds = m.fast(*[np.asarray(a, dtype=float) for a in args])
            if not np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True):
                failures.append(f"{m.name}{(shp, scale)}: {got} != {want}")
        if m.name in ("t.logpdf", "t.pdf"):
            vals = [np.asarray(a, dtype=float) for a in _args(m)]
            Ω, ds = m.fast(*vals)
            for a, b in zip(ds, m.partials(*vals, Ω)):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert not failures, "\n".join(failures)


def test_through_the_adapters():
    """to_jax and to_torch run the rules on the host (their bodies are NumPy/SciPy): jax.grad
    (eager and jitted) and torch's backward give the rule's cotangents."""
    x = np.array([0.4, 1.3, 2.6])
    want = cr.rrule(st.t.logpdf, x, 3.5, 0.3, 1.7)[1](np.ones(3))
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from chainrules.interop import to_jax, to_torch
    f = to_jax(st.t.logpdf)
    g = jax.grad(lambda d, s: jax.numpy.sum(f(jax.numpy.asarray(x), d, 0.3, s)), argnums=(0, 1))
    for grad in (g, jax.jit(g)):
        np.testing.assert_allclose(np.asarray(grad(3.5, 1.7)), [want[2], want[4]], rtol=1e-12)
    torch = pytest.importorskip("torch")
    a = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    to_torch(st.gamma.cdf)(torch.tensor(x, dtype=torch.float64), a).sum().backward()
    np.testing.assert_allclose(a.grad.item(), cr.rrule(st.gamma.cdf, x, 2.5)[1](np.ones(3))[2], rtol=1e-12)


def test_wishart_matrices():
    """2 × 2 Wishart and inverse Wishart, one matrix and a stack: the frule along symmetric
    directions against finite differences, the pullback against the frule."""
    rng = np.random.default_rng(1)
    X = np.array([[2.0, 0.3], [0.3, 1.0]])
    S = np.array([[1.0, 0.2], [0.2, 0.5]])
    Xs = np.stack([X, 1.5 * X + 0.2 * np.eye(2)], -1)
    for f in (st.wishart.logpdf, st.wishart.pdf, st.invwishart.logpdf, st.invwishart.pdf):
        for _ in range(2):
            test_frule(f, PrimalAndTangent(X, _sym(rng, 2)), 4.5, PrimalAndTangent(S, _sym(rng, 2)))
            test_frule(f, PrimalAndTangent(Xs, np.stack([_sym(rng, 2), _sym(rng, 2)], -1)), 4.5,
                       PrimalAndTangent(S, _sym(rng, 2)))
        ȳ = rng.normal(size=2)
        V, W = np.stack([_sym(rng, 2), _sym(rng, 2)], -1), _sym(rng, 2)
        g = cr.rrule(f, Xs, 4.5, S)[1](ȳ)
        _, ẏ = cr.frule((NT, V, 0.7, W), f, Xs, 4.5, S)
        np.testing.assert_allclose(np.sum(g[1] * V) + g[2] * 0.7 + np.sum(g[3] * W), np.dot(ȳ, ẏ), rtol=1e-10)
        np.testing.assert_allclose(g[3], g[3].T, rtol=1e-12)


def test_at_the_edges_of_the_domains():
    """Data at the edge of the support and parameters at the edge of their domain: the one-sided
    limit where the log-density's slope has one (the xlogy convention: a zero coefficient of a
    log makes no slope), NaN where SciPy's value is NaN (JAX gives NaN at most of these)."""
    cases = [
        (st.gamma.logpdf, (0.0, 1.0, 0.0, 2.0), 1, -0.5),       # exponential at x = 0: -1/scale
        (st.chi2.logpdf, (0.0, 2.0, 0.0, 1.0), 1, -0.5),
        (st.beta.logpdf, (0.0, 1.0, 2.0), 1, -1.0),
        (st.beta.logpdf, (1.0, 2.0, 1.0), 1, 1.0),
        (st.expon.logpdf, (0.0, 0.0, 1.5), 1, -1 / 1.5),
        (st.pareto.logpdf, (1.0, 2.0), 1, -3.0),
        (st.poisson.logpmf, (0.0, 0.0), 2, -1.0),              # μ = 0: the one-sided limit
        (st.bernoulli.logpmf, (1.0, 1.0), 2, 1.0),             # p = 1
        (st.geom.logpmf, (1.0, 1.0), 2, 1.0),
        (st.nbinom.logpmf, (0.0, 2.5, 1.0), 3, 2.5),
        (st.binom.logpmf, (7.0, 7, 1.0), 3, 7.0),
        (st.gamma.logpdf, (1.0, 0.0), 2, np.nan),               # a = 0: SciPy's NaN
        (st.norm.logpdf, (1.0, 0.0, 0.0), 3, np.nan),           # scale = 0
    ]
    for f, args, i, want in cases:
        _, pb = cr.rrule(f, *args)
        got = pb(1.0)[i]
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{f.__self__.name}.{f.__name__}{args}")


def test_truncnorm_far_in_the_tails():
    """[40, 50] and [−50, −40]: Φ(b) − Φ(a) underflows; its log by log_ndtr keeps the value, the
    derivatives in a and b and the cdf finite and equal to SciPy's and to finite differences."""
    from chainrules.finite_differences import central_fdm
    fdm = central_fdm(5, 1)
    for x, a, b in [(41.0, 40.0, 50.0), (-41.0, -50.0, -40.0), (40.5, 40.0, 50.0)]:
        for f in (st.truncnorm.logpdf, st.truncnorm.cdf):
            y, pb = cr.rrule(f, x, a, b)
            np.testing.assert_allclose(y, f(x, a, b), rtol=1e-12)
            _, x̄, ā, b̄ = pb(1.0)
            np.testing.assert_allclose([x̄, ā], [fdm(lambda t: f(t, a, b), x), fdm(lambda t: f(x, t, b), a)],
                                       rtol=1e-6, atol=1e-12)
            assert np.isfinite(b̄)


def test_vonmises_cdf_and_the_summed_discrete_methods():
    # the von Mises cdf by quadrature and its κ-derivative against mpmath's quadrature
    mp = pytest.importorskip("mpmath")
    from chainrules.rulesets.scipy.special_series import vonmises_cdf
    for k in (0.05, 1.5, 50.0):
        A = mp.besseli(1, k) / mp.besseli(0, k)
        p = lambda t, k=k: mp.exp(k * mp.cos(t)) / (2 * mp.pi * mp.besseli(0, k))
        for z in (-2.0, 0.7, 3.0):
            cdf = mp.quad(p, [-mp.pi, z])
            dk = mp.quad(lambda t: (mp.cos(t) - A) * p(t), [-mp.pi, z])
            assert float(vonmises_cdf(z, k, False)) == pytest.approx(float(cdf), abs=1e-13)
            assert float(vonmises_cdf(z, k, True)) == pytest.approx(float(dk), abs=1e-13)
        assert float(vonmises_cdf(7.0, k, False)) == pytest.approx(1 + float(mp.quad(p, [-mp.pi, 7.0 - 2 * mp.pi])))
    # entropies as sums over the support equal SciPy's; betabinom's cdf/sf as sums of its pmf
    for d, th in [(st.poisson, (3.5,)), (st.binom, (10, 0.3)), (st.nbinom, (5.5, 0.4)),
                  (st.betabinom, (10, 2.0, 3.5)), (st.f, (3.0, 5.0))]:
        assert cr.rrule(d.entropy, *th)[0] == pytest.approx(d.entropy(*th), rel=1e-13)
    ks = np.array([0.0, 3.0, 7.5, 12.0])
    m = next(m for m in METHODS if m.name == "betabinom.cdf")
    np.testing.assert_allclose(m.value(ks, np.asarray(10), 2.0, 3.5, 0.0), st.betabinom.cdf(ks, 10, 2.0, 3.5),
                               rtol=1e-13)
    # a discrete ppf is a step function: 0 between the steps, in q and the parameters
    y, pb = cr.rrule(st.poisson.ppf, np.array([0.2, 0.7]), 3.5)
    assert list(y) == [2.0, 4.0]
    _, q̄, μ̄ = pb(np.ones(2))
    assert np.all(q̄ == 0) and μ̄ == 0
