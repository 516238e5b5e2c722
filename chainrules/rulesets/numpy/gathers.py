"""Rules for NumPy's functions whose output is made of their inputs' elements
(and zeros): fft.fftshift, fft.ifftshift, choose, select, compress, extract,
insert, delete, block, diagflat, resize, meshgrid, unstack; and bincount in
its weights, which is their adjoint.

Such a function is linear and moves elements only, so it is one table: the
function applied to labels (1…N for the N elements of its differentiable
arguments, 0 for a zero) says where each output element comes from.  The
pushforward gathers the tangents at the labels (np.take), the pullback adds
the cotangents up at the labels (np.bincount with weights), two functions with
rules, each the other's adjoint: the rules differentiate again.  Index,
condition and shape arguments get NoTangent.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import AbstractZero, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    array_or_traced,
    is_complex,
    named_rule,
    named_options,
    project_to,
    reject_out,
    seed,
)
from chainrules.rulesets.array_api._common import sequence_tangent
from chainrules.rulesets.numpy.shapes import _output_parts


# ----- bincount(x, weights, minlength): linear in weights --------------------------------------

def _bincount_options(args: Any, kw: Any) -> Any:
    opts = named_options("numpy.bincount", ("weights", "minlength"), args, kw)
    return opts.get("weights"), opts.get("minlength", 0)


def _bincount(x: Any, w: Any, minlength: Any) -> Any:
    """bincount of a possibly complex w (NumPy's takes real weights only)."""
    if is_complex(w):
        return (np.bincount(x, np.real(w), minlength=minlength)
                + 1j * np.bincount(x, np.imag(w), minlength=minlength))
    return np.bincount(x, w, minlength=minlength)


@register_frule(np.bincount)
def bincount_frule(tangents: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    w, minlength = _bincount_options(args, kw)
    Ω = np.bincount(x, *args, **kw)
    ẇ = unthunk(tangents[2]) if args else ZERO
    if w is None or isinstance(ẇ, AbstractZero):
        return Ω, ZERO
    return Ω, _bincount(x, ẇ, minlength)


@register_rrule(np.bincount)
def bincount_rrule(x: Any, *args: Any, **kw: Any) -> tuple[Any, Pullback]:
    w, minlength = _bincount_options(args, kw)
    Ω = np.bincount(x, *args, **kw)
    pw = project_to(w) if args else None
    rest = (NO,) * max(len(args) - 1, 0)

    def bincount_pullback(Ω̄: Any) -> tuple[Any, ...]:
        Ω̄ = seed(Ω̄, "numpy.bincount")
        if pw is None:
            return (NO, NO)
        if isinstance(Ω̄, AbstractZero) or w is None or not pw.kind:
            return (NO, NO, pw(ZERO)) + rest
        return (NO, NO, pw(np.take(array_or_traced(Ω̄), x))) + rest
    return Ω, bincount_pullback


# ----- the label table ----------------------------------------------------------------------------

def _leaves(v: Any, out: list[Any]) -> Any:
    """The arrays of a (nested) list or tuple argument, in order; returns the labelled
    structure's builder."""
    if isinstance(v, (list, tuple)):
        return [_leaves(e, out) for e in v], type(v)
    out.append(v)
    return len(out) - 1


def _rebuild(shape: Any, values: Any) -> Any:
    if isinstance(shape, int):
        return values[shape]
    parts, kind = shape
    return kind(_rebuild(p, values) for p in parts)


def _tangent_leaves(t: Any, shape: Any, out: list[Any]) -> None:
    """The tangents of the leaves of a (nested) argument, zeros where absent."""
    if isinstance(shape, int):
        out.append(unthunk(t))
        return
    parts, kind = shape
    t = unthunk(t)
    items = [ZERO] * len(parts) if isinstance(t, AbstractZero) else list(t)
    for p, e in zip(parts, items):
        _tangent_leaves(e, p, out)


def _cotangent(shape: Any, values: Any, primal: Any) -> Any:
    if isinstance(shape, int):
        return values[shape]
    parts, kind = shape
    return sequence_tangent(primal, [_cotangent(p, values, e) for p, e in zip(parts, primal)])


class _Labels:
    """f applied to labels: which input element each output element is."""

    def __init__(self, f: Any, args: Any, kwargs: Any, diff: Any, constants: Any = ()) -> None:
        self.diff = [i for i in diff if i < len(args)]
        leaves: list[Any] = []
        self.shapes = {i: _leaves(args[i], leaves) for i in self.diff}
        self.leaves = leaves
        sizes = [int(np.size(v)) for v in leaves]
        self.sizes = sizes
        self.offsets = np.concatenate([[1], 1 + np.cumsum(sizes)]).astype(np.intp)
        labelled = [np.arange(o, o + n, dtype=np.intp).reshape(np.shape(v))
                    for o, n, v in zip(self.offsets, sizes, leaves)]
        largs = list(args)
        for i in self.diff:
            largs[i] = _rebuild(self.shapes[i], labelled)
        # keyword constants (select's default=) get label 0: no tangent, no cotangent
        self.labels = f(*largs, **(kwargs if not constants else
                                   {k: (0 if k in constants else v) for k, v in kwargs.items()}))
        self.sequence = isinstance(self.labels, (list, tuple))
        self.total = int(self.offsets[-1])
        self.projects = [project_to(v) for v in leaves]

    def push(self, tangents: Any, Ω: Any) -> Any:
        ts: list[Any] = []
        for i in self.diff:
            _tangent_leaves(tangents[i + 1], self.shapes[i], ts)
        if all(isinstance(t, AbstractZero) for t in ts):
            return ZERO
        dtype = np.result_type(*[array_or_traced(v).dtype for v in self.leaves], 0.0)
        flat = [np.zeros(n, dtype=dtype) if isinstance(t, AbstractZero) else np.ravel(t)
                for t, n in zip(ts, self.sizes)]
        table = np.concatenate([np.zeros(1, dtype=dtype)] + flat)
        if self.sequence:
            return sequence_tangent(Ω, [project_to(o)(np.take(table, lab)) for o, lab in zip(Ω, self.labels)])
        return project_to(Ω)(np.take(table, self.labels))

    def pull(self, Ω̄: Any, Ω: Any) -> Any:
        """The cotangents of the differentiable arguments, by position."""
        if self.sequence:
            parts = _output_parts(Ω̄, len(self.labels))
            pairs = [(np.ravel(lab), np.ravel(array_or_traced(unthunk(p))))
                     for lab, p in zip(self.labels, parts) if not isinstance(p, AbstractZero)]
        else:
            pairs = [] if isinstance(Ω̄, AbstractZero) else [
                (np.ravel(self.labels), np.ravel(array_or_traced(Ω̄)))]
        if not pairs:
            values = [p(ZERO) for p in self.projects]
        else:
            labels = np.concatenate([p[0] for p in pairs])
            weights = pairs[0][1] if len(pairs) == 1 else np.concatenate([p[1] for p in pairs])
            acc = _bincount(labels, weights, self.total)
            values = [p(np.reshape(acc[o:o + n], np.shape(v))) if p.kind else p(ZERO)
                      for p, o, n, v in zip(self.projects, self.offsets, self.sizes, self.leaves)]
        return {i: _cotangent(self.shapes[i], values, self.leaves_of(i)) for i in self.diff}

    def leaves_of(self, i: int) -> Any:
        return _rebuild(self.shapes[i], self.leaves)


def gather_rules(f: Any, name: str, diff: Any, check: Any = None, constants: Any = ()) -> None:
    """frule and rrule of f, which only moves the elements of its positional arguments
    at the indices `diff` (arrays, or nested lists of arrays); the keyword
    arguments named in `constants` are values with no tangent."""

    def gather_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        reject_out(name, kwargs)
        if check is not None:
            check(args, kwargs)
        Ω = f(*args, **kwargs)
        L = _Labels(f, args, kwargs, diff, constants)
        return Ω, L.push(tangents, Ω)

    def gather_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        reject_out(name, kwargs)
        if check is not None:
            check(args, kwargs)
        Ω = f(*args, **kwargs)
        L = _Labels(f, args, kwargs, diff, constants)

        def gather_pullback(Ω̄: Any) -> tuple[Any, ...]:
            Ω̄ = seed(Ω̄, name)        # a tuple or list of cotangents passes (a sequence output)
            got = L.pull(Ω̄, Ω)
            return (NO,) + tuple(got.get(i, NO) for i in range(len(args)))
        return Ω, gather_pullback

    short = name.rsplit(".", 1)[-1]
    register_frule(f)(named_rule(gather_frule, short))
    register_rrule(f)(named_rule(gather_rrule, short))


def _choose_check(args: Any, kwargs: Any) -> None:
    if kwargs.get("mode", "raise") not in ("raise", "wrap", "clip"):
        raise ValueError(f"numpy.choose: invalid mode {kwargs['mode']!r}")


gather_rules(np.fft.fftshift, "numpy.fft.fftshift", (0,))
gather_rules(np.fft.ifftshift, "numpy.fft.ifftshift", (0,))
gather_rules(np.choose, "numpy.choose", (1,), _choose_check)
# select's default: positional, it has a tangent; by keyword, a constant (an option)
gather_rules(np.select, "numpy.select", (1, 2), constants=("default",))
gather_rules(np.compress, "numpy.compress", (1,))
gather_rules(np.extract, "numpy.extract", (1,))
gather_rules(np.insert, "numpy.insert", (0, 2))
gather_rules(np.delete, "numpy.delete", (0,))
gather_rules(np.block, "numpy.block", (0,))
gather_rules(np.diagflat, "numpy.diagflat", (0,))
gather_rules(np.resize, "numpy.resize", (0,))
gather_rules(np.meshgrid, "numpy.meshgrid", tuple(range(32)))
if hasattr(np, "unstack"):
    gather_rules(np.unstack, "numpy.unstack", (0,))
