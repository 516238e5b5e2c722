"""Rules for scipy.stats' multivariate distributions (issue 23, item 2):
`multivariate_normal.logpdf`/`pdf` (also `allow_singular=True`) and
`entropy`, `dirichlet.logpdf`/`pdf`/`entropy`, `multinomial.logpmf`/`pmf`.

Conventions:

- multivariate_normal: `cov` is a symmetric matrix (or SciPy's scalar
  σ²·I or 1-d diagonal, whose cotangents are the trace / the diagonal); its
  cotangent is the symmetric Σ̄ = ½Σᵢȳᵢ(Σ⁻¹dᵢdᵢᵀΣ⁻¹ − Σ⁻¹) (dᵢ = xᵢ − mean), and a
  tangent acts through its symmetric part, as JAX's (SciPy itself reads the
  lower triangle).  With `allow_singular=True` Σ⁻¹ is the pseudo-inverse and
  log det the log pseudo-determinant: the derivative at fixed rank, for x in
  the support (the range of Σ).  `mean=None` is zero; `Covariance` objects
  have no rule (None: the caller differentiates through the primal).
- dirichlet: x has the components on its first axis, `(k,)` or `(k, m)`
  (SciPy's `(k − 1, …)` form, the last component implied, has no rule);
  ∂/∂xᵢ is the ambient derivative (αᵢ − 1)/xᵢ: tangents of x along the
  simplex (summing to zero) are the meaningful ones.
- multinomial: the counts x and n get `NoTangent()`.  SciPy replaces the
  last probability by 1 − Σ of the others, so p's last entry has a zero
  cotangent and the others carry −x_k/p_k too (the derivative of the
  function SciPy computes).

On plain values the primal is SciPy's own; on values tracked by an enclosing
differentiation it is the formula, made of functions with rules (every
order works).
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
from chainrules.rulesets._arrays import NO, ZERO, is_complex, is_zero, named_options, project_to, seed, unbroadcast, zero_for
from chainrules.rulesets.elementwise.rules import _fit, _projector
from chainrules.rulesets.scipy.special import _dpolygamma

_LOG_2PI = math.log(2 * math.pi)


def _tracked(*xs: Any) -> bool:
    return any(is_traced(x) for x in xs)


def _arr(x: Any) -> Any:
    return x if is_traced(x) else np.asarray(x, dtype=float)


def _bind(fname: str, names: Any, defaults: Any, args: Any, kw: Any) -> list[Any]:
    vals = named_options(fname, names, args, kw)
    missing = [n for n in names if n not in vals and n not in defaults]
    if missing:
        raise TypeError(f"{fname}: missing the argument {missing[0]!r}")
    return [vals[n] if n in vals else defaults[n] for n in names]


def _nan_where(Ω: Any, d: Any, xp: Any = np) -> Any:
    if xp is not np:            # (another library: no value read on the host)
        return xp.where(xp.reshape(xp.isnan(Ω), np.shape(Ω) + (1,) * (np.ndim(d) - np.ndim(Ω))), math.nan, d)
    if is_traced(Ω) or is_traced(d):
        return d
    bad = np.isnan(Ω)
    return np.where(np.reshape(bad, np.shape(bad) + (1,) * (np.ndim(d) - np.ndim(bad))), np.nan, d) \
        if np.any(bad) else d


# =============================================================================
# multivariate_normal: logpdf, pdf (x, mean=None, cov=1, allow_singular=False), entropy
# =============================================================================

_MVN = ("x", "mean", "cov", "allow_singular")
_MVN_DEFAULTS = {"mean": None, "cov": 1.0, "allow_singular": False}


class _Mvn:
    """The pieces of one call: the points X (m, n), the dense Σ, Σ⁻¹ (or Σ⁺), log det,
    the rank, and how to give cotangents back in the forms the arguments came in;
    computed with the array namespace xp (NumPy, or jax.numpy on jax.scipy.stats:
    shapes are read with NumPy, from the arrays' attributes)."""

    def __init__(self, x: Any, mean: Any, cov: Any, singular: bool, xp: Any = np) -> None:
        self.xp = xp
        arr = _arr if xp is np else xp.asarray
        cov = arr(cov)
        self.cov_ndim = np.ndim(cov)
        if mean is not None:
            mean = arr(mean)
            n = max(int(np.size(untraced(mean))), 1)
        else:
            n = np.shape(cov)[0] if self.cov_ndim >= 1 else 1
        self.n = n
        eye = xp.eye(n)
        S = cov * eye if self.cov_ndim == 0 else (cov[..., None] * eye if self.cov_ndim == 1 else cov)
        self.S = S
        x = arr(x)
        self.X = xp.reshape(x, (-1, n))
        self.D = self.X - (0.0 if mean is None else xp.reshape(mean, (-1,)) if np.ndim(mean) else mean)
        if singular:
            Sp = np.asarray(untraced(S))
            w = np.linalg.eigvalsh(Sp)
            eps = 1e6 * np.finfo(float).eps * np.max(np.abs(w))     # SciPy's _eigvalsh_to_eps
            keep = np.asarray(w > eps)
            self.rank = int(np.sum(keep))
            wt = np.linalg.eigvalsh(S) if is_traced(S) else w
            self.logdet = np.sum(np.log(np.where(keep, wt, 1.0)))
            self.Sinv = np.linalg.pinv(S, rcond=eps / np.max(np.abs(w)), hermitian=True)
        else:
            self.rank = n
            self.logdet = xp.linalg.slogdet(S)[1]
            self.Sinv = xp.linalg.inv(S)
        self.sol = self.D @ self.Sinv                 # rows Σ⁻¹dᵢ (Σ⁻¹ symmetric)

    def logpdf(self, shape: Any) -> Any:
        maha = self.xp.sum(self.D * self.sol, axis=-1)
        return self.xp.reshape(-0.5 * (self.rank * _LOG_2PI + self.logdet + maha), shape)

    def cov_cotangent(self, w: Any) -> Any:
        """Σ̄ for the point weights w (m,), in the form cov came in."""
        xp = self.xp
        G = 0.5 * (self.sol.T @ (w[:, None] * self.sol)) - 0.5 * xp.sum(w) * self.Sinv
        if self.cov_ndim == 0:
            return xp.trace(G)
        if self.cov_ndim == 1:
            return xp.diagonal(G)
        return G

    def cov_tangent(self, ċ: Any) -> Any:
        """∂logpdf/∂cov applied to ċ (its symmetric part), one value per point."""
        xp, n = self.xp, self.n
        C = ċ * xp.eye(n) if np.ndim(ċ) == 0 else (ċ[..., None] * xp.eye(n) if np.ndim(ċ) == 1 else ċ)
        C = 0.5 * (C + xp.swapaxes(C, -1, -2))
        return 0.5 * xp.sum((self.sol @ C) * self.sol, axis=-1) - 0.5 * xp.sum(self.Sinv * C)


def _out_shape(x: Any, n: int) -> tuple[int, ...]:
    s = np.shape(x)
    pts = s if n == 1 and len(s) <= 1 else s[:-1]
    return tuple(d for d in pts if d != 1) if pts else ()


def _projections(xp: Any, args: Any) -> list[Any]:
    """The arguments' projections: NumPy's, or another library's (special_libs')."""
    if xp is np:
        return [project_to(a) if a is not None else project_to(0) for a in args]
    return [_projector(xp, a, xp.asarray(a if a is not None else 0.0)) for a in args]


def _mvn_rules(f: Any, name: str, exp: bool, xp: Any = np, label: str = "scipy.stats") -> tuple[Any, Any]:
    """The frule and rrule of multivariate_normal.<name> on f: SciPy's (xp NumPy), or
    another library's function of the same parameters computed with its namespace xp
    (jax.scipy.stats: its own primal, the same body in jax.numpy; no allow_singular).
    Registered on f; returned too."""
    lib = xp is not np
    fname = f"{label}.multivariate_normal.{name}"

    def prepare(args: Any, kw: Any) -> Any:
        x, mean, cov, singular = _bind(fname, _MVN, _MVN_DEFAULTS, args, kw)
        if isinstance(cov, st.Covariance) or any(is_complex(a) for a in (x, mean, cov) if a is not None):
            return None
        if lib and (singular or _tracked(x, mean, cov)):
            return None         # (no rule: first order on the library's arrays only)
        p = _Mvn(x, mean, cov, bool(singular), xp)
        shape = _out_shape(untraced(x), p.n)
        if _tracked(x, mean, cov):
            Ω = p.logpdf(shape)
            Ω = np.exp(Ω) if exp else Ω
        else:
            Ω = f(*args, **kw)
        return x, mean, cov, p, Ω

    def mvn_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, mean, cov, p, Ω = got
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]] + [ZERO] * (3 - len(args))
        ẋ, ṁ, ċ = dots[:3]
        if is_zero(ẋ) and (is_zero(ṁ) or mean is None) and is_zero(ċ):
            return Ω, ZERO
        t: Any = 0.0
        if not is_zero(ẋ):
            t = t - xp.sum(p.sol * xp.reshape(ẋ, (-1, p.n)), axis=-1)
        if not is_zero(ṁ) and mean is not None:
            t = t + xp.sum(p.sol * xp.reshape(xp.broadcast_to(ṁ, (p.n,)), (1, p.n)), axis=-1)
        if not is_zero(ċ):
            t = t + p.cov_tangent(ċ)
        t = _nan_where(Ω, xp.reshape(t, np.shape(Ω)), xp)
        t = Ω * t if exp else t
        return Ω, (_fit(xp, Ω, t) if lib else ProjectTo(Ω)(t))

    def mvn_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, mean, cov, p, Ω = got
        projs = _projections(xp, args[:3])
        shapes = [np.shape(a) for a in args[:3]]
        tail = (NO,) * (len(args) - 3 if len(args) > 3 else 0)

        def mvn_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if is_zero(ȳ):
                return (NO, *[zero_for(q) for q in projs], *tail)
            w = xp.reshape(Ω * ȳ if exp else ȳ * xp.ones(np.shape(Ω)), (-1,))
            out: list[Any] = [NO]
            for i, q in enumerate(projs):
                if not q.kind or (i == 1 and mean is None):
                    out.append(NO)
                    continue
                if i == 0:
                    g = xp.reshape(-w[:, None] * p.sol, shapes[0])
                elif i == 1:
                    g = xp.sum(w[:, None] * p.sol, axis=0)
                    g = xp.reshape(g, shapes[1]) if np.ndim(mean) else xp.sum(g)
                else:
                    g = p.cov_cotangent(w)
                out.append(q(g))
            return (*out, *tail)

        mvn_pullback.__name__ = mvn_pullback.__qualname__ = f"multivariate_normal_{name}_pullback"
        return Ω, mvn_pullback

    mvn_frule.__name__ = mvn_frule.__qualname__ = f"multivariate_normal_{name}_frule"
    mvn_rrule.__name__ = mvn_rrule.__qualname__ = f"multivariate_normal_{name}_rrule"
    register_frule(f, object, ...)(mvn_frule)
    register_rrule(f, object, ...)(mvn_rrule)
    return mvn_frule, mvn_rrule


