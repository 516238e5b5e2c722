"""Rows of the scipy.special table (see `special_table`): convenience
functions, gamma and beta, error functions, distribution functions.  Each
partial is written with functions that have rules (every order works)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp

from chainrules.rulesets.scipy.special_series import dbetainc_dab, dgammainc_da
from chainrules.rulesets.scipy.special_table import INT, NI, Row, register_rows

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_DEG = math.pi / 180.0
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT2 = math.sqrt(2.0)


def _safe(x: Any, bad: Any, fill: float = 1.0) -> Any:
    """x with `fill` where `bad` (a division there is replaced by its limit)."""
    return np.where(bad, fill, x)


# ----- convenience functions ---------------------------------------------------

def _dexprel(x: Any, y: Any) -> Any:
    # (eˣ − exprel(x))/x, its Taylor series 1/2 + x/3 + x²/8 + x³/30 near 0 (cancellation)
    small = np.abs(np.real(x)) < 1e-3
    xs = _safe(x, small)
    return np.where(small, 0.5 + x * (1 / 3 + x * (1 / 8 + x / 30)), (np.exp(xs) - sp.exprel(xs)) / xs)


def _huber_r(d: Any, r: Any, y: Any) -> Any:
    return np.where(np.abs(r) <= d, r, d * np.sign(r))


def _huber_d(d: Any, r: Any, y: Any) -> Any:
    return np.where(np.abs(r) <= d, 0.0 * r, np.abs(r) - d)


def _phs(d: Any, r: Any) -> Any:
    return np.sqrt(1 + (r / d) ** 2)


def _boxcox_lam(L: Any, lam: Any, y: Any) -> Any:
    """∂/∂λ of (e^{λL} − 1)/λ = (L e^{λL} − Ω)/λ; its series L²/2 + λL³/3 + λ²L⁴/8 + λ³L⁵/30
    where λL is small (cancellation)."""
    u = lam * L
    small = np.abs(u) < 1e-3
    ls = _safe(lam, small)
    series = L * L * (0.5 + u * (1 / 3 + u * (1 / 8 + u / 30)))
    return np.where(small, series, (L * np.exp(ls * L) - np.expm1(ls * L) / ls) / ls)


def _inv_boxcox_lam(y: Any, lam: Any, w: Any) -> Any:
    """∂/∂λ of w = (1 + λy)^{1/λ}: w·(y/(λ(1+λy)) − log1p(λy)/λ²); −w y²/2 at λ = 0
    (series: w·(−y²/2 + 2λy³/3 − 3λ²y⁴/4) where λy is small)."""
    u = lam * y
    small = np.abs(u) < 1e-3
    ls = _safe(lam, small)
    series = w * y * y * (-0.5 + u * (2 / 3 - 0.75 * u))
    return np.where(small, series, w * (y / (ls * (1 + ls * y)) - np.log1p(ls * y) / (ls * ls)))


def _rel_entr_x(x: Any, y: Any, o: Any) -> Any:
    return np.log(x / y) + 1


CONVENIENCE = [
    Row(sp.expm1, "expm1", "x", lambda x, y: np.exp(x), holomorphic=True),
    Row(sp.log1p, "log1p", "x", lambda x, y: 1 / (1 + x), holomorphic=True),
    Row(sp.exp2, "exp2", "x", lambda x, y: _LN2 * y),
    Row(sp.exp10, "exp10", "x", lambda x, y: _LN10 * y),
    Row(sp.cosm1, "cosm1", "x", lambda x, y: -np.sin(x)),
    Row(sp.powm1, "powm1", "x, y", lambda x, p, o: p * np.power(x, p - 1),
        lambda x, p, o: (o + 1) * np.log(x)),
    Row(sp.exprel, "exprel", "x", _dexprel),
    Row(sp.huber, "huber", "delta, r", _huber_d, _huber_r),
    Row(sp.pseudo_huber, "pseudo_huber", "delta, r",
        lambda d, r, o: 2 * o / d - r * r / (d * _phs(d, r)),
        lambda d, r, o: r / _phs(d, r)),
    Row(sp.boxcox, "boxcox", "x, lmbda", lambda x, lam, o: np.power(x, lam - 1),
        lambda x, lam, o: _boxcox_lam(np.log(x), lam, o)),
    Row(sp.boxcox1p, "boxcox1p", "x, lmbda", lambda x, lam, o: np.power(1 + x, lam - 1),
        lambda x, lam, o: _boxcox_lam(np.log1p(x), lam, o)),
    Row(sp.inv_boxcox, "inv_boxcox", "y, lmbda", lambda y, lam, o: o / (1 + lam * y),
        lambda y, lam, o: _inv_boxcox_lam(y, lam, o)),
    Row(sp.inv_boxcox1p, "inv_boxcox1p", "y, lmbda", lambda y, lam, o: (o + 1) / (1 + lam * y),
        lambda y, lam, o: _inv_boxcox_lam(y, lam, o + 1)),
    Row(sp.rel_entr, "rel_entr", "x, y", _rel_entr_x, lambda x, y, o: -x / y),
    Row(sp.kl_div, "kl_div", "x, y", lambda x, y, o: np.log(x / y), lambda x, y, o: 1 - x / y),
    Row(sp.cbrt, "cbrt", "x", lambda x, y: 1 / (3 * y * y)),
    Row(sp.sindg, "sindg", "x", lambda x, y: _DEG * sp.cosdg(x)),
    Row(sp.cosdg, "cosdg", "x", lambda x, y: -_DEG * sp.sindg(x)),
    Row(sp.tandg, "tandg", "x", lambda x, y: _DEG * (1 + y * y)),
    Row(sp.cotdg, "cotdg", "x", lambda x, y: -_DEG * (1 + y * y)),
    Row(sp.radian, "radian", "d, m, s", lambda d, m, s, o: _DEG + 0 * d,
        lambda d, m, s, o: _DEG / 60 + 0 * m, lambda d, m, s, o: _DEG / 3600 + 0 * s),
]
if hasattr(sp, "softplus"):      # SciPy ≥ 1.15; a Python function of np.logaddexp
    CONVENIENCE.append(Row(sp.softplus, "softplus", "x", lambda x, y: sp.expit(x),
                           primal=lambda x: np.logaddexp(0, x)))


# ----- gamma and beta ------------------------------------------------------------

def _dbeta(a: Any, b: Any) -> Any:
    return sp.digamma(a) - sp.digamma(a + b)


def _multigammaln(a: Any, d: int) -> Any:
    """SciPy's formula with ufuncs (multigammaln converts its argument to an array)."""
    return d * (d - 1) / 4 * math.log(math.pi) + sum(sp.gammaln(a - j / 2) for j in range(d))


