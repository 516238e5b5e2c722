"""Rules for the discrete distributions of scipy.stats (issue 23, item 2):
`pmf`, `logpmf`, `cdf`, `logcdf`, `sf`, `logsf` (and `entropy` where it has
a closed form) of poisson, binom, nbinom, geom, bernoulli, betabinom,
differentiable in their continuous parameters.  The count k, `loc` (an
integer shift) and binom's and betabinom's n get `NoTangent()`, also when
passed as floats.  The entropy without a closed form (poisson, binom,
nbinom, betabinom) and betabinom's cdf/sf are sums over the support of
the pmf, whose rules differentiate them.  ppf/isf are integer-valued step
functions: their derivative in q and θ is 0 (between the steps).

A distribution is its form at loc = 0 (`Disc`): log p(k; θ) and its
partials in θ, the distribution function and its partials in θ, written with
functions that have rules (every order works).  The distribution functions
are SciPy's own special functions (pdtr, bdtr, betainc…), whose parameter
derivatives are closed forms: ∂/∂μ pdtr(k, μ) = −p(k; μ) and the like.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp
import scipy.stats as st

from chainrules.rulesets.scipy.special_rows_basic import _beta_density
from chainrules.rulesets.scipy.special_series import _plain, dbetainc_dab
from chainrules.rulesets.scipy.stats._build import Method, register_methods


class Disc:
    """A discrete distribution at loc = 0 with shapes θ (`ints`: the names of the
    integer ones): `logpmf(k, *θ)`, `dlogpmf(k, *θ) -> [∂θ…]` (None for an integer
    shape), `cdf`, `sf`, `dcdf(k, *θ) -> [∂F/∂θ…]`, `entropy(*θ)`, `dentropy`."""

    def __init__(self, dist: Any, logpmf: Any, dlogpmf: Any, cdf: Any = None, sf: Any = None,
                 dcdf: Any = None, entropy: Any = None, dentropy: Any = None, ints: Any = ()) -> None:
        self.dist = dist
        self.name = dist.name
        self.shapes = [s.strip() for s in dist.shapes.split(",")] if dist.shapes else []
        self.ints = tuple(ints)
        self.logpmf, self.dlogpmf = logpmf, dlogpmf
        self.cdf, self.sf, self.dcdf = cdf, sf, dcdf
        self.entropy, self.dentropy = entropy, dentropy


def _methods(d: Disc) -> list[Method]:
    k = len(d.shapes)
    params = ["k", *d.shapes, "loc"]
    ints = [0, k + 1] + [1 + d.shapes.index(n) for n in d.ints]
    out = []

    def method(name: str, value: Any, partials: Any) -> None:
        out.append(Method(getattr(d.dist, name), f"{d.name}.{name}", params, {"loc": 0.0}, ints,
                          value, partials))

    def std(f: Any) -> Any:
        def value(*v: Any) -> Any:
            return f(v[0] - v[k + 1], *v[1:k + 1])
        return value

    def full(ds: Any) -> list[Any]:
        return [None, *ds, None]

    def logpmf_partials(*v: Any) -> list[Any]:
        return full(d.dlogpmf(v[0] - v[k + 1], *v[1:k + 1]))

    method("logpmf", std(d.logpmf), logpmf_partials)
    method("pmf", lambda *v: np.exp(std(d.logpmf)(*v)),
           lambda *v: [None if p is None else v[-1] * p for p in logpmf_partials(*v)])
    if d.cdf is not None:
        def cdf_partials(*v: Any) -> list[Any]:
            return full(d.dcdf(v[0] - v[k + 1], *v[1:k + 1]))

        def scaled(c: float, log: bool) -> Any:
            def partials(*v: Any) -> list[Any]:
                den = np.exp(v[-1]) if log else 1.0
                return [None if p is None else c * p / den for p in cdf_partials(*v)]
            return partials

        method("cdf", std(d.cdf), scaled(1.0, False))
        method("sf", std(d.sf), scaled(-1.0, False))
        method("logcdf", lambda *v: np.log(std(d.cdf)(*v)), scaled(1.0, True))
        method("logsf", lambda *v: np.log(std(d.sf)(*v)), scaled(-1.0, True))
    shape_ints = [d.shapes.index(n) for n in d.ints]
    entropy, dentropy = (d.entropy, d.dentropy) if d.entropy is not None else _summed_entropy(d)

    def entropy_value(*v: Any) -> Any:
        return entropy(*v[:k])

    out.append(Method(d.dist.entropy, f"{d.name}.entropy", [*d.shapes, "loc"], {"loc": 0.0},
                      [k, *shape_ints], entropy_value, lambda *v: [*dentropy(*v[:k]), None]))
    # ppf, isf: integer-valued, a step function of q and θ: its derivative is 0 between the steps
    for name in ("ppf", "isf"):
        f = getattr(d.dist, name)

        def steps(*v: Any, f: Any = f) -> Any:
            return f(*(_plain(e) for e in v))

        def flat(*v: Any) -> list[Any]:
            zero = np.zeros(np.shape(v[-1]))
            return [None if i in ints[1:] else zero for i in range(len(params))]

        # q at 0 is continuous; loc and the integer shapes are integers, as for the pmf
        out.append(Method(f, f"{d.name}.{name}", ["q", *d.shapes, "loc"], {"loc": 0.0}, ints[1:],
                          steps, flat))
    return out


def _summed_entropy(d: Disc) -> tuple[Any, Any]:
    """(entropy, dentropy) of d as sums over its support, −Σ p log p and
    −Σ p log p ∂log p (Σ p ∂log p = 0), the support cut where SciPy's
    ppf/isf leave less than 1e-16 on either side (plus a margin); written with d's logpmf and
    its partials, which have rules (every order works)."""
    def grid(th: Any) -> tuple[Any, Any, Any]:
        plain = [_plain(t) for t in th]
        shape = np.broadcast_shapes(*(np.shape(p) for p in plain))
        lo = int(np.nanmin(d.dist.ppf(1e-16, *plain), initial=0.0))
        hi = int(np.nanmax(d.dist.isf(1e-16, *plain), initial=0.0))
        hi += 10 + hi // 10             # beyond: a mass far below 1e-16 (SciPy's isf is NaN below 1e-16)
        j = np.arange(max(lo, 0), hi + 1, dtype=float).reshape((-1,) + (1,) * len(shape))
        inside = np.isfinite(d.logpmf(j, *plain))
        return j, inside, shape

    def weighted(th: Any) -> tuple[Any, Any, Any]:
        j, inside, shape = grid(th)
        lp = d.logpmf(np.where(inside, j, 0.0), *th)
        return j, inside, np.where(inside, np.exp(lp) * lp, 0.0)

    def entropy(*th: Any) -> Any:
        return -np.sum(weighted(th)[2], axis=0)

    def dentropy(*th: Any) -> list[Any]:
        j, inside, w = weighted(th)
        ds = d.dlogpmf(np.where(inside, j, 0.0), *th)
        return [None if dθ is None else -np.sum(w * dθ, axis=0) for dθ in ds]
    return entropy, dentropy


def _summed_cdf(d: Disc) -> tuple[Any, Any, Any]:
    """(cdf, sf, dcdf) of a distribution on 0…n (n its first shape) as sums of its pmf."""
    def terms(k: Any, th: Any) -> tuple[Any, Any, Any]:
        n = _plain(th[0])
        shape = np.broadcast_shapes(np.shape(_plain(k)), *(np.shape(_plain(t)) for t in th))
        j = np.arange(int(np.max(n, initial=0.0)) + 1, dtype=float).reshape((-1,) + (1,) * len(shape))
        upto = (j <= np.floor(_plain(k))) & (j <= n)
        valid = j <= n
        jj = np.where(valid, j, 0.0)
        return jj, np.where(valid, np.exp(d.logpmf(jj, *th)), 0.0), upto

    def cdf(k: Any, *th: Any) -> Any:
        _, p, upto = terms(k, th)
        return np.sum(np.where(upto, p, 0.0), axis=0)

    def sf(k: Any, *th: Any) -> Any:
        _, p, upto = terms(k, th)
        return np.sum(np.where(upto, 0.0, p), axis=0)

    def dcdf(k: Any, *th: Any) -> list[Any]:
        jj, p, upto = terms(k, th)
        ds = d.dlogpmf(jj, *th)
        return [None if dθ is None else np.sum(np.where(upto, p * dθ, 0.0), axis=0) for dθ in ds]
    return cdf, sf, dcdf


def _safe_ratio(k: Any, p: Any) -> Any:
    """k/p, 0 where k = 0 (the derivative of xlogy(k, p) in p)."""
    return np.where(k == 0, 0.0, k / np.where(k == 0, 1.0, p))


# =============================================================================
# poisson (mu): cdf = pdtr(k, μ), ∂/∂μ = −p(⌊k⌋; μ)
# =============================================================================

def _poisson_logpmf(k: Any, mu: Any) -> Any:
    return sp.xlogy(k, mu) - mu - sp.gammaln(k + 1)


POISSON = Disc(st.poisson, _poisson_logpmf, lambda k, mu: [_safe_ratio(k, mu) - 1],
               cdf=lambda k, mu: sp.pdtr(k, mu), sf=lambda k, mu: sp.pdtrc(k, mu),
               dcdf=lambda k, mu: [-np.exp(_poisson_logpmf(np.floor(k), mu))])


# =============================================================================
# binom (n, p), n an integer: cdf = bdtr(k, n, p), ∂/∂p = −n·p(k; n − 1, p)
# =============================================================================

def _binom_logpmf(k: Any, n: Any, p: Any) -> Any:
    return (sp.gammaln(n + 1) - sp.gammaln(k + 1) - sp.gammaln(n - k + 1)
            + sp.xlogy(k, p) + sp.xlog1py(n - k, -p))


BINOM = Disc(st.binom, _binom_logpmf,
             lambda k, n, p: [None, _safe_ratio(k, p) - _safe_ratio(n - k, 1 - p)],
             cdf=lambda k, n, p: sp.bdtr(k, n, p), sf=lambda k, n, p: sp.bdtrc(k, n, p),
             dcdf=lambda k, n, p: [None, -_beta_density(n - np.floor(k), np.floor(k) + 1, 1 - p)],
             ints=("n",))


# =============================================================================
# nbinom (n, p), n > 0 real: cdf = betainc(n, k + 1, p)
# =============================================================================

def _nbinom_logpmf(k: Any, n: Any, p: Any) -> Any:
    return sp.gammaln(n + k) - sp.gammaln(k + 1) - sp.gammaln(n) + n * np.log(p) + sp.xlog1py(k, -p)


def _nbinom_dcdf(k: Any, n: Any, p: Any) -> Any:
    k = np.floor(k)
    return [dbetainc_dab(n, k + 1, p)[0], _beta_density(n, k + 1, p)]


NBINOM = Disc(st.nbinom, _nbinom_logpmf,
              lambda k, n, p: [sp.digamma(n + k) - sp.digamma(n) + np.log(p), n / p - _safe_ratio(k, 1 - p)],
              cdf=lambda k, n, p: sp.betainc(n, np.floor(k) + 1, p),
              sf=lambda k, n, p: sp.betaincc(n, np.floor(k) + 1, p), dcdf=_nbinom_dcdf)


# =============================================================================
# geom (p), k ≥ 1: cdf = 1 − (1 − p)^k
# =============================================================================

GEOM = Disc(st.geom, lambda k, p: sp.xlog1py(k - 1, -p) + np.log(p),
            lambda k, p: [1 / p - _safe_ratio(k - 1, 1 - p)],
            cdf=lambda k, p: -np.expm1(np.floor(k) * np.log1p(-p)),
            sf=lambda k, p: np.exp(np.floor(k) * np.log1p(-p)),
            dcdf=lambda k, p: [np.floor(k) * np.exp((np.floor(k) - 1) * np.log1p(-p))],
            entropy=lambda p: -np.log(p) - (1 - p) / p * np.log1p(-p),
            dentropy=lambda p: [np.log1p(-p) / (p * p)])


# =============================================================================
# bernoulli (p)
# =============================================================================

def _bern_mid(k: Any) -> Any:
    return (k >= 0) & (k < 1)


BERNOULLI = Disc(st.bernoulli, lambda k, p: sp.xlogy(k, p) + sp.xlog1py(1 - k, -p),
                 lambda k, p: [_safe_ratio(k, p) - _safe_ratio(1 - k, 1 - p)],
                 cdf=lambda k, p: np.where(k < 0, 0.0, np.where(k < 1, 1 - p, 1.0)),
                 sf=lambda k, p: np.where(k < 0, 1.0, np.where(k < 1, p, 0.0)),
                 dcdf=lambda k, p: [np.where(_bern_mid(k), -1.0, 0.0) + 0.0 * p],
                 entropy=lambda p: sp.entr(p) + sp.entr(1 - p), dentropy=lambda p: [-sp.logit(p)])


# =============================================================================
# betabinom (n, a, b), n an integer
# =============================================================================

def _betabinom_logpmf(k: Any, n: Any, a: Any, b: Any) -> Any:
    return (sp.gammaln(n + 1) - sp.gammaln(k + 1) - sp.gammaln(n - k + 1)
            + sp.betaln(k + a, n - k + b) - sp.betaln(a, b))


def _betabinom_dlogpmf(k: Any, n: Any, a: Any, b: Any) -> Any:
    t = sp.digamma(a + b) - sp.digamma(n + a + b)
    return [None, sp.digamma(k + a) - sp.digamma(a) + t, sp.digamma(n - k + b) - sp.digamma(b) + t]


BETABINOM = Disc(st.betabinom, _betabinom_logpmf, _betabinom_dlogpmf, ints=("n",))
BETABINOM.cdf, BETABINOM.sf, BETABINOM.dcdf = _summed_cdf(BETABINOM)


DISTRIBUTIONS = [POISSON, BINOM, NBINOM, GEOM, BERNOULLI, BETABINOM]

for _d in DISTRIBUTIONS:
    register_methods(_methods(_d))
del _d
