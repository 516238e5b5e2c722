"""Parameter derivatives of scipy.special functions by series and quadrature
(issue 23, item 1 (3)): each is its own function, made of ufuncs and sums
that have rules (so an AD differentiates it too: the second
derivative is the derivative of the series or quadrature, as accurate), and
never by finite differences.  Accuracy is tested against mpmath across the
domains named in each docstring (tests/rulesets/scipy/test_special_table.py).

- `dgammainc_da(a, x)`: ∂/∂a of the regularized lower incomplete gamma P(a, x)
  (∂/∂a Q = −∂/∂a P);
- `dkv_dv(v, x)`, `div_dv(v, x)`: ∂/∂ν of the modified Bessel functions K_ν(x), I_ν(x);
- `dbetainc_dab(a, b, x)`: ∂/∂a and ∂/∂b of the regularized incomplete beta function;
- `dzeta_ds(s, q)`: ∂/∂s of the Hurwitz zeta function ζ(s, q) (and of Riemann's, q = 1);
- `vonmises_cdf(z, κ, in_kappa)`: the von Mises cdf and its κ-derivative by quadrature.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy as _numpy     # (not rebound on other libraries: shapes only)
import scipy.special as sp

from chainrules._core import untraced

# Gauss–Laguerre nodes and weights: ∫₀^∞ e^{−u} f(u) du ≈ Σ wᵢ f(uᵢ)
_LAG_U, _LAG_W = np.polynomial.laguerre.laggauss(80)


def _plain(v: Any) -> Any:
    return np.asarray(untraced(v), dtype=float)


def dgammainc_da(a: Any, x: Any) -> Any:
    """∂P(a, x)/∂a, P = gammainc.  Where x < a + 1 the series of P,
    P = Σₖ x^{a+k} e^{−x}/Γ(a+k+1), differentiated term by term:
    Σₖ x^{a+k} e^{−x}/Γ(a+k+1)·(log x − ψ(a+k+1)); elsewhere −∂Q/∂a with
    Γ(a)·Q = ∫ₓ^∞ t^{a−1} e^{−t} dt, whose a-derivative ∫ₓ^∞ t^{a−1} log t e^{−t} dt
    is computed by 80-point Gauss–Laguerre quadrature in t − x (smooth for
    x ≥ a + 1).  Tested to 1e-9 relative against mpmath for 0.1 ≤ a ≤ 50,
    1e-3 ≤ x ≤ 150 (and 0 at x = 0)."""
    ap, xp = _plain(a), _plain(x)
    shape = np.broadcast_shapes(np.shape(ap), np.shape(xp))
    ab, xb = np.broadcast_to(ap, shape), np.broadcast_to(xp, shape)
    use_series = xb < ab + 1
    pos = xb > 0
    # series (x < a + 1: the ratio of terms x/(a+k+1) < 1); x = 0 is replaced by 1 and masked
    xs = np.where(use_series & pos, x, 1.0)
    n = int(40 + 4 * np.max(np.where(use_series, xb, 0.0), initial=0.0))
    k = np.arange(n, dtype=float).reshape((n,) + (1,) * len(shape))
    logx = np.log(xs)
    terms = np.exp((a + k) * logx - xs - sp.gammaln(a + k + 1)) * (logx - sp.digamma(a + k + 1))
    series = np.sum(terms, axis=0)
    # quadrature (x ≥ a + 1); x is replaced by a + 1 elsewhere
    xq = np.where(use_series, a + 1.0, x)
    u = _LAG_U.reshape((-1,) + (1,) * len(shape))
    w = _LAG_W.reshape((-1,) + (1,) * len(shape))
    t = xq + u
    logt = np.log(t)
    integral = np.sum(w * np.exp((a - 1) * logt - xq - sp.gammaln(a)) * logt, axis=0)
    dq = integral - sp.gammaincc(a, xq) * sp.digamma(a)
    return np.where(use_series, np.where(pos, series, 0.0), -dq)


def dkv_dv(v: Any, x: Any) -> Any:
    """∂K_ν(x)/∂ν = ∫₀^∞ t·sinh(νt)·e^{−x cosh t} dt (from K_ν(x) = ∫₀^∞ cosh(νt) e^{−x cosh t} dt,
    DLMF 10.32.9), by the trapezoidal rule (step 1/32), spectrally accurate for this integrand,
    analytic and decaying doubly exponentially; computed as e^{−x}·∫ … e^{−x(cosh t − 1)} dt so
    that large x does not underflow before the end.  Tested to 1e-9 relative against mpmath
    for −10 ≤ ν ≤ 10, 0.05 ≤ x ≤ 100 (x > 0)."""
    vp, xp = _plain(v), _plain(x)
    shape = np.broadcast_shapes(np.shape(vp), np.shape(xp))
    xmin = float(np.min(np.where(xp > 0, xp, 1.0), initial=1.0))
    # the integrand is below e^{−40}·(its scale) beyond T: x(cosh T − 1) − |ν|T > 40
    vmax = float(np.max(np.abs(vp), initial=0.0))
    T = 1.0
    while xmin * (math.cosh(T) - 1) - vmax * T < 40 + math.log(T + 1) and T < 60:
        T *= 1.25
    h = 1 / 32
    t = np.arange(h, T + h, h).reshape((-1,) + (1,) * len(shape))
    integrand = t * np.sinh(v * t) * np.exp(-x * (np.cosh(t) - 1))
    return h * np.sum(integrand, axis=0) * np.exp(-x)


def _dbetainc_series(a: Any, b: Any, x: Any, n: int, shape: Any, check: bool = False) -> Any:
    """(∂/∂a, ∂/∂b) of I_x(a, b) = Σₙ Tₙ, Tₙ = x^{a+n}(1−x)^b Γ(a+b+n)/(Γ(b)Γ(a+n+1))
    (the hypergeometric series of I, DLMF 8.17.7), term by term."""
    k = np.arange(n, dtype=float).reshape((n,) + (1,) * len(shape))
    logx, log1mx = np.log(x), np.log1p(-x)
    t = np.exp((a + k) * logx + b * log1mx - sp.gammaln(b) + sp.gammaln(a + b + k) - sp.gammaln(a + k + 1))
    psi_abk = sp.digamma(a + b + k)
    da = np.sum(t * (logx + psi_abk - sp.digamma(a + k + 1)), axis=0)
    db = np.sum(t * (log1mx - sp.digamma(b) + psi_abk), axis=0)
    if check:               # and whether the last term is below 1e-16 of the sum (converged)
        return da, db, t[n - 1] <= 1e-16 * np.sum(t, axis=0)
    return da, db


def dbetainc_dab(a: Any, b: Any, x: Any) -> Any:
    """(∂I/∂a, ∂I/∂b) of the regularized incomplete beta function I_x(a, b) = betainc:
    the series of `_dbetainc_series` where x < (a+1)/(a+b+2), else the same for
    I_x(a, b) = 1 − I_{1−x}(b, a) (its terms then decrease from the first); 0 at x = 0 and
    x = 1.  Tested to 1e-9 relative against mpmath for 0.5 ≤ a, b ≤ 40, 0.01 ≤ x ≤ 0.99."""
    ap, bp, xp = _plain(a), _plain(b), _plain(x)
    shape = np.broadcast_shapes(np.shape(ap), np.shape(bp), np.shape(xp))
    ab, bb, xb = (np.broadcast_to(v, shape) for v in (ap, bp, xp))
    inside = (xb > 0) & (xb < 1)
    swap = xb >= (ab + 1) / (ab + bb + 2)
    # the series in the effective x (≤ about (a+1)/(a+b+2)); its terms end like xₑⁿ
    xe = np.where(inside, np.where(swap, 1 - xb, xb), 0.5)
    worst = float(np.max(xe, initial=0.5))
    n = int(min(60 + 40 / -math.log(max(worst, 1e-300)), 20000))
    xs = np.where(inside, np.where(swap, 1 - x, x), 0.5)
    A, B = np.where(swap, b, a), np.where(swap, a, b)
    dA, dB = _dbetainc_series(A, B, xs, n, shape)
    da = np.where(swap, -dB, dA)
    db = np.where(swap, -dA, dB)
    return np.where(inside, da, 0.0), np.where(inside, db, 0.0)


# On another library (JAX, PyTorch: special_libs), where the number of terms must be known before
# the values are (jax.jit traces without them): the same series, _LIB_TERMS terms, NaN where they
# have not converged (never a silently truncated sum).
_LIB_TERMS = 1000


def dbetainc_dab_fixed(a: Any, b: Any, x: Any) -> Any:
    """dbetainc_dab with _LIB_TERMS terms of `_dbetainc_series` whatever the values, written
    with the namespaces only (no value read on the host): for any array library, traced or
    not.  Exact where dbetainc_dab's own count is below _LIB_TERMS (its effective x up to
    about 0.96); NaN where the last term is above 1e-16 of the sum."""
    shape = _numpy.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in (a, b, x)))
    inside = (x > 0) & (x < 1)
    swap = x >= (a + 1) / (a + b + 2)
    xs = np.where(inside, np.where(swap, 1 - x, x), 0.5)
    A, B = np.where(swap, b, a), np.where(swap, a, b)
    dA, dB, converged = _dbetainc_series(A, B, xs, _LIB_TERMS, shape, check=True)
    da = np.where(swap, -dB, dA)
    db = np.where(swap, -dA, dB)
    bad = inside & ~converged
    return (np.where(bad, math.nan, np.where(inside, da, 0.0)), np.where(bad, math.nan, np.where(inside, db, 0.0)))


def dgammainc_da_fixed(a: Any, x: Any) -> Any:
    """dgammainc_da with _LIB_TERMS terms of its series (x < a + 1) whatever the values, and
    its 80-point quadrature (x ≥ a + 1), written with the namespaces only: for any array
    library, traced or not.  The terms' ratio is x/(a + k + 1): they converge within
    _LIB_TERMS unless x is near a + 1 and large (x ≈ a ≈ 5e4 needs about 2000); NaN where
    the series' last term is above 1e-16 of its sum."""
    shape = _numpy.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in (a, x)))
    use_series = x < a + 1
    pos = x > 0
    xs = np.where(use_series & pos, x, 1.0)
    k = np.arange(_LIB_TERMS, dtype=float).reshape((_LIB_TERMS,) + (1,) * len(shape))
    logx = np.log(xs)
    weights = np.exp((a + k) * logx - xs - sp.gammaln(a + k + 1))
    series = np.sum(weights * (logx - sp.digamma(a + k + 1)), axis=0)
    converged = weights[_LIB_TERMS - 1] <= 1e-16 * np.sum(weights, axis=0)
    xq = np.where(use_series, a + 1.0, x)
    u = np.asarray(_LAG_U).reshape((-1,) + (1,) * len(shape))
    w = np.asarray(_LAG_W).reshape((-1,) + (1,) * len(shape))
    logt = np.log(xq + u)
    integral = np.sum(w * np.exp((a - 1) * logt - xq - sp.gammaln(a)) * logt, axis=0)
    dq = integral - sp.gammaincc(a, xq) * sp.digamma(a)
    return np.where(use_series, np.where(pos, np.where(converged, series, math.nan), 0.0), -dq)


