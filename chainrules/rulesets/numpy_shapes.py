"""Rules for NumPy's shape, joining, splitting, selection and indexing
functions: reshape, ravel, transpose, swapaxes, moveaxis, rollaxis, squeeze,
expand_dims, atleast_Nd, broadcast_to, broadcast_arrays, tile, repeat, flip,
rot90, roll, pad, diagonal, diag, triu, tril, concatenate, stack, h/v/dstack,
column_stack, append, split and friends, where, clip, sort, take,
take_along_axis, the copying functions (copy, asarray, astype...), and
indexing: `operator.getitem` and `np.ndarray.__getitem__` with basic,
advanced and boolean indices, and `x.item(...)`.

Most of these are linear in the array: the frule applies the function itself
to the tangent, the pullback applies its adjoint (a reshape, a transpose, a
sum over the copies, a scatter).  Indices, axes, shapes and masks get
`NoTangent()`.  Where the adjoint scatters into an array of the input's
size (getitem, take, take_along_axis) the cotangent is an `InplaceableThunk`:
its add_fn accumulates into an existing array with `np.add.at` (repeated
indices accumulate) or `dest[idx] += ȳ` (basic indices and masks, which
cannot repeat), without building the zeros.

Sequences of arrays (concatenate's argument, split's result) have as tangent
a `Tangent[tuple]` or a `Tangent[list]` (lists and tuples of tangents are
accepted as cotangents too).

Conventions: `clip` gives the cotangent to x at the bounds (ChainRules'
clamp); `pad` in modes maximum/minimum/median gives the padding's cotangent
to the element(s) NumPy selects (ties: the first, as argmax/argmin and a
stable sort pick), and in mode 'empty' none (its padding is undetermined); `sort` moves the cotangent with the permutation that sorts (a stable
argsort, so ties keep their order); `np.ndarray` methods with the same
arguments as the functions share their rules (`x.reshape(2, 3)` and
`x.transpose(1, 0)`, whose arguments differ, have their own).
"""

import operator

import numpy as np

