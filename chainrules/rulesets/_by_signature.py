"""The scaffold of the rules of scipy.linalg and of NumPy's eig, eigvals, tensorinv,
tensorsolve (rulesets/scipy/linalg.py, numpy/linalg/spectral.py): one
function (`define`) turns a body — the pushforward and the adjoint of a
call, written once — into the frule and rrule of a function, reading the
call by the function's own signature (SciPy's keywords included).

- Arrays passed positionally get tangents; keyword arguments never do
  (ChainRules' convention), so an array passed by keyword is a constant.
- `overwrite_a=`/`overwrite_b=` only allow SciPy to destroy its input: the
  rule computes the primal without them (the pullback needs the input).
- `check_finite=` is passed on to the primal.
- An option that changes the math and that the body does not support is a
  TypeError naming the function and the argument (`refuse`).
- The primal is computed through `through_engines`: a rule differentiated by
  an AD (order 2) calls SciPy's function on tracked values through
  its own rule.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from chainrules._core import Tangent, register_frule, register_rrule, unthunk, untraced
from chainrules._protocols import Pullback
from chainrules._xp import through_engines
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    array_or_traced,
    is_zero,
    like,
    named_rule,
    output_parts,
    project_to,
    seed,
    zero_for,
)

__all__ = ["define", "refuse", "square", "value", "H", "T", "tril", "triu", "eye_like"]


def value(x: Any) -> Any:
    """The plain value under any tracking (for shapes, dtypes and the
    decisions a rule takes once, never for arithmetic)."""
    return untraced(x)


def H(x: Any) -> Any:
    return np.conj(np.swapaxes(x, -1, -2))


def T(x: Any) -> Any:
    return np.swapaxes(x, -1, -2)


def _mask(x: Any, k: int, lower: bool) -> Any:
    n, m = value(x).shape[-2:]
    keep = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    return np.where(keep, x, 0)


def tril(x: Any, k: int = 0) -> Any:
    """np.tril as a `where` with a constant mask (differentiable on tracked values)."""
    return _mask(x, k, True)


def triu(x: Any, k: int = 0) -> Any:
    return _mask(x, k, False)


def eye_like(x: Any) -> Any:
    v = value(x)
    return np.eye(v.shape[-1], dtype=v.dtype)


def refuse(name: str, arg: str, val: Any, why: str = "") -> None:
    raise TypeError(f"{name}: the rule cannot honour {arg}={val!r}{why}; call the primal without it")


def square(name: str, arg: str, x: Any) -> None:
    s = np.shape(value(x))
    if len(s) != 2 or s[0] != s[1]:
        raise ValueError(f"{name}: the argument {arg} must be a square matrix, got shape {s}")


def _inexact(x: Any) -> bool:
    return np.asarray(value(x)).dtype.kind in "fc"


def _fit(t: Any, p: Any) -> Any:
    """The tangent t of the output p in p's precision and kind (real for a
    real p), a scalar for a scalar p."""
    v = value(p)
    if is_zero(t) or not isinstance(v, (np.ndarray, np.generic)) or v.dtype.kind not in "fc":
        return t
    tv = value(t)
    if np.iscomplexobj(tv) and v.dtype.kind != "c":
        t, tv = np.real(t), np.real(tv)
    if getattr(tv, "dtype", None) != v.dtype and tv is t:      # (a tracked tangent is left as it is)
        t = np.asarray(t, dtype=v.dtype)
    return like(p, t)


def define(f: Any, name: str, diff: Any, body: Any, check: Any = None, packed: Any = ()) -> Any:
    """The frule and rrule of f, registered.  `diff`: the names of the
    parameters with tangents; `check(o)` validates the options (o: every
    parameter by name, defaults filled in); `body(o, Ω)` gives (forward,
    adjoint): forward({name: tangent}) → ΔΩ (a tuple for a tuple Ω, zeros
    allowed), adjoint(ȳ) → {name: cotangent} (ȳ a tuple of parts for a tuple
    Ω; a name left out: zero).  `packed`: the parameters whose value is a
    tuple (array, flags…) (cho_solve's (c, lower)): the body sees the
    array's tangent and gives the array's cotangent."""
    sig = inspect.signature(f)
    params = list(sig.parameters.values())
    names = [p.name for p in params]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    fe = through_engines(f)

    def setup(args: Any, kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}: {e}") from None
        bound.apply_defaults()
        o = dict(bound.arguments)
        for k in diff:                  # array-likes (nested lists of numbers): arrays for the body
            if isinstance(o.get(k), list):
                o[k] = np.asarray(o[k])
        if check is not None:
            check(o)
        if not varargs:
            args = tuple(False if names[i].startswith("overwrite_") else a for i, a in enumerate(args))
        kwargs = {k: (False if k.startswith("overwrite_") else v) for k, v in kwargs.items()}
        Ω = fe(*args, **kwargs)
        live: list[tuple[int, Any]]
        if varargs:                                         # block_diag(*arrs): each its own name
            live = [(i, i) for i in range(len(args))]
        else:
            live = [(i, names[i]) for i in range(len(args)) if names[i] in diff]
        return o, Ω, live, args

    def arg_of(o: Any, key: Any) -> Any:
        if varargs:
            return o[names[0]][key]
        return o[key][0] if key in packed else o[key]

    def scipy_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        o, Ω, live, args = setup(args, kwargs)
        Δ = {}
        for i, key in live:
            t = unthunk(tangents[i + 1])
            if key in packed and not is_zero(t):
                t = unthunk(t[0])
            if not is_zero(t) and _inexact(arg_of(o, key)):
                Δ[key] = array_or_traced(t)
        if not Δ:
            return Ω, ZERO
        forward, _ = body(o, Ω)
        ΔΩ = forward(Δ)
        if isinstance(Ω, tuple):
            ΔΩ = Tangent[type(Ω)](*[_fit(t, p) for t, p in zip(ΔΩ, Ω)])  # type: ignore[misc, operator]  # Tangent[P] of a type known at run time
        return Ω, _fit(ΔΩ, Ω)

    def scipy_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        o, Ω, live, args = setup(args, kwargs)
        projects = {key: project_to(arg_of(o, key)) for _, key in live}
        keys = [dict(live).get(i) for i in range(len(args))]
        _, adjoint = body(o, Ω)

        def wrap(k: Any, c: Any) -> Any:
            if k not in packed or is_zero(c):
                return c
            return Tangent[tuple](c, *[NO] * (len(o[k]) - 1))  # type: ignore[type-arg]

        def zeros() -> tuple[Any, ...]:
            return (NO,) + tuple(NO if k is None else zero_for(projects[k]) for k in keys)

        def scipy_pullback(ȳ: Any) -> tuple[Any, ...]:
            if isinstance(Ω, tuple):
                parts = output_parts(ȳ, len(Ω), name)
                if all(is_zero(p) for p in parts):
                    return zeros()
                ȳ = tuple(p if is_zero(p) else array_or_traced(p) for p in parts)
            else:
                ȳ = seed(ȳ, name)
                if is_zero(ȳ):
                    return zeros()
                ȳ = array_or_traced(ȳ)
            cot = adjoint(ȳ)
            out = [NO]
            for k in keys:
                if k is None:
                    out.append(NO)
                elif not projects[k].kind:
                    out.append(NO)
                else:
                    c = cot.get(k)
                    out.append(zero_for(projects[k]) if c is None or is_zero(c) else wrap(k, projects[k](c)))
            return tuple(out)
        return Ω, scipy_pullback

    register_frule(f)(named_rule(scipy_frule, name))
    register_rrule(f)(named_rule(scipy_rrule, name))
    return scipy_frule, scipy_rrule