def div_dv(v: Any, x: Any) -> Any:
    """∂I_ν(x)/∂ν by the power series I_ν(x) = Σₖ (x/2)^{2k+ν}/(k!·Γ(k+ν+1)) differentiated
    term by term: Σₖ (x/2)^{2k+ν}/k!·rgamma(k+ν+1)·(log(x/2) − ψ(k+ν+1)) (x > 0; ν not a
    negative integer, where the terms' ψ has poles).  Tested to 1e-9 relative against mpmath
    for −3.5 ≤ ν ≤ 10 (ν not an integer below 0), 0.05 ≤ x ≤ 50; −K₀(x) at ν = 0."""
    vp, xp = _plain(v), _plain(x)
    shape = np.broadcast_shapes(np.shape(vp), np.shape(xp))
    n = int(40 + 2 * float(np.max(np.abs(xp), initial=0.0)))
    k = np.arange(n, dtype=float).reshape((n,) + (1,) * len(shape))
    at0 = xp == 0                       # I_ν(0) = 0 for ν > 0: its ν-derivative is 0
    lh = np.log(np.where(at0, 1.0, x) / 2)
    z = k + v + 1
    t = np.exp((2 * k + v) * lh - sp.gammaln(k + 1)) * sp.rgamma(z)
    series = np.where(at0, 0.0, np.sum(t * (lh - sp.digamma(z)), axis=0))
    # at ν = 0 the derivative is −K₀(x) (DLMF 10.38.4), exponentially smaller than the terms
    return np.where(v == 0, -sp.k0(x), series)