from chainrules._core import (
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    ProjectTo,
    StructuralTangent,
    Tangent,
    Thunk,
    Tracked,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._core import _getitem_rrule
from chainrules.rulesets._arrays import (
    tracked_call,
    NO,
    ZERO,
    dense,
    like as _like,
    methods as _methods,
    named_rule,
    register as _register,
    reject_out,
    unbroadcast,
    seed,
    plain,
)


def _arg(args, kwargs, i, name, default=None):
    """The argument at position i after the array (or given by name)."""
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _real_for(dtype, v):
    """v ready to be written into an array of `dtype`: real part for real."""
    if dtype.kind != "c":
        vd = getattr(v, "dtype", None)
        if type(v) is complex or (vd is not None and vd.kind == "c"):
            return np.real(v)
    return v


# ----- linear in the array: forward is f on the tangent, back is the adjoint ------------

def _linear(fs, name, adjoint, forward=None, refuse=("out",), thunk=False, check=None):
    """Rules for functions f(x, *args, **kwargs) linear in x, the other
    arguments being indices and options.  `adjoint(ȳ, x, args, kwargs)`
    gives the cotangent of x (before projection); `forward(Δx, x, args,
    kwargs)` the pushforward (default: f itself on Δx).  `thunk`: the
    adjoint costs a pass over the data.  `check(x, args, kwargs)` raises in
    the forward pass for arguments the rule cannot honour.  Each f in `fs` (a
    function and the ndarray methods that take the same arguments) gets its
    own rules."""
    for f in fs:
        _linear_rules(f, name, adjoint, forward, refuse, thunk, check)


def _linear_rules(f, name, adjoint, forward, refuse, thunk, check):
    def linear_frule(tangents, x, *args, **kwargs):
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        if check is not None:
            check(x, args, kwargs)
        Ω = f(x, *args, **kwargs) if not isinstance(x, Tracked) else tracked_call(f, x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        Δx = dense(Δx)
        ΔΩ = f(Δx, *args, **kwargs) if forward is None else forward(Δx, x, args, kwargs)
        return Ω, _like(Ω, ΔΩ)

    def linear_rrule(x, *args, **kwargs):
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        if check is not None:
            check(x, args, kwargs)
        Ω = f(x, *args, **kwargs) if not isinstance(x, Tracked) else tracked_call(f, x, args, kwargs)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def linear_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = unthunk(ȳ)
            if thunk:
                return (NO, Thunk(lambda: project(adjoint(ȳ, x, args, kwargs)))) + rest
            return (NO, project(adjoint(ȳ, x, args, kwargs))) + rest
        return Ω, linear_pullback

    register_frule(f)(named_rule(linear_frule, name))
    register_rrule(f)(named_rule(linear_rrule, name))


def _reshape_back(ȳ, x, args, kwargs):
    return np.reshape(ȳ, np.shape(x))


# ----- reshape, ravel ------------------------------------------------------------------------

def _order(fname, x, order):
    """The memory order 'C'/'F' that `order` ('C', 'F', 'A', 'K') means for x."""
    if order is None or order in ("C", "F"):
        return order or "C"
    x = np.asarray(x)
    if order == "A":
        return "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
    if x.flags.c_contiguous:
        return "C"
    if x.flags.f_contiguous:
        return "F"
    raise TypeError(f"{fname}: the rule cannot honour the argument order='K' for an array that is "
                    "neither C- nor Fortran-contiguous; pass order='C' or 'F'")


# reshape: by hand, its pullback being the most common (the order is resolved
# once, in the forward pass).

def _reshape_setup(x, args, kwargs, method):
    if kwargs:
        reject_out("reshape", kwargs)
    if method:
        return _order("reshape", x, kwargs.get("order", "C"))
    return _order("reshape", x, args[1] if len(args) > 1 else kwargs.get("order", "C"))


def _reshape(method):
    f = np.ndarray.reshape if method else np.reshape

    def reshape_frule(tangents, x, *args, **kwargs):
        order = _reshape_setup(x, args, kwargs, method)
        Ω = f(x, *args, **kwargs) if not isinstance(x, Tracked) else tracked_call(f, x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, np.reshape(dense(Δx), np.shape(Ω), order=order)

    def reshape_rrule(x, *args, **kwargs):
        if not method and type(x) is np.ndarray and len(args) == 1 and not kwargs:
            # what np.reshape(x, shape) does for an ndarray, without its dispatch
            # (a view: the dispatch would be most of the cost at any size)
            order = "C"
            Ω = x.reshape(args[0])
        else:
            order = _reshape_setup(x, args, kwargs, method)
            Ω = f(x, *args, **kwargs) if not isinstance(x, Tracked) else tracked_call(f, x, args, kwargs)
        project = ProjectTo(x)
        shape = x.shape if type(x) is np.ndarray else np.shape(x)
        dtype = project.dtype            # None unless x is a float/complex array
        rest = (NO,) * len(args)

        def reshape_pullback(ȳ):
            ȳ = seed(ȳ, 'reshape')
            if type(ȳ) is not np.ndarray:
                if isinstance(ȳ, AbstractZero) or project.kind == 0:
                    return (NO, project(ZERO)) + rest
                ȳ = unthunk(ȳ)
                if type(ȳ) is not np.ndarray:
                    return (NO, project(np.reshape(ȳ, shape, order=order))) + rest
            # the method skips np.reshape's dispatch; passing order costs more than the call
            x̄ = ȳ.reshape(shape) if order == "C" else ȳ.reshape(shape, order=order)
            # the shape is x's by construction: only the dtype may need projecting
            return (NO, x̄ if x̄.dtype is dtype else project(x̄)) + rest
        return Ω, reshape_pullback

    name = "ndarray.reshape" if method else "reshape"
    register_frule(f)(named_rule(reshape_frule, name))
    register_rrule(f)(named_rule(reshape_rrule, name))


_reshape(False)
_reshape(True)


def _ravel_forward(Δx, x, args, kwargs):
    return np.ravel(Δx, order=_order("ravel", x, _arg(args, kwargs, 0, "order", "C")))


def _ravel_adjoint(ȳ, x, args, kwargs):
    return np.reshape(ȳ, np.shape(x), order=_order("ravel", x, _arg(args, kwargs, 0, "order", "C")))


_linear([np.ravel] + _methods("ravel", "flatten"), "ravel", _ravel_adjoint, _ravel_forward,
        check=lambda x, a, k: _order("ravel", x, _arg(a, k, 0, "order", "C")))


# ----- axes: transpose, swapaxes, moveaxis, rollaxis, squeeze, expand_dims ---------------------

def _transpose_axes(args, kwargs, method):
    if method:
        if len(args) == 1 and (args[0] is None or isinstance(args[0], (tuple, list))):
            return args[0]
        return tuple(args) if args else None
    return _arg(args, kwargs, 0, "axes")


def _inverse_axes(axes, ndim):
    return None if axes is None else tuple(np.argsort([int(a) % ndim for a in axes]))


def _transpose_adjoint(ȳ, x, args, kwargs):
    return np.transpose(ȳ, _inverse_axes(_transpose_axes(args, kwargs, False), np.ndim(x)))


def _method_transpose_adjoint(ȳ, x, args, kwargs):
    return np.transpose(ȳ, _inverse_axes(_transpose_axes(args, kwargs, True), np.ndim(x)))


def _method_transpose_forward(Δx, x, args, kwargs):
    return np.transpose(Δx, _transpose_axes(args, kwargs, True))


_linear([np.transpose] + ([np.permute_dims] if hasattr(np, "permute_dims") else []),
        "transpose", _transpose_adjoint)
_linear([np.ndarray.transpose], "ndarray.transpose", _method_transpose_adjoint, _method_transpose_forward)
if hasattr(np, "matrix_transpose"):
    _linear([np.matrix_transpose], "matrix_transpose", lambda ȳ, x, a, k: np.swapaxes(ȳ, -1, -2))


def _swapaxes_adjoint(ȳ, x, args, kwargs):
    return np.swapaxes(ȳ, _arg(args, kwargs, 0, "axis1"), _arg(args, kwargs, 1, "axis2"))


_linear([np.swapaxes] + _methods("swapaxes"), "swapaxes", _swapaxes_adjoint)


def _moveaxis_adjoint(ȳ, x, args, kwargs):
    return np.moveaxis(ȳ, _arg(args, kwargs, 1, "destination"), _arg(args, kwargs, 0, "source"))


_linear([np.moveaxis], "moveaxis", _moveaxis_adjoint)


def _rollaxis_adjoint(ȳ, x, args, kwargs):
    # Read the permutation off a zero-size stand-in whose axis lengths are 1, 2, 3...
    ndim = np.ndim(x)
    stand_in = np.broadcast_to(np.empty(()), tuple(range(1, ndim + 1)))
    perm = [n - 1 for n in np.rollaxis(stand_in, *args, **kwargs).shape]
    return np.transpose(ȳ, np.argsort(perm))


_linear([np.rollaxis], "rollaxis", _rollaxis_adjoint)
_linear([np.squeeze] + _methods("squeeze"), "squeeze", _reshape_back)
_linear([np.expand_dims], "expand_dims", _reshape_back)


# atleast_1d/2d/3d: one array gives one array; several give a tuple.

def _atleast(f, name):
    def atleast_frule(tangents, *arys):
        Ω = f(*arys)
        if len(arys) == 1:
            Δ = tangents[1]
            return Ω, (Δ if isinstance(Δ, AbstractZero) else _like(Ω, f(dense(Δ))))
        parts = [Δ if isinstance(Δ, AbstractZero) else f(dense(Δ)) for Δ in tangents[1:]]
        return Ω, _sequence_tangent(Ω, parts)

    def atleast_rrule(*arys):
        Ω = f(*arys)
        projects = [ProjectTo(a) for a in arys]
        shapes = [np.shape(a) for a in arys]

        def atleast_pullback(ȳ):
            ȳ = seed(ȳ, name)
            parts = [ȳ] if len(arys) == 1 else _output_parts(ȳ, len(arys))
            return (NO,) + tuple(p(ZERO) if isinstance(g, AbstractZero) or p.kind == 0
                                 else p(np.reshape(unthunk(g), s))
                                 for p, g, s in zip(projects, parts, shapes))
        return Ω, atleast_pullback

    register_frule(f)(named_rule(atleast_frule, name))
    register_rrule(f)(named_rule(atleast_rrule, name))


# ----- broadcasting: the adjoint is the shared unbroadcast ------------------------------------

_linear([np.broadcast_to], "broadcast_to", lambda ȳ, x, a, k: unbroadcast(x, ȳ), thunk=True)


@register_frule(np.broadcast_arrays)
def broadcast_arrays_frule(tangents, *args, **kwargs):
    Ω = np.broadcast_arrays(*args, **kwargs)
    parts = [Δ if isinstance(Δ, AbstractZero) else np.broadcast_to(dense(Δ), np.shape(o))
             for Δ, o in zip(tangents[1:], Ω)]
    return Ω, _sequence_tangent(Ω, parts)


@register_rrule(np.broadcast_arrays)
def broadcast_arrays_rrule(*args, **kwargs):
    Ω = np.broadcast_arrays(*args, **kwargs)
    projects = [ProjectTo(a) for a in args]

    def broadcast_arrays_pullback(ȳ):
        ȳ = seed(ȳ, 'broadcast_arrays')
        parts = _output_parts(ȳ, len(args))
        return (NO,) + tuple(p(ZERO) if isinstance(g, AbstractZero) or p.kind == 0
                             else Thunk(lambda p=p, a=a, g=g: p(unbroadcast(a, g)))
                             for p, a, g in zip(projects, args, parts))
    return Ω, broadcast_arrays_pullback


# ----- copies: tile, repeat -------------------------------------------------------------------

def _tile_adjoint(ȳ, x, args, kwargs):
    reps = _arg(args, kwargs, 0, "reps")
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)
    shape = np.shape(x)
    d = max(len(reps), len(shape))
    reps = (1,) * (d - len(reps)) + reps
    full = (1,) * (d - len(shape)) + shape
    # the tiled array viewed as (r0, s0, r1, s1, ...): sum over the copies
    g = np.reshape(ȳ, [v for r, s in zip(reps, full) for v in (r, s)])
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * d, 2))), shape)


