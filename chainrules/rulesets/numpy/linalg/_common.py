"""What NumPy's own linear-algebra rules (einsum, eig, cond, multi_dot, ...;
scipy.linalg's) share: conjugate transposes and diagonals of stacked
matrices, the sum of tangents, option parsing, and the degenerate-spectrum
gaps of the factorizations' body (array_api/linalg_factor.py) on NumPy."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.rulesets._arrays import ZERO, is_zero as _zero
from chainrules.rulesets.array_api import linalg_factor


if hasattr(np.ndarray, "mT"):     # NumPy >= 2: an attribute, much cheaper than swapaxes
    def _H(x: Any) -> Any:
        return x.mT.conj()
else:  # pragma: no cover - NumPy 1.x
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


def _inv_gaps(lam: Any) -> Any:
    """F_ij = 1/(λ_j − λ_i), zero on the diagonal and for degenerate pairs
    (the factorizations' body's, on NumPy)."""
    return linalg_factor._inv_gaps(np, lam)
