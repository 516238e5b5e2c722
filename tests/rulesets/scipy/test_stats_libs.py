"""The scipy.stats rules on jax.scipy.stats (rulesets/scipy/stats/libs.py):
for every registered method, the rrule and frule on JAX arrays agree with
the NumPy rule on the same values and with `jax.grad` of JAX's own function
where JAX differentiates it, and with finite differences (the kit, on JAX)
where it does not; they trace under `jax.jit`; order 2 through the kit's
`backend=`; the shape derivatives by the parameter series of the incomplete
gamma and beta functions run on JAX (under jax.jit too); invalid parameters give NaN as the primal; the docs' table is
current."""

import pathlib

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import jax.scipy.stats  # noqa: E402,F401  (the import registers the rules)

from chainrules.rulesets.scipy.stats import libs as L  # noqa: E402

from .test_stats import _args, _plain  # noqa: E402

LABEL = "jax.scipy.stats"
NT = cr.NoTangent()
# JAX's own values: its betaln (betabinom) to ~1e-7
VALUE_RTOL = {"betabinom": 1e-6}
# the library's own gradient where it is less accurate than ours (betaln's, see test_stats_jax.py)
GRAD_RTOL = {"betabinom": 1e-6}


def _methods():
    return sorted(L.REGISTERED[LABEL])


def _method(name):
    from chainrules.rulesets.scipy.stats import METHODS
    return next(m for m in METHODS if m.name == name)


def _case(name):
    """(the Method, JAX's function, its positional arguments on NumPy (the kit's
    PrimalAndTangent for counts), the same as JAX arrays)."""
    m, fn = _method(name), L.REGISTERED[LABEL][name]
    n = len(L._lib_params(fn, m))
    args = list(_args(m))[:n]
    jargs = [jnp.asarray(_plain(a)) if i in m.ints else jnp.asarray(_plain(a), dtype=float)
             for i, a in enumerate(args)]
    return m, fn, args, jargs


def test_registered():
    # every method JAX has is registered or listed with the reason
    names = {m.name for m in __import__("chainrules.rulesets.scipy.stats", fromlist=["METHODS"]).METHODS}
    have = {n for n in names if getattr(getattr(jax.scipy.stats, n.split(".")[0], None), n.split(".")[1], None)}
    assert have == set(L.REGISTERED[LABEL]) | set(L.SKIPPED[LABEL])
    assert len(L.REGISTERED[LABEL]) >= 80


@pytest.mark.parametrize("name", _methods())
def test_rule_on_jax_agrees_with_numpy(name):
    """The rule on JAX arrays computes what the NumPy rule (checked by the kit, and
    against jax.grad in test_stats_jax.py) computes, in every argument."""
    m, fn, args, jargs = _case(name)
    plain = [_plain(a) for a in args]
    y0, pb0 = cr.rrule(m.f, *plain)
    y, pb = cr.rrule(fn, *jargs)
    assert isinstance(y, jax.Array)
    # the partials computed with JAX's functions agree with NumPy's as JAX's values do with SciPy's
    rtol = VALUE_RTOL.get(name.split(".")[0], 1e-9)
    np.testing.assert_allclose(np.asarray(y), y0, rtol=rtol, atol=1e-12)
    got, want = pb(jnp.ones(np.shape(y0))), pb0(np.ones(np.shape(y0)))
    live = []
    for i, p in enumerate(m.params[:len(args)]):
        if i in m.ints:
            assert got[i + 1] is NT
        else:
            assert isinstance(got[i + 1], jax.Array)
            np.testing.assert_allclose(np.asarray(got[i + 1]), want[i + 1], rtol=rtol, atol=1e-12,
                                       err_msg=f"{name}: cotangent of {p}")
            live.append(i)
    # the pushforward along every live argument at once
    tangents = [cr.ZeroTangent()] * len(args)
    for i in live:
        tangents[i] = np.linspace(0.5, 1.5, np.size(plain[i])).reshape(np.shape(plain[i]))
    _, ẏ = cr.frule((NT, *[t if isinstance(t, cr.ZeroTangent) else jnp.asarray(t) for t in tangents]), fn, *jargs)
    np.testing.assert_allclose(np.asarray(ẏ), cr.frule((NT, *tangents), m.f, *plain)[1], rtol=rtol, atol=1e-12,
                               err_msg=f"{name}: the pushforward")


# against JAX's own gradient (one method per family of formulas; every method is compared with
# jax.grad through the NumPy rule in test_stats_jax.py), and the kit's finite differences on JAX
# arrays where JAX has no derivative (gumbel's log-densities: float0 tangents)
AGAINST_JAX = ["norm.logpdf", "norm.cdf", "norm.ppf", "t.logpdf", "gamma.logpdf", "beta.logpdf", "chi2.sf",
               "cauchy.isf", "pareto.logsf", "vonmises.logpdf", "poisson.logpmf", "binom.pmf", "nbinom.logpmf",
               "bernoulli.logpmf", "geom.logpmf", "uniform.cdf"]
