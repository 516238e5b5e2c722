"""Rules for NumPy's averages and variances that NumPy alone has: nanvar,
nanstd and average, with the conventions of the array-API bodies (std at a
constant slice has cotangent 0 there; `mean=` of nanvar/nanstd raises a
TypeError).  var and std (and their ndarray methods) are the array-API
bodies (array_api/reductions.py), registered on NumPy's functions by
`reductions.py`.
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
    Tangent,
    Thunk,
    is_traced,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    output_parts as _output_parts,
    dense,
    like as _like,
    named_rule,
    normalize_axes,
    register as _register,
    unbroadcast,
    unreduce,
    seed,
    plain,
)


from chainrules.rulesets.array_api._common import _NOVALUE
from chainrules.rulesets.numpy.reductions import (
    _options,
    _keepdims,
    _shape_dtype,
    _count,
    _VAR_ARGS,
)
from chainrules.rulesets._arrays import value_of as _value


# ----- the options of nanvar, nanstd -------------------------------------------------------
# var and std themselves are the array-API bodies (array_api/reductions.py),
# registered on NumPy's functions by reductions.py.

def _var_options(fname: str, x: Any, args: Any, kwargs: Any) -> Any:
    """The options var, std, nanvar and nanstd share: (opts, shape, dtype, axes, ddof)."""
    opts = _options(fname, args, kwargs, _VAR_ARGS, refuse=("out", "where", "mean"))
    shape, dtype = _shape_dtype(x)
    axes = normalize_axes(opts.get("axis"), len(shape))
    ddof = opts.get("correction", None)
    if ddof is None or ddof is _NOVALUE:
        ddof = opts.get("ddof", 0)
    return opts, shape, dtype, axes, ddof


def _safe(Ω: Any) -> Any:
    return np.where(Ω == 0, 1, Ω)


# ----- average -----------------------------------------------------------------------------------
# Ω = Σ w·a / Σ w: ∂Ω/∂a = w/W, ∂Ω/∂w = (a - Ω)/W.  Weights passed
# positionally get a cotangent; as a keyword they get none (keywords never do).

def _average_setup(a: Any, args: Any, kwargs: Any) -> Any:
    opts = _options("average", args, kwargs, ("axis", "weights", "returned"), refuse=())
    shape = np.shape(a)
    axis = opts.get("axis")
    axes = normalize_axes(axis, len(shape))
    w = opts.get("weights")
    if w is not None and np.shape(w) != shape:
        # 1-d weights along the single axis
        wshape = [1] * len(shape)
        wshape[axes[0]] = np.shape(w)[0]
        wb = np.reshape(w, wshape)
    else:
        wb = w
    return axes, _keepdims(opts), w, wb, bool(opts.get("returned"))


def average_frule(tangents: Any, a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    axes, keepdims, w, wb, returned = _average_setup(a, args, kwargs)
    Ω = np.average(a, *args, **kwargs)
    a = plain(a)
    Δw = tangents[3] if len(tangents) > 3 else ZERO
    if not returned:
        return Ω, _average_jvp(tangents[1], Δw, a, wb, axes, keepdims, Ω)
    Ωa, W = Ω
    ΔΩ = _average_jvp(tangents[1], Δw, a, wb, axes, keepdims, Ωa)
    if wb is None or isinstance(Δw, AbstractZero):
        return Ω, Tangent[tuple](ΔΩ, ZERO)  # type: ignore[type-arg]
    ΔW = np.sum(np.broadcast_to(np.reshape(dense(Δw), np.shape(wb)), np.shape(a)), axis=axes, keepdims=keepdims)
    # W has the result dtype (complex for a complex a): so has its tangent
    return Ω, Tangent[tuple](ΔΩ, ProjectTo(W)(np.broadcast_to(ΔW, np.shape(W))))  # type: ignore[type-arg]


def _average_jvp(Δa: Any, Δw: Any, a: Any, wb: Any, axes: Any, keepdims: Any, Ω: Any) -> Any:
    if wb is None:
        if isinstance(Δa, AbstractZero):
            return ZERO
        return _like(Ω, np.mean(dense(Δa), axis=axes, keepdims=keepdims))
    W = np.sum(np.broadcast_to(wb, np.shape(a)), axis=axes, keepdims=True)
    ΔΩ: Any = ZERO
    if not isinstance(Δa, AbstractZero):
        ΔΩ = np.sum(wb * dense(Δa), axis=axes, keepdims=True) / W
    if not isinstance(Δw, AbstractZero):
        Ωk = np.sum(wb * a, axis=axes, keepdims=True) / W
        Δwb = np.reshape(dense(Δw), np.shape(wb))
        t = np.sum(Δwb * (a - Ωk), axis=axes, keepdims=True) / W
        ΔΩ = t if ΔΩ is ZERO else ΔΩ + t
    if ΔΩ is ZERO:
        return ZERO
    return _like(Ω, ΔΩ if keepdims else np.squeeze(ΔΩ, axis=axes))


def average_rrule(a: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    axes, keepdims, w, wb, returned = _average_setup(a, args, kwargs)
    Ω = np.average(a, *args, **kwargs)
    a = plain(a)
    pa = ProjectTo(a)
    pw = ProjectTo(w) if len(args) > 1 else None     # weights given positionally
    shape = np.shape(a)

    def average_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'average')
        out = [NO, pa(ZERO)] + [NO] * len(args)
        if pw is not None:
            out[3] = pw(ZERO)
        if returned:
            # (average, sum of weights): the sum's cotangent goes to the weights
            ȳ, W̄ = _output_parts(ȳ, 2)
            if wb is not None and pw is not None and pw.kind != 0 and not isinstance(W̄, AbstractZero):
                W̄ = unreduce(unthunk(W̄), shape, axes, keepdims)
                w̄W = np.reshape(unbroadcast(np.shape(wb), np.real(W̄)), np.shape(w))
                out[3] = pw(w̄W)
        if isinstance(ȳ, AbstractZero):
            return tuple(out)
        ȳ = unreduce(unthunk(ȳ), shape, axes, keepdims)
        if wb is None:
            out[1] = pa(ȳ / max(_count(shape, axes), 1))
            return tuple(out)
        W = np.sum(np.broadcast_to(wb, shape), axis=axes, keepdims=True)
        if pa.kind != 0:
            out[1] = Thunk(lambda: pa(ȳ * np.conj(wb / W)))
        if pw is not None and pw.kind != 0:
            def average_dw() -> Any:
                Ωk = np.sum(wb * a, axis=axes, keepdims=True) / W
                w̄ = ȳ * np.conj((a - Ωk) / W)
                w̄ = np.reshape(unbroadcast(np.shape(wb), w̄), np.shape(w))
                return pw(w̄ if isinstance(out3, AbstractZero) else w̄ + out3)
            out3 = out[3]
            out[3] = Thunk(average_dw)
        return tuple(out)
    return Ω, average_pullback


_register([np.average], average_frule, average_rrule)


# ----- nanvar, nanstd: var and std over the non-NaN elements ----------------------------------
# The same pullback as var with N the count of non-NaN elements per slice and
# zero at the NaNs.

def _nanvar_setup(fname: str, x: Any, args: Any, kwargs: Any) -> Any:
    opts, shape, _, axes, ddof = _var_options(fname, x, args, kwargs)
    x = x if is_traced(x) else np.asarray(x)
    nan = np.isnan(_value(x))
    dof = np.sum(~nan, axis=axes, keepdims=True) - ddof
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(np.where(nan, 0, x), axis=axes, keepdims=True) / np.maximum(dof + ddof, 1)
    d = np.where(nan, 0, x - mean)          # 0 at the NaNs: they get no cotangent
    return shape, axes, _keepdims(opts), d, dof


def _kept(v: Any, axes: Any, keepdims: Any) -> Any:
    return v if keepdims else np.squeeze(v, axis=axes)


def _nanvar_rules(fname: str, f: Any, std: Any) -> Any:
    def nanvar_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        shape, axes, keepdims, d, dof = _nanvar_setup(fname, x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        with np.errstate(invalid="ignore", divide="ignore"):
            ΔΩ = 2 * np.sum(np.real(np.conj(d) * dense(Δx)), axis=axes, keepdims=True) / dof
            if std:
                Ωk = np.reshape(Ω, ΔΩ.shape)
                ΔΩ = np.where(Ωk == 0, 0, ΔΩ / (2 * _safe(Ωk)))
        return Ω, _like(Ω, ProjectTo(Ω)(_kept(ΔΩ, axes, keepdims)))

    def nanvar_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        shape, axes, keepdims, d, dof = _nanvar_setup(fname, x, args, kwargs)
        Ω = f(x, *args, **kwargs)
        x = plain(x)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def nanvar_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, fname)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = unreduce(np.real(unthunk(ȳ)), shape, axes, keepdims)
            with np.errstate(invalid="ignore", divide="ignore"):
                scale = 2 / dof
                if std:
                    Ωk = unreduce(Ω, shape, axes, keepdims)
                    scale = np.where(Ωk == 0, 0, 1 / (dof * _safe(Ωk)))
            return (NO, project(d * (ȳ * scale))) + rest
        return Ω, nanvar_pullback

    return named_rule(nanvar_frule, fname), named_rule(nanvar_rrule, fname)


_register([np.nanvar], *_nanvar_rules("nanvar", np.nanvar, False))
_register([np.nanstd], *_nanvar_rules("nanstd", np.nanstd, True))
