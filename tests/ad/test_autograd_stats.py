"""chainrules.ad.scipy.stats: the distributions of autograd.scipy.stats, equal to
scipy.stats on plain values and differentiated as autograd differentiates them
(every argument autograd differentiates, to second order)."""

import numpy as onp
import pytest
import scipy.stats

autograd = pytest.importorskip("autograd")
import autograd.scipy.stats as astats  # noqa: E402

import chainrules.ad.autograd as cag  # noqa: E402
import chainrules.ad.scipy.stats as cstats  # noqa: E402
from chainrules.testing import test_approx  # noqa: E402

X = onp.array([0.3, 0.45, 0.8])
L = onp.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])

# (distribution, function, arguments, the argnums autograd differentiates)
CASES = [
    ("norm", "logpdf", (X, 0.2, 1.7), (0, 1, 2)),
    ("norm", "pdf", (X, 0.2, 1.7), (0, 1, 2)),
    ("norm", "cdf", (X, 0.2, 1.7), (0, 1, 2)),
    ("norm", "logcdf", (X, 0.2, 1.7), (0, 1, 2)),
    ("t", "logpdf", (X, 3.5, 0.1, 1.3), (0, 1, 2, 3)),
    ("t", "pdf", (X, 3.5, 0.1, 1.3), (0, 1, 2, 3)),
    ("gamma", "logpdf", (X, 2.5), (0, 1)),
    ("gamma", "pdf", (X, 2.5), (0, 1)),
    ("chi2", "logpdf", (X, 3.0), (0,)),
    ("chi2", "pdf", (X, 3.0), (0,)),
    ("beta", "logpdf", (X, 2.5, 1.5), (0, 1, 2)),
    ("beta", "pdf", (X, 2.5, 1.5), (0, 1, 2)),
    ("poisson", "logpmf", (onp.array([0.0, 2.0, 5.0]), 1.7), (1,)),
    ("poisson", "pmf", (onp.array([0.0, 2.0, 5.0]), 1.7), (1,)),
    ("multivariate_normal", "logpdf", (X, X[::-1], L), (0, 1, 2)),
    ("multivariate_normal", "logpdf", (onp.stack([X, X ** 2]), X[::-1], L), (0, 1, 2)),
    ("multivariate_normal", "pdf", (X, X[::-1], L), (0, 1)),
    ("dirichlet", "logpdf", (X / onp.sum(X), onp.array([1.5, 2.0, 3.0])), (0, 1)),
    ("dirichlet", "pdf", (X / onp.sum(X), onp.array([1.5, 2.0, 3.0])), (0, 1)),
]


@pytest.mark.parametrize("dist, fn, args, argnums", CASES,
                         ids=[f"{d}.{f}-{i}" for i, (d, f, _, _) in enumerate(CASES)])
def test_distribution(dist, fn, args, argnums):
    ours, theirs = getattr(getattr(cstats, dist), fn), getattr(getattr(astats, dist), fn)
    test_approx(ours(*args), getattr(getattr(scipy.stats, dist), fn)(*args), rtol=1e-12)
    for argnum in argnums:
        test_approx(cag.jacobian(ours, argnum)(*args), autograd.jacobian(theirs, argnum)(*args), rtol=1e-9)
    # second order: the Hessian of the summed log-density in the first differentiated argument
    a = argnums[0]
    test_approx(cag.hessian(lambda *xs: onp.sum(ours(*xs)), a)(*args),
                autograd.hessian(lambda *xs: onp.sum(theirs(*xs)), a)(*args), rtol=1e-8)


def test_entropy_and_supports():
    test_approx(cstats.multivariate_normal.entropy(X, L), scipy.stats.multivariate_normal.entropy(X, L))
    test_approx(cag.grad(cstats.multivariate_normal.entropy, 1)(X, L),
                autograd.grad(astats.multivariate_normal.entropy, 1)(X, L), rtol=1e-10)
    x = onp.array([-0.5, 0.5, 1.5])
    assert onp.array_equal(cstats.beta.logpdf(x, 2.0, 2.0), scipy.stats.beta.logpdf(x, 2.0, 2.0))
    assert onp.array_equal(cstats.gamma.logpdf(x, 2.0), scipy.stats.gamma.logpdf(x, 2.0))
    g = cag.grad(lambda a: onp.sum(onp.where(x > 0, cstats.gamma.logpdf(onp.abs(x), a), 0.0)))(2.0)
    test_approx(g, autograd.grad(lambda a: onp.sum(astats.gamma.logpdf(onp.abs(x[1:]), a)))(2.0), rtol=1e-10)

