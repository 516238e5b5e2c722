"""Rules for the continuous distributions of scipy.stats (issue 23, item 2):
`pdf`, `logpdf`, `cdf`, `logcdf`, `sf`, `logsf`, `ppf`, `isf`, `entropy`,
differentiable in the data and in every parameter (shapes, loc, scale).

Every continuous distribution of SciPy is a location-scale family of a
standard one: f(x; θ, loc, scale) = f₀((x − loc)/scale; θ)/scale.  A
distribution here is its standard form (`Std`): log f₀(z; θ) and its
partials in z and θ, the distribution function F₀ and its partials in θ
(∂F₀/∂z = f₀), its inverse, its entropy; `_methods` makes every method of
SciPy's from them by the chain rule through z = (x − loc)/scale, the
inverse function rule for ppf/isf (∂Q/∂θ = −∂F₀/∂θ / f₀ at Q) and
h = h₀(θ) + log(scale).  Each formula is written with functions that have
rules (digamma → polygamma, gammainc in a → its series, stdtr in df →
betainc's series), so higher derivatives work through an AD.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp
import scipy.stats as st

from chainrules._core import untraced
from chainrules.rulesets.scipy.special import _dpolygamma
from chainrules.rulesets.scipy.special_rows_basic import _f_df, _t_df
from chainrules.rulesets.scipy.special_series import dbetainc_dab, dgammainc_da, vonmises_cdf, vonmises_ppf
from chainrules.rulesets.scipy.stats._build import Method, register_methods

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_LOG2 = math.log(2.0)
_LOGPI = math.log(math.pi)
_EULER = 0.5772156649015329


def _trigamma(x: Any) -> Any:
    return _dpolygamma(0, x)


def _phi(z: Any) -> Any:
    """The standard normal density."""
    return np.exp(-0.5 * z * z - _LOG_SQRT_2PI)


def _ratio(c: Any, z: Any) -> Any:
    """c/z, 0 where c = 0 (the derivative of xlogy(c, z) in z, also at z = 0: the one-sided
    limit of the log-density's slope at the edge of the support, as SciPy's xlogy makes the
    value there)."""
    at0 = np.asarray(untraced(c)) == 0
    return np.where(at0, 0.0, c / np.where(at0, 1.0, z))


def _dP_dx(a: Any, x: Any) -> Any:
    """∂/∂x gammainc(a, x) = x^{a−1} e^{−x}/Γ(a)."""
    return np.exp(sp.xlogy(a - 1, x) - x - sp.gammaln(a))


class Std:
    """A standard distribution (loc = 0, scale = 1) with shape parameters θ:
    `logpdf(z, *θ)`, `dlogpdf(z, *θ) -> (∂z, [∂θ…])`, `cdf`, `sf`, `logcdf`,
    `logsf` (defaults from each other), `dcdf(z, *θ) -> [∂F/∂θ…]`, `ppf(q, *θ)`,
    `isf(q, *θ)`, `entropy(*θ)`, `dentropy(*θ) -> [∂h/∂θ…]`, and optionally
    `fused(z, *θ) -> (log f₀, ∂z, [∂θ…])` computed together (the log-likelihood's
    speed on plain arrays; tested to equal the separate formulas).  A method whose
    pieces are missing is not given a rule."""

    def __init__(self, dist: Any, logpdf: Any, dlogpdf: Any, cdf: Any = None, sf: Any = None,
                 logcdf: Any = None, logsf: Any = None, dcdf: Any = None, ppf: Any = None,
                 isf: Any = None, entropy: Any = None, dentropy: Any = None, fused: Any = None,
                 fast: bool = True) -> None:
        self.dist = dist
        self.fast = fast        # the log-density's own primal on plain values (else SciPy's method)
        self.fused = fused      # fused(z, *θ) -> (log f₀, ∂z, [∂θ…]) sharing their work (plain values)
        self.name = dist.name
        self.shapes = [s.strip() for s in dist.shapes.split(",")] if dist.shapes else []
        self.logpdf, self.dlogpdf = logpdf, dlogpdf
        self.cdf = cdf
        self.sf = sf if sf is not None else (None if cdf is None else lambda z, *t: 1 - cdf(z, *t))
        self.logcdf = logcdf if logcdf is not None else (None if cdf is None else
                                                         lambda z, *t: np.log(cdf(z, *t)))
        self.logsf = logsf if logsf is not None else (None if self.sf is None else
                                                      lambda z, *t: np.log(self.sf(z, *t)))  # type: ignore[misc]  # not None here
        self.dcdf = dcdf if dcdf is not None else (lambda z, *t: [])
        self.ppf, self.isf = ppf, isf
        self.entropy, self.dentropy = entropy, dentropy


def _methods(d: Std) -> list[Method]:
    k = len(d.shapes)
    params = ["x", *d.shapes, "loc", "scale"]
    defaults = {"loc": 0.0, "scale": 1.0}
    out = []

    def method(name: str, value: Any, partials: Any, first: str | None = "x", fast: Any = None) -> None:
        ps = ([first] if first else []) + params[1:]
        out.append(Method(getattr(d.dist, name), f"{d.name}.{name}", ps, defaults, (), value, partials,
                          fast))

    def split(v: Any) -> tuple[Any, Any, Any, Any]:
        x, th, loc, s = v[0], v[1:1 + k], v[1 + k], v[2 + k]
        return x, th, loc, s

    # ----- densities --------------------------------------------------------------
    def logpdf_value(*v: Any) -> Any:
        x, th, loc, s = split(v)
        return d.logpdf((x - loc) / s, *th) - np.log(s)

    def logpdf_partials(*v: Any) -> list[Any]:
        x, th, loc, s = split(v)
        z = (x - loc) / s
        gz, gth = d.dlogpdf(z, *th)
        return [gz / s, *gth, -gz / s, -(gz * z + 1) / s]

    def logpdf_fast(*v: Any) -> Any:
        """SciPy's logpdf on plain values: the formula where the parameters are valid and
        x in the support, −inf outside the support, NaN for invalid parameters (SciPy's
        _argcheck and _support_mask); None (SciPy's own) for infinite shapes (t's df = ∞).
        With the partials too where the distribution computes them with the value."""
        x, th, loc, s = split(v)
        if any(not np.all(np.isfinite(t)) for t in th):
            return None
        z = (x - loc) / s
        ds = None
        with np.errstate(all="ignore"):
            if d.fused is not None:
                g0, gz, gth = d.fused(z, *th)
                g = g0 - np.log(s)
                ds = [gz / s, *gth, -gz / s, -(gz * z + 1) / s]
            else:
                g = d.logpdf(z, *th) - np.log(s)
            ok = np.asarray(d.dist._argcheck(*th), dtype=bool) & (s > 0)
            inside = d.dist._support_mask(z, *th)
        if not (np.all(ok) and np.all(inside)):
            g = np.where(ok & inside, g, -np.inf)
            g = np.where(~ok | np.isnan(z), np.nan, g)
        shape = np.broadcast_shapes(np.shape(g), np.shape(z), *[np.shape(t) for t in th])
        if np.shape(g) != shape:
            g = np.broadcast_to(g, shape).copy()
        return (g[()] if np.ndim(g) == 0 else g), ds

    def pdf_fast(*v: Any) -> Any:
        got = logpdf_fast(*v)
        if got is None:
            return None
        g, ds = got
        p = np.exp(g)
        return p, (None if ds is None else [p * q for q in ds])

    method("logpdf", logpdf_value, logpdf_partials, fast=logpdf_fast if d.fast else None)
    method("pdf", lambda *v: np.exp(logpdf_value(*v)),
           lambda *v: [o * p for o in (v[-1],) for p in logpdf_partials(*v[:-1])],
           fast=pdf_fast if d.fast else None)

    # ----- distribution functions ---------------------------------------------------
    if d.cdf is not None:
        def cdf_partials(*v: Any) -> list[Any]:
            x, th, loc, s = split(v)
            z = (x - loc) / s
            p = np.exp(d.logpdf(z, *th)) / s
            return [p, *d.dcdf(z, *th), -p, -p * z]

        def std(f: Any) -> Any:
            def value(*v: Any) -> Any:
                x, th, loc, s = split(v)
                return f((x - loc) / s, *th)
            return value

        method("cdf", std(d.cdf), lambda *v: cdf_partials(*v[:-1]))
        method("sf", std(d.sf), lambda *v: [-p for p in cdf_partials(*v[:-1])])
        method("logcdf", std(d.logcdf), lambda *v: [p / np.exp(v[-1]) for p in cdf_partials(*v[:-1])])
        method("logsf", std(d.logsf), lambda *v: [-p / np.exp(v[-1]) for p in cdf_partials(*v[:-1])])

    # ----- inverses: Ω = loc + scale·Q(q), ∂Q/∂q = ±1/f₀(Q), ∂Q/∂θ = −∂F₀/∂θ(Q)/f₀(Q) ------
    for name, inv, sign in (("ppf", d.ppf, 1.0), ("isf", d.isf, -1.0)):
        if inv is None:
            continue

        def inv_value(*v: Any, inv: Any = inv) -> Any:
            q, th, loc, s = split(v)
            return loc + s * inv(q, *th)

        def inv_partials(*v: Any, sign: float = sign) -> list[Any]:
            q, th, loc, s = split(v[:-1])
            Q = (v[-1] - loc) / s
            f = np.exp(d.logpdf(Q, *th))
            return [sign * s / f, *[-s * c / f for c in d.dcdf(Q, *th)], 1.0 + 0.0 * Q, Q]

        method(name, inv_value, inv_partials, first="q")

    # ----- entropy: h₀(θ) + log(scale) ---------------------------------------------
    if d.entropy is not None:
        def entropy_value(*v: Any) -> Any:
            th, s = v[:k], v[k + 1]
            return d.entropy(*th) + np.log(s)

        def entropy_partials(*v: Any) -> list[Any]:
            th, s = v[:k], v[k + 1]
            return [*d.dentropy(*th), 0.0 * s, 1 / s]

        method("entropy", entropy_value, entropy_partials, first=None)
    return out


def _none(*t: Any) -> list[Any]:
    return []


def _h(c: float) -> Any:
    return lambda *t: c


# =============================================================================
# norm
# =============================================================================

NORM = Std(st.norm, lambda z: -0.5 * z * z - _LOG_SQRT_2PI, lambda z: (-z, []),
           cdf=sp.ndtr, sf=lambda z: sp.ndtr(-z), logcdf=sp.log_ndtr, logsf=lambda z: sp.log_ndtr(-z),
           ppf=sp.ndtri, isf=lambda q: -sp.ndtri(q),
           entropy=_h(0.5 + _LOG_SQRT_2PI), dentropy=_none)


# =============================================================================
# t (df)
# =============================================================================

def _t_logpdf(z: Any, df: Any) -> Any:
    return (sp.gammaln((df + 1) / 2) - sp.gammaln(df / 2) - 0.5 * np.log(df * math.pi)
            - (df + 1) / 2 * np.log1p(z * z / df))


def _t_dlogpdf(z: Any, df: Any) -> Any:
    z2 = z * z
    d_df = (0.5 * (sp.digamma((df + 1) / 2) - sp.digamma(df / 2)) - 0.5 / df
            - 0.5 * np.log1p(z2 / df) + (df + 1) / 2 * z2 / (df * (df + z2)))
    return -(df + 1) * z / (df + z2), [d_df]


def _t_fused(z: Any, df: Any) -> Any:
    """_t_logpdf and _t_dlogpdf sharing z², df + z² and log1p(z²/df)."""
    q = z * z
    w = df + q
    L = np.log1p(q / df)
    h = (df + 1) / 2
    c = sp.gammaln(h) - sp.gammaln(df / 2) - 0.5 * np.log(df * math.pi)
    c1 = 0.5 * (sp.digamma(h) - sp.digamma(df / 2)) - 0.5 / df
    zw = z / w
    return c - h * L, -(df + 1) * zw, [c1 - 0.5 * L + (h / df) * (q / w)]


def _t_entropy(df: Any) -> Any:
    h = (df + 1) / 2
    return h * (sp.digamma(h) - sp.digamma(df / 2)) + 0.5 * np.log(df) + sp.betaln(df / 2, 0.5)


T = Std(st.t, _t_logpdf, _t_dlogpdf, cdf=lambda z, df: sp.stdtr(df, z), sf=lambda z, df: sp.stdtr(df, -z),
        dcdf=lambda z, df: [_t_df(df, z)],
        ppf=lambda q, df: sp.stdtrit(df, q), isf=lambda q, df: -sp.stdtrit(df, q),
        entropy=_t_entropy, fused=_t_fused,
        dentropy=lambda df: [(df + 1) / 4 * (_trigamma((df + 1) / 2) - _trigamma(df / 2)) + 0.5 / df])


# =============================================================================
# chi2 (df), gamma (a), invgamma (a)
# =============================================================================

def _chi2_logpdf(z: Any, k: Any) -> Any:
    return sp.xlogy(k / 2 - 1, z) - z / 2 - k / 2 * _LOG2 - sp.gammaln(k / 2)


def _chi2_dlogpdf(z: Any, k: Any) -> Any:
    return _ratio(k / 2 - 1, z) - 0.5, [0.5 * np.log(z) - 0.5 * _LOG2 - 0.5 * sp.digamma(k / 2)]


CHI2 = Std(st.chi2, _chi2_logpdf, _chi2_dlogpdf,
           cdf=lambda z, k: sp.chdtr(k, z), sf=lambda z, k: sp.chdtrc(k, z),
           dcdf=lambda z, k: [dgammainc_da(k / 2, z / 2) / 2],
           ppf=lambda q, k: 2 * sp.gammaincinv(k / 2, q), isf=lambda q, k: 2 * sp.gammainccinv(k / 2, q),
           entropy=lambda k: k / 2 + _LOG2 + sp.gammaln(k / 2) + (1 - k / 2) * sp.digamma(k / 2),
           dentropy=lambda k: [0.5 + (1 - k / 2) / 2 * _trigamma(k / 2)])

GAMMA = Std(st.gamma, lambda z, a: sp.xlogy(a - 1, z) - z - sp.gammaln(a),
            lambda z, a: (_ratio(a - 1, z) - 1, [np.log(z) - sp.digamma(a)]),
            cdf=lambda z, a: sp.gammainc(a, z), sf=lambda z, a: sp.gammaincc(a, z),
            dcdf=lambda z, a: [dgammainc_da(a, z)],
            ppf=lambda q, a: sp.gammaincinv(a, q), isf=lambda q, a: sp.gammainccinv(a, q),
            entropy=lambda a: a + sp.gammaln(a) + (1 - a) * sp.digamma(a),
            dentropy=lambda a: [1 + (1 - a) * _trigamma(a)])

INVGAMMA = Std(st.invgamma, lambda z, a: -(a + 1) * np.log(z) - 1 / z - sp.gammaln(a),
               lambda z, a: (-(a + 1) / z + 1 / (z * z), [-np.log(z) - sp.digamma(a)]),
               cdf=lambda z, a: sp.gammaincc(a, 1 / z), sf=lambda z, a: sp.gammainc(a, 1 / z),
               dcdf=lambda z, a: [-dgammainc_da(a, 1 / z)],
               ppf=lambda q, a: 1 / sp.gammainccinv(a, q), isf=lambda q, a: 1 / sp.gammaincinv(a, q),
               entropy=lambda a: a - (a + 1) * sp.digamma(a) + sp.gammaln(a),
               dentropy=lambda a: [1 - (a + 1) * _trigamma(a)])


# =============================================================================
# beta (a, b), f (dfn, dfd)
# =============================================================================

def _beta_dlogpdf(z: Any, a: Any, b: Any) -> Any:
    ab = sp.digamma(a + b)
    return (_ratio(a - 1, z) - _ratio(b - 1, 1 - z),
            [np.log(z) - sp.digamma(a) + ab, np.log1p(-z) - sp.digamma(b) + ab])


def _beta_entropy(a: Any, b: Any) -> Any:
    return (sp.betaln(a, b) - (a - 1) * sp.digamma(a) - (b - 1) * sp.digamma(b)
            + (a + b - 2) * sp.digamma(a + b))


def _beta_dentropy(a: Any, b: Any) -> Any:
    t = (a + b - 2) * _trigamma(a + b)
    return [t - (a - 1) * _trigamma(a), t - (b - 1) * _trigamma(b)]


BETA = Std(st.beta, lambda z, a, b: sp.xlogy(a - 1, z) + sp.xlog1py(b - 1, -z) - sp.betaln(a, b),
           _beta_dlogpdf, cdf=lambda z, a, b: sp.betainc(a, b, z), sf=lambda z, a, b: sp.betaincc(a, b, z),
           dcdf=lambda z, a, b: list(dbetainc_dab(a, b, z)),
           ppf=lambda q, a, b: sp.betaincinv(a, b, q), isf=lambda q, a, b: sp.betainccinv(a, b, q),
           entropy=_beta_entropy, dentropy=_beta_dentropy)


def _f_logpdf(z: Any, n: Any, m: Any) -> Any:
    return (n / 2 * np.log(n) + m / 2 * np.log(m) + (n / 2 - 1) * np.log(z)
            - (n + m) / 2 * np.log(m + n * z) - sp.betaln(n / 2, m / 2))


def _f_dlogpdf(z: Any, n: Any, m: Any) -> Any:
    w = m + n * z
    dnm = sp.digamma((n + m) / 2)
    dn = 0.5 * np.log(n) + 0.5 + 0.5 * np.log(z) - 0.5 * np.log(w) - (n + m) / 2 * z / w \
        - 0.5 * (sp.digamma(n / 2) - dnm)
    dm = 0.5 * np.log(m) + 0.5 - 0.5 * np.log(w) - (n + m) / 2 / w - 0.5 * (sp.digamma(m / 2) - dnm)
    return (n / 2 - 1) / z - (n + m) / 2 * n / w, [dn, dm]


def _f_entropy(n: Any, m: Any) -> Any:
    h, s = n / 2, (n + m) / 2
    return (np.log(m / n) + sp.betaln(h, m / 2) + (1 - h) * sp.digamma(h) - (1 + m / 2) * sp.digamma(m / 2)
            + s * sp.digamma(s))


def _f_dentropy(n: Any, m: Any) -> Any:
    t = (n + m) / 4 * _trigamma((n + m) / 2)
    return [-1 / n + (1 - n / 2) / 2 * _trigamma(n / 2) + t, 1 / m - (1 + m / 2) / 2 * _trigamma(m / 2) + t]


F = Std(st.f, _f_logpdf, _f_dlogpdf, cdf=lambda z, n, m: sp.fdtr(n, m, z),
        sf=lambda z, n, m: sp.fdtrc(n, m, z),
        dcdf=lambda z, n, m: [_f_df(n, m, z, 0), _f_df(n, m, z, 1)],
        ppf=lambda q, n, m: sp.fdtri(n, m, q), isf=lambda q, n, m: sp.fdtri(n, m, 1 - q),
        entropy=_f_entropy, dentropy=_f_dentropy)


# =============================================================================
# expon, laplace, logistic, cauchy, uniform, gumbel_r, gumbel_l, halfnorm,
# halfcauchy, rayleigh: no shape parameters
# =============================================================================

EXPON = Std(st.expon, lambda z: -z, lambda z: (-1.0 + 0.0 * z, []),
            cdf=lambda z: -np.expm1(-z), sf=lambda z: np.exp(-z), logsf=lambda z: -z,
            logcdf=lambda z: np.log(-np.expm1(-z)),
            ppf=lambda q: -np.log1p(-q), isf=lambda q: -np.log(q), entropy=_h(1.0), dentropy=_none)


def _laplace_cdf(z: Any) -> Any:
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


LAPLACE = Std(st.laplace, lambda z: -np.abs(z) - _LOG2, lambda z: (-np.sign(z), []),
              cdf=_laplace_cdf, sf=lambda z: _laplace_cdf(-z),
              ppf=lambda q: np.where(q < 0.5, np.log(2 * q), -np.log(2 - 2 * q)),
              isf=lambda q: np.where(q < 0.5, -np.log(2 * q), np.log(2 - 2 * q)),
              entropy=_h(1 + _LOG2), dentropy=_none)

LOGISTIC = Std(st.logistic, lambda z: sp.log_expit(z) + sp.log_expit(-z),
               lambda z: (sp.expit(-z) - sp.expit(z), []),
               cdf=sp.expit, sf=lambda z: sp.expit(-z), logcdf=sp.log_expit, logsf=lambda z: sp.log_expit(-z),
               ppf=sp.logit, isf=lambda q: -sp.logit(q), entropy=_h(2.0), dentropy=_none)

CAUCHY = Std(st.cauchy, lambda z: -_LOGPI - np.log1p(z * z), lambda z: (-2 * z / (1 + z * z), []),
             cdf=lambda z: 0.5 + np.arctan(z) / math.pi, sf=lambda z: 0.5 - np.arctan(z) / math.pi,
             ppf=lambda q: np.tan(math.pi * (q - 0.5)), isf=lambda q: np.tan(math.pi * (0.5 - q)),
             entropy=_h(math.log(4 * math.pi)), dentropy=_none)

UNIFORM = Std(st.uniform, lambda z: 0.0 * z, lambda z: (0.0 * z, []),
              cdf=lambda z: z, sf=lambda z: 1 - z, ppf=lambda q: q, isf=lambda q: 1 - q,
              entropy=_h(0.0), dentropy=_none)

GUMBEL_R = Std(st.gumbel_r, lambda z: -z - np.exp(-z), lambda z: (np.expm1(-z), []),
               cdf=lambda z: np.exp(-np.exp(-z)), sf=lambda z: -np.expm1(-np.exp(-z)),
               logcdf=lambda z: -np.exp(-z),
               ppf=lambda q: -np.log(-np.log(q)), isf=lambda q: -np.log(-np.log1p(-q)),
               entropy=_h(_EULER + 1), dentropy=_none)

GUMBEL_L = Std(st.gumbel_l, lambda z: z - np.exp(z), lambda z: (-np.expm1(z), []),
               cdf=lambda z: -np.expm1(-np.exp(z)), sf=lambda z: np.exp(-np.exp(z)),
               logsf=lambda z: -np.exp(z),
               ppf=lambda q: np.log(-np.log1p(-q)), isf=lambda q: np.log(-np.log(q)),
               entropy=_h(_EULER + 1), dentropy=_none)

HALFNORM = Std(st.halfnorm, lambda z: 0.5 * math.log(2 / math.pi) - 0.5 * z * z, lambda z: (-z, []),
               cdf=lambda z: sp.erf(z / math.sqrt(2)), sf=lambda z: 2 * sp.ndtr(-z),
               logsf=lambda z: _LOG2 + sp.log_ndtr(-z),
               ppf=lambda q: sp.ndtri((1 + q) / 2), isf=lambda q: -sp.ndtri(q / 2),
               entropy=_h(0.5 * math.log(math.pi / 2) + 0.5), dentropy=_none)

HALFCAUCHY = Std(st.halfcauchy, lambda z: math.log(2 / math.pi) - np.log1p(z * z),
                 lambda z: (-2 * z / (1 + z * z), []),
                 cdf=lambda z: 2 / math.pi * np.arctan(z), sf=lambda z: 1 - 2 / math.pi * np.arctan(z),
                 ppf=lambda q: np.tan(math.pi / 2 * q), isf=lambda q: np.tan(math.pi / 2 * (1 - q)),
                 entropy=_h(math.log(2 * math.pi)), dentropy=_none)

RAYLEIGH = Std(st.rayleigh, lambda z: np.log(z) - 0.5 * z * z, lambda z: (1 / z - z, []),
               cdf=lambda z: -np.expm1(-0.5 * z * z), sf=lambda z: np.exp(-0.5 * z * z),
               logsf=lambda z: -0.5 * z * z,
               ppf=lambda q: np.sqrt(-2 * np.log1p(-q)), isf=lambda q: np.sqrt(-2 * np.log(q)),
               entropy=_h(_EULER / 2 + 1 - 0.5 * _LOG2), dentropy=_none)


# =============================================================================
# lognorm (s), pareto (b), weibull_min (c)
# =============================================================================

def _lognorm_logpdf(y: Any, s: Any) -> Any:
    L = np.log(y)
    return -np.log(s) - L - _LOG_SQRT_2PI - L * L / (2 * s * s)


def _lognorm_dlogpdf(y: Any, s: Any) -> Any:
    L = np.log(y)
    return -1 / y - L / (s * s * y), [-1 / s + L * L / (s * s * s)]


LOGNORM = Std(st.lognorm, _lognorm_logpdf, _lognorm_dlogpdf,
              cdf=lambda y, s: sp.ndtr(np.log(y) / s), sf=lambda y, s: sp.ndtr(-np.log(y) / s),
              logcdf=lambda y, s: sp.log_ndtr(np.log(y) / s), logsf=lambda y, s: sp.log_ndtr(-np.log(y) / s),
              dcdf=lambda y, s: [-_phi(np.log(y) / s) * np.log(y) / (s * s)],
              ppf=lambda q, s: np.exp(s * sp.ndtri(q)), isf=lambda q, s: np.exp(-s * sp.ndtri(q)),
              entropy=lambda s: 0.5 + _LOG_SQRT_2PI + np.log(s), dentropy=lambda s: [1 / s])

PARETO = Std(st.pareto, lambda y, b: np.log(b) - (b + 1) * np.log(y),
             lambda y, b: (-(b + 1) / y, [1 / b - np.log(y)]),
             cdf=lambda y, b: -np.expm1(-b * np.log(y)), sf=lambda y, b: np.exp(-b * np.log(y)),
             logsf=lambda y, b: -b * np.log(y),
             dcdf=lambda y, b: [np.log(y) * np.exp(-b * np.log(y))],
             ppf=lambda q, b: np.exp(-np.log1p(-q) / b), isf=lambda q, b: np.exp(-np.log(q) / b),
             entropy=lambda b: 1 / b + 1 - np.log(b), dentropy=lambda b: [-1 / (b * b) - 1 / b])


def _weibull_dlogpdf(y: Any, c: Any) -> Any:
    L = np.log(y)
    yc = np.exp(c * L)
    return (c - 1) / y - c * yc / y, [1 / c + L - yc * L]


WEIBULL_MIN = Std(st.weibull_min, lambda y, c: np.log(c) + (c - 1) * np.log(y) - np.exp(c * np.log(y)),
                  _weibull_dlogpdf,
                  cdf=lambda y, c: -np.expm1(-np.exp(c * np.log(y))), sf=lambda y, c: np.exp(-np.exp(c * np.log(y))),
                  logsf=lambda y, c: -np.exp(c * np.log(y)),
                  dcdf=lambda y, c: [np.exp(c * np.log(y) - np.exp(c * np.log(y))) * np.log(y)],
                  ppf=lambda q, c: np.exp(np.log(-np.log1p(-q)) / c), isf=lambda q, c: np.exp(np.log(-np.log(q)) / c),
                  entropy=lambda c: -_EULER / c - np.log(c) + _EULER + 1,
                  dentropy=lambda c: [_EULER / (c * c) - 1 / c])


# =============================================================================
# vonmises (kappa): log I₀(κ) = log i0e(κ) + κ (κ ≥ 0); the cdf has no closed form: a quadrature
# =============================================================================

def _vm_ratio(k: Any) -> Any:
    return sp.i1e(k) / sp.i0e(k)


VONMISES = Std(st.vonmises, lambda z, k: k * np.cos(z) - np.log(2 * math.pi * sp.i0e(k)) - k,
               lambda z, k: (-k * np.sin(z), [np.cos(z) - _vm_ratio(k)]),
               cdf=lambda z, k: vonmises_cdf(z, k, False),
               dcdf=lambda z, k: [vonmises_cdf(z, k, True)],
               ppf=vonmises_ppf, isf=lambda q, k: -vonmises_ppf(q, k),
               entropy=lambda k: -k * _vm_ratio(k) + np.log(2 * math.pi * sp.i0e(k)) + k,
               dentropy=lambda k: [-k + _vm_ratio(k) + k * _vm_ratio(k) ** 2])


# =============================================================================
# gennorm (beta): |z|^β; the cdf through gammainc(1/β, |z|^β)
# =============================================================================

def _gennorm_logpdf(z: Any, b: Any) -> Any:
    return np.log(b) - _LOG2 - sp.gammaln(1 / b) - np.abs(z) ** b


def _gennorm_dlogpdf(z: Any, b: Any) -> Any:
    a = np.abs(z)
    return (-b * a ** (b - 1) * np.sign(z),
            [1 / b + sp.digamma(1 / b) / (b * b) - sp.xlogy(a ** b, a)])


def _gennorm_cdf(z: Any, b: Any) -> Any:
    return 0.5 + np.sign(z) * 0.5 * sp.gammainc(1 / b, np.abs(z) ** b)


def _gennorm_dcdf(z: Any, b: Any) -> Any:
    a = np.abs(z)
    u = a ** b
    du = sp.xlogy(u, a)
    return [np.sign(z) * 0.5 * (dgammainc_da(1 / b, u) * (-1 / (b * b)) + _dP_dx(1 / b, u) * du)]


def _gennorm_ppf(q: Any, b: Any) -> Any:
    return np.sign(q - 0.5) * sp.gammaincinv(1 / b, np.abs(2 * q - 1)) ** (1 / b)


GENNORM = Std(st.gennorm, _gennorm_logpdf, _gennorm_dlogpdf, cdf=_gennorm_cdf,
              sf=lambda z, b: _gennorm_cdf(-z, b), dcdf=_gennorm_dcdf,
              ppf=_gennorm_ppf, isf=lambda q, b: -_gennorm_ppf(q, b),
              entropy=lambda b: 1 / b - np.log(b) + _LOG2 + sp.gammaln(1 / b),
              dentropy=lambda b: [-1 / (b * b) - 1 / b - sp.digamma(1 / b) / (b * b)])


# =============================================================================
# truncnorm (a, b): the normal on [a, b], D = Φ(b) − Φ(a)
# =============================================================================

def _log_between(a: Any, b: Any) -> Any:
    """log(Φ(b) − Φ(a)) for a < b, by log_ndtr (accurate where b ≤ 0, and where the
    interval straddles 0)."""
    lb = sp.log_ndtr(b)
    with np.errstate(divide="ignore", invalid="ignore"):     # the branch np.where leaves out
        return lb + np.log1p(-np.exp(sp.log_ndtr(a) - lb))


def _tn_logmass(a: Any, b: Any) -> Any:
    """log(Φ(b) − Φ(a)), from the tail it is accurate in (reflected where a > 0: Φ(−a) − Φ(−b)),
    finite far in the tails (a = 40) where Φ(b) − Φ(a) underflows."""
    return np.where(np.asarray(untraced(a)) > 0, _log_between(-b, -a), _log_between(a, b))


def _tn_over_mass(t: Any, logD: Any) -> Any:
    """φ(t)/D."""
    return np.exp(-0.5 * t * t - _LOG_SQRT_2PI - logD)


def _tn_dlogpdf(z: Any, a: Any, b: Any) -> Any:
    logD = _tn_logmass(a, b)
    return -z, [_tn_over_mass(a, logD), -_tn_over_mass(b, logD)]


def _tn_cdf(z: Any, a: Any, b: Any) -> Any:
    num = np.where(np.asarray(untraced(a)) > 0, _log_between(-z, -a), _log_between(a, z))
    return np.exp(num - _tn_logmass(a, b))


def _tn_sf(z: Any, a: Any, b: Any) -> Any:
    """(Φ(b) − Φ(z))/D on its own (not 1 − F: F ≈ 1 far in a tail, whose 1 − F keeps only the
    absolute accuracy of F)."""
    num = np.where(np.asarray(untraced(a)) > 0, _log_between(-b, -z), _log_between(z, b))
    return np.exp(num - _tn_logmass(a, b))


def _tn_dcdf(z: Any, a: Any, b: Any) -> Any:
    logD = _tn_logmass(a, b)
    return [-_tn_over_mass(a, logD) * _tn_sf(z, a, b), -_tn_cdf(z, a, b) * _tn_over_mass(b, logD)]


def _tn_ppf(q: Any, a: Any, b: Any) -> Any:
    D = np.exp(_tn_logmass(a, b))
    return np.where(np.asarray(untraced(a)) > 0, -sp.ndtri(sp.ndtr(-a) - q * D), sp.ndtri(sp.ndtr(a) + q * D))


def _tn_entropy(a: Any, b: Any) -> Any:
    """log(√(2πe)·Z) + (aφ(a) − bφ(b))/(2Z), Z = Φ(b) − Φ(a)."""
    logD = _tn_logmass(a, b)
    return 0.5 + _LOG_SQRT_2PI + logD + (a * _tn_over_mass(a, logD) - b * _tn_over_mass(b, logD)) / 2


def _tn_dentropy(a: Any, b: Any) -> Any:
    logD = _tn_logmass(a, b)
    pa, pb = _tn_over_mass(a, logD), _tn_over_mass(b, logD)       # φ(a)/Z, φ(b)/Z
    m = (a * pa - b * pb) / 2
    return [-pa + pa * (1 - a * a) / 2 + m * pa, pb - pb * (1 - b * b) / 2 - m * pb]


TRUNCNORM = Std(st.truncnorm, lambda z, a, b: -0.5 * z * z - _LOG_SQRT_2PI - _tn_logmass(a, b),
                _tn_dlogpdf, cdf=_tn_cdf, sf=_tn_sf, dcdf=_tn_dcdf,
                ppf=_tn_ppf, isf=lambda q, a, b: _tn_ppf(1 - q, a, b),
                entropy=_tn_entropy, dentropy=_tn_dentropy)


DISTRIBUTIONS = [NORM, T, CHI2, GAMMA, INVGAMMA, BETA, F, EXPON, LAPLACE, LOGISTIC, CAUCHY, UNIFORM,
                 GUMBEL_R, GUMBEL_L, HALFNORM, HALFCAUCHY, RAYLEIGH, LOGNORM, PARETO, WEIBULL_MIN,
                 VONMISES, GENNORM, TRUNCNORM]

for _d in DISTRIBUTIONS:
    register_methods(_methods(_d))
del _d
