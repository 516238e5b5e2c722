"""Rules for NumPy's scans and differences: cumsum and cumprod (the array-API
bodies of cumulative_sum and cumulative_prod) and diff, and the ufunc methods
that are the same functions (`np.add.reduce` is sum, `np.multiply.accumulate`
is cumprod...), with the conventions of `reductions.py`.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    dense,
    methods as _methods,
    named_rule,
    register as _register,
    seed,
    plain,
    array_or_traced,
)
from chainrules.rulesets.array_api._common import _NOVALUE
from chainrules.rulesets.numpy.reductions import (
    _options,
    sum_frule,
    sum_rrule,
    prod_frule,
    prod_rrule,
    max_frule,
    max_rrule,
    min_frule,
    min_rrule,
)
from chainrules.rulesets.array_api import reductions as array_api
from chainrules.rulesets.numpy.linalg._on_numpy import register_body


# ----- cumsum, cumprod ---------------------------------------------------------------------------
# The array-API bodies of cumulative_sum and cumulative_prod (array_api/reductions.py), on
# np.cumsum / np.cumprod and the ndarray methods (axis=None: the flattened array; dtype=;
# out= a TypeError naming it), and on np.cumulative_sum / np.cumulative_prod (NumPy >= 2.1,
# include_initial)

def _scan_bodies(fname: str, sname: str, rules: Any) -> Any:
    f = getattr(np, fname)
    frule, rrule = register_body([f], tuple(named_rule(r, fname) for r in rules(f, fname)), f, 1, fname)
    for m in _methods(fname):
        register_body([m], (frule, rrule), m, 1, f"ndarray.{fname}")
    g = getattr(np, sname, None)
    if g is not None:
        register_body([g], tuple(named_rule(r, sname) for r in rules(g, sname)), g, 1, sname)
    return frule, rrule


cumsum_frule, cumsum_rrule = _scan_bodies("cumsum", "cumulative_sum", array_api.cumulative_sum_rules)
cumprod_frule, cumprod_rrule = _scan_bodies("cumprod", "cumulative_prod", array_api.cumulative_prod_rules)


# ----- diff --------------------------------------------------------------------------------------

def _diff_setup(a: Any, args: Any, kwargs: Any) -> Any:
    opts = _options("diff", args, kwargs, ("n", "axis", "prepend", "append"), refuse=())
    n = opts.get("n", 1)
    axis = int(opts.get("axis", -1)) % max(np.ndim(a), 1)
    pre, app = opts.get("prepend", _NOVALUE), opts.get("append", _NOVALUE)
    return n, axis, pre, app


def _edge_len(v: Any, axis: Any) -> Any:
    if v is _NOVALUE:
        return 0
    return 1 if np.ndim(v) == 0 else np.shape(v)[axis]


def _zeros_of(v: Any) -> Any:
    return v if v is _NOVALUE else np.zeros(np.shape(v))


def diff_frule(tangents: Any, a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    Δa = tangents[1]
    if isinstance(Δa, AbstractZero):
        return Ω, ZERO
    return Ω, np.diff(dense(Δa), n, axis, prepend=_zeros_of(pre), append=_zeros_of(app))


def diff_rrule(a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    n, axis, pre, app = _diff_setup(a, args, kwargs)
    Ω = np.diff(a, *args, **kwargs)
    a = plain(a)
    project = ProjectTo(a)
    length = np.shape(a)[axis] if np.ndim(a) else 0
    start = _edge_len(pre, axis)
    rest = (NO,) * len(args)

    def diff_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'diff')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        g = array_or_traced(unthunk(ȳ))
        for _ in range(n):
            # the adjoint of one difference: c̄ᵢ = gᵢ₋₁ - gᵢ
            g = -np.diff(g, axis=axis, prepend=0, append=0)
        return (NO, project(np.take(g, range(start, start + length), axis=axis))) + rest
    return Ω, diff_pullback


_register([np.diff], diff_frule, diff_rrule)


# ----- ufunc methods: np.add.reduce & co. are sum, prod, max, min, cumsum, cumprod ---------------
# They reduce over axis 0 by default (the functions over all axes); the
# arguments are matched by name and handed to the function's rule.

def _ufunc_method(method: Any, fname: str, rules: tuple[FruleFunction, RruleFunction], names: Any) -> None:
    frule, rrule = rules

    def method_opts(args: Any, kwargs: Any) -> Any:
        opts = dict(zip(names, args))
        opts.update(kwargs)
        opts.setdefault("axis", 0)
        return opts

    def method_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)      # NumPy's own error: accumulate refuses a 0-d array
        return frule(tangents[:2], x, **method_opts(args, kwargs))

    def method_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback] | None:
        if np.ndim(x) == 0:
            method(x, *args, **kwargs)
        res = rrule(x, **method_opts(args, kwargs))
        if res is None:
            return None
        Ω, pullback = res
        x = plain(x)
        rest = (NO,) * len(args)

        def method_pullback(ȳ: Any) -> tuple[Any, ...]:
            return pullback(ȳ)[:2] + rest
        return Ω, method_pullback

    register_frule(method)(named_rule(method_frule, fname))
    register_rrule(method)(named_rule(method_rrule, fname))


_REDUCE_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_max_rules, _min_rules = (max_frule, max_rrule), (min_frule, min_rrule)
_prod_rules = (prod_frule, prod_rrule)
for _m, _name, _rules, _names in [
        (np.add.reduce, "add.reduce", (sum_frule, sum_rrule), _REDUCE_ARGS),
        (np.multiply.reduce, "multiply.reduce", _prod_rules, _REDUCE_ARGS),
        (np.maximum.reduce, "maximum.reduce", _max_rules, _REDUCE_ARGS),
        (np.minimum.reduce, "minimum.reduce", _min_rules, _REDUCE_ARGS),
        (np.add.accumulate, "add.accumulate", (cumsum_frule, cumsum_rrule), ("axis", "dtype", "out")),
        (np.multiply.accumulate, "multiply.accumulate", (cumprod_frule, cumprod_rrule), ("axis", "dtype", "out"))]:
    _ufunc_method(_m, _name.replace(".", "_"), _rules, _names)