def test_mvn_allow_singular_as_autograds():
    # a covariance of rank 2 in 4 dimensions: SciPy's pseudo-inverse and pseudo-determinant
    cov = onp.diag([1.0, 2.0, 0.0, 0.0])
    x, m = onp.array([0.3, -0.2, 0.0, 0.0]), onp.array([0.1, 0.5, 0.0, 0.0])
    for f in (cstats.multivariate_normal.logpdf, cstats.multivariate_normal.pdf):
        g = {"logpdf": astats.multivariate_normal.logpdf, "pdf": astats.multivariate_normal.pdf}[f.__name__]
        test_approx(f(x, m, cov, allow_singular=True), g(x, m, cov, allow_singular=True), rtol=1e-12)
        for argnum in (0, 1):
            test_approx(cag.grad(f, argnum)(x, m, cov, True), autograd.grad(g, argnum)(x, m, cov, True),
                        rtol=1e-10, atol=1e-14)
        test_approx(cag.hessian(f)(x, m, cov, True), autograd.hessian(g)(x, m, cov, True),
                    rtol=1e-8, atol=1e-12)


# ----- the distributions with rules (chainrules.rulesets.scipy.stats) and the frozen spelling ------

def test_every_distribution_with_rules_is_here():
    import importlib

    from chainrules.rulesets.scipy.stats import METHODS
    for m in METHODS:
        dist, method = m.name.split(".")
        mod = importlib.import_module(f"chainrules.ad.scipy.stats.{dist}")
        assert callable(getattr(mod, method)), m.name
        assert mod is getattr(cstats, dist)
    assert len(cstats.__all__) >= 32


def test_methods_by_their_rules():
    """t.cdf and gamma.cdf in their shapes, expon, binom: the gradient is the rule's, the second
    derivative the rule differentiated (against finite differences of the gradient)."""
    from chainrules.finite_differences import central_fdm
    cases = [(lambda d: onp.sum(cstats.t.cdf(X, d, 0.1, 1.3)), 3.5),
             (lambda a: onp.sum(cstats.gamma.cdf(X, a, 0.0, 0.7)), 2.5),
             (lambda s: onp.sum(cstats.expon.logpdf(X, 0.1, s)), 1.3),
             (lambda p: onp.sum(cstats.binom.logpmf(onp.array([0, 2, 5]), 7, p)), 0.35),
             (lambda k: onp.sum(cstats.vonmises.logpdf(X, k)), 1.7)]
    for f, v in cases:
        g = cag.grad(f)(v)
        test_approx(g, central_fdm(5, 1)(f, v), rtol=1e-7)
        test_approx(cag.hessian(f)(v), central_fdm(5, 1)(cag.grad(f), v), rtol=1e-6)


def test_frozen_spelling():
    x = onp.array([0.4, 1.3, 2.6])
    for frozen, plain in [(lambda s: cstats.t(3.5, scale=s).logpdf(x), lambda s: cstats.t.logpdf(x, 3.5, 0.0, s)),
                          (lambda s: cstats.norm(0.1, s).cdf(x), lambda s: cstats.norm.cdf(x, 0.1, s)),
                          (lambda s: cstats.gamma(s).entropy(), lambda s: cstats.gamma.entropy(s)),
                          (lambda s: cstats.poisson(s).logpmf(onp.array([0, 2])),
                           lambda s: cstats.poisson.logpmf(onp.array([0, 2]), s))]:
        test_approx(frozen(1.3), plain(1.3))
        test_approx(cag.grad(lambda s: onp.sum(frozen(s)))(1.3), cag.grad(lambda s: onp.sum(plain(s)))(1.3))
    test_approx(cstats.multivariate_normal(X[::-1], L).logpdf(X), scipy.stats.multivariate_normal.logpdf(X, X[::-1], L))
    with pytest.raises(TypeError, match="unexpected"):
        cstats.norm(0.1, loc=2.0).logpdf(x)