KIT_ONLY = ["gumbel_r.logpdf", "gumbel_l.pdf", "gennorm.cdf", "gamma.cdf"]


@pytest.mark.parametrize("name", AGAINST_JAX + KIT_ONLY)
def test_rule_on_jax_against_jax_grad_and_finite_differences(name):
    m, fn, args, jargs = _case(name)
    live = [i for i in range(len(args)) if i not in m.ints]
    y, pb = cr.rrule(fn, *jargs)
    got = pb(jnp.ones(np.shape(y)))
    if name in KIT_ONLY:
        test_rrule(m.f, *args, backend="jax.numpy", backend_f=fn, rtol=1e-6, atol=1e-8)
        test_frule(m.f, *args, backend="jax.numpy", backend_f=fn, rtol=1e-6, atol=1e-8)
        return

    def total(*xs):
        return jnp.sum(fn(*[xs[live.index(i)] if i in live else v for i, v in enumerate(jargs)]))
    gs = jax.grad(total, argnums=tuple(range(len(live))))(*[jargs[i] for i in live])
    for i, g in zip(live, gs):
        np.testing.assert_allclose(np.asarray(got[i + 1]), np.asarray(g), rtol=GRAD_RTOL.get(name.split(".")[0], 1e-7),
                                   atol=1e-10, err_msg=f"{name}: ours and jax.grad in {m.params[i]}")


# order 2 on JAX arrays: the kit differentiates the rule itself (chainrules.ad over jax.numpy)
ORDER2 = ["norm.logpdf", "t.logpdf", "gamma.logpdf", "beta.cdf", "poisson.logpmf", "truncnorm.logpdf",
          "norm.ppf", "gamma.cdf"]


@pytest.mark.parametrize("name", ORDER2)
def test_order2_on_jax(name):
    if name not in L.REGISTERED[LABEL]:
        pytest.fail(f"{name} is not registered on {LABEL}: {L.SKIPPED[LABEL].get(name)}")
    m, fn, args, _ = _case(name)
    # the parameters as arrays (the data's shape): chainrules.ad tracks them as JAX arrays
    args = [a if isinstance(a, PrimalAndTangent) or np.ndim(a) else np.full(3, float(a)) for a in args]
    test_frule(m.f, *args, backend="jax.numpy", backend_f=fn, order=2, rtol=1e-6, atol=1e-8)
    test_rrule(m.f, *args, backend="jax.numpy", backend_f=fn, order=2, rtol=1e-6, atol=1e-8)


def test_under_jit():
    fn = jax.scipy.stats.t.logpdf

    @jax.jit
    def grads(x, df, loc, scale):
        _, pb = cr.rrule(fn, x, df, loc, scale)
        return pb(jnp.ones_like(x))[1:]

    x = jnp.array([-1.3, 0.2, 1.9])
    got = grads(x, 3.5, 0.3, 1.7)
    want = jax.grad(lambda *a: jnp.sum(fn(*a)), argnums=(0, 1, 2, 3))(x, 3.5, 0.3, 1.7)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10)


def test_bad_input_gives_nan():
    # df < 0, mu < 0, a < 0: NaN as JAX's primal, for every derivative (never a number)
    for fn, args in ((jax.scipy.stats.t.logpdf, (jnp.array([0.3, 1.0]), -1.0)),
                     (jax.scipy.stats.beta.logpdf, (jnp.array([0.3, 0.6]), -1.0, 2.0)),
                     (jax.scipy.stats.chi2.cdf, (jnp.array([0.3, 1.0]), -2.0, 0.0, 1.0)),
                     (jax.scipy.stats.poisson.logpmf, (jnp.array([1.0, 2.0]), -1.0))):
        y, pb = cr.rrule(fn, *args)
        assert np.all(np.isnan(np.asarray(y)))
        for i, g in enumerate(pb(jnp.ones(2))[1:]):
            if isinstance(g, jax.Array):
                assert np.all(np.isnan(np.asarray(g))), (fn, i, g)
        _, ẏ = cr.frule((NT, *[jnp.ones(2)] * len(args)), fn, *args)
        assert isinstance(ẏ, cr.NotImplementedTangent) or np.all(np.isnan(np.asarray(ẏ)))   # chi2.cdf's df
        _, ẏ = cr.frule((NT, jnp.ones(2), *[cr.ZeroTangent()] * (len(args) - 1)), fn, *args)
        assert isinstance(ẏ, cr.ZeroTangent) or np.all(np.isnan(np.asarray(ẏ)))      # poisson's k: no tangent