_linear([np.tile], "tile", _tile_adjoint, thunk=True)


def _repeat_adjoint(ȳ, x, args, kwargs):
    repeats = _arg(args, kwargs, 0, "repeats")
    axis = _arg(args, kwargs, 1, "axis")
    shape = np.shape(x)
    if axis is None or not shape:       # NumPy repeats a 0-d array as a 1-element vector
        base, ax = (int(np.prod(shape)),), 0
    else:
        base, ax = shape, int(axis) % len(shape)
    ȳ = np.asarray(ȳ)
    if np.ndim(repeats) == 0 or np.size(repeats) == 1:
        r = int(np.ravel(repeats)[0])
        g = np.sum(np.reshape(ȳ, base[:ax] + (base[ax], r) + base[ax + 1:]), axis=ax + 1)
    else:
        g = np.zeros(base, dtype=ȳ.dtype)
        np.add.at(np.moveaxis(g, ax, 0), np.repeat(np.arange(base[ax]), repeats), np.moveaxis(ȳ, ax, 0))
    return np.reshape(g, shape)


_linear([np.repeat] + _methods("repeat"), "repeat", _repeat_adjoint, thunk=True)


# ----- reorderings: flip, rot90, roll ----------------------------------------------------------

_linear([np.flip], "flip", lambda ȳ, x, a, k: np.flip(ȳ, _arg(a, k, 0, "axis")))
_linear([np.flipud], "flipud", lambda ȳ, x, a, k: np.flipud(ȳ))
_linear([np.fliplr], "fliplr", lambda ȳ, x, a, k: np.fliplr(ȳ))
_linear([np.rot90], "rot90",
        lambda ȳ, x, a, k: np.rot90(ȳ, -_arg(a, k, 0, "k", 1), _arg(a, k, 1, "axes", (0, 1))))


def _roll_adjoint(ȳ, x, args, kwargs):
    shift = _arg(args, kwargs, 0, "shift")
    shift = -np.asarray(shift) if np.ndim(shift) else -shift
    return np.roll(ȳ, shift, _arg(args, kwargs, 1, "axis"))


_linear([np.roll], "roll", _roll_adjoint)


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

_PAD_COPY_MODES = ("edge", "reflect", "symmetric", "wrap")
_PAD_STAT_MODES = ("maximum", "minimum", "median", "mean")
_PAD_MODES = ("constant", "empty") + _PAD_COPY_MODES + ("linear_ramp",) + _PAD_STAT_MODES
_PAD_SELECT = {"maximum": np.argmax, "minimum": np.argmin}


def _pad_mode(args, kwargs):
    mode = _arg(args, kwargs, 1, "mode", "constant")
    if not isinstance(mode, str) or mode not in _PAD_MODES:
        raise TypeError(f"pad: the rule cannot honour the argument mode={mode!r}; it handles "
                        f"{', '.join(repr(m) for m in _PAD_MODES)}")
    return mode


def _pad_widths(x, args, kwargs):
    return np.broadcast_to(np.asarray(_arg(args, kwargs, 0, "pad_width"), dtype=np.intp), (np.ndim(x), 2))


def _at(axis, ndim, index):
    sl = [slice(None)] * ndim
    sl[axis] = index
    return tuple(sl)


