"""Rules for `np.pad`, every mode.  Conventions: in modes maximum/minimum/
median the padding's cotangent goes to the element(s) NumPy selects (ties:
the first, as argmax/argmin and a stable sort pick), and in mode 'empty' to
none (its padding is undetermined).
"""


# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import is_traced
from chainrules._xp import scatter_add
from chainrules.rulesets._arrays import array_or_traced
from chainrules.rulesets._arrays import value_of as _value
from chainrules.rulesets.numpy.shapes import (
    _arg,
    _linear,
)


# ----- pad ---------------------------------------------------------------------------------------
# constant and empty: the cotangent is the interior of ȳ ('empty' leaves the
# padding undetermined: it carries no derivative).  edge, and reflect,
# symmetric with reflect_type 'even', and wrap copy elements: pad an array of
# element numbers the same way and sum ȳ back onto the elements it came from.
# The other modes go axis by axis, as NumPy does (axis k is padded on the
# array already padded along the axes before k), each axis a map that is the
# same on every line along it:
# - mean: the padding is the mean of the first / last stat_length elements;
# - maximum, minimum, median: the padding is the selected element (median:
#   the mean of the middle two), the selection read on the primal;
# - linear_ramp (linear in the edge, the end values are constants) and
#   reflect/symmetric with reflect_type 'odd' (2·edge − mirror image): the
#   padding is a small matrix times the elements near the ends, found by
#   padding unit vectors (a probe) with np.pad itself.
# Tangents and cotangents may be tracked by an AD (the rule
# differentiated, at order 2): their path then has no writes (sums, gathers
# and 0/1 selections; plain arrays are added to in place); the indices and the
# selections (read on the primal's values) are plain arrays.

_PAD_COPY_MODES = ("edge", "reflect", "symmetric", "wrap")
_PAD_STAT_MODES = ("maximum", "minimum", "median", "mean")
_PAD_MODES = ("constant", "empty") + _PAD_COPY_MODES + ("linear_ramp",) + _PAD_STAT_MODES
_PAD_SELECT = {"maximum": np.argmax, "minimum": np.argmin}


def _pad_mode(args: Any, kwargs: Any) -> Any:
    mode = _arg(args, kwargs, 1, "mode", "constant")
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise TypeError(f"pad: the rule cannot honour the argument mode={mode!r}; it handles "
                        f"{', '.join(repr(m) for m in _PAD_MODES)}")
    return mode


def _pad_widths(x: Any, args: Any, kwargs: Any) -> Any:
    return np.broadcast_to(np.asarray(_arg(args, kwargs, 0, "pad_width"), dtype=np.intp), (np.ndim(x), 2))


def _at(axis: Any, ndim: int, index: Any) -> Any:
    sl = [slice(None)] * ndim
    sl[axis] = index
    return tuple(sl)