def _density_x(a: Any, x: Any) -> Any:
    """∂/∂x gammainc(a, x) = x^{a−1} e^{−x}/Γ(a)."""
    return np.exp(sp.xlogy(a - 1, x) - x - sp.gammaln(a))


def _dinv_da(a: Any, x: Any) -> Any:
    """∂x/∂a of the inverse x(a, y) of P(·, x) = y (or Q): −(∂P/∂a)/(∂P/∂x) at x."""
    return -dgammainc_da(a, x) / _density_x(a, x)


def _dbinv(a: Any, b: Any, x: Any, i: int) -> Any:
    """∂x/∂a (i = 0) or ∂x/∂b (i = 1) of the inverse of I_·(a, b) (or of 1 − I) at x."""
    return -dbetainc_dab(a, b, x)[i] / _beta_density(a, b, x)


def _beta_density(a: Any, b: Any, x: Any) -> Any:
    """∂/∂x betainc(a, b, x) = x^{a−1}(1−x)^{b−1}/B(a, b)."""
    return np.exp(sp.xlogy(a - 1, x) + sp.xlog1py(b - 1, -x) - sp.betaln(a, b))


GAMMA = [
    Row(sp.beta, "beta", "a, b", lambda a, b, o: o * _dbeta(a, b), lambda a, b, o: o * _dbeta(b, a)),
    Row(sp.betaln, "betaln", "a, b", lambda a, b, o: _dbeta(a, b), lambda a, b, o: _dbeta(b, a)),
    # the sign of Γ: constant between its poles (the derivative is 0 there, as JAX's)
    Row(sp.gammasgn, "gammasgn", "x", lambda x, y: 0.0 * x),
    Row(sp.rgamma, "rgamma", "x", lambda x, y: -y * sp.digamma(x)),
    # complex z: first order (SciPy has no complex polygamma for the second)
    Row(sp.loggamma, "loggamma", "z", lambda z, y: sp.digamma(z), holomorphic=True),
    Row(sp.poch, "poch", "z, m", lambda z, m, o: o * (sp.digamma(z + m) - sp.digamma(z)),
        lambda z, m, o: o * sp.digamma(z + m)),
    Row(sp.binom, "binom", "n, k",
        lambda n, k, o: o * (sp.digamma(n + 1) - sp.digamma(n - k + 1)),
        lambda n, k, o: o * (sp.digamma(n - k + 1) - sp.digamma(k + 1))),
    Row(sp.multigammaln, "multigammaln", "a, d",
        lambda a, d, o: sum(sp.digamma(a - j / 2) for j in range(int(d))), INT,
        primal=_multigammaln),
    # ∂/∂a by series/quadrature (special_series.dgammainc_da)
    Row(sp.gammainc, "gammainc", "a, x", lambda a, x, o: dgammainc_da(a, x), lambda a, x, o: _density_x(a, x)),
    Row(sp.gammaincc, "gammaincc", "a, x", lambda a, x, o: -dgammainc_da(a, x),
        lambda a, x, o: -_density_x(a, x)),
    # the inverse function rule: ∂x/∂y = 1/(∂P/∂x at x = Ω), ∂x/∂a = −(∂P/∂a)/(∂P/∂x) (the same for Q)
    Row(sp.gammaincinv, "gammaincinv", "a, y", lambda a, y, o: _dinv_da(a, o),
        lambda a, y, o: 1 / _density_x(a, o)),
    Row(sp.gammainccinv, "gammainccinv", "a, y", lambda a, y, o: _dinv_da(a, o),
        lambda a, y, o: -1 / _density_x(a, o)),
    # ∂/∂a, ∂/∂b by series (special_series.dbetainc_dab); the inverses by the implicit function rule
    Row(sp.betainc, "betainc", "a, b, x", lambda a, b, x, o: dbetainc_dab(a, b, x)[0],
        lambda a, b, x, o: dbetainc_dab(a, b, x)[1], lambda a, b, x, o: _beta_density(a, b, x)),
    Row(sp.betaincc, "betaincc", "a, b, x", lambda a, b, x, o: -dbetainc_dab(a, b, x)[0],
        lambda a, b, x, o: -dbetainc_dab(a, b, x)[1], lambda a, b, x, o: -_beta_density(a, b, x)),
    Row(sp.betaincinv, "betaincinv", "a, b, y", lambda a, b, y, o: _dbinv(a, b, o, 0),
        lambda a, b, y, o: _dbinv(a, b, o, 1), lambda a, b, y, o: 1 / _beta_density(a, b, o)),
    Row(sp.betainccinv, "betainccinv", "a, b, y", lambda a, b, y, o: _dbinv(a, b, o, 0),
        lambda a, b, y, o: _dbinv(a, b, o, 1), lambda a, b, y, o: -1 / _beta_density(a, b, o)),
]