_mvn_rules(st.multivariate_normal.logpdf, "logpdf", False)
_mvn_rules(st.multivariate_normal.pdf, "pdf", True)


# ----- entropy(mean=None, cov=1) = ½(n·log 2πe + log det Σ): ∂Σ = ½Σ⁻¹ ------------------

def _mvn_entropy_prepare(args: Any, kw: Any) -> Any:
    mean, cov = _bind("scipy.stats.multivariate_normal.entropy", ("mean", "cov"),
                      {"mean": None, "cov": 1.0}, args, kw)
    if isinstance(cov, st.Covariance) or is_complex(cov):
        return None
    p = _Mvn(np.zeros(1) if mean is None else np.zeros(np.size(untraced(mean))), mean, cov, False)
    Ω = 0.5 * (p.n * (1 + _LOG_2PI) + p.logdet) if _tracked(mean, cov) else \
        st.multivariate_normal.entropy(*args, **kw)
    return mean, cov, p, Ω


@register_frule(st.multivariate_normal.entropy, ...)
def multivariate_normal_entropy_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
    got = _mvn_entropy_prepare(args, kw)
    if got is None:
        return None
    mean, cov, p, Ω = got
    ċ: Any = unthunk(tangents[2]) if len(tangents) > 2 else ZERO
    if is_zero(ċ):
        return Ω, ZERO
    n = p.n
    C = ċ * np.eye(n) if np.ndim(ċ) == 0 else (ċ[..., None] * np.eye(n) if np.ndim(ċ) == 1 else ċ)
    return Ω, ProjectTo(Ω)(0.5 * np.sum(p.Sinv * C))