class _PadAxis:
    """The pad of one axis (k, widths b and a) of an array of `shape` (axis
    k of length n): `push` pads a tangent, `pull` maps a cotangent back.  `u`
    is the primal (padded along the axes before k) the selecting modes read."""

    def __init__(self, shape, k, b, a, mode, kwargs, u=None):
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

    def _select(self, u, start, stop, mode):
        """[(index along k, weight)]: the elements the padding value is made of."""
        chunk = u[_at(self.k, self.nd, slice(start, stop))]
        if mode in _PAD_SELECT:
            return [(_PAD_SELECT[mode](chunk, axis=self.k, keepdims=True) + start, 1.0)]
        order = np.argsort(chunk, axis=self.k, kind="stable")
        m = stop - start
        mids = (m // 2,) if m % 2 else (m // 2 - 1, m // 2)
        return [(np.take(order, [i], axis=self.k) + start, 1.0 / len(mids)) for i in mids]

    def _side(self, t, which):
        k, n = self.k, self.n
        if self.mode == "mean":
            part = t[_at(k, self.nd, slice(0, self.lb) if which == "b" else slice(n - self.la, n))]
            return np.mean(part, axis=k, keepdims=True)
        if self.mode in _PAD_STAT_MODES:
            picks = self.before if which == "b" else self.after
            return sum(w * np.take_along_axis(t, i, axis=k) for i, w in picks)
        P = self.Pb if which == "b" else self.Pa
        return np.moveaxis(np.moveaxis(np.take(t, self.S, axis=k), k, -1) @ P.T, -1, k)

    def push(self, t):
        k = self.k
        parts = []
        for which, width in (("b", self.b), ("a", self.a)):
            if width:
                v = self._side(t, which)
                parts.append(np.repeat(v, width, axis=k) if v.shape[k] == 1 and width > 1 else v)
            else:
                parts.append(None)
        return np.concatenate([p for p in (parts[0], t, parts[1]) if p is not None], axis=k)

    def pull(self, ȳ):
        k, n, b, nd = self.k, self.n, self.b, self.nd
        x̄ = np.array(ȳ[_at(k, nd, slice(b, b + n))], dtype=np.result_type(ȳ, np.float64))
        for which, width, part in (("b", b, slice(0, b)), ("a", self.a, slice(b + n, None))):
            if not width:
                continue
            ȳs = ȳ[_at(k, nd, part)]
            if self.mode == "mean":
                length = self.lb if which == "b" else self.la
                where = slice(0, length) if which == "b" else slice(n - length, n)
                x̄[_at(k, nd, where)] += np.sum(ȳs, axis=k, keepdims=True) / length
            elif self.mode in _PAD_STAT_MODES:
                total = np.sum(ȳs, axis=k, keepdims=True)
                for i, w in (self.before if which == "b" else self.after):
                    # one pick per line: read, add, write back (the two medians may coincide)
                    np.put_along_axis(x̄, i, np.take_along_axis(x̄, i, axis=k) + w * total, axis=k)
            else:
                P = self.Pb if which == "b" else self.Pa
                x̄[_at(k, nd, self.S)] += np.moveaxis(np.moveaxis(ȳs, k, -1) @ P, -1, k)
        return x̄


def _pad_axes(x, args, kwargs, mode):
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
            u = np.pad(x, done, mode, **{o: v for o, v in kwargs.items() if o not in ("pad_width", "mode")})
        here = tuple(n + int(pw[j].sum()) if j < k else n for j, n in enumerate(shape))
        steps.append(_PadAxis(here, k, b, a, mode, kwargs, u))
    return steps


def _pad_is_copy(mode, kwargs):
    return mode in _PAD_COPY_MODES and (mode not in ("reflect", "symmetric")
                                        or kwargs.get("reflect_type", "even") == "even")


def _pad_forward(Δx, x, args, kwargs):
    mode = _pad_mode(args, kwargs)
    pad_width = _arg(args, kwargs, 0, "pad_width")
    if mode in ("constant", "empty"):
        return np.pad(Δx, pad_width)            # the constant does not move; 'empty' has none
    if _pad_is_copy(mode, kwargs):
        return np.pad(Δx, pad_width, mode)
    t = np.asarray(Δx)
    for step in _pad_axes(x, args, kwargs, mode):
        t = step.push(t)
    return t.astype(np.result_type(Δx), copy=False)    # the probe matrices are float64


def _pad_adjoint(ȳ, x, args, kwargs):
    mode = _pad_mode(args, kwargs)
    shape = np.shape(x)
    pad_width = _pad_widths(x, args, kwargs)
    ȳ = np.asarray(ȳ)
    if mode in ("constant", "empty"):
        return ȳ[tuple(slice(int(b), int(b) + n) for (b, _), n in zip(pad_width, shape))]
    if not _pad_is_copy(mode, kwargs):
        for step in reversed(_pad_axes(x, args, kwargs, mode)):
            ȳ = step.pull(ȳ)
        return ȳ
    source = np.pad(np.arange(int(np.prod(shape))).reshape(shape), pad_width, mode)
    g = np.zeros(int(np.prod(shape)), dtype=ȳ.dtype)
    np.add.at(g, source.ravel(), ȳ.ravel())
    return g.reshape(shape)


_linear([np.pad], "pad", _pad_adjoint, _pad_forward, thunk=True, check=lambda x, a, k: _pad_mode(a, k))


# ----- diagonals and triangles -------------------------------------------------------------------

def _diagonal_index(shape, offset, axis1, axis2, length):
    """The index tuple of the diagonal (as np.diagonal reads it: the diagonal
    axis last) in an array of `shape`."""
    nd = len(shape)
    axis1, axis2 = axis1 % nd, axis2 % nd
    i = np.arange(length) + max(0, -offset)
    j = np.arange(length) + max(0, offset)
    others = [d for d in range(nd) if d not in (axis1, axis2)]
    idx = [None] * nd
    for k, d in enumerate(others):
        sh = [1] * (len(others) + 1)
        sh[k] = shape[d]
        idx[d] = np.arange(shape[d]).reshape(sh)
    idx[axis1], idx[axis2] = i, j
    return tuple(idx)


def _diagonal_adjoint(ȳ, x, args, kwargs):
    offset = int(_arg(args, kwargs, 0, "offset", 0))
    axis1 = int(_arg(args, kwargs, 1, "axis1", 0))
    axis2 = int(_arg(args, kwargs, 2, "axis2", 1))
    ȳ = np.asarray(ȳ)
    g = np.zeros(np.shape(x), dtype=ȳ.dtype)
    g[_diagonal_index(g.shape, offset, axis1, axis2, ȳ.shape[-1])] = ȳ
    return g


_linear([np.diagonal] + _methods("diagonal"), "diagonal", _diagonal_adjoint, thunk=True)


if hasattr(np.linalg, "diagonal"):      # NumPy >= 2: the diagonal of the last two axes
    @register_frule(np.linalg.diagonal, object)
    def linalg_diagonal_frule(tangents, x, *, offset=0):
        Ω = np.linalg.diagonal(x, offset=offset)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, np.diagonal(dense(Δx), offset, -2, -1)

    @register_rrule(np.linalg.diagonal, object)
    def linalg_diagonal_rrule(x, *, offset=0):
        Ω = np.linalg.diagonal(x, offset=offset)
        project = ProjectTo(x)

        def linalg_diagonal_pullback(ȳ):
            ȳ = seed(ȳ, 'linalg_diagonal')
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return NO, project(ZERO)
            ȳ = unthunk(ȳ)
            return NO, Thunk(lambda: project(_diagonal_adjoint(ȳ, x, (offset, -2, -1), {})))
        return Ω, linalg_diagonal_pullback


def _diag_adjoint(ȳ, x, args, kwargs):
    k = int(_arg(args, kwargs, 0, "k", 0))
    if np.ndim(x) == 1:
        return np.diagonal(ȳ, k)
    return _diagonal_adjoint(ȳ, x, (k,), {})


_linear([np.diag], "diag", _diag_adjoint, thunk=True)


def _triangle_adjoint(f):
    def adjoint(ȳ, x, args, kwargs):
        g = f(ȳ, _arg(args, kwargs, 0, "k", 0))
        # a 1-d input is repeated as the rows of a square: sum the rows
        return np.sum(g, axis=0) if np.ndim(x) == 1 else g
    return adjoint


_linear([np.triu], "triu", _triangle_adjoint(np.triu))
_linear([np.tril], "tril", _triangle_adjoint(np.tril))


# ----- sequences of arrays: joining and splitting ----------------------------------------------

def _sequence_tangent(primal, parts):
    """The tangent of a tuple or list of arrays from the tangents of its parts."""
    if all(isinstance(p, NoTangent) for p in parts):
        return NO
    if all(isinstance(p, AbstractZero) for p in parts):
        return ZERO
    return Tangent[type(primal)](*parts)


def _output_parts(ȳ, n):
    """The n parts of the cotangent of a tuple or list output."""
    if isinstance(ȳ, AbstractZero):
        return [ȳ] * n
    ȳ = unthunk(ȳ)
    parts = list(ȳ) if isinstance(ȳ, (tuple, list, StructuralTangent)) else None
    if parts is None or len(parts) != n:
        raise ValueError(f"expected the cotangent of a sequence of {n} arrays, got {type(ȳ).__name__}")
    return parts


def _dense(parts, like):
    """The tangents of the parts as arrays (zeros materialised), or None when
    all are zero."""
    if all(isinstance(p, AbstractZero) for p in parts):
        return None
    return [np.zeros(np.shape(a), dtype=np.result_type(a, 0.0)) if isinstance(p, AbstractZero)
            else unthunk(p) for p, a in zip(parts, like)]


def _stand_in(shape):
    return np.broadcast_to(np.empty(()), shape)


def _joiner(f, name, layout, refuse=("out",)):
    """Rules for a function joining a sequence of arrays along one axis.
    `layout(arrays, args, kwargs)` gives (axis, shapes): each array, reshaped
    to its shape in `shapes`, is concatenated along `axis`."""

    def join_frule(tangents, arrays, *args, **kwargs):
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        Ω = f(arrays, *args, **kwargs)
        Δ = tangents[1]
        if isinstance(Δ, AbstractZero):
            return Ω, Δ
        full = _dense(list(unthunk(Δ)), arrays)
        return Ω, ZERO if full is None else f(full, *args, **kwargs)

    def join_rrule(arrays, *args, **kwargs):
        if kwargs:
            reject_out(name, kwargs, *refuse[1:])
        Ω = f(arrays, *args, **kwargs)
        projects = [ProjectTo(a) for a in arrays]
        originals = [np.shape(a) for a in arrays]
        axis, shapes = layout(arrays, args, kwargs)
        bounds = np.cumsum([s[axis] for s in shapes])[:-1]
        rest = (NO,) * len(args)

        def join_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero):
                return (NO, _sequence_tangent(arrays, [p(ZERO) for p in projects])) + rest
            ȳ = np.reshape(unthunk(ȳ), np.shape(Ω))
            pieces = np.split(ȳ, bounds, axis=axis)
            parts = [p(np.reshape(g, s)) for p, g, s in zip(projects, pieces, originals)]
            return (NO, _sequence_tangent(arrays, parts)) + rest
        return Ω, join_pullback

    register_frule(f)(named_rule(join_frule, name))
    register_rrule(f)(named_rule(join_rrule, name))