# ----- error functions -------------------------------------------------------------

def _dwofz(z: Any, w: Any) -> Any:
    return -2 * z * w + 2j / math.sqrt(math.pi)


def _voigt(x: Any, s: Any, g: Any, o: Any) -> Any:
    """w(z) and w'(z)/(σ²·2√π) at z = (x + iγ)/(σ√2): V = Re w(z)/(σ√(2π))."""
    z = (x + 1j * g) / (s * _SQRT2)
    dw = _dwofz(z, sp.wofz(z))
    return z, dw / (s * s * 2 * math.sqrt(math.pi))


ERROR = [
    Row(sp.erfi, "erfi", "x", lambda x, y: _TWO_OVER_SQRT_PI * np.exp(x * x), holomorphic=True),
    Row(sp.erfcx, "erfcx", "x", lambda x, y: 2 * x * y - _TWO_OVER_SQRT_PI, holomorphic=True),
    Row(sp.dawsn, "dawsn", "x", lambda x, y: 1 - 2 * x * y, holomorphic=True),
    Row(sp.wofz, "wofz", "z", _dwofz, holomorphic=True),
    Row(sp.voigt_profile, "voigt_profile", "x, sigma, gamma",
        lambda x, s, g, o: np.real(_voigt(x, s, g, o)[1]),
        lambda x, s, g, o: -o / s - np.real(_voigt(x, s, g, o)[0] * _voigt(x, s, g, o)[1]) * _SQRT2,
        lambda x, s, g, o: -np.imag(_voigt(x, s, g, o)[1])),
    Row(sp.ndtri_exp, "ndtri_exp", "y", lambda y, o: np.exp(y + 0.5 * o * o + _LOG_SQRT_2PI)),
    Row(sp.owens_t, "owens_t", "h, a",
        lambda h, a, o: -np.exp(-0.5 * h * h - _LOG_SQRT_2PI) * sp.erf(a * h / _SQRT2) / 2,
        lambda h, a, o: np.exp(-0.5 * h * h * (1 + a * a)) / (2 * math.pi * (1 + a * a))),
]


