"""Rows of the scipy.special table (see `special_table`): exponential and
trigonometric integrals, Lambert W, Wright ω, Spence, hypergeometric
functions (in z), orthogonal polynomials (in x), elliptic integrals and
functions, Wright's Bessel function, parabolic cylinder functions.  The
parameters of hypergeometric functions and the continuous parameters of
polynomials (α, β) are `not_implemented`; degrees get NoTangent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp
from scipy.special import _ufuncs

from chainrules._core import untraced
from chainrules.rulesets.scipy.special_table import INT, NI, Row, register_rows


def _where0(z: Any, limit: Any, f: Any) -> Any:
    """f(z), with its limit where z = 0 (f evaluated at 1 there: no 0/0)."""
    at0 = z == 0
    return np.where(at0, limit, f(np.where(at0, 1.0, z)))


def _dspence(z: Any) -> Any:
    at1 = z == 1
    zs = np.where(at1, 2.0, z)
    return np.where(at1, -1.0, np.log(zs) / (1 - zs))


def _dexpn(n: Any, x: Any) -> Any:
    # E'_n = −E_{n−1}; E_0(x) = e^{−x}/x, whose derivative is −e^{−x}(1/x + 1/x²)
    n = np.asarray(n)
    return np.where(n >= 1, -sp.expn(np.maximum(n - 1, 0), x), -np.exp(-x) * (1 + 1 / x) / x)


EXPONENTIAL = [
    Row(sp.exp1, "exp1", "z", lambda z, o: -np.exp(-z) / z, holomorphic=True),
    Row(sp.expi, "expi", "z", lambda z, o: np.exp(z) / z, holomorphic=True),
    Row(sp.expn, "expn", "n, x", INT, lambda n, x, o: _dexpn(n, x)),
    Row(sp.sici, "sici", "z", lambda z, *o: (np.sinc(z / math.pi), np.cos(z) / z), outputs=2,
        holomorphic=True),
    Row(sp.shichi, "shichi", "z", lambda z, *o: (_where0(z, 1.0, lambda u: np.sinh(u) / u),
                                                 np.cosh(z) / z), outputs=2, holomorphic=True),
    # W' = W/(z(1 + W)) = e^{−W}/(1 + W) (no 0/0 at z = 0)
    Row(sp.lambertw, "lambertw", "z, k, tol", lambda z, k, tol, w: np.exp(-w) / (1 + w), INT, INT,
        holomorphic=True, defaults={"k": 0, "tol": 1e-8}),
    # the ufunc lambertw calls (with its arguments as they are: tracked values stay tracked)
    Row(_ufuncs._lambertw, "_lambertw", "z, k, tol", lambda z, k, tol, w: np.exp(-w) / (1 + w), INT, INT,
        holomorphic=True),
    Row(sp.fresnel, "fresnel", "z", lambda z, *o: (np.sin(math.pi / 2 * z * z), np.cos(math.pi / 2 * z * z)),
        outputs=2, holomorphic=True),
    Row(sp.wrightomega, "wrightomega", "z", lambda z, w: w / (1 + w), holomorphic=True),
    Row(sp.spence, "spence", "z", lambda z, o: _dspence(z), holomorphic=True),
]


HYPERGEOMETRIC = [
    Row(sp.hyp0f1, "hyp0f1", "v, z", NI, lambda b, z, o: sp.hyp0f1(b + 1, z) / b, holomorphic=True),
    Row(sp.hyp1f1, "hyp1f1", "a, b, z", NI, NI,
        lambda a, b, z, o: a / b * sp.hyp1f1(a + 1, b + 1, z), holomorphic=True),
    Row(sp.hyp2f1, "hyp2f1", "a, b, c, z", NI, NI, NI,
        lambda a, b, c, z, o: a * b / c * sp.hyp2f1(a + 1, b + 1, c + 1, z), holomorphic=True),
    Row(sp.hyperu, "hyperu", "a, b, x", NI, NI, lambda a, b, x, o: -a * sp.hyperu(a + 1, b + 1, x)),
]


# ----- orthogonal polynomials: d/dx C_n^{(α)} = 2α C_{n−1}^{(α+1)} and its kin -------------

def _down(n: Any) -> Any:
    """(n − 1 clipped at 0, 1 where n > 0 else 0): the lower degree and the factor that
    makes the derivative of a degree-0 polynomial 0."""
    n = np.asarray(n)
    return np.maximum(n - 1, 0), (n > 0) * 1.0


def _C(n: Any, a: Any, x: Any) -> Any:
    m, on = _down(n)
    return on * sp.eval_gegenbauer(m, a, x)


def _poly(f: Any, name: str, d: Any) -> Row:
    return Row(f, name, "n, x", INT, lambda n, x, o: d(n, x), holomorphic=True)


def _m(n: Any) -> Any:
    return _down(n)[0]


def _sph_harm(n: Any, m: Any, theta: Any, phi: Any) -> Any:
    """Y_n^m(θ, φ) = √((2n+1)/(4π)·(n−m)!/(n+m)!)·P_n^m(cos θ)·e^{imφ} with lpmv (SciPy's
    sph_harm_y converts its arguments to arrays); 0 for |m| > n."""
    n, m = np.asarray(n), np.asarray(m)
    ok = np.abs(m) <= n
    ms = np.where(ok, m, 0)
    c = np.sqrt((2 * n + 1) / (4 * math.pi) * np.exp(sp.gammaln(n - ms + 1) - sp.gammaln(n + ms + 1)))
    return np.where(ok, c, 0.0) * sp.lpmv(ms, n, np.cos(theta)) * np.exp(1j * ms * phi)


def _dsph_dtheta(n: Any, m: Any, theta: Any, phi: Any, y: Any) -> Any:
    """∂Y_n^m/∂θ = m·cot θ·Y_n^m + √((n−m)(n+m+1))·e^{−iφ}·Y_n^{m+1}."""
    n, m = np.asarray(n), np.asarray(m)
    return (m / np.tan(theta) * y
            + np.sqrt(np.maximum((n - m) * (n + m + 1), 0)) * np.exp(-1j * phi) * _sph_harm(n, m + 1, theta, phi))


POLYNOMIALS = [
    _poly(sp.eval_legendre, "eval_legendre", lambda n, x: _C(n, 1.5, x)),
    _poly(sp.eval_sh_legendre, "eval_sh_legendre", lambda n, x: 2 * _C(n, 1.5, 2 * x - 1)),
    _poly(sp.eval_chebyt, "eval_chebyt", lambda n, x: n * sp.eval_chebyu(_m(n), x)),
    _poly(sp.eval_chebyu, "eval_chebyu", lambda n, x: 2 * _C(n, 2.0, x)),
    _poly(sp.eval_chebyc, "eval_chebyc", lambda n, x: n * sp.eval_chebys(_m(n), x)),
    _poly(sp.eval_chebys, "eval_chebys", lambda n, x: _C(n, 2.0, x / 2)),
    _poly(sp.eval_sh_chebyt, "eval_sh_chebyt", lambda n, x: 2 * n * sp.eval_sh_chebyu(_m(n), x)),
    _poly(sp.eval_sh_chebyu, "eval_sh_chebyu", lambda n, x: 4 * _C(n, 2.0, 2 * x - 1)),
    _poly(sp.eval_laguerre, "eval_laguerre",
          lambda n, x: -_down(n)[1] * sp.eval_genlaguerre(_m(n), 1.0, x)),
    Row(sp.eval_hermite, "eval_hermite", "n, x", INT,
        lambda n, x, o: 2 * np.asarray(n) * sp.eval_hermite(_m(n), x)),
    Row(sp.eval_hermitenorm, "eval_hermitenorm", "n, x", INT,
        lambda n, x, o: np.asarray(n) * sp.eval_hermitenorm(_m(n), x)),
    Row(sp.eval_gegenbauer, "eval_gegenbauer", "n, alpha, x", INT, NI,
        lambda n, a, x, o: 2 * a * _C(n, a + 1, x), holomorphic=True),
    Row(sp.eval_genlaguerre, "eval_genlaguerre", "n, alpha, x", INT, NI,
        lambda n, a, x, o: -_down(n)[1] * sp.eval_genlaguerre(_m(n), a + 1, x), holomorphic=True),
    Row(sp.eval_jacobi, "eval_jacobi", "n, alpha, beta, x", INT, NI, NI,
        lambda n, a, b, x, o: _down(n)[1] * (n + a + b + 1) / 2 * sp.eval_jacobi(_m(n), a + 1, b + 1, x),
        holomorphic=True),
    # associated Legendre: (x² − 1)·P'^m_v = v·x·P^m_v − (v + m)·P^m_{v−1} (DLMF 14.10.5)
    Row(sp.lpmv, "lpmv", "m, v, x", INT, NI,
        lambda m, v, x, o: (v * x * o - (v + m) * sp.lpmv(m, v - 1, x)) / (x * x - 1)),
    # spherical harmonics (real θ, φ; a complex value: the pullback takes the real part)
    Row(sp.sph_harm_y, "sph_harm_y", "n, m, theta, phi", INT, INT,
        lambda n, m, t, p, y: _dsph_dtheta(n, m, t, p, _sph_harm(n, m, t, p)),
        lambda n, m, t, p, y: 1j * np.asarray(m) * _sph_harm(n, m, t, p),
        holomorphic=True, primal=_sph_harm, refuse=("diff_n",)),
    # G_n^{(p,q)}' = n·G_{n−1}^{(p+2,q+1)}
    Row(sp.eval_sh_jacobi, "eval_sh_jacobi", "n, p, q, x", INT, NI, NI,
        lambda n, p, q, x, o: np.asarray(n) * sp.eval_sh_jacobi(_m(n), p + 2, q + 1, x),
        holomorphic=True),
]


# ----- elliptic integrals and functions (DLMF 19.4, 19.18, 22.13) ---------------------------

def _dellipk(m: Any, k: Any) -> Any:
    return _where0(m, math.pi / 8, lambda u: (sp.ellipe(u) - (1 - u) * sp.ellipk(u)) / (2 * u * (1 - u)))


def _delta(phi: Any, m: Any) -> Any:
    return np.sqrt(1 - m * np.sin(phi) ** 2)


def _dF_dm(phi: Any, m: Any, F: Any) -> Any:
    return (sp.ellipeinc(phi, m) / (2 * m * (1 - m)) - F / (2 * m)
            - np.sin(phi) * np.cos(phi) / (2 * (1 - m) * _delta(phi, m)))


def _drd_x(x: Any, y: Any, z: Any, rd: Any) -> Any:
    return (rd - sp.elliprd(y, z, x)) / (2 * (z - x))


def _drj_x(x: Any, y: Any, z: Any, p: Any, rj: Any) -> Any:
    return (rj - sp.elliprd(y, z, x)) / (2 * (p - x))


def _drj_p(x: Any, y: Any, z: Any, p: Any, rj: Any) -> Any:
    return (-1.5 * rj - x * _drj_x(x, y, z, p, rj) - y * _drj_x(y, z, x, p, rj)
            - z * _drj_x(z, x, y, p, rj)) / p


ELLIPTIC = [
    Row(sp.ellipk, "ellipk", "m", _dellipk),
    Row(sp.ellipkm1, "ellipkm1", "p", lambda p, k: -_dellipk(1 - p, k)),
    Row(sp.ellipe, "ellipe", "m", lambda m, e: _where0(m, -math.pi / 8, lambda u: (sp.ellipe(u) - sp.ellipk(u)) / (2 * u))),
    Row(sp.ellipkinc, "ellipkinc", "phi, m", lambda phi, m, F: 1 / _delta(phi, m),
        lambda phi, m, F: _dF_dm(phi, m, F)),
    Row(sp.ellipeinc, "ellipeinc", "phi, m", lambda phi, m, E: _delta(phi, m),
        lambda phi, m, E: (E - sp.ellipkinc(phi, m)) / (2 * m)),
    Row(sp.ellipj, "ellipj", "u, m", lambda u, m, sn, cn, dn, ph: (cn * dn, -sn * dn, -m * sn * cn, dn),
        NI, outputs=4),
    # ∂R_F/∂z = −R_D(x, y, z)/6 (symmetric); R_C(x, y) = R_F(x, y, y);
    # ∂R_G/∂z = R_F/4 − z·R_D(x, y, z)/12
    Row(sp.elliprf, "elliprf", "x, y, z", lambda x, y, z, o: -sp.elliprd(y, z, x) / 6,
        lambda x, y, z, o: -sp.elliprd(z, x, y) / 6, lambda x, y, z, o: -sp.elliprd(x, y, z) / 6,
        holomorphic=True),
    # ∂R_D(x, y, z)/∂x = (R_D(x, y, z) − R_D(y, z, x))/(2(z − x)) (partial fractions in
    # R_D's integral), ∂y likewise, ∂z from R_D's homogeneity (degree −3/2): x∂x + y∂y + z∂z = −3/2·R_D;
    # removable singularities where x = z or y = z
    Row(sp.elliprd, "elliprd", "x, y, z", lambda x, y, z, o: _drd_x(x, y, z, o),
        lambda x, y, z, o: _drd_x(y, x, z, o),
        lambda x, y, z, o: (-1.5 * o - x * _drd_x(x, y, z, o) - y * _drd_x(y, x, z, o)) / z,
        holomorphic=True),
    # R_J likewise: ∂R_J/∂x = (R_J − R_D(y, z, x))/(2(p − x)) (R_J(x, y, z, x) = R_D(y, z, x)),
    # ∂y, ∂z by symmetry, ∂p from the homogeneity (degree −3/2); removable where p equals x, y or z
    Row(sp.elliprj, "elliprj", "x, y, z, p", lambda x, y, z, p, o: _drj_x(x, y, z, p, o),
        lambda x, y, z, p, o: _drj_x(y, z, x, p, o), lambda x, y, z, p, o: _drj_x(z, x, y, p, o),
        _drj_p, holomorphic=True),
    # R_C(x, y) = R_F(x, y, y): ∂x = −R_D(y, y, x)/6, ∂y = −R_D(x, y, y)/3, written with R_C itself
    # (DLMF 19.20.20, 19.20.21: no 0/0 of R_D's derivative where y = z); removable at x = y
    Row(sp.elliprc, "elliprc", "x, y", lambda x, y, o: -(o - 1 / np.sqrt(x)) / (2 * (x - y)),
        lambda x, y, o: -(o - np.sqrt(x) / y) / (2 * (y - x)), holomorphic=True),
    Row(sp.elliprg, "elliprg", "x, y, z",
        lambda x, y, z, o: sp.elliprf(x, y, z) / 4 - x * sp.elliprd(y, z, x) / 12,
        lambda x, y, z, o: sp.elliprf(x, y, z) / 4 - y * sp.elliprd(z, x, y) / 12,
        lambda x, y, z, o: sp.elliprf(x, y, z) / 4 - z * sp.elliprd(x, y, z) / 12,
        holomorphic=True),
]


# ----- Wright's generalized Bessel function: ∂Φ(a, b; x)/∂x = Φ(a, a + b; x) -----------------
# ----- parabolic cylinder functions: w'' = (x²/4 − ν − 1/2)·w (D_ν, V_ν), (a − x²/4)·w (W) ---

MISC = [
    Row(sp.wright_bessel, "wright_bessel", "a, b, x", NI, NI,
        lambda a, b, x, o: sp.wright_bessel(a, a + b, x)),
    Row(sp.log_wright_bessel, "log_wright_bessel", "a, b, x", NI, NI,
        lambda a, b, x, o: np.exp(sp.log_wright_bessel(a, a + b, x) - o)),
    Row(sp.pbdv, "pbdv", "v, x", NI, lambda v, x, d, dp: (dp, (x * x / 4 - v - 0.5) * d), outputs=2),
    Row(sp.pbvv, "pbvv", "v, x", NI, lambda v, x, d, dp: (dp, (x * x / 4 - v - 0.5) * d), outputs=2),
    Row(sp.pbwa, "pbwa", "a, x", NI, lambda a, x, w, wp: (wp, (a - x * x / 4) * w), outputs=2),
]


# ----- more: the arithmetic-geometric mean, scaled Airy, Kelvin, modified Fresnel, noncentral χ²,
# Bessel polynomial integrals, Tukey's lambda ------------------------------------------------

def _dagm(a: Any, b: Any, o: Any) -> Any:
    """(∂a, ∂b) of agm(a, b) = πa/(2K(m)), m = 1 − (b/a)²."""
    m = 1 - (b / a) ** 2
    w = o / sp.ellipk(m) * _dellipk(m, None)
    return o / a - w * 2 * b * b / a ** 3, w * 2 * b / a ** 2


def _ncx2_pdf(x: Any, k: Any, lam: Any) -> Any:
    """The noncentral χ² density ½e^{−(x+λ)/2}(x/λ)^{k/4−1/2} I_{k/2−1}(√(λx)) (with ive)."""
    r = np.sqrt(lam * x)
    return 0.5 * np.exp(r - (x + lam) / 2 + (k / 4 - 0.5) * np.log(x / lam)) * sp.ive(k / 2 - 1, r)


def _dkolmogp(x: Any) -> Any:
    """The second derivative of kolmogorov (its first is SciPy's _kolmogp): for x ≥ 0.5 the
    series −8Σ(−1)^{k−1}k²e^{−2k²x²}(1 − 4k²x²) (100 terms), below it the derivative of the
    Jacobi-transformed CDF K(x) = √(2π)/x·Σ e^{−(2k−1)²π²/(8x²)} (20 terms, no cancellation)."""
    shape = np.shape(_plain_values(x))
    big = np.where(x >= 0.5, x, 1.0)
    k = np.arange(1, 101, dtype=float).reshape((-1,) + (1,) * len(shape))
    large = -8 * np.sum((-1.0) ** (k - 1) * k * k * np.exp(-2 * k * k * big * big) * (1 - 4 * k * k * big * big),
                        axis=0)
    sm = np.where(x >= 0.5, 0.5, np.maximum(x, 1e-3))
    a = ((2 * k[:20] - 1) * math.pi) ** 2 / 8
    e = np.exp(-a / (sm * sm))
    d2K = math.sqrt(2 * math.pi) * np.sum(
        e * ((2 / sm ** 3 - 8 * a / sm ** 5) + (-1 / sm ** 2 + 2 * a / sm ** 4) * (2 * a / sm ** 3)), axis=0)
    return np.where(x >= 0.5, large, -d2K)


def _plain_values(x: Any) -> Any:
    return np.asarray(untraced(x))


def _diric(x: Any, n: Any) -> Any:
    """sin(nx/2)/(n·sin(x/2)) with NumPy (SciPy's diric converts x to an array), its limit
    (±1) where sin(x/2) = 0."""
    s = np.sin(x / 2)
    at0 = _plain_values(s) == 0
    ss = np.where(at0, 1.0, s)
    lim = np.where(np.cos(x / 2) ** (np.asarray(n) - 1) > 0, 1.0, -1.0)
    return np.where(at0, lim, np.sin(n * x / 2) / (n * ss))


def _ddiric(x: Any, n: Any) -> Any:
    """d/dx sin(nx/2)/(n sin(x/2)) = (n cos(nx/2) sin(x/2) − sin(nx/2) cos(x/2))/(2n sin²(x/2)); 0 where
    sin(x/2) = 0 (an extremum of the periodic kernel)."""
    s = np.sin(x / 2)
    at0 = _plain_values(s) == 0
    ss = np.where(at0, 1.0, s)
    d = (n * np.cos(n * x / 2) * ss - np.sin(n * x / 2) * np.cos(x / 2)) / (2 * n * ss * ss)
    return np.where(at0, 0.0, d)


_EIPI4 = complex(np.exp(1j * math.pi / 4)) / math.sqrt(math.pi)

MORE = [
    Row(sp.agm, "agm", "a, b", lambda a, b, o: _dagm(a, b, o)[0], lambda a, b, o: _dagm(a, b, o)[1]),
    # eAi = Ai·e^{ζ}, eBi = Bi·e^{−|Re ζ|}, ζ = ⅔x^{3/2} (real x; Re ζ = 0 for x < 0)
    Row(sp.airye, "airye", "x",
        lambda x, eai, eaip, ebi, ebip: (lambda s: (eaip + s * eai, x * eai + s * eaip, ebip - s * ebi,
                                                    x * ebi - s * ebip))(np.sqrt(np.maximum(x, 0))),
        outputs=4),
    # w = ber + i·bei (Be) and ker + i·kei (Ke) solve w'' = −w'/x + i·w
    Row(sp.kelvin, "kelvin", "x",
        lambda x, be, ke, bep, kep: (bep, kep, -bep / x + 1j * be, -kep / x + 1j * ke),
        outputs=4, holomorphic=True),
    # F±(x) = ∫ₓ^∞ e^{±it²} dt, K± = F±·e^{∓i(x²+π/4)}/√π
    Row(sp.modfresnelp, "modfresnelp", "x",
        lambda x, f, k: (-np.exp(1j * x * x), -np.conj(_EIPI4) - 2j * x * k), outputs=2, holomorphic=True),
    Row(sp.modfresnelm, "modfresnelm", "x",
        lambda x, f, k: (-np.exp(-1j * x * x), -_EIPI4 + 2j * x * k), outputs=2, holomorphic=True),
    Row(sp.chndtr, "chndtr", "x, df, nc", lambda x, k, lam, o: _ncx2_pdf(x, k, lam), NI, NI),
    Row(sp.chndtrix, "chndtrix", "p, df, nc", lambda p, k, lam, o: 1 / _ncx2_pdf(o, k, lam), NI, NI),
    # ∫₀¹ x^λ J_ν(2ax) dx: ∂a through J_ν' = (J_{ν−1} − J_{ν+1})/2
    Row(sp.besselpoly, "besselpoly", "a, lmb, nu",
        lambda a, lm, nu, o: sp.besselpoly(a, lm + 1, nu - 1) - sp.besselpoly(a, lm + 1, nu + 1), NI, NI),
    # the Kolmogorov distribution's survival function, its derivative (SciPy's _kolmogp) and inverse
    Row(sp.kolmogorov, "kolmogorov", "y", lambda y, o: _ufuncs._kolmogp(y)),
    Row(_ufuncs._kolmogp, "_kolmogp", "y", lambda y, o: _dkolmogp(y)),
    Row(sp.kolmogi, "kolmogi", "p", lambda p, o: 1 / _ufuncs._kolmogp(o)),
    # round: constant between half-integers (a zero derivative there, as JAX's)
    Row(sp.round, "round", "x", lambda x, o: 0.0 * x),
    Row(sp.diric, "diric", "x, n", lambda x, n, o: _ddiric(x, n), INT, primal=_diric),
    # the Tukey-lambda CDF p(x), the inverse of x = (p^λ − (1−p)^λ)/λ
    Row(sp.tklmbda, "tklmbda", "x, lmbda",
        lambda x, lam, p: 1 / (p ** (lam - 1) + (1 - p) ** (lam - 1)), NI),
]

register_rows(EXPONENTIAL + HYPERGEOMETRIC + POLYNOMIALS + ELLIPTIC + MISC + MORE)