def _concatenate_layout(arrays, args, kwargs):
    axis = _arg(args, kwargs, 0, "axis", 0)
    if axis is None:
        return 0, [(int(np.prod(np.shape(a))),) for a in arrays]
    shapes = [np.shape(a) for a in arrays]
    return int(axis) % len(shapes[0]), shapes


def _stack_layout(arrays, args, kwargs):
    shapes = [np.shape(a) for a in arrays]
    axis = int(_arg(args, kwargs, 0, "axis", 0)) % (len(shapes[0]) + 1)
    return axis, [s[:axis] + (1,) + s[axis:] for s in shapes]


def _atleast_layout(f, axis_of):
    def layout(arrays, args, kwargs):
        shapes = [f(_stand_in(np.shape(a))).shape for a in arrays]
        return axis_of(shapes), shapes
    return layout


def _column_stack_layout(arrays, args, kwargs):
    shapes = [np.shape(a) if np.ndim(a) >= 2 else (int(np.size(a)), 1) for a in arrays]
    return 1, shapes


_joiner(np.concatenate, "concatenate", _concatenate_layout)
_joiner(np.stack, "stack", _stack_layout)
_joiner(np.hstack, "hstack", _atleast_layout(np.atleast_1d, lambda s: 0 if len(s[0]) == 1 else 1))
_joiner(np.vstack, "vstack", _atleast_layout(np.atleast_2d, lambda s: 0))
_joiner(np.dstack, "dstack", _atleast_layout(np.atleast_3d, lambda s: 2))
_joiner(np.column_stack, "column_stack", _column_stack_layout)