# ----- distribution functions (in their continuous arguments) ----------------------

def _t_pdf(df: Any, t: Any) -> Any:
    return np.exp(sp.gammaln((df + 1) / 2) - sp.gammaln(df / 2) - 0.5 * np.log(df * math.pi)
                  - (df + 1) / 2 * np.log1p(t * t / df))


def _t_df(df: Any, t: Any) -> Any:
    """∂stdtr/∂df: stdtr = 1 − ½I_u(df/2, ½) for t > 0 (½I_u for t < 0), u = df/(df + t²),
    through betainc's series; 0 at t = 0 (stdtr = ½ there for every df)."""
    at0 = t == 0
    ts = np.where(at0, 1.0, t)
    u = df / (df + ts * ts)
    dI = dbetainc_dab(df / 2, 0.5, u)[0] / 2 + _beta_density(df / 2, 0.5, u) * ts * ts / (df + ts * ts) ** 2
    return np.where(at0, 0.0, -np.sign(ts) * dI / 2)


def _f_pdf(n: Any, m: Any, x: Any) -> Any:
    # ∂/∂x betainc(n/2, m/2, nx/(m + nx))
    u = n * x / (m + n * x)
    return _beta_density(n / 2, m / 2, u) * n * m / (m + n * x) ** 2


def _f_df(n: Any, m: Any, x: Any, i: int) -> Any:
    """∂fdtr/∂dfn (i = 0) or ∂fdtr/∂dfd (i = 1)."""
    u = n * x / (m + n * x)
    du = (x * m if i == 0 else -n * x) / (m + n * x) ** 2
    return dbetainc_dab(n / 2, m / 2, u)[i] / 2 + _beta_density(n / 2, m / 2, u) * du


def _bdtr_p(k: Any, n: Any, p: Any) -> Any:
    # bdtr = betainc(n − k, k + 1, 1 − p) (k floored)
    k = np.floor(k)
    return -_beta_density(n - k, k + 1, 1 - p)


def _nbdtr_p(k: Any, n: Any, p: Any) -> Any:
    return _beta_density(n, np.floor(k) + 1, p)


def _pdtr_m(k: Any, m: Any) -> Any:
    return -_density_x(np.floor(k) + 1, m)


def _gdtr(a: Any, b: Any, x: Any) -> Any:
    """∂/∂(ax) gammainc(b, ax)."""
    return _density_x(b, a * x)