def test_parameter_series_on_jax():
    # the cdf in its shape: the incomplete gamma function's series in a, with a fixed number of
    # terms on JAX (special_series.ON_LIBRARIES), under jax.jit, as the NumPy rule's
    import scipy.stats as st
    fn = jax.scipy.stats.gamma.cdf
    x, a = np.array([0.6, 1.9, 30.0]), np.array([2.5, 1.5, 20.0])
    got = jax.jit(lambda x, a: cr.rrule(fn, x, a)[1](jnp.ones(3))[1:])(jnp.asarray(x), jnp.asarray(a))
    want = cr.rrule(st.gamma.cdf, x, a)[1](np.ones(3))[1:]
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)
    assert not any("series" in why for why in L.SKIPPED[LABEL].values())


def test_docs_table_is_current():
    text = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "guide" / "stats.md").read_text(encoding="utf-8")
    begin, end = "<!-- stats-libs table: begin -->\n", "<!-- stats-libs table: end -->"
    current = text[text.index(begin) + len(begin):text.index(end)]
    assert current == L.table(), ("docs/guide/stats.md's table of the methods on other libraries is out of date: "
                                  "paste chainrules.rulesets.scipy.stats.libs.table() (JAX imported) between "
                                  "its markers")


# ----- multivariate_normal, dirichlet: multivariate.py's rules with jax.numpy (libs.HAND_WRITTEN) -----

def _mvn_and_dirichlet_cases():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(3, 3))
    cov = A @ A.T + 0.5 * np.eye(3)
    x, mean = rng.normal(size=(4, 3)), np.array([0.3, -0.2, 0.5])
    xd = np.array([[0.2, 0.5, 0.3], [0.1, 0.3, 0.25], [0.7, 0.2, 0.45]])        # (K, m): columns on the simplex
    alpha = np.array([1.7, 0.8, 3.2])
    return [("multivariate_normal", (x, mean, cov)), ("multivariate_normal", (x[0], mean, cov)),
            ("dirichlet", (xd, alpha)), ("dirichlet", (xd[:, 0], alpha)), ("dirichlet", (xd[:2], alpha))]


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_multivariate_on_jax(method):
    """multivariate_normal's and dirichlet's rules on JAX's functions (their NumPy bodies with
    jax.numpy): the NumPy rule's cotangents and tangents (1e-12), jax.grad and jax.jvp of
    JAX's own function (1e-10), the same under jax.jit."""
    import scipy.stats as st
    assert {"multivariate_normal.logpdf", "dirichlet.logpdf"} <= set(L.HAND_WRITTEN[LABEL])
    for dist, args in _mvn_and_dirichlet_cases():
        fn, ref = getattr(getattr(jax.scipy.stats, dist), method), getattr(getattr(st, dist), method)
        jargs = [jnp.asarray(a) for a in args]
        y0, pb0 = cr.rrule(ref, *args)
        y, pb = cr.rrule(fn, *jargs)
        np.testing.assert_allclose(np.asarray(y), y0, rtol=1e-12)
        ones = np.ones(np.shape(y0))
        want = pb0(ones)[1:]
        got = pb(jnp.asarray(ones))[1:]
        jitted = jax.jit(lambda *a: cr.rrule(fn, *a)[1](jnp.ones(np.shape(y0)))[1:])(*jargs)
        grads = jax.grad(lambda *a: jnp.sum(fn(*a)), argnums=tuple(range(len(args))))(*jargs)
        for i in range(len(args)):
            for g in (got[i], jitted[i]):
                assert isinstance(g, jax.Array), (dist, method, i, g)
                np.testing.assert_allclose(np.asarray(g), want[i], rtol=1e-12, atol=1e-14, err_msg=f"{dist} {i}")
                np.testing.assert_allclose(np.asarray(g), np.asarray(grads[i]), rtol=1e-10, atol=1e-12,
                                           err_msg=f"{dist}.{method} against jax.grad, argument {i}")
        # the frule along a direction of every argument (a symmetric one for cov)
        rng = np.random.default_rng(5)
        dirs = [rng.normal(size=np.shape(a)) for a in args]
        if dist == "multivariate_normal":
            dirs[2] = dirs[2] + dirs[2].T
        _, ẏ = cr.frule((NT, *[jnp.asarray(d) for d in dirs]), fn, *jargs)
        _, ẏ0 = cr.frule((NT, *dirs), ref, *args)
        _, jvp = jax.jvp(fn, tuple(jargs), tuple(jnp.asarray(d) for d in dirs))
        np.testing.assert_allclose(np.asarray(ẏ), ẏ0, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(np.asarray(ẏ), np.asarray(jvp), rtol=1e-10, atol=1e-12)
