"""Rules for `scipy.stats.wishart.logpdf`/`pdf` and `invwishart.logpdf`/`pdf`
(issue 23, item 2), differentiable in x, df and scale.

    wishart:    log p = ((ν − p − 1)/2)·log|X| − tr(Σ⁻¹X)/2 − (νp/2)·log 2 − (ν/2)·log|Σ| − log Γ_p(ν/2)
    invwishart: log p = (ν/2)·log|Ψ| − (νp/2)·log 2 − log Γ_p(ν/2) − ((ν + p + 1)/2)·log|X| − tr(ΨX⁻¹)/2

X and the scale are symmetric matrices: their cotangents are the symmetric
gradients (½(ν − p − 1)X⁻¹ − ½Σ⁻¹ and ½Σ⁻¹XΣ⁻¹ − ½νΣ⁻¹ for the Wishart), and a
tangent acts through its symmetric part (SciPy reads a triangle of x through
its Cholesky factor), as for multivariate_normal's cov.  A scalar or 1-d
scale (SciPy's σ²·I and diagonal forms) gets the trace or the diagonal.  x
is one matrix `(p, p)` or a stack `(p, p, m)` (scalars or a 1-d array of
points when p = 1); other forms have no rule.  ∂/∂ν uses digamma, so every
order works through an AD.
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

from chainrules._core import ProjectTo, is_traced, register_frule, register_rrule, unthunk, untraced
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, is_complex, is_zero, project_to, seed, zero_for

_LOG2 = math.log(2.0)


def _tracked(*xs: Any) -> bool:
    return any(is_traced(x) for x in xs)


def _arr(x: Any) -> Any:
    return x if is_traced(x) else np.asarray(x, dtype=float)


def _dense(s: Any, p: int) -> Any:
    nd = np.ndim(s)
    return s * np.eye(p) if nd == 0 else (s[..., None] * np.eye(p) if nd == 1 else s)


def _back(G: Any, nd: int) -> Any:
    """A symmetric matrix cotangent in the form (scalar, diagonal, matrix) of the argument."""
    return np.trace(G) if nd == 0 else (np.diagonal(G) if nd == 1 else G)


def _sym(t: Any) -> Any:
    return 0.5 * (t + np.swapaxes(t, -1, -2))


class _Call:
    """One call: the points as a stack (m, p, p), the dense scale, the inverses and
    log-determinants, and the log-density (m,) before squeezing."""

    def __init__(self, inverse: bool, x: Any, df: Any, scale: Any) -> None:
        scale, df, x = _arr(scale), _arr(df), _arr(x)
        self.scale_nd = np.ndim(scale)
        p = np.shape(scale)[0] if self.scale_nd >= 1 else 1
        self.p, self.inverse, self.df = p, inverse, df
        xs = np.shape(untraced(x))
        if p == 1 and len(xs) <= 1:
            X = np.reshape(x, (1, 1, -1))
        elif len(xs) == 2 and xs == (p, p):
            X = np.reshape(x, (p, p, 1))
        elif len(xs) == 3 and xs[:2] == (p, p):
            X = x
        else:
            raise ValueError("shape")
        self.x_shape = xs
        self.X = np.moveaxis(X, -1, 0)                         # (m, p, p)
        self.S = _dense(scale, p)
        self.Xinv = np.linalg.inv(self.X)
        self.Sinv = np.linalg.inv(self.S)
        self.logdetX = np.linalg.slogdet(self.X)[1]            # (m,)
        self.logdetS = np.linalg.slogdet(self.S)[1]
        half = df / 2
        self.dmgl = sum(sp.digamma(half - j / 2) for j in range(p)) / 2    # ∂/∂ν log Γ_p(ν/2)
        self.mgl = sum(sp.gammaln(half - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)

    def logpdf(self) -> Any:
        p, df = self.p, self.df
        if not self.inverse:
            tr = np.sum(self.Sinv * self.X, axis=(-2, -1))
            return ((df - p - 1) / 2 * self.logdetX - tr / 2 - df * p / 2 * _LOG2 - df / 2 * self.logdetS
                    - self.mgl)
        tr = np.sum(self.S * self.Xinv, axis=(-2, -1))
        return (df / 2 * self.logdetS - df * p / 2 * _LOG2 - self.mgl - (df + p + 1) / 2 * self.logdetX
                - tr / 2)

    def partials(self) -> tuple[Any, Any, Any]:
        """∂/∂X (m, p, p), ∂/∂ν (m,), ∂/∂scale (m, p, p), each symmetric."""
        p, df = self.p, self.df
        if not self.inverse:
            dX = (df - p - 1) / 2 * self.Xinv - self.Sinv / 2
            ddf = 0.5 * self.logdetX - p / 2 * _LOG2 - 0.5 * self.logdetS - self.dmgl
            dS = 0.5 * (self.Sinv @ self.X @ self.Sinv) - df / 2 * self.Sinv
        else:
            dX = -(df + p + 1) / 2 * self.Xinv + 0.5 * (self.Xinv @ self.S @ self.Xinv)
            ddf = 0.5 * self.logdetS - p / 2 * _LOG2 - self.dmgl - 0.5 * self.logdetX
            dS = df / 2 * self.Sinv - self.Xinv / 2
        return dX, ddf, dS


def _points(Ω: Any) -> Any:
    return np.reshape(Ω, (-1,))


def _rules(f: Any, dist: str, name: str, inverse: bool, exp: bool) -> None:
    fname = f"scipy.stats.{dist}.{name}"

    def prepare(args: Any, kw: Any) -> Any:
        names = ("x", "df", "scale")
        vals = dict(zip(names, args))
        for k, v in kw.items():
            if k not in names or k in vals:
                raise TypeError(f"{fname}: unexpected or repeated keyword argument {k!r}")
            vals[k] = v
        if len(args) > 3 or set(names) - set(vals):
            raise TypeError(f"{fname}: takes x, df, scale")
        if any(is_complex(vals[n]) for n in names):
            return None
        try:
            c = _Call(inverse, vals["x"], vals["df"], vals["scale"])
        except ValueError:
            return None
        if _tracked(*vals.values()):
            Ω = c.logpdf()
            Ω = np.exp(Ω) if exp else Ω
            if np.size(untraced(Ω)) == 1:
                Ω = np.reshape(Ω, ())
        else:
            Ω = f(*args, **kw)
        return c, Ω

    def to_x(c: Any, g: Any) -> Any:
        """(m, p, p) → the shape x came in."""
        return np.reshape(np.moveaxis(g, 0, -1), c.x_shape)

    def wishart_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        c, Ω = got
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]] + [ZERO] * (3 - len(args))
        if all(is_zero(d) for d in dots):
            return Ω, ZERO
        dX, ddf, dS = c.partials()
        t: Any = 0.0
        if not is_zero(dots[0]):
            Ẋ = np.moveaxis(np.reshape(dots[0], np.shape(np.moveaxis(c.X, 0, -1))), -1, 0)
            t = t + np.sum(dX * _sym(Ẋ), axis=(-2, -1))
        if not is_zero(dots[1]):
            t = t + ddf * dots[1]
        if not is_zero(dots[2]):
            t = t + np.sum(dS * _sym(_dense(dots[2], c.p)), axis=(-2, -1))
        t = np.reshape(t, np.shape(Ω))
        return Ω, ProjectTo(Ω)(Ω * t if exp else t)

    def wishart_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        c, Ω = got
        projs = [project_to(a) for a in args]

        def wishart_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if is_zero(ȳ):
                return (NO, *[zero_for(q) for q in projs])
            w = _points(Ω * ȳ if exp else ȳ * np.ones(np.shape(Ω)))
            dX, ddf, dS = c.partials()
            gs = [to_x(c, dX * w[:, None, None]), np.sum(ddf * w),
                  _back(np.sum(dS * w[:, None, None], axis=0), c.scale_nd)]
            return (NO, *[q(np.reshape(gs[i], np.shape(args[i]))) if q.kind else NO for i, q in enumerate(projs)])

        wishart_pullback.__name__ = wishart_pullback.__qualname__ = f"{dist}_{name}_pullback"
        return Ω, wishart_pullback

    wishart_frule.__name__ = wishart_frule.__qualname__ = f"{dist}_{name}_frule"
    wishart_rrule.__name__ = wishart_rrule.__qualname__ = f"{dist}_{name}_rrule"
    register_frule(f, object, ...)(wishart_frule)
    register_rrule(f, object, ...)(wishart_rrule)


_rules(st.wishart.logpdf, "wishart", "logpdf", False, False)
_rules(st.wishart.pdf, "wishart", "pdf", False, True)
_rules(st.invwishart.logpdf, "invwishart", "logpdf", True, False)
_rules(st.invwishart.pdf, "invwishart", "pdf", True, True)