DISTRIBUTIONS = [
    Row(sp.bdtr, "bdtr", "k, n, p", INT, INT, lambda k, n, p, o: _bdtr_p(k, n, p)),
    Row(sp.bdtrc, "bdtrc", "k, n, p", INT, INT, lambda k, n, p, o: -_bdtr_p(k, n, p)),
    Row(sp.bdtri, "bdtri", "k, n, y", INT, INT, lambda k, n, y, o: 1 / _bdtr_p(k, n, o)),
    Row(sp.nbdtr, "nbdtr", "k, n, p", INT, INT, lambda k, n, p, o: _nbdtr_p(k, n, p)),
    Row(sp.nbdtrc, "nbdtrc", "k, n, p", INT, INT, lambda k, n, p, o: -_nbdtr_p(k, n, p)),
    Row(sp.nbdtri, "nbdtri", "k, n, y", INT, INT, lambda k, n, y, o: 1 / _nbdtr_p(k, n, o)),
    Row(sp.pdtr, "pdtr", "k, m", INT, lambda k, m, o: _pdtr_m(k, m)),
    Row(sp.pdtrc, "pdtrc", "k, m", INT, lambda k, m, o: -_pdtr_m(k, m)),
    Row(sp.pdtri, "pdtri", "k, y", INT, lambda k, y, o: 1 / _pdtr_m(k, o)),
    # chdtr(v, x) = P(v/2, x/2), gdtr(a, b, x) = P(b, ax): their shape parameters by the series
    Row(sp.chdtr, "chdtr", "v, x", lambda v, x, o: dgammainc_da(v / 2, x / 2) / 2,
        lambda v, x, o: _density_x(v / 2, x / 2) / 2),
    Row(sp.chdtrc, "chdtrc", "v, x", lambda v, x, o: -dgammainc_da(v / 2, x / 2) / 2,
        lambda v, x, o: -_density_x(v / 2, x / 2) / 2),
    Row(sp.chdtri, "chdtri", "v, p", lambda v, p, o: _dinv_da(v / 2, o / 2),
        lambda v, p, o: -2 / _density_x(v / 2, o / 2)),
    Row(sp.gdtr, "gdtr", "a, b, x", lambda a, b, x, o: x * _gdtr(a, b, x),
        lambda a, b, x, o: dgammainc_da(b, a * x), lambda a, b, x, o: a * _gdtr(a, b, x)),
    Row(sp.gdtrc, "gdtrc", "a, b, x", lambda a, b, x, o: -x * _gdtr(a, b, x),
        lambda a, b, x, o: -dgammainc_da(b, a * x), lambda a, b, x, o: -a * _gdtr(a, b, x)),
    Row(sp.gdtrix, "gdtrix", "a, b, p", lambda a, b, p, o: -o / a,
        lambda a, b, p, o: _dinv_da(b, a * o) / a, lambda a, b, p, o: 1 / (a * _gdtr(a, b, o))),
    Row(sp.gdtria, "gdtria", "p, b, x", lambda p, b, x, o: 1 / (x * _gdtr(o, b, x)),
        lambda p, b, x, o: _dinv_da(b, o * x) / x, lambda p, b, x, o: -o / x),
    Row(sp.stdtr, "stdtr", "df, t", lambda df, t, o: _t_df(df, t), lambda df, t, o: _t_pdf(df, t)),
    Row(sp.stdtrit, "stdtrit", "df, p", lambda df, p, o: -_t_df(df, o) / _t_pdf(df, o),
        lambda df, p, o: 1 / _t_pdf(df, o)),
    # fdtr = I_u(n/2, m/2), u = nx/(m + nx): its degrees of freedom through betainc's series
    Row(sp.fdtr, "fdtr", "dfn, dfd, x", lambda n, m, x, o: _f_df(n, m, x, 0),
        lambda n, m, x, o: _f_df(n, m, x, 1), lambda n, m, x, o: _f_pdf(n, m, x)),
    Row(sp.fdtrc, "fdtrc", "dfn, dfd, x", lambda n, m, x, o: -_f_df(n, m, x, 0),
        lambda n, m, x, o: -_f_df(n, m, x, 1), lambda n, m, x, o: -_f_pdf(n, m, x)),
    Row(sp.fdtri, "fdtri", "dfn, dfd, p", lambda n, m, p, o: -_f_df(n, m, o, 0) / _f_pdf(n, m, o),
        lambda n, m, p, o: -_f_df(n, m, o, 1) / _f_pdf(n, m, o), lambda n, m, p, o: 1 / _f_pdf(n, m, o)),
    # nrdtrimn(p, std, x) = x − std·ndtri(p); nrdtrisd(mn, p, x) = (x − mn)/ndtri(p)
    Row(sp.nrdtrimn, "nrdtrimn", "p, std, x",
        lambda p, s, x, o: -s * np.exp(0.5 * sp.ndtri(p) ** 2 + _LOG_SQRT_2PI),
        lambda p, s, x, o: -sp.ndtri(p), lambda p, s, x, o: 1 + 0 * x),
    Row(sp.nrdtrisd, "nrdtrisd", "mn, p, x",
        lambda m, p, x, o: -1 / sp.ndtri(p),
        lambda m, p, x, o: -o / sp.ndtri(p) * np.exp(0.5 * sp.ndtri(p) ** 2 + _LOG_SQRT_2PI),
        lambda m, p, x, o: 1 / sp.ndtri(p)),
]