@register_rrule(st.multivariate_normal.entropy, ...)
def multivariate_normal_entropy_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    got = _mvn_entropy_prepare(args, kw)
    if got is None:
        return None
    mean, cov, p, Ω = got
    projs = [project_to(a) for a in args[:2]]

    def multivariate_normal_entropy_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "entropy")
        out: list[Any] = [NO]
        for i, q in enumerate(projs):
            if is_zero(ȳ) or not q.kind or i == 0:
                out.append(zero_for(q) if q.kind else NO)
                continue
            G = 0.5 * ȳ * p.Sinv
            out.append(q(np.trace(G) if p.cov_ndim == 0 else np.diagonal(G) if p.cov_ndim == 1 else G))
        return tuple(out)

    return Ω, multivariate_normal_entropy_pullback


# =============================================================================
# dirichlet: logpdf, pdf (x, alpha), entropy(alpha)
# =============================================================================

def _dir_alpha(alpha: Any, x: Any, xp: Any = np) -> Any:
    return xp.reshape(alpha, (-1,) + (1,) * (np.ndim(x) - 1))


def _dir_logpdf(x: Any, alpha: Any) -> Any:
    a = _dir_alpha(alpha, x)
    return np.sum(sp.xlogy(a - 1, x), axis=0) + sp.gammaln(np.sum(alpha)) - np.sum(sp.gammaln(alpha))