class _PadAxis:
    """The pad of one axis (k, widths b and a) of an array of `shape` (axis
    k of length n): `push` pads a tangent, `pull` maps a cotangent back.  `u`
    is the primal (padded along the axes before k) the selecting modes read."""

    def __init__(self, shape: Any, k: Any, b: Any, a: Any, mode: Any, kwargs: Any, u: Any = None) -> None:
        n = shape[k]
        self.k, self.b, self.a, self.n, self.nd = k, b, a, n, len(shape)
        self.mode = mode
        if mode in _PAD_STAT_MODES:
            sl = kwargs.get("stat_length")
            lengths = (n, n) if sl is None else np.broadcast_to(np.asarray(sl, dtype=np.intp), (self.nd, 2))[k]
            self.lb, self.la = (min(int(v), n) for v in lengths)
            if mode != "mean":
                self.before = self._select(u, 0, self.lb, mode)
                self.after = self._select(u, n - self.la, n, mode)
        else:   # a matrix on the elements near the ends: all those the padding can read
            reach = min(n, max(b, a) + 1)
            S = np.unique(np.concatenate([np.arange(reach), np.arange(n - reach, n)]))
            probe = np.zeros((n, S.size))
            probe[S, np.arange(S.size)] = 1.0
            options = ({"end_values": 0} if mode == "linear_ramp"
                       else {"reflect_type": kwargs.get("reflect_type", "even")})
            P = np.pad(probe, ((b, a), (0, 0)), mode, **options)
            self.S, self.Pb, self.Pa = S, P[:b], P[b + n:]

    def _along(self, v: Any) -> Any:
        """A vector over axis k shaped to broadcast against arrays of nd dimensions."""
        return np.reshape(v, [-1 if j == self.k else 1 for j in range(self.nd)])

    def _select(self, u: Any, start: Any, stop: Any, mode: Any) -> Any:
        """[(index along k, weight)]: the elements the padding value is made of."""
        chunk = u[_at(self.k, self.nd, slice(start, stop))]
        if mode in _PAD_SELECT:
            return [(_PAD_SELECT[mode](chunk, axis=self.k, keepdims=True) + start, 1.0)]
        order = np.argsort(chunk, axis=self.k, kind="stable")
        m = stop - start
        mids = (m // 2,) if m % 2 else (m // 2 - 1, m // 2)
        return [(np.take(order, [i], axis=self.k) + start, 1.0 / len(mids)) for i in mids]

    def _side(self, t: Any, which: Any) -> Any:
        k, n = self.k, self.n
        if self.mode == "mean":
            part = t[_at(k, self.nd, slice(0, self.lb) if which == "b" else slice(n - self.la, n))]
            return np.mean(part, axis=k, keepdims=True)
        if self.mode in _PAD_STAT_MODES:
            picks = self.before if which == "b" else self.after
            return sum(w * np.take_along_axis(t, i, axis=k) for i, w in picks)
        P = self.Pb if which == "b" else self.Pa
        return np.moveaxis(np.moveaxis(np.take(t, self.S, axis=k), k, -1) @ P.T, -1, k)

    def push(self, t: Any) -> Any:
        k = self.k
        parts = []
        for which, width in (("b", self.b), ("a", self.a)):
            if width:
                v = self._side(t, which)
                parts.append(np.repeat(v, width, axis=k) if v.shape[k] == 1 and width > 1 else v)
            else:
                parts.append(None)
        return np.concatenate([p for p in (parts[0], t, parts[1]) if p is not None], axis=k)

    def _add(self, x̄: Any, where: Any, v: Any) -> Any:
        """x̄ with v added at the elements `where` (a slice or distinct indices)
        of axis k, v broadcasting against them: in place for an array, without
        writes for a tracked x̄ (the pullback differentiated: v masked into
        place by a gather)."""
        k, nd = self.k, self.nd
        if not is_traced(x̄):
            x̄[_at(k, nd, where)] += v
            return x̄
        idx = np.arange(self.n)[where]
        slot = np.zeros(self.n, dtype=np.intp)
        slot[idx] = np.arange(idx.size)
        hit = self._along(np.isin(np.arange(self.n), idx))
        shape = list(x̄.shape)
        shape[k] = idx.size
        v = np.broadcast_to(v, shape)
        return x̄ + np.where(hit, np.take(v, slot, axis=k), 0)

    def _add_picks(self, x̄: Any, i: Any, v: Any) -> Any:
        """x̄ with v added at element i[line] of axis k on each line (i and v
        have length 1 along k), in place or without writes as `_add`."""
        k = self.k
        if not is_traced(x̄):
            np.put_along_axis(x̄, i, np.take_along_axis(x̄, i, axis=k) + v, axis=k)
            return x̄
        return x̄ + np.where(self._along(np.arange(self.n)) == i, v, 0)

    def pull(self, ȳ: Any) -> Any:
        """The cotangent of the unpadded array: the interior of ȳ plus what each
        side's padding sends back (ȳ may be tracked: see `_add`)."""
        k, n, b, nd = self.k, self.n, self.b, self.nd
        # float64 at least, as the probe matrices; a copy, to which the padding's parts are added
        x̄ = ȳ[_at(k, nd, slice(b, b + n))]
        dtype = np.result_type(x̄.dtype, np.float64)
        x̄ = x̄ + np.zeros((), dtype) if is_traced(x̄) else np.array(x̄, dtype=dtype)
        for which, width, part in (("b", b, slice(0, b)), ("a", self.a, slice(b + n, None))):
            if not width:
                continue
            ȳs = ȳ[_at(k, nd, part)]
            if self.mode == "mean":
                length = self.lb if which == "b" else self.la
                where = slice(0, length) if which == "b" else slice(n - length, n)
                x̄ = self._add(x̄, where, np.sum(ȳs, axis=k, keepdims=True) / length)
            elif self.mode in _PAD_STAT_MODES:
                total = np.sum(ȳs, axis=k, keepdims=True)
                for i, w in (self.before if which == "b" else self.after):
                    # one pick per line: read, add, write back (the two medians may coincide)
                    x̄ = self._add_picks(x̄, i, w * total)
            else:
                P = self.Pb if which == "b" else self.Pa
                x̄ = self._add(x̄, self.S, np.moveaxis(np.moveaxis(ȳs, k, -1) @ P, -1, k))
        return x̄


def _pad_axes(x: Any, args: Any, kwargs: Any, mode: Any) -> Any:
    """The per-axis maps, in NumPy's order (axis 0 first)."""
    pw = _pad_widths(x, args, kwargs)
    steps = []
    shape = np.shape(x)
    for k in range(len(shape)):
        b, a = int(pw[k, 0]), int(pw[k, 1])
        if b == 0 and a == 0:
            continue
        u = None
        if mode in _PAD_SELECT or mode == "median":      # the selection reads the primal padded so far
            done = np.zeros_like(pw)
            done[:k] = pw[:k]
            u = np.pad(_value(x), done, mode, **{o: v for o, v in kwargs.items() if o not in ("pad_width", "mode")})
        here = tuple(n + int(pw[j].sum()) if j < k else n for j, n in enumerate(shape))
        steps.append(_PadAxis(here, k, b, a, mode, kwargs, u))
    return steps


def _pad_is_copy(mode: Any, kwargs: Any) -> bool:
    return mode in _PAD_COPY_MODES and (mode not in ("reflect", "symmetric")
                                        or kwargs.get("reflect_type", "even") == "even")


def _pad_forward(Δx: Any, x: Any, args: Any, kwargs: Any) -> Any:
    mode = _pad_mode(args, kwargs)
    pad_width = _arg(args, kwargs, 0, "pad_width")
    if mode in ("constant", "empty"):
        return np.pad(Δx, pad_width)            # the constant does not move; 'empty' has none
    if _pad_is_copy(mode, kwargs):
        return np.pad(Δx, pad_width, mode)
    t = array_or_traced(Δx)
    dtype = t.dtype
    for step in _pad_axes(x, args, kwargs, mode):
        t = step.push(t)
    return t if t.dtype == dtype else t.astype(dtype)    # the probe matrices are float64


def _pad_adjoint(ȳ: Any, x: Any, args: Any, kwargs: Any) -> Any:
    mode = _pad_mode(args, kwargs)
    shape = np.shape(x)
    pad_width = _pad_widths(x, args, kwargs)
    ȳ = array_or_traced(ȳ)
    if mode in ("constant", "empty"):
        return ȳ[tuple(slice(int(b), int(b) + n) for (b, _), n in zip(pad_width, shape))]
    if not _pad_is_copy(mode, kwargs):
        for step in reversed(_pad_axes(x, args, kwargs, mode)):
            ȳ = step.pull(ȳ)
        return ȳ
    n = int(np.prod(shape))
    source = np.pad(np.arange(n).reshape(shape), pad_width, mode)
    if is_traced(ȳ):          # the pullback differentiated: a scatter-add without writes
        return np.reshape(scatter_add(np, source.ravel(), np.reshape(ȳ, (-1,)), n), shape)
    g = np.zeros(n, dtype=ȳ.dtype)
    np.add.at(g, source.ravel(), ȳ.ravel())
    return g.reshape(shape)


_linear([np.pad], "pad", _pad_adjoint, _pad_forward, thunk=True, check=lambda x, a, k: _pad_mode(a, k))