@register_frule(np.append)
def append_frule(tangents, arr, values, *args, **kwargs):
    Ω = np.append(arr, values, *args, **kwargs)
    full = _dense([tangents[1], tangents[2]], [arr, values])
    return Ω, ZERO if full is None else np.append(*full, *args, **kwargs)


@register_rrule(np.append)
def append_rrule(arr, values, *args, **kwargs):
    Ω = np.append(arr, values, *args, **kwargs)
    axis = _arg(args, kwargs, 0, "axis")
    pa, pv = ProjectTo(arr), ProjectTo(values)
    sa, sv = np.shape(arr), np.shape(values)
    n = int(np.prod(sa)) if axis is None else sa[int(axis) % len(sa)]
    rest = (NO,) * len(args)

    def append_pullback(ȳ):
        ȳ = seed(ȳ, 'append')
        if isinstance(ȳ, AbstractZero):
            return (NO, pa(ZERO), pv(ZERO)) + rest
        ȳ = unthunk(ȳ)
        ax = 0 if axis is None else int(axis) % len(sa)
        g_a, g_v = np.split(ȳ, [n], axis=ax)
        return (NO, pa(np.reshape(g_a, sa)), pv(np.reshape(g_v, sv))) + rest
    return Ω, append_pullback


def _splitter(f, name, axis_of):
    """Rules for a function splitting an array into a list of pieces along
    one axis; the adjoint concatenates the pieces' cotangents."""

    def split_frule(tangents, x, *args, **kwargs):
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, _sequence_tangent(Ω, list(f(dense(Δx), *args, **kwargs)))

    def split_rrule(x, *args, **kwargs):
        Ω = f(x, *args, **kwargs)
        project = ProjectTo(x)
        axis = axis_of(x, args, kwargs)
        rest = (NO,) * len(args)

        def split_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            full = _dense(_output_parts(ȳ, len(Ω)), Ω)
            if full is None:
                return (NO, project(ZERO)) + rest
            return (NO, Thunk(lambda: project(np.concatenate(full, axis=axis)))) + rest
        return Ω, split_pullback

    register_frule(f)(named_rule(split_frule, name))
    register_rrule(f)(named_rule(split_rrule, name))


def _split_axis(x, args, kwargs):
    return int(_arg(args, kwargs, 1, "axis", 0)) % np.ndim(x)


_splitter(np.split, "split", _split_axis)
_splitter(np.array_split, "array_split", _split_axis)
_splitter(np.hsplit, "hsplit", lambda x, a, k: 1 if np.ndim(x) > 1 else 0)
_splitter(np.vsplit, "vsplit", lambda x, a, k: 0)
_splitter(np.dsplit, "dsplit", lambda x, a, k: 2)

_atleast(np.atleast_1d, "atleast_1d")
_atleast(np.atleast_2d, "atleast_2d")
_atleast(np.atleast_3d, "atleast_3d")


# ----- where, clip ----------------------------------------------------------------------------------

@register_frule(np.where, object, object, object)
def where_frule(tangents, condition, x, y):
    Ω = np.where(condition, x, y)
    Δx, Δy = tangents[2], tangents[3]
    if isinstance(Δx, AbstractZero) and isinstance(Δy, AbstractZero):
        return Ω, ZERO
    Δx = 0 if isinstance(Δx, AbstractZero) else dense(Δx)
    Δy = 0 if isinstance(Δy, AbstractZero) else dense(Δy)
    return Ω, _like(Ω, np.where(condition, Δx, Δy))


@register_rrule(np.where, object, object, object)
def where_rrule(condition, x, y):
    Ω = np.where(condition, x, y)
    px, py = ProjectTo(x), ProjectTo(y)

    def where_pullback(ȳ):
        ȳ = seed(ȳ, 'where')
        if isinstance(ȳ, AbstractZero):
            return NO, NO, px(ZERO), py(ZERO)
        ȳ = unthunk(ȳ)
        x̄ = px(ZERO) if px.kind == 0 else Thunk(lambda: px(unbroadcast(x, np.where(condition, ȳ, 0))))
        ȳ_y = py(ZERO) if py.kind == 0 else Thunk(lambda: py(unbroadcast(y, np.where(condition, 0, ȳ))))
        return NO, NO, x̄, ȳ_y
    return Ω, where_pullback


non_differentiable(np.where, object)       # np.where(condition): indices


# clip(x, lo, hi) = minimum(maximum(x, lo), hi): x gets ȳ where lo ≤ x ≤ hi
# (the bounds included, as ChainRules' clamp), lo where x < lo ≤ hi, hi
# where the result is hi.  None bounds and the keywords min=/max= get no tangent.

def _clip_masks(x, lo, hi):
    above = np.ones(np.shape(x), bool) if lo is None else (x >= lo)
    kept = np.where(above, x, lo) if lo is not None else x
    below = np.ones(np.shape(kept), bool) if hi is None else (kept <= hi)
    return above & below, ~above & below, ~below


def _clip_bounds(args, kwargs):
    lo = _arg(args, kwargs, 0, "a_min", kwargs.get("min"))
    hi = _arg(args, kwargs, 1, "a_max", kwargs.get("max"))
    novalue = getattr(np, "_NoValue", None)
    return (None if lo is novalue else lo), (None if hi is novalue else hi)