# B₂ⱼ/(2j)!, j = 1…10: the Euler–Maclaurin coefficients
_EM = [b / math.factorial(2 * j) for j, b in enumerate(
    (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330),
    start=1)]
_EM_N = 16


def _dzeta_em(s: Any, q: Any, shape: Any) -> Any:
    """∂ζ(s, q)/∂s by Euler–Maclaurin (see dzeta_ds), q > 0."""
    k = np.arange(_EM_N, dtype=float).reshape((_EM_N,) + (1,) * len(shape))
    qk = q + k
    head = -np.sum(np.log(qk) * qk ** (-s), axis=0)
    a = qk[_EM_N - 1] + 1.0                     # q + N as an array (q may be a number)
    la = np.log(a)
    s1 = s - 1
    tail = a ** (-s1) * (-la / s1 - 1 / (s1 * s1)) - la * a ** (-s) / 2
    P, dP = s, 1.0                              # s(s+1)…(s+2j−2) and its s-derivative
    power = a ** (-s - 1)                       # a^{−s−2j+1}
    corrections = 0.0
    for j, c in enumerate(_EM, start=1):
        corrections = corrections + c * power * (dP - la * P)
        f1, f2 = s + (2 * j - 1), s + 2 * j
        P, dP = P * f1 * f2, dP * f1 * f2 + P * (f1 + f2)
        power = power / (a * a)
    return head + tail + corrections