def _dir_rules(f: Any, name: str, exp: bool, xp: Any = np, xsp: Any = sp,
               label: str = "scipy.stats") -> tuple[Any, Any]:
    """The frule and rrule of dirichlet.<name> on f: SciPy's (xp NumPy, xsp scipy.special),
    or another library's function of the same parameters computed with its namespaces
    (jax.scipy.stats: its own primal, the same body in jax.numpy and jax.scipy.special)."""
    lib = xp is not np
    fname = f"{label}.dirichlet.{name}"

    def prepare(args: Any, kw: Any) -> Any:
        x, alpha = _bind(fname, ("x", "alpha"), {}, args, kw)
        if is_complex(x) or is_complex(alpha) or (lib and _tracked(x, alpha)):
            return None
        x, alpha = (xp.asarray(x), xp.asarray(alpha)) if lib else (_arr(x), _arr(alpha))
        K = np.size(untraced(alpha))
        if np.ndim(x) == 0 or np.shape(x)[0] not in (K, K - 1):
            return None
        implied = np.shape(x)[0] == K - 1
        if implied:             # SciPy's form with the last component implied: 1 − Σ of the others
            x = xp.concatenate([x, 1 - xp.sum(x, axis=0, keepdims=True)], axis=0)
        if _tracked(x, alpha):
            Ω = _dir_logpdf(x, alpha)
            Ω = np.exp(Ω) if exp else Ω
        else:
            Ω = f(*args, **kw)
        return x, alpha, Ω, implied

    def partials(x: Any, alpha: Any, implied: bool) -> Any:
        a = _dir_alpha(alpha, x, xp)
        dx = (a - 1) / x
        if implied:
            dx = dx[:-1] - dx[-1:]
        da = xp.log(x) + xsp.digamma(xp.sum(alpha)) - xsp.digamma(a)
        return dx, da

    def dir_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, alpha, Ω, implied = got
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]] + [ZERO] * (2 - len(args))
        if is_zero(dots[0]) and is_zero(dots[1]):
            return Ω, ZERO
        dx, da = partials(x, alpha, implied)
        t: Any = 0.0
        if not is_zero(dots[0]):
            t = t + xp.sum(dx * dots[0], axis=0)
        if not is_zero(dots[1]):
            t = t + xp.sum(da * _dir_alpha(dots[1], x, xp), axis=0)
        t = Ω * t if exp else t
        return Ω, (_fit(xp, Ω, t) if lib else ProjectTo(Ω)(t))

    def dir_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, alpha, Ω, implied = got
        projs = _projections(xp, args)
        shapes = [np.shape(a) for a in args]

        def dir_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if is_zero(ȳ):
                return (NO, *[zero_for(q) for q in projs])
            w = Ω * ȳ if exp else ȳ
            dx, da = partials(x, alpha, implied)
            gs = [dx * w, xp.reshape(xp.sum(xp.reshape(da * w, (np.shape(da)[0], -1)), axis=1),
                                     shapes[1] if len(shapes) > 1 else np.shape(alpha))]
            return (NO, *[q(gs[i] if lib else unbroadcast(shapes[i], gs[i])) if q.kind else NO
                          for i, q in enumerate(projs)])

        dir_pullback.__name__ = dir_pullback.__qualname__ = f"dirichlet_{name}_pullback"
        return Ω, dir_pullback

    dir_frule.__name__ = dir_frule.__qualname__ = f"dirichlet_{name}_frule"
    dir_rrule.__name__ = dir_rrule.__qualname__ = f"dirichlet_{name}_rrule"
    register_frule(f, object, ...)(dir_frule)
    register_rrule(f, object, ...)(dir_rrule)
    return dir_frule, dir_rrule


_dir_rules(st.dirichlet.logpdf, "logpdf", False)
_dir_rules(st.dirichlet.pdf, "pdf", True)


def _dir_entropy(alpha: Any) -> Any:
    a0 = np.sum(alpha)
    K = np.size(untraced(alpha))
    return (np.sum(sp.gammaln(alpha)) - sp.gammaln(a0) + (a0 - K) * sp.digamma(a0)
            - np.sum((alpha - 1) * sp.digamma(alpha)))