def clip_frule(tangents, x, *args, **kwargs):
    if kwargs:
        reject_out("clip", kwargs)
    Ω = np.clip(x, *args, **kwargs)
    lo, hi = _clip_bounds(args, kwargs)
    m_x, m_lo, m_hi = _clip_masks(x, lo, hi)
    ΔΩ = ZERO
    for Δ, m in zip(tangents[1:4], (m_x, m_lo, m_hi)):
        if not isinstance(Δ, AbstractZero):
            t = np.where(m, dense(Δ), 0)
            ΔΩ = t if ΔΩ is ZERO else ΔΩ + t
    return Ω, _like(Ω, ΔΩ)


def clip_rrule(x, *args, **kwargs):
    if kwargs:
        reject_out("clip", kwargs)
    Ω = np.clip(x, *args, **kwargs)
    lo, hi = _clip_bounds(args, kwargs)
    primals = (x,) + tuple(args[:2])
    projects = [ProjectTo(p) for p in primals]
    rest = (NO,) * (len(args) - 2) if len(args) > 2 else ()

    def clip_pullback(ȳ):
        ȳ = seed(ȳ, 'clip')
        if isinstance(ȳ, AbstractZero):
            return (NO,) + tuple(p(ZERO) for p in projects) + rest
        ȳ = unthunk(ȳ)
        masks = _clip_masks(x, lo, hi)
        return (NO,) + tuple(p(ZERO) if p.kind == 0 else p(unbroadcast(v, np.where(m, ȳ, 0)))
                             for p, v, m in zip(projects, primals, masks)) + rest
    return Ω, clip_pullback


_register([np.clip] + _methods("clip"), clip_frule, clip_rrule)


# ----- sort: the cotangent follows the permutation ----------------------------------------------

def _dtype(x):
    return x.dtype if isinstance(x, (np.ndarray, Tracked)) else np.asarray(x).dtype


def _values(x):
    """x's values: a tracked x (the rule differentiated by chainrules.ad) by
    its primal, for the permutations, which have no derivative."""
    while isinstance(x, Tracked):
        x = x.primal
    return x


def _sort_setup(x, args, kwargs):
    if _arg(args, kwargs, 2, "order") is not None:
        raise TypeError("sort: the rule cannot honour the argument order= (structured arrays)")
    axis = _arg(args, kwargs, 0, "axis", -1)
    xs = np.ravel(x) if axis is None else x if isinstance(x, Tracked) else np.asarray(x)
    axis = -1 if axis is None else int(axis)
    perm = np.argsort(_values(xs), axis=axis, kind="stable")
    return xs, axis, perm, np.take_along_axis(xs, perm, axis)


# partition: a permutation along the axis, like sort.  NumPy does not say
# which permutation argpartition's and partition's results share, so the
# permutation is read off the result: the element of rank r in Ω is the
# element of rank r in x (stable ranks; ties are equal values).

def _partition_setup(x, args, kwargs):
    if _arg(args, kwargs, 3, "order") is not None:
        raise TypeError("partition: the rule cannot honour the argument order= (structured arrays)")
    kth = _arg(args, kwargs, 0, "kth")
    axis = _arg(args, kwargs, 1, "axis", -1)
    xs = np.ravel(x) if axis is None else x if isinstance(x, Tracked) else np.asarray(x)
    axis = -1 if axis is None else int(axis)
    Ω = np.partition(xs, kth, axis)
    rank = np.argsort(np.argsort(_values(Ω), axis=axis, kind="stable"), axis=axis)
    perm = np.take_along_axis(np.argsort(_values(xs), axis=axis, kind="stable"), rank, axis)
    return xs, axis, perm, Ω


def _permuting(name, setup):
    """Rules for a function that permutes x along an axis: `setup(x, args,
    kwargs)` gives (x or its ravel, the axis, the permutation, Ω)."""
    def permute_frule(tangents, x, *args, **kwargs):
        xs, axis, perm, Ω = setup(x, args, kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        Δs = np.broadcast_to(dense(Δx), np.shape(x)).reshape(xs.shape)
        return Ω, np.take_along_axis(Δs, perm, axis)

    def permute_rrule(x, *args, **kwargs):
        xs, axis, perm, Ω = setup(x, args, kwargs)
        project = ProjectTo(x)
        shape = np.shape(x)
        rest = (NO,) * len(args)

        def permute_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            ȳ = _real_for(xs.dtype, unthunk(ȳ))
            x̄ = np.empty(xs.shape, dtype=xs.dtype)
            np.put_along_axis(x̄, perm, ȳ, axis)
            return (NO, project(x̄.reshape(shape))) + rest
        return Ω, permute_pullback

    return named_rule(permute_frule, name), named_rule(permute_rrule, name)


_register([np.sort], *_permuting("sort", _sort_setup))
_register([np.partition], *_permuting("partition", _partition_setup))


# ----- take, take_along_axis, getitem: scatter back, repeated indices accumulate -------------------

def _scatter(project, shape, dtype, index, ȳ, repeats_possible):
    """The cotangent that adds ȳ at `index` of a zero array of `shape`, as
    an InplaceableThunk accumulating into an existing array.  `project`:
    None when the primal is an ndarray (the zeros already fit it)."""
    v = _real_for(dtype, ȳ)

    def scatter_add(dest):
        if repeats_possible:
            np.add.at(dest, index, v)
        else:
            dest[index] += v
        return dest

    def scatter():
        dest = np.zeros(shape, dtype)
        if repeats_possible:
            np.add.at(dest, index, v)
        else:
            dest[index] = v
        return dest if project is None else project(dest)
    return InplaceableThunk(scatter_add, Thunk(scatter))


def _take_index(x, indices, axis, mode):
    shape = np.shape(x)
    n = int(np.prod(shape)) if axis is None else shape[int(axis) % len(shape)]
    idx = np.asarray(indices)
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    if axis is None:
        return np.unravel_index(idx, shape)
    return (slice(None),) * (int(axis) % len(shape)) + (idx,)


def take_frule(tangents, x, indices, *args, **kwargs):
    if kwargs:
        reject_out("take", kwargs)
    if len(args) > 1 and args[1] is not None:
        raise TypeError("take: the rule cannot honour the argument out=; call the primal without it")
    Ω = np.take(x, indices, *args, **kwargs)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, Δx
    axis, mode = _arg(args, kwargs, 0, "axis"), _arg(args, kwargs, 2, "mode", "raise")
    return Ω, _like(Ω, np.take(dense(Δx), indices, axis=axis, mode=mode))


def take_rrule(x, indices, *args, **kwargs):
    if kwargs:
        reject_out("take", kwargs)
    if len(args) > 1 and args[1] is not None:
        raise TypeError("take: the rule cannot honour the argument out=; call the primal without it")
    Ω = np.take(x, indices, *args, **kwargs)
    project = ProjectTo(x)
    axis, mode = _arg(args, kwargs, 0, "axis"), _arg(args, kwargs, 2, "mode", "raise")
    shape, dtype = np.shape(x), _dtype(x)
    rest = (NO,) * len(args)

    def take_pullback(ȳ):
        ȳ = seed(ȳ, 'take')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO), NO) + rest
        index = _take_index(x, indices, axis, mode)
        return (NO, _scatter(project, shape, dtype, index, unthunk(ȳ), True), NO) + rest
    return Ω, take_pullback


