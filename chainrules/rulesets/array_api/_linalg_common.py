"""What the rules of the `linalg` extension (linalg_ext.py, linalg_norms.py)
share: conjugate transposes, per-matrix scalars, identity matrices, masked
zeros, safe division, the lower triangle as a `where`, the sign, and the
scaffold of a rule of one array argument with options."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules._core import unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import seed
from chainrules.rulesets.array_api._common import (
    NO,
    ZERO,
    Projector,
    as_seed,
    cast,
    device_kw,
    is_complex,
    is_zero,
    namespace,
    options,
    positional_names,
)
from chainrules._xp import check_tangent
from chainrules.rulesets.array_api.linalg import _conj

__all__ = ["_H", "_col", "_mat", "_eye", "_where0", "_safe_div", "_tril", "_sign", "_unary", "_conj"]


def _H(xp: Any, x: Any) -> Any:
    return _conj(xp, xp.matrix_transpose(x))


def _col(xp: Any, v: Any) -> Any:
    """v[..., None]"""
    return xp.expand_dims(v, axis=-1)


def _mat(xp: Any, v: Any) -> Any:
    """v[..., None, None] (a per-matrix scalar spread over its matrix)."""
    return xp.reshape(v, tuple(v.shape) + (1, 1))


def _eye(xp: Any, n: int, m: int, k: int, like: Any) -> Any:
    dtype = like.dtype if not is_complex(xp, like) else xp.real(like).dtype
    return xp.eye(n, m, k=k, dtype=dtype, **device_kw(xp, like))


def _where0(xp: Any, cond: Any, v: Any) -> Any:
    """v, zero where cond."""
    return xp.where(cond, xp.zeros_like(v), v)


def _safe_div(xp: Any, x: Any, d: Any) -> Any:
    """x / d, 0 where d == 0."""
    z = d == 0
    return _where0(xp, z, x / xp.where(z, xp.ones_like(d), d))


def _tril(xp: Any, x: Any, k: int) -> Any:
    """The lower triangle of x (below its k-th diagonal): a `where` with a
    constant mask (xp.tril has no rule on the tracked values of every
    library)."""
    n, m = x.shape[-2], x.shape[-1]
    rows = xp.arange(n, **device_kw(xp, x))
    cols = xp.arange(m, **device_kw(xp, x))
    above = xp.reshape(cols, (1, m)) - xp.reshape(rows, (n, 1)) > k
    return _where0(xp, above, x)


def _sign(xp: Any, x: Any) -> Any:
    """x/|x| (0 at 0): the derivative of |x|, real and complex."""
    if not is_complex(xp, x):
        return xp.sign(x)
    return _safe_div(xp, x, xp.abs(x))


def _tuple_seed(ȳ: Any, fname: str, Ω: Any) -> Any:
    """The structural cotangent of a tuple Ω, each array field checked to
    be of its primal's library (else a TypeError naming both)."""
    ȳ = seed(ȳ, fname)
    if not is_zero(ȳ):
        for i, (part, primal) in enumerate(zip(ȳ, Ω)):
            part = unthunk(part)
            if hasattr(part, "shape") and type(part) is not type(primal):
                check_tangent(f"pullback of {fname}", f"the cotangent of output {i}", part, primal)
    return ȳ


def _unary(fname: str, f: Any, names_fallback: Any, known: Any, defaults: Any, body: Any) -> Any:
    """The frule and rrule of f(x, *options): `body(xp, x, Ω, opts)` gives
    (pushforward(Δx), adjoint(ȳ)), the adjoint's result before projection
    (None: zero); a pushforward of None: Ω has no tangent (ord=0).  A tuple
    Ω (slogdet's) gets a structural tangent, its cotangent taken as it is."""
    names = positional_names(f, 1, names_fallback)

    def setup(x: Any, args: Any, kwargs: Any) -> Any:
        Ω = f(x, *args, **kwargs)               # first: the library checks the arguments
        opts = options(fname, names, args, kwargs, known, defaults)
        xp = namespace(x)
        return xp, Ω, opts

    def unary_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        xp, Ω, opts = setup(x, args, kwargs)
        forward, _ = body(xp, x, Ω, opts)
        if forward is None:
            return Ω, NO
        Δx = unthunk(tangents[1])
        if is_zero(Δx) or not Projector(xp, x).kind:
            return Ω, ZERO
        ΔΩ = forward(cast(xp, Δx, x))
        return Ω, ΔΩ if isinstance(Ω, tuple) else cast(xp, ΔΩ, Ω)

    def unary_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        xp, Ω, opts = setup(x, args, kwargs)
        project = Projector(xp, x)
        rest = (NO,) * len(args)
        forward, adjoint = body(xp, x, Ω, opts)         # an option it cannot honour: raised here

        def unary_pullback(ȳ: Any) -> tuple[Any, ...]:
            if forward is None:
                seed(ȳ, fname)
                return (NO, NO) + rest
            ȳ = _tuple_seed(ȳ, fname, Ω) if isinstance(Ω, tuple) else as_seed(xp, ȳ, fname, Ω)
            if is_zero(ȳ) or not project.kind:
                return (NO, project(ZERO)) + rest
            x̄ = adjoint(ȳ)
            return (NO, project(ZERO) if x̄ is None else project(x̄)) + rest
        return Ω, unary_pullback

    return unary_frule, unary_rrule