# ----- inverses in a shape parameter: the implicit function rule on the forward function ------
# F(…, Ω) = y: ∂Ω/∂y = 1/F_Ω, ∂Ω/∂u = −F_u/F_Ω for the other arguments u.  `forward` gives
# (F_u for each argument, None at y; F_Ω) at the arguments and Ω.

def _inverse(f: Any, name: str, params: str, yi: int, forward: Any) -> Row:
    def partial(i: int) -> Any:
        def d(*args: Any) -> Any:
            Fu, FΩ = forward(*args)
            return 1 / FΩ if i == yi else -Fu[i] / FΩ
        return d
    return Row(f, name, params, *[partial(i) for i in range(len(params.split(",")))])


def _dI(a: Any, b: Any, x: Any) -> Any:
    """(∂I/∂a, ∂I/∂b, ∂I/∂x) of I_x(a, b)."""
    da, db = dbetainc_dab(a, b, x)
    return da, db, _beta_density(a, b, x)


def _bdtr_k(n: Any, p: Any, k: Any) -> Any:
    """(F_k, F_n, F_p) of the continuous bdtr F = I_{1−p}(n − k, k + 1)."""
    da, db, dx = _dI(n - k, k + 1, 1 - p)
    return db - da, da, -dx


def _nbdtr_k(n: Any, p: Any, k: Any) -> Any:
    """(F_k, F_n, F_p) of nbdtr F = I_p(n, k + 1)."""
    da, db, dx = _dI(n, k + 1, p)
    return db, da, dx


def _gdtr_b(a: Any, b: Any, x: Any) -> Any:
    """(F_a, F_b, F_x) of gdtr F = P(b, ax)."""
    d = _density_x(b, a * x)
    return x * d, dgammainc_da(b, a * x), a * d


INVERSES = [
    _inverse(sp.btdtria, "btdtria", "p, b, x", 0,
             lambda p, b, x, o: (lambda d: ((None, d[1], d[2]), d[0]))(_dI(o, b, x))),
    _inverse(sp.btdtrib, "btdtrib", "a, p, x", 1,
             lambda a, p, x, o: (lambda d: ((d[0], None, d[2]), d[1]))(_dI(a, o, x))),
    _inverse(sp.bdtrik, "bdtrik", "y, n, p", 0,
             lambda y, n, p, o: (lambda d: ((None, d[1], d[2]), d[0]))(_bdtr_k(n, p, o))),
    _inverse(sp.bdtrin, "bdtrin", "k, y, p", 1,
             lambda k, y, p, o: (lambda d: ((d[0], None, d[2]), d[1]))(_bdtr_k(o, p, k))),
    _inverse(sp.nbdtrik, "nbdtrik", "y, n, p", 0,
             lambda y, n, p, o: (lambda d: ((None, d[1], d[2]), d[0]))(_nbdtr_k(n, p, o))),
    _inverse(sp.nbdtrin, "nbdtrin", "k, y, p", 1,
             lambda k, y, p, o: (lambda d: ((d[0], None, d[2]), d[1]))(_nbdtr_k(o, p, k))),
    _inverse(sp.gdtrib, "gdtrib", "a, p, x", 1,
             lambda a, p, x, o: (lambda d: ((d[0], None, d[2]), d[1]))(_gdtr_b(a, o, x))),
    _inverse(sp.chdtriv, "chdtriv", "p, x", 0,
             lambda p, x, o: ((None, _density_x(o / 2, x / 2) / 2), dgammainc_da(o / 2, x / 2) / 2)),
    _inverse(sp.pdtrik, "pdtrik", "p, m", 0,
             lambda p, m, o: ((None, -_density_x(o + 1, m)), -dgammainc_da(o + 1, m))),
    _inverse(sp.stdtridf, "stdtridf", "p, t", 0,
             lambda p, t, o: ((None, _t_pdf(o, t)), _t_df(o, t))),
    _inverse(sp.fdtridfd, "fdtridfd", "dfn, p, x", 1,
             lambda n, p, x, o: ((_f_df(n, o, x, 0), None, _f_pdf(n, o, x)), _f_df(n, o, x, 1))),
]

register_rows(CONVENIENCE + GAMMA + ERROR + DISTRIBUTIONS + INVERSES)