def dzeta_ds(s: Any, q: Any) -> Any:
    """∂ζ(s, q)/∂s.  For s ≥ 0 by the Euler–Maclaurin formula with N = 16
    terms summed and 10 Bernoulli corrections, ζ(s, q) = Σₖ₌₀^{N−1} (q+k)^{−s}
    + a^{1−s}/(s−1) + a^{−s}/2 + Σⱼ B₂ⱼ/(2j)!·s(s+1)…(s+2j−2)·a^{−s−2j+1}
    (a = q + N), differentiated term by term in s (the formula continues ζ
    analytically below s = 1).  For Riemann's ζ (q = 1) at s < 0, where the
    sum's terms would cancel, by the functional equation ζ(s) = χ(s)ζ(1−s),
    χ(s) = 2^s π^{s−1} sin(πs/2) Γ(1−s): ζ′(s) = χ′(s)ζ(1−s) − χ(s)ζ′(1−s),
    χ′(s) = 2^s π^{s−1} Γ(1−s)·((log 2π − ψ(1−s)) sin(πs/2) + (π/2) cos(πs/2)).
    Made of functions with rules, so its own derivative is taken the same way.
    Tested to 1e-9 relative against mpmath (40 digits) for −60 ≤ s ≤ 60
    (s ≠ 1) at q = 1 and 1.05 ≤ s ≤ 60, 0.05 ≤ q ≤ 100.  NaN where SciPy's
    ζ(s, q) is NaN: q ≤ 0, or s < 1 with q ≠ 1.  Its body (`_dzeta_ds`) is the
    one other libraries run (its length is fixed, its branches chosen by `where`)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):     # at the pole s = 1: inf
        return _dzeta_ds(s, q)


# the Hurwitz ζ ufunc (sp.zeta is a Python wrapper); on other libraries their zeta (special_libs._REBIND)
_zeta = sp._ufuncs._zeta
_LOG_2, _LOG_PI = math.log(2.0), math.log(math.pi)


def _dzeta_ds(s: Any, q: Any) -> Any:
    """dzeta_ds written with the namespaces only: both branches computed, the masks read from
    the values (untraced: constants to an AD; traced by jax.jit), for any array library."""
    s = s * 1.0                                 # integer orders as floats (no int overflow)
    sv, qv = untraced(s), untraced(q)
    shape = _numpy.broadcast_shapes(_numpy.shape(sv), _numpy.shape(qv))
    riemann = qv == 1
    reflect = riemann & (sv < 0)
    ok = (qv > 0) & ((sv >= 1) | riemann)
    qs = np.where(ok, q, 1.0)
    em = _dzeta_em(np.where(reflect, 2.0, s), qs, shape)
    # the functional equation at s < 0 (elsewhere at s = −1, a point where it is regular);
    # 2^r π^{r−1} Γ(1−r) as one exp (Γ(1−r) > 0 there; torch.special has no gamma)
    r = np.where(reflect, s, -1.0)
    half = math.pi * r / 2
    scale = np.exp(r * _LOG_2 + (r - 1) * _LOG_PI + sp.gammaln(1 - r))
    chi, dchi = scale * np.sin(half), scale * ((_LOG_2 + _LOG_PI - sp.digamma(1 - r)) * np.sin(half)
                                               + math.pi / 2 * np.cos(half))
    reflected = dchi * _zeta(1 - r, 1.0) - chi * _dzeta_em(1 - r, 1.0, shape)
    return np.where(ok, np.where(reflect, reflected, em), math.nan)


# the series above that run on other libraries: name -> the function they run there
ON_LIBRARIES = {"dbetainc_dab": dbetainc_dab_fixed, "dgammainc_da": dgammainc_da_fixed, "dzeta_ds": _dzeta_ds}


# 96-point Gauss–Legendre nodes and weights on [−1, 1]
_GL_U, _GL_W = np.polynomial.legendre.leggauss(96)


def vonmises_cdf(z: Any, k: Any, in_kappa: bool) -> Any:
    """The standard von Mises cdf F(z; κ) (in_kappa=False) or ∂F/∂κ (True), by
    96-point Gauss–Legendre quadrature over [−π, z] of the density
    p(t) = e^{κ(cos t − 1)}/(2π·i0e(κ)) (z wrapped into [−π, π), its whole turns
    added, as SciPy's), and of (cos t − I₁/I₀)·p(t) for the κ-derivative.  Made of
    functions with rules (order 2 works).  Tested to 1e-13 against mpmath's
    quadrature for 0.05 ≤ κ ≤ 50 (SciPy's own cdf is off by 2.6e-6 at κ = 50)."""
    turns = np.round(_plain(z) / (2 * math.pi))
    zw = z - 2 * math.pi * turns
    shape = np.broadcast_shapes(np.shape(_plain(z)), np.shape(_plain(k)))
    u = _GL_U.reshape((-1,) + (1,) * len(shape))
    w = _GL_W.reshape((-1,) + (1,) * len(shape))
    half = (zw + math.pi) / 2
    t = half * u + (half - math.pi)
    p = np.exp(k * (np.cos(t) - 1)) / (2 * math.pi * sp.i0e(k))
    if in_kappa:
        return half * np.sum(w * (np.cos(t) - sp.i1e(k) / sp.i0e(k)) * p, axis=0)
    return turns + half * np.sum(w * p, axis=0)


def vonmises_ppf(q: Any, k: Any) -> Any:
    """The standard von Mises quantile Q(q; κ): SciPy's on plain values; on values
    traced by an AD, SciPy's Q₀ (a constant) corrected by one Newton step on
    `vonmises_cdf`, Q₀ − (F(Q₀; κ) − q)/p(Q₀; κ), whose value is Q₀ to the cdf's
    accuracy and whose derivatives are the inverse function's (∂Q/∂q = 1/p,
    ∂Q/∂κ = −∂F/∂κ / p), written with functions that have rules: every order works."""
    import scipy.stats as st

    q0 = st.vonmises.ppf(_plain(q), _plain(k))
    if untraced(q) is q and untraced(k) is k:
        return q0
    p = np.exp(k * (np.cos(q0) - 1)) / (2 * math.pi * sp.i0e(k))
    return q0 - (vonmises_cdf(q0, k, False) - q) / p