_register([np.take] + _methods("take"), take_frule, take_rrule)


def _along_axis_index(shape, indices, axis):
    if axis is None:
        return np.unravel_index(indices, shape)
    nd = len(shape)
    axis = int(axis) % nd
    idx = []
    for d in range(nd):
        if d == axis:
            idx.append(np.asarray(indices))
        else:
            sh = [1] * nd
            sh[d] = shape[d]
            idx.append(np.arange(shape[d]).reshape(sh))
    return tuple(idx)


@register_frule(np.take_along_axis)
def take_along_axis_frule(tangents, arr, indices, *args, **kwargs):
    Ω = np.take_along_axis(arr, indices, *args, **kwargs)
    Δ = tangents[1]
    if isinstance(Δ, AbstractZero):
        return Ω, Δ
    return Ω, np.take_along_axis(np.broadcast_to(dense(Δ), np.shape(arr)), indices, *args, **kwargs)


@register_rrule(np.take_along_axis)
def take_along_axis_rrule(arr, indices, *args, **kwargs):
    Ω = np.take_along_axis(arr, indices, *args, **kwargs)
    project = ProjectTo(arr)
    axis = _arg(args, kwargs, 0, "axis", -1)
    shape, dtype = np.shape(arr), _dtype(arr)
    rest = (NO,) * len(args)

    def take_along_axis_pullback(ȳ):
        ȳ = seed(ȳ, 'take_along_axis')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO), NO) + rest
        index = _along_axis_index(shape, indices, axis)
        return (NO, _scatter(project, shape, dtype, index, unthunk(ȳ), True), NO) + rest
    return Ω, take_along_axis_pullback


def getitem_frule(tangents, x, idx):
    Ω = x[idx]
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, Δx
    return Ω, _like(Ω, np.broadcast_to(dense(Δx), x.shape)[idx])


# getitem_rrule is compiled (`_getitem_rrule` in _core/array_rules.pxi): at
# small sizes the closures and thunks of a Python rule cost several times the
# indexing itself (issue 5).
_register([operator.getitem, np.ndarray.__getitem__], getitem_frule, _getitem_rrule, np.ndarray, object)


# x.item(*index): one element as a Python number.

def _item_index(x, args):
    if not args:
        return (0,) * x.ndim                       # a one-element array
    if len(args) == 1 and isinstance(args[0], tuple):
        return args[0]
    if len(args) == 1:
        return np.unravel_index(int(args[0]) % x.size, x.shape)
    return args


def item_frule(tangents, x, *args):
    Ω = x.item(*args)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, Δx
    return Ω, np.asarray(np.broadcast_to(dense(Δx), x.shape)).item(*args)


def item_rrule(x, *args):
    Ω = x.item(*args)
    project = ProjectTo(x)
    rest = (NO,) * len(args)

    def item_pullback(ȳ):
        ȳ = seed(ȳ, 'item')
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        index = _item_index(x, args)
        return (NO, _scatter(None, x.shape, x.dtype, index, unthunk(ȳ), False)) + rest
    return Ω, item_pullback


_register([np.ndarray.item], item_frule, item_rrule, np.ndarray, ...)


# ----- copies and conversions: the cotangent is projected back ----------------------------------

def _copy_like(f, name):
    def copy_frule(tangents, x, *args, **kwargs):
        Ω = f(x, *args, **kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        ΔΩ = ProjectTo(Ω)(np.array(dense(Δx), copy=True) if type(Ω) is np.ndarray else dense(Δx))
        return Ω, ΔΩ

    def copy_rrule(x, *args, **kwargs):
        Ω = f(x, *args, **kwargs)
        project = ProjectTo(x)
        rest = (NO,) * len(args)

        def copy_pullback(ȳ):
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return (NO, project(ZERO)) + rest
            return (NO, project(unthunk(ȳ))) + rest
        return Ω, copy_pullback

    register_frule(f, np.ndarray, ...)(named_rule(copy_frule, name))
    register_rrule(f, np.ndarray, ...)(named_rule(copy_rrule, name))


_COPIES: list = [(np.copy, "copy"), (np.array, "array"), (np.asarray, "asarray"),
                 (np.asanyarray, "asanyarray"), (np.ascontiguousarray, "ascontiguousarray"),
                 (np.asfortranarray, "asfortranarray"), (np.real_if_close, "real_if_close"),
                 (np.ndarray.copy, "ndarray.copy"), (np.ndarray.astype, "ndarray.astype")]
for _f, _name in _COPIES:
    _copy_like(_f, _name)


# ----- non-differentiable: shapes, sizes, index builders ------------------------------------------

_NONDIFF: list = [np.shape, np.ndim, np.size, np.zeros_like, np.ones_like, np.empty_like,
                  np.indices, np.unravel_index, np.ravel_multi_index, np.tril_indices, np.triu_indices,
                  np.diag_indices, np.broadcast_shapes, np.result_type]
for _f in _NONDIFF:
    non_differentiable(_f)
del _f, _name
