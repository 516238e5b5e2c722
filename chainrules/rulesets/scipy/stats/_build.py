"""The one builder of the scipy.stats rules (issue 23, item 2): a method of
a distribution (`scipy.stats.norm.logpdf`, a bound method of SciPy's
`norm_gen` instance) is element-wise in its arguments, so its rule needs
its value and one partial derivative per argument, as a row of the
scipy.special table does.

A `Method` names the bound method, its parameters in SciPy's positional
order (`x, df, loc, scale`), the defaults of those that may be left out
(`loc=0, scale=1`), which of them are integers (a discrete distribution's
`k` and `loc`, binom's `n`: `NoTangent()`), and two functions:
`value(*vals)` (the primal, written with NumPy and scipy.special functions
that have rules, used when an enclosing differentiation tracks the
arguments: SciPy's own methods convert them to arrays) and
`partials(*vals, Ω)` (one partial per parameter, `None` for integers),
written with functions that have rules too, so that a rule evaluated on
tracked values is differentiated again: every order works.

On plain values the primal is SciPy's own method (its values at every
edge: NaN for invalid parameters, −inf/0 outside the support), or a method's
`fast` primal: the formula with SciPy's masks (the log-densities, where
SciPy's argument handling costs ten times the arithmetic: 11 ms for a t
log-density at 1e5 points); the partials are NaN where it is NaN.  Only positional arguments get tangents (keyword
arguments never do, as everywhere in chainrules; they are passed to the
formulas as values).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import ProjectTo, is_traced, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_complex,
    is_zero,
    named_rule,
    project_to,
    seed,
    unbroadcast,
    zero_for,
)

__all__ = ["Method", "METHODS", "register_methods"]


class Method:
    """One method of one distribution (see the module docstring)."""

    __slots__ = ("f", "name", "params", "defaults", "ints", "value", "partials", "fast")

    def __init__(self, f: Any, name: str, params: Any, defaults: Any, ints: Any, value: Any,
                 partials: Any, fast: Any = None) -> None:
        self.f = f
        self.name = name                    # "norm.logpdf"
        self.params = tuple(params)
        self.defaults = dict(defaults)
        self.ints = frozenset(ints)
        self.value = value
        self.partials = partials
        self.fast = fast                    # the primal on plain values with SciPy's edges, or None

    def __repr__(self) -> str:
        return f"Method(scipy.stats.{self.name}({', '.join(self.params)}))"


METHODS: list[Method] = []


def _tracked(args: Any, kw: Any) -> bool:
    return any(is_traced(a) for a in args) or any(is_traced(a) for a in kw.values())


def _values(m: Method, fname: str, args: Any, kw: Any) -> list[Any]:
    """Every parameter's value: the positional arguments as arrays (as they are
    when tracked), then the keyword arguments and defaults."""
    if len(args) > len(m.params):
        raise TypeError(f"{fname}: too many arguments ({len(args)} for {len(m.params)})")
    unknown = set(kw) - set(m.params[len(args):])
    if unknown:
        raise TypeError(f"{fname}: unexpected or repeated keyword arguments {sorted(unknown)}")
    vals = [a if is_traced(a) else np.asarray(a) if i in m.ints else np.asarray(a, dtype=float)
            for i, a in enumerate(args)]
    return fill_parameters(m, fname, vals, kw, lambda i, v: v if is_traced(v) else np.asarray(v, dtype=float))


def fill_parameters(m: Method, fname: str, vals: list[Any], given: Any, convert: Any) -> list[Any]:
    """`vals` (the positional arguments' values) followed by the rest of m's
    parameters, from `given` (by name) or m's defaults, each as `convert(its
    index, value)`; a parameter with neither is a TypeError naming it."""
    for name in m.params[len(vals):]:
        if name in given:
            v = given[name]
        elif name in m.defaults:
            v = m.defaults[name]
        else:
            raise TypeError(f"{fname}: missing the argument {name!r}")
        vals.append(convert(m.params.index(name), v))
    return vals


def _primal(m: Method, fname: str, args: Any, kw: Any) -> tuple[Any, list[Any]]:
    """((Ω, the partials when the primal computed them, else None), the parameters' values)."""
    vals = _values(m, fname, args, kw)
    if _tracked(args, kw):
        return (m.value(*vals), None), vals
    if m.fast is not None:
        got = m.fast(*vals)
        if got is not None:
            return got, vals            # (Ω, its partials or None)
    return (m.f(*args, **kw), None), vals


def _nan_where(Ω: Any, d: Any) -> Any:
    """d, NaN where the primal is (invalid parameters): never a silent number."""
    if is_traced(Ω) or is_traced(d):
        return d
    bad = np.isnan(Ω)
    if not np.any(bad):
        return d
    return np.where(bad, np.nan, d)


def _fit(Ω: Any, t: Any) -> Any:
    if np.shape(t) != np.shape(Ω):
        return np.broadcast_to(t, np.shape(Ω))
    return t


def _build(m: Method) -> None:
    fname = f"scipy.stats.{m.name}"

    def stats_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        if any(is_complex(a) for a in args):
            return None
        (Ω, ds), vals = _primal(m, fname, args, kw)
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]]
        live = [i for i, ẋ in enumerate(dots) if not is_zero(ẋ) and i not in m.ints]
        if not live:
            return Ω, ZERO
        if ds is None:
            ds = m.partials(*vals, Ω)
        acc: Any = None
        for i in live:
            t = ds[i] * dots[i]
            acc = t if acc is None else acc + t
        return Ω, ProjectTo(Ω)(_fit(Ω, _nan_where(Ω, acc)))

    def stats_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        if any(is_complex(a) for a in args):
            return None
        (Ω, ds0), vals = _primal(m, fname, args, kw)
        projs = [project_to(a) for a in args]
        shapes = [np.shape(a) for a in args]

        def stats_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, m.name)
            need = [i for i, p in enumerate(projs) if p.kind and i not in m.ints]
            if is_zero(ȳ) or not need:
                return (NO, *[NO if i in m.ints else zero_for(p) for i, p in enumerate(projs)])
            ds = ds0 if ds0 is not None else m.partials(*vals, Ω)
            fast = type(ȳ) is np.ndarray and type(Ω) is np.ndarray and ȳ.shape == Ω.shape
            bad = np.isnan(Ω) if fast else None
            if bad is not None and not bad.any():
                bad = None
            grads: list[Any] = [NO]
            for i, p in enumerate(projs):
                if i not in need:
                    grads.append(NO)
                    continue
                d = ds[i]
                if fast and bad is None and shapes[i] == () and type(d) is np.ndarray and d.shape == Ω.shape:
                    # a scalar parameter of a plain array result: ⟨∂Ω/∂θ, ȳ⟩ in one pass
                    # (einsum's own loop: BLAS's threaded ddot costs ms to wake its threads on a busy machine)
                    grads.append(p(np.einsum("i,i->", d.ravel(), ȳ.ravel())))
                    continue
                g = d * ȳ
                if bad is not None:
                    g = np.where(bad, np.nan, g)
                elif not fast:
                    g = _nan_where(Ω, g)
                grads.append(p(unbroadcast(shapes[i], _fit(Ω, g))))
            return tuple(grads)

        return Ω, stats_pullback

    rule_name = m.name.replace(".", "_")
    register_frule(m.f, object, ...)(named_rule(stats_frule, rule_name))
    register_rrule(m.f, object, ...)(named_rule(stats_rrule, rule_name))


def register_methods(methods: Any) -> None:
    """Build and register each method's rules; keep them in METHODS (the docs,
    the frozen spelling and the tests read them)."""
    for m in methods:
        _build(m)
        METHODS.append(m)
