"""The table of scipy.special rules (issue 23): one row per function, one
generic builder for every row.

A row names the function, its parameters and, per parameter, its partial
derivative: a function of the parameters' values and of the output Ω,
written with SciPy/NumPy functions that themselves have rules (so that
an AD differentiates the rule again: every order works), or

- `INT`: an integer argument (an order, a count): `NoTangent()`;
- `NI`: no closed form or convergent series is implemented: the tangent is
  `not_implemented(...)` naming the argument (never a silent zero).  A
  partial may also return NI, for arguments where it is not implemented.  A
  caller who holds that argument fixed (`PrimalAndTangent(v, NoTangent())`,
  or a zero tangent in an frule) gets the other derivatives.

`holomorphic=True` rows take complex arguments (the pushforward is f'·ẋ, the
pullback conj(f')·ȳ, ChainRules' convention); the other rows decline complex
input (the rule returns None).  Multi-output functions (`outputs=k`: sici,
airy, ellipj…) give one partial per output, as a tuple, and take and return
a `Tangent[tuple]`.  Broadcasting: the pullback sums each cotangent back to
its argument's shape with the one `unbroadcast`, then projects it
(`project_to`).  Only positional arguments get tangents (keyword arguments
never do; they are passed to the partials as values).

The rows are in the family modules `special_rows_*.py`; this module builds
and registers them.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    ProjectTo,
    Tangent,
    not_implemented,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    array_or_traced,
    is_complex,
    is_zero,
    named_rule,
    output_parts,
    project_to,
    reject_out,
    seed,
    unbroadcast,
    zero_for,
)

__all__ = ["INT", "NI", "Row", "register_rows", "ROWS"]


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


INT = _Marker("INT")    # an integer argument: NoTangent()
NI = _Marker("NI")      # derivative not implemented: not_implemented(...) naming the argument


class Row:
    """One function of the table.  `params`: the names of its parameters, in
    order (a string "v, x"); `partials`: one per parameter (a function of the
    parameters' values and Ω, or INT, or NI); `defaults`: the values of
    parameters that may be left out (keyword parameters of Python functions);
    `primal`: the function computed on values tracked by an enclosing
    differentiation, for Python functions that convert their arguments to
    arrays (and would lose what is tracked); `refuse`: keyword arguments the
    rule cannot honour (a TypeError names them, as for out=)."""

    __slots__ = ("f", "name", "params", "partials", "holomorphic", "outputs", "defaults", "primal",
                 "ufunc", "refuse")

    def __init__(self, f: Any, name: str, params: str, *partials: Any, holomorphic: bool = False,
                 outputs: int = 1, defaults: Any = None, primal: Any = None, refuse: Any = ()) -> None:
        self.f = f
        self.name = name
        self.params = tuple(p.strip() for p in params.split(","))
        if len(self.params) != len(partials):
            raise ValueError(f"row {name}: {len(self.params)} parameters, {len(partials)} partials")
        self.partials = partials
        self.holomorphic = holomorphic
        self.outputs = outputs
        self.defaults = defaults or {}
        self.primal = primal
        self.ufunc = isinstance(f, np.ufunc)
        self.refuse = tuple(refuse)      # keyword arguments the rule cannot honour (a TypeError)

    def ni(self, i: int) -> Any:
        return not_implemented(f"scipy.special.{self.name}: the derivative in {self.params[i]}")


ROWS: list[Row] = []


def _tracked(args: Any) -> bool:
    return any(array_or_traced(a) is a and not isinstance(a, np.ndarray) for a in args)


def _call(r: Row, args: Any, kw: Any) -> Any:
    if r.primal is not None and _tracked(args):
        return r.primal(*args, **kw)
    return r.f(*args, **kw)


def _values(r: Row, args: Any, kw: Any) -> list[Any]:
    """The values of every parameter, for the partials: positional arguments as arrays
    (or as they are when tracked), then keyword arguments and defaults as given."""
    vals = [a if r.partials[i] is INT else array_or_traced(a) for i, a in enumerate(args)]
    for name in r.params[len(args):]:
        if name in kw:
            vals.append(kw[name])
        elif name in r.defaults:
            vals.append(r.defaults[name])
        else:
            raise TypeError(f"scipy.special.{r.name}: missing the argument {name}")
    return vals


def _check(r: Row, fname: str, args: Any, kw: Any) -> bool:
    """Refuse out= (and where=, signature= on ufuncs); False for complex input to a
    real function (no rule: the caller differentiates through the primal)."""
    if r.ufunc:
        reject_out(fname, kw, "where", "signature")
    else:
        reject_out(fname, kw, *r.refuse)
    if len(args) > len(r.params):
        raise TypeError(f"{fname}: too many arguments ({len(args)} for {len(r.params)})")
    return r.holomorphic or not any(is_complex(a) for a in args)


def _fit(Ω: Any, t: Any) -> Any:
    """A tangent of Ω's shape (a partial that is a constant leaves ẋ's shape)."""
    if np.shape(t) != np.shape(Ω):
        return np.broadcast_to(t, np.shape(Ω))
    return t


def _build(r: Row) -> None:
    fname = f"scipy.special.{r.name}"
    k = r.outputs

    def table_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        if not _check(r, fname, args, kw):
            return None
        Ω = _call(r, args, kw)
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]]
        live = [i for i, ẋ in enumerate(dots) if not is_zero(ẋ) and r.partials[i] is not INT]
        if not live:
            return Ω, ZERO
        for i in live:
            if r.partials[i] is NI:
                return Ω, r.ni(i)
        vals = _values(r, args, kw)
        outs = Ω if k > 1 else (Ω,)
        acc: list[Any] = [None] * k
        for i in live:
            d = r.partials[i](*vals, *outs)
            if d is NI:                 # not implemented at these arguments (kv in ν at complex z)
                return Ω, r.ni(i)
            for j, dj in enumerate(d if k > 1 else (d,)):
                t = dj * dots[i]
                acc[j] = t if acc[j] is None else acc[j] + t
        tangent = [ProjectTo(outs[j])(_fit(outs[j], acc[j])) for j in range(k)]
        return Ω, (Tangent[tuple](*tangent) if k > 1 else tangent[0])  # type: ignore[type-arg]

    def table_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        if not _check(r, fname, args, kw):
            return None
        Ω = _call(r, args, kw)
        projs = [project_to(a) for a in args]
        shapes = [np.shape(a) for a in args]

        def table_pullback(ȳ: Any) -> tuple[Any, ...]:
            parts = output_parts(ȳ, k, fname) if k > 1 else (seed(ȳ, r.name),)
            grads: list[Any] = [NO]
            need = [i for i, p in enumerate(projs) if p.kind and r.partials[i] is not INT]
            live = [j for j, p in enumerate(parts) if not is_zero(p)]
            if not live:
                return (NO, *[zero_for(p) if r.partials[i] is not INT else NO
                              for i, p in enumerate(projs)])
            vals = _values(r, args, kw) if any(r.partials[i] is not NI for i in need) else []
            outs = Ω if k > 1 else (Ω,)
            for i, p in enumerate(projs):
                if i not in need:
                    grads.append(NO)
                    continue
                if r.partials[i] is NI:
                    grads.append(r.ni(i))
                    continue
                d = r.partials[i](*vals, *outs)
                if d is NI:
                    grads.append(r.ni(i))
                    continue
                d = d if k > 1 else (d,)
                g: Any = None
                for j in live:
                    dj = np.conj(d[j]) if r.holomorphic else d[j]
                    t = dj * parts[j]
                    g = t if g is None else g + t
                grads.append(p(unbroadcast(shapes[i], g)))
            return tuple(grads)

        return Ω, table_pullback

    register_frule(r.f, object, ...)(named_rule(table_frule, r.name))
    register_rrule(r.f, object, ...)(named_rule(table_rrule, r.name))


def register_rows(rows: Any) -> None:
    """Build and register the rules of each row; keep the rows in ROWS (the docs
    and the tests read them)."""
    for r in rows:
        _build(r)
        ROWS.append(r)


# the families' rows, registered on import
from chainrules.rulesets.scipy import special_rows_basic  # noqa: E402,F401
from chainrules.rulesets.scipy import special_rows_bessel  # noqa: E402,F401
from chainrules.rulesets.scipy import special_rows_other  # noqa: E402,F401
