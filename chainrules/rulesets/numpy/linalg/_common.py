"""What the linear-algebra rules share: differences, transposes and diagonals
of stacked matrices, the sum of tangents, option parsing, the tolerances of
degenerate spectra, the safe reciprocal, the fit of a cotangent to its batch
shape."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.rulesets._arrays import (
    ZERO,
    is_zero as _zero,
    unbroadcast,
)


# ----- helpers ----------------------------------------------------------------

def _diff(x: Any) -> bool:
    """Is `x` an array or number with a tangent space (float or complex)?"""
    dtype = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    return dtype.kind in "fc"


if hasattr(np.ndarray, "mT"):     # NumPy >= 2: an attribute, much cheaper than swapaxes
    def _T(x: Any) -> Any:
        return x.mT

    def _H(x: Any) -> Any:
        return x.mT.conj()
else:  # pragma: no cover - NumPy 1.x
    def _T(x: Any) -> Any:
        return np.swapaxes(x, -1, -2)

    def _H(x: Any) -> Any:
        return np.swapaxes(x, -1, -2).conj()


def _diag(x: Any) -> Any:
    return np.diagonal(x, axis1=-2, axis2=-1)


def _diag_embed(d: Any, dtype: Any = None) -> Any:
    """Matrices (..., k, k) of `dtype` (d's by default) with d on the diagonal.
    A d that is not an ndarray (a value traced by an AD: the rule
    differentiated) is not written into an array: it is multiplied by the
    identity instead."""
    k = d.shape[-1]
    if type(d) is not np.ndarray:
        return d[..., :, None] * np.eye(k, dtype=dtype or d.dtype)
    out = np.zeros(d.shape + (k,), dtype=dtype or d.dtype)
    i = np.arange(k)
    out[..., i, i] = d
    return out


def _eye_like(x: Any) -> Any:
    return np.eye(x.shape[-1], dtype=x.dtype)


def _add(x: Any, y: Any) -> Any:
    """x + y where either may be a zero tangent."""
    if _zero(x):
        return y
    if _zero(y):
        return x
    return x + y


def _sum_tangents(ts: Any) -> Any:
    out = ZERO
    for t in ts:
        out = _add(out, t)
    return out


def _opts(fname: str, rest: Any, kw: Any, spec: Any) -> Any:
    """Values of the optional parameters `spec` ((name, default), …) from the
    extra positional arguments `rest` and the keywords `kw`."""
    if len(rest) > len(spec):
        raise TypeError(f"{fname}: takes at most {len(spec)} optional positional arguments, got {len(rest)}")
    vals = list(rest) + [kw.get(name, default) for name, default in spec[len(rest):]]
    for (name, _), r in zip(spec, rest):
        if name in kw:
            raise TypeError(f"{fname}: got multiple values for argument {name!r}")
    return vals


def _eps(dtype: Any) -> Any:
    dt = np.dtype(dtype)
    if dt.kind not in "fc":
        dt = np.dtype(float)
    return np.finfo(dt).eps


def _degeneracy_tol(lam: Any) -> Any:
    """Gap below which two eigenvalues (or squared singular values) count as
    degenerate: 100·n·eps·max|λ|, per stacked matrix (shape (..., 1, 1))."""
    n = max(lam.shape[-1], 1)
    scale = np.max(np.abs(lam), axis=-1, keepdims=True) if lam.shape[-1] else np.zeros(lam.shape[:-1] + (1,))
    return (100 * n * _eps(lam.dtype) * scale)[..., None]


def _inv_gaps(lam: Any) -> Any:
    """F_ij = 1/(λ_j − λ_i), zero on the diagonal and for degenerate pairs."""
    d = lam[..., None, :] - lam[..., :, None]
    degenerate = np.abs(d) <= _degeneracy_tol(lam)
    return np.where(degenerate, 0, 1 / np.where(degenerate, 1, d))


def _safe_inv(s: Any) -> Any:
    """1/σ, zero for σ at or below the degeneracy tolerance (pseudo-inverse)."""
    tol = np.max(np.abs(s), axis=-1, keepdims=True) * (100 * max(s.shape[-1], 1) * _eps(s.dtype)) \
        if s.shape[-1] else s
    small = np.abs(s) <= tol
    return np.where(small, 0, 1 / np.where(small, 1, s))


def _fit(x: Any, g: Any, p: Any) -> Any:
    """Project the cotangent g of x, summing broadcast batch dimensions."""
    return p(g if g.shape == x.shape else unbroadcast(x, g))