def _dir_dentropy(alpha: Any) -> Any:
    a0 = np.sum(alpha)
    K = np.size(untraced(alpha))
    return (a0 - K) * _dpolygamma(0, a0) - (alpha - 1) * _dpolygamma(0, alpha)


@register_frule(st.dirichlet.entropy, object)
def dirichlet_entropy_frule(tangents: Any, alpha: Any) -> tuple[Any, Any] | None:
    a = _arr(alpha)
    Ω = _dir_entropy(a) if _tracked(alpha) else st.dirichlet.entropy(alpha)
    ȧ = unthunk(tangents[1])
    if is_zero(ȧ):
        return Ω, ZERO
    return Ω, ProjectTo(Ω)(np.sum(_dir_dentropy(a) * ȧ))


@register_rrule(st.dirichlet.entropy, object)
def dirichlet_entropy_rrule(alpha: Any) -> tuple[Any, Pullback] | None:
    a = _arr(alpha)
    Ω = _dir_entropy(a) if _tracked(alpha) else st.dirichlet.entropy(alpha)
    q = project_to(alpha)

    def dirichlet_entropy_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "entropy")
        if is_zero(ȳ) or not q.kind:
            return NO, zero_for(q)
        return NO, q(np.reshape(_dir_dentropy(a) * ȳ, np.shape(alpha)))

    return Ω, dirichlet_entropy_pullback


# =============================================================================
# multinomial: logpmf, pmf (x, n, p); x and n are counts
# =============================================================================

def _mn_p(p: Any) -> Any:
    """p with its last entry 1 − Σ of the others, as SciPy computes."""
    rest = p[..., :-1]
    return np.concatenate([rest, 1 - np.sum(rest, axis=-1, keepdims=True)], axis=-1)


def _mn_rules(f: Any, name: str, exp: bool) -> None:
    fname = f"scipy.stats.multinomial.{name}"

    def prepare(args: Any, kw: Any) -> Any:
        x, n, p = _bind(fname, ("x", "n", "p"), {}, args, kw)
        if is_complex(p):
            return None
        x, p = np.asarray(untraced(x), dtype=float), _arr(p)
        if _tracked(p):
            pl = _mn_p(p)
            Ω = sp.gammaln(np.asarray(n, dtype=float) + 1) - np.sum(sp.gammaln(x + 1), axis=-1) \
                + np.sum(sp.xlogy(x, pl), axis=-1)
            Ω = np.exp(Ω) if exp else Ω
        else:
            Ω = f(*args, **kw)
        return x, p, Ω

    def partial(x: Any, p: Any) -> Any:
        """∂Ω/∂p (…, k): x_j/p_j − x_k/p_k for j < k, 0 for the last."""
        pl = _mn_p(p)
        r = np.where(x == 0, 0.0, x / np.where(x == 0, 1.0, pl))
        d = r - r[..., -1:]
        return np.concatenate([d[..., :-1], 0.0 * d[..., -1:]], axis=-1)

    def mn_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, p, Ω = got
        ṗ = unthunk(tangents[3]) if len(args) >= 3 else ZERO
        if is_zero(ṗ):
            return Ω, ZERO
        t = np.sum(partial(x, p) * ṗ, axis=-1)
        return Ω, ProjectTo(Ω)(_nan_where(Ω, Ω * t if exp else t))

    def mn_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        got = prepare(args, kw)
        if got is None:
            return None
        x, p, Ω = got
        q = project_to(args[2]) if len(args) >= 3 else None
        shape = np.shape(args[2]) if len(args) >= 3 else None

        def mn_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            out = [NO, NO, NO][:len(args)]
            if q is None:
                return (NO, *out)
            if is_zero(ȳ) or not q.kind:
                return (NO, NO, NO, zero_for(q))
            w = Ω * ȳ if exp else ȳ
            g = partial(x, p) * np.expand_dims(w, -1)
            return (NO, NO, NO, q(unbroadcast(shape, _nan_where(Ω, g))))

        mn_pullback.__name__ = mn_pullback.__qualname__ = f"multinomial_{name}_pullback"
        return Ω, mn_pullback

    mn_frule.__name__ = mn_frule.__qualname__ = f"multinomial_{name}_frule"
    mn_rrule.__name__ = mn_rrule.__qualname__ = f"multinomial_{name}_rrule"
    register_frule(f, object, ...)(mn_frule)
    register_rrule(f, object, ...)(mn_rrule)


_mn_rules(st.multinomial.logpmf, "logpmf", False)
_mn_rules(st.multinomial.pmf, "pmf", True)
