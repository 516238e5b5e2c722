"""Rules for `scipy.signal`: the convolutions (`convolve`, `correlate`,
`fftconvolve`, `oaconvolve`, `convolve2d`, `correlate2d`, every `mode`,
`method=` passed on) and the linear filters (`lfilter` in b, a, x and zi,
`sosfilt` in sos, x and zi, `filtfilt` in b, a and x through the calling AD).

The convolutions are bilinear: see `chainrules/rulesets/numpy/convolution.py`,
whose factory they share.  SciPy's windows of the full output are centred
(`(full - out) // 2`; correlate2d's 'same' rounds the other way).

lfilter, y = filter(b, a, x) with a₀ normalised, is the recursion
a₀·y[n] = Σₖ b[k]·x[n-k] − Σₖ₌₁ a[k]·y[n-k] (+ the state zi).  It is linear in
x and zi, and the derivatives in b and a are filters too:

- ẏ = filter(b, a, ẋ) + filter(1, a, conv(ḃ, x) − conv(ȧ, y)) (+ zi's part,
  filter(b, a, 0, zi̇) with zi̇ the state's tangent), truncated to len(x);
- the pullback runs the adjoint filter backwards in time:
  g = flip(filter(1, conj(a), flip(ȳ))) (the transposed recursion), then
  x̄ = flip(filter(conj(b), conj(a), flip(ȳ))), b̄[k] = Σₙ g[n]·conj(x[n-k]),
  ā[k] = −Σₙ g[n]·conj(y[n-k]) (k ≥ 0; for k = 0 that is the a₀
  normalisation), correlations computed with np.correlate.

Each of these steps is lfilter itself (which has these rules), np.flip,
np.conj, np.correlate or np.convolve: the rules differentiate again.  With
zi, the output also carries the final state; see `_lfilter_zi` below.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.signal as _signal

from chainrules._core import NoTangent
from chainrules.rulesets._arrays import named_options

NO_ = NoTangent()
from chainrules.rulesets.numpy.convolution import array_arg, convolution_rules, on_any

# the functions called on values that an AD may track (a rule differentiated)
_correlate = on_any(_signal.correlate)
_fftconvolve = on_any(_signal.fftconvolve)
_oaconvolve = on_any(_signal.oaconvolve)
_convolve2d = on_any(_signal.convolve2d)


def _centred(s1: Any, s2: Any, full: Any, out: Any, mode: str) -> Any:
    return tuple((F - o) // 2 for F, o in zip(full, out))


def _centred_up(s1: Any, s2: Any, full: Any, out: Any, mode: str) -> Any:
    return tuple((F - o + 1) // 2 for F, o in zip(full, out))


def _swapped_valid(s1: Any, s2: Any, mode: str) -> bool:
    # SciPy's correlate2d in 'valid' mode with in2 the larger swaps the arrays without
    # conjugating back: it returns the conjugate of the correlation's window
    return mode == "valid" and s1 != s2 and all(m <= n for m, n in zip(s1, s2))


def _flip_conj(v: Any) -> Any:
    return np.conj(np.flip(v))


def _no_axes(name: str) -> Any:
    def check(opts: Any) -> None:
        if opts.get("axes") is not None:
            raise TypeError(f"{name}: the rule covers axes=None only (a convolution over all "
                            f"axes), got axes={opts['axes']!r}")
    return check


def _fill_only(name: str) -> Any:
    def check(opts: Any) -> None:
        boundary = opts.get("boundary", "fill")
        if boundary != "fill":
            raise ValueError(f"{name}: the rule covers boundary='fill' only, got boundary={boundary!r}")
        if opts.get("fillvalue", 0) != 0:
            raise ValueError(f"{name}: the rule covers fillvalue=0 only, got "
                             f"fillvalue={opts['fillvalue']!r}")
    return check


def _correlate_valid(x: Any, v: Any, kw: Any) -> Any:
    return _correlate(x, v, "valid", **kw)


def _via(conv: Any) -> Any:
    def corr_valid(x: Any, v: Any, kw: Any) -> Any:
        return conv(x, _flip_conj(v), "valid", **kw)
    return corr_valid


def _via_2d(x: Any, v: Any, kw: Any) -> Any:
    return _convolve2d(x, _flip_conj(v), "valid")


convolution_rules(_signal.convolve, "scipy.signal.convolve", correlation=False,
                  corr_valid=_correlate_valid, offsets=_centred, keywords=("method",))
convolution_rules(_signal.correlate, "scipy.signal.correlate", correlation=True,
                  corr_valid=_correlate_valid, offsets=_centred, keywords=("method",))
convolution_rules(_signal.fftconvolve, "scipy.signal.fftconvolve", correlation=False,
                  corr_valid=_via(_fftconvolve), offsets=_centred, keywords=("axes",),
                  check=_no_axes("scipy.signal.fftconvolve"))
convolution_rules(_signal.oaconvolve, "scipy.signal.oaconvolve", correlation=False,
                  corr_valid=_via(_oaconvolve), offsets=_centred, keywords=("axes",),
                  check=_no_axes("scipy.signal.oaconvolve"))
convolution_rules(_signal.convolve2d, "scipy.signal.convolve2d", correlation=False,
                  corr_valid=_via_2d, offsets=_centred, keywords=("boundary", "fillvalue"),
                  check=_fill_only("scipy.signal.convolve2d"))
convolution_rules(_signal.correlate2d, "scipy.signal.correlate2d", correlation=True,
                  corr_valid=_via_2d, offsets=_centred_up, keywords=("boundary", "fillvalue"),
                  check=_fill_only("scipy.signal.correlate2d"), conjugated=_swapped_valid)


# =============================================================================
# lfilter(b, a, x, axis=-1, zi=None): y, or (y, zf) with zi
# =============================================================================
# With K = max(len(a), len(b)) - 1, zi_pad = zi followed by zeros (length N + K) and the
# convolutions full, along the filtered axis (SciPy's direct form II transposed, checked
# against SciPy in the tests):
#     A∗y = B∗x + a₀·zi_pad          on samples 0…N-1       (y = filter(1, a, B∗x + a₀·zi_pad))
#     zf  = (B∗x − A∗y)[N:N+K]/a₀ + zi_pad[N:N+K]

_lfilter = on_any(_signal.lfilter)
_convolve = on_any(_signal.convolve)
_ONE = np.ones(1)


def _row(v: Any, nd: int) -> Any:
    """A 1-d filter as a kernel acting along the last of nd axes."""
    return np.reshape(v, (1,) * (nd - 1) + (-1,))


def _conv_last(x: Any, v: Any, n: int) -> Any:
    """The full convolution along the last axis of x with the 1-d v, zero-padded or cut to n."""
    c = _convolve(x, _row(v, np.ndim(x)))
    m = np.shape(c)[-1]
    return np.pad(c, [(0, 0)] * (np.ndim(c) - 1) + [(0, n - m)]) if m < n else c[..., :n]


def _corr_last(u: Any, v: Any, n: int) -> Any:
    """Σⱼ u[..., k+j]·conj(v[..., j]) for k < n, summed over the leading axes when v
    has them too (SciPy's N-d correlate in 'valid' mode), u padded or cut to fit."""
    want = np.shape(v)[-1] + n - 1
    m = np.shape(u)[-1]
    u = np.pad(u, [(0, 0)] * (np.ndim(u) - 1) + [(0, want - m)]) if m < want else u[..., :want]
    return _correlate(u, v, "valid")


def _flip_last(v: Any) -> Any:
    return np.flip(v, -1)


def _lfilter_options(args: Any, kw: Any) -> Any:
    opts = named_options("scipy.signal.lfilter", ("axis", "zi"), args, kw)
    return int(opts.get("axis", -1)), opts.get("zi")


def _lfilter_setup(b: Any, a: Any, x: Any, axis: int, zi: Any) -> Any:
    name = "scipy.signal.lfilter"
    if np.ndim(b) != 1:
        raise ValueError(f"{name}: the rule takes a 1-d b, got shape {np.shape(b)}")
    if np.ndim(a) != 1:
        raise ValueError(f"{name}: the rule takes a 1-d a, got shape {np.shape(a)}")
    K = max(np.shape(a)[0], np.shape(b)[0]) - 1
    last = np.moveaxis(np.empty(np.shape(x), dtype=bool), axis, -1).shape
    if zi is not None and np.shape(zi) != last[:-1] + (K,) and np.shape(zi) != np.moveaxis(
            np.empty(last[:-1] + (K,), dtype=bool), -1, axis).shape:
        raise ValueError(f"{name}: the rule takes a zi of the shape of x with {K} along the "
                         f"filtered axis, got {np.shape(zi)}")
    return K, last[-1]


def _zi_last(zi: Any, axis: int) -> Any:
    return np.moveaxis(zi, axis, -1)


def _rules_lfilter() -> tuple[Any, Any]:
    from chainrules._core import AbstractZero, Tangent, Thunk, register_frule, register_rrule, unthunk
    from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, output_parts, project_to, seed

    def lfilter_frule(tangents: Any, b: Any, a: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        axis, zi = _lfilter_options(args, kw)
        K, N = _lfilter_setup(b, a, x, axis, zi)
        Ω = _lfilter(b, a, x, *args, **kw)
        b, a, x, zi = array_arg(b), array_arg(a), array_arg(x), array_arg(zi)
        ḃ, ȧ, ẋ = (array_arg(t) for t in tangents[1:4])
        żi = array_arg(tangents[5]) if len(args) == 2 else ZERO
        y = Ω[0] if zi is not None else Ω
        xl, yl = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        n = N + K
        r = 0
        if not isinstance(ḃ, AbstractZero):
            r = r + _conv_last(xl, ḃ, n)
        if not isinstance(ẋ, AbstractZero):
            r = r + _conv_last(np.moveaxis(ẋ, axis, -1), b, n)
        if not isinstance(ȧ, AbstractZero):
            r = r - _conv_last(yl, ȧ, n)
        zil = None if zi is None else _zi_last(zi, axis)
        if zi is not None:
            zp = 0
            if not isinstance(ȧ, AbstractZero):
                zp = ȧ[0] * zil
            if not isinstance(żi, AbstractZero):
                zp = zp + a[0] * _zi_last(żi, axis)
            if not isinstance(zp, int):
                r = r + np.pad(zp, [(0, 0)] * (np.ndim(zp) - 1) + [(0, N)])
        if isinstance(r, int):
            return Ω, ZERO
        ẏl = _lfilter(_ONE, a, r[..., :N])
        ẏ = project_to(y)(np.moveaxis(ẏl, -1, axis))
        if zi is None:
            return Ω, ẏ
        zf = Ω[1]
        zfl = _zi_last(zf, axis)
        tail = np.pad(zil, [(0, 0)] * (np.ndim(zil) - 1) + [(0, N)])[..., N:N + K]
        s = r[..., N:N + K] - _conv_last(ẏl, a, n)[..., N:N + K]
        żf = s / a[0]
        if not isinstance(ȧ, AbstractZero):
            żf = żf - (zfl - tail) * (ȧ[0] / a[0])
            # r's a₀·zi_pad part is for samples < N only
            żf = żf - (np.pad(ȧ[0] * zil, [(0, 0)] * (np.ndim(zil) - 1) + [(0, N)])[..., N:N + K]) / a[0]
        if not isinstance(żi, AbstractZero):
            żil = _zi_last(żi, axis)
            żf = żf + np.pad(żil, [(0, 0)] * (np.ndim(żil) - 1) + [(0, N)])[..., N:N + K] \
                - a[0] * np.pad(żil, [(0, 0)] * (np.ndim(żil) - 1) + [(0, N)])[..., N:N + K] / a[0]
        return Ω, Tangent[tuple](ẏ, project_to(zf)(np.moveaxis(żf, -1, axis)))  # type: ignore[type-arg]

    def lfilter_rrule(b: Any, a: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        axis, zi = _lfilter_options(args, kw)
        K, N = _lfilter_setup(b, a, x, axis, zi)
        Ω = _lfilter(b, a, x, *args, **kw)
        pb, pa, px = project_to(b), project_to(a), project_to(x)
        pzi = project_to(zi) if len(args) == 2 else None
        b, a, x, zi = array_arg(b), array_arg(a), array_arg(x), array_arg(zi)
        y = Ω[0] if zi is not None else Ω
        nd = max(np.ndim(x), 1)
        xl, yl = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
        zil: Any = None if zi is None else _zi_last(zi, axis)
        n = N + K
        nb, na = np.shape(b)[0], np.shape(a)[0]
        rest = (NO,) * len(args)

        def lfilter_pullback(ȳ: Any) -> tuple[Any, ...]:
            if zi is not None:
                ȳ, z̄f = output_parts(ȳ, 2, "scipy.signal.lfilter")
            else:
                ȳ, z̄f = seed(ȳ, "scipy.signal.lfilter"), ZERO
            if isinstance(ȳ, AbstractZero) and isinstance(z̄f, AbstractZero):
                out = (NO, pb(ZERO), pa(ZERO), px(ZERO)) + rest
                return out if pzi is None else out[:-1] + (pzi(ZERO),)
            ȳl = 0 if isinstance(ȳ, AbstractZero) else np.moveaxis(array_or_traced(ȳ), axis, -1)
            U = None
            if not isinstance(z̄f, AbstractZero):
                z̄fl = _zi_last(array_or_traced(z̄f), axis)
                U = np.pad(z̄fl / np.conj(a[0]), [(0, 0)] * (np.ndim(z̄fl) - 1) + [(N, 0)])
                ȳl = ȳl - _corr_last(U, _row(a, nd), N)
            if isinstance(ȳl, int):
                ȳl = np.zeros(np.shape(yl), dtype=np.result_type(y))
            g = _flip_last(_lfilter(_ONE, np.conj(a), _flip_last(ȳl)))
            V = np.pad(g, [(0, 0)] * (np.ndim(g) - 1) + [(0, K)])
            if U is not None:
                V = V + U

            def b̄() -> Any:
                return pb(np.reshape(_corr_last(V, xl, nb), (nb,)))

            def ā() -> Any:
                v = -np.reshape(_corr_last(V, yl, na), (na,))
                if zi is not None:
                    m = min(N, K)
                    d = np.sum(g[..., :m] * np.conj(zil[..., :m]))
                    if U is not None:
                        tail = np.pad(zil, [(0, 0)] * (np.ndim(zil) - 1) + [(0, N)])[..., N:N + K]
                        d = d - np.sum(np.conj((_zi_last(Ω[1], axis) - tail) / a[0]) * z̄fl)
                    v = v + np.pad(np.reshape(d, (1,)), (0, na - 1))
                return pa(v)

            def x̄() -> Any:
                return px(np.moveaxis(_corr_last(V, _row(b, nd), N), -1, axis))

            out = (NO, Thunk(b̄) if pb.kind else NO, Thunk(ā) if pa.kind else NO,
                   Thunk(x̄) if px.kind else NO) + rest
            if pzi is None:
                return out

            def zī() -> Any:
                m = min(N, K)
                v = np.pad(np.conj(a[0]) * g[..., :m], [(0, 0)] * (np.ndim(g) - 1) + [(0, K - m)])
                if U is not None and N < K:
                    v = v + np.pad(z̄fl[..., :K - N], [(0, 0)] * (np.ndim(g) - 1) + [(N, 0)])
                return pzi(np.moveaxis(v, -1, axis))
            return out[:-1] + (Thunk(zī) if pzi.kind else NO,)
        return Ω, lfilter_pullback

    register_frule(_signal.lfilter)(lfilter_frule)
    register_rrule(_signal.lfilter)(lfilter_rrule)
    return lfilter_frule, lfilter_rrule


_lfilter_frule, _lfilter_rrule = _rules_lfilter()


# =============================================================================
# sosfilt(sos, x, axis=-1, zi=None): the cascade of lfilter(sos[i, :3], sos[i, 3:], ·)
# (with zi[i] the state of section i); its rules chain lfilter's.
# =============================================================================

def _sosfilt_options(sos: Any, args: Any, kw: Any) -> Any:
    name = "scipy.signal.sosfilt"
    opts = named_options(name, ("axis", "zi"), args, kw)
    if np.ndim(sos) != 2 or np.shape(sos)[1] != 6:
        raise ValueError(f"{name}: sos must have shape (n_sections, 6), got {np.shape(sos)}")
    return int(opts.get("axis", -1)), opts.get("zi")


def _rules_sosfilt() -> None:
    from chainrules._core import AbstractZero, Tangent, register_frule, register_rrule, unthunk
    from chainrules.rulesets._arrays import NO, ZERO, output_parts, project_to, seed

    _sosfilt = on_any(_signal.sosfilt)

    def section_args(zi: Any, i: int, axis: int) -> Any:
        return (axis, zi[i]) if zi is not None else (axis,)

    def sosfilt_frule(tangents: Any, sos: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        axis, zi = _sosfilt_options(sos, args, kw)
        Ω = _sosfilt(sos, x, *args, **kw)
        ṡ, ẏ = unthunk(tangents[1]), unthunk(tangents[2])
        żi = unthunk(tangents[4]) if len(args) == 2 else ZERO
        y, żfs, any_tangent = x, [], False
        for i in range(np.shape(sos)[0]):
            ṡi = ZERO if isinstance(ṡ, AbstractZero) else ṡ[i]
            żii = ZERO if isinstance(żi, AbstractZero) or zi is None else żi[i]
            t = (NO, ZERO if isinstance(ṡi, AbstractZero) else ṡi[:3],
                 ZERO if isinstance(ṡi, AbstractZero) else ṡi[3:], ẏ, NO) + ((żii,) if zi is not None else ())
            out, ḋ = _lfilter_frule(t, sos[i, :3], sos[i, 3:], y, *section_args(zi, i, axis))
            if zi is not None:
                y = out[0]
                ẏ = ZERO if isinstance(ḋ, AbstractZero) else ḋ[0]
                żfs.append(ḋ[1] if not isinstance(ḋ, AbstractZero) else np.zeros(np.shape(out[1])))
            else:
                y, ẏ = out, ḋ
            any_tangent = any_tangent or not isinstance(ḋ, AbstractZero)
        if not any_tangent:
            return Ω, ZERO
        if zi is None:
            return Ω, ẏ
        if isinstance(ẏ, AbstractZero):
            ẏ = np.zeros(np.shape(Ω[0]), dtype=np.result_type(Ω[0]))
        return Ω, Tangent[tuple](ẏ, np.stack(żfs))  # type: ignore[type-arg]

    def sosfilt_rrule(sos: Any, x: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
        axis, zi = _sosfilt_options(sos, args, kw)
        Ω = _sosfilt(sos, x, *args, **kw)
        ps, px = project_to(sos), project_to(x)
        pzi = project_to(zi) if len(args) == 2 else None
        pullbacks, y = [], x
        for i in range(np.shape(sos)[0]):
            out, pb = _lfilter_rrule(sos[i, :3], sos[i, 3:], y, *section_args(zi, i, axis))
            y = out[0] if zi is not None else out
            pullbacks.append(pb)
        rest = (NO,) * len(args)

        def sosfilt_pullback(ȳ: Any) -> tuple[Any, ...]:
            if zi is not None:
                ȳ, z̄f = output_parts(ȳ, 2, "scipy.signal.sosfilt")
            else:
                ȳ, z̄f = seed(ȳ, "scipy.signal.sosfilt"), ZERO
            s̄: list[Any] = [None] * len(pullbacks)
            z̄: list[Any] = [None] * len(pullbacks)
            for i in reversed(range(len(pullbacks))):
                seed_i = ȳ if zi is None else Tangent[tuple](  # type: ignore[type-arg]
                    ȳ, ZERO if isinstance(z̄f, AbstractZero) else z̄f[i])
                g = pullbacks[i](seed_i)
                b̄, ā, ȳ = (unthunk(v) for v in g[1:4])
                s̄[i] = np.concatenate([np.zeros(3) if isinstance(b̄, AbstractZero) else b̄,
                                       np.zeros(3) if isinstance(ā, AbstractZero) else ā])
                if zi is not None and len(g) > 5:
                    z̄[i] = unthunk(g[5])
            out = (NO, ps(np.stack(s̄)) if ps.kind else NO, px(ȳ) if px.kind else NO) + rest
            if pzi is None:
                return out
            if not pzi.kind:
                return out[:-1] + (NO,)
            parts = [np.zeros(np.shape(zi[i])) if isinstance(v, AbstractZero) or v is None else v
                     for i, v in enumerate(z̄)]
            return out[:-1] + (pzi(np.stack(parts)),)
        return Ω, sosfilt_pullback

    register_frule(_signal.sosfilt)(sosfilt_frule)
    register_rrule(_signal.sosfilt)(sosfilt_rrule)


_rules_sosfilt()


# =============================================================================
# filtfilt(b, a, x, axis=-1, padtype='odd', padlen=None, method='pad'): SciPy's own steps
# (odd extension, lfilter_zi's linear solve, lfilter forwards and backwards) written with
# functions that have rules, differentiated by the calling AD (a rule with a config, as those
# of rulesets/higher_order.py); the value is SciPy's.
# =============================================================================

def _filtfilt_options(x: Any, b: Any, a: Any, args: Any, kw: Any) -> Any:
    name = "scipy.signal.filtfilt"
    opts = named_options(name, ("axis", "padtype", "padlen", "method", "irlen"), args, kw)
    if opts.get("method", "pad") != "pad":
        raise ValueError(f"{name}: the rule covers method='pad' only, got method={opts['method']!r}")
    padtype = opts.get("padtype", "odd")
    if padtype not in ("odd", None):
        raise ValueError(f"{name}: the rule covers padtype='odd' or None, got padtype={padtype!r}")
    if np.ndim(b) != 1 or np.ndim(a) != 1:
        raise ValueError(f"{name}: the rule takes 1-d b and a")
    ntaps = max(np.shape(a)[0], np.shape(b)[0])
    padlen = opts.get("padlen")
    edge = 0 if padtype is None else (3 * ntaps if padlen is None else int(padlen))
    return int(opts.get("axis", -1)), edge


def _lfilter_zi(b: Any, a: Any) -> Any:
    """scipy.signal.lfilter_zi with functions that have rules."""
    n = max(np.shape(a)[0], np.shape(b)[0])
    a0 = a[0]
    a = np.pad(a, (0, n - np.shape(a)[0])) / a0
    b = np.pad(b, (0, n - np.shape(b)[0])) / a0
    companion_t = np.transpose(np.concatenate([np.reshape(-a[1:], (1, n - 1)), np.eye(n - 2, n - 1)], axis=0))
    return np.linalg.solve(np.eye(n - 1) - companion_t, b[1:] - a[1:] * b[0])


def _filtfilt(b: Any, a: Any, x: Any, *, axis: int, edge: int) -> Any:
    last = axis % np.ndim(x) == np.ndim(x) - 1
    if not last:
        x = np.swapaxes(x, axis, -1)
    b, a = b / a[0], a / a[0]
    if edge:
        left, right = x[..., :1], x[..., -1:]
        x = np.concatenate([2 * left - x[..., edge:0:-1], x,
                            2 * right - x[..., -2:-(edge + 2):-1]], axis=-1)
    zi = _lfilter_zi(b, a)
    lead = (1,) * (np.ndim(x) - 1)
    zi = np.reshape(zi, lead + (-1,))
    y, _ = _lfilter(b, a, x, -1, zi * x[..., :1])
    y, _ = _lfilter(b, a, np.flip(y, -1), -1, zi * y[..., -1:])
    y = np.flip(y, -1)
    if edge:
        y = y[..., edge:-edge]
    return y if last else np.swapaxes(y, axis, -1)


def _rules_filtfilt() -> None:
    from chainrules._core import frule_via_ad, is_traced, register_frule, register_rrule, rrule_via_ad

    # on values traced by an AD (this rule differentiated again) the value is the composed
    # function's, which that AD differentiates: every order
    def filtfilt_frule(config: Any, tangents: Any, b: Any, a: Any, x: Any, *args: Any, **kw: Any) -> Any:
        axis, edge = _filtfilt_options(x, b, a, args, kw)
        # axis and edge by keyword: options, no tangent
        Ω, ΔΩ = frule_via_ad(config, (NO_,) + tuple(tangents[1:4]), _filtfilt, b, a, x, axis=axis, edge=edge)
        if not (is_traced(b) or is_traced(a) or is_traced(x)):
            Ω = _signal.filtfilt(b, a, x, *args, **kw)
        return Ω, ΔΩ

    def filtfilt_rrule(config: Any, b: Any, a: Any, x: Any, *args: Any, **kw: Any) -> Any:
        axis, edge = _filtfilt_options(x, b, a, args, kw)
        Ω, pb = rrule_via_ad(config, _filtfilt, b, a, x, axis=axis, edge=edge)
        if not (is_traced(b) or is_traced(a) or is_traced(x)):
            Ω = _signal.filtfilt(b, a, x, *args, **kw)
        rest = (NO_,) * len(args)

        def filtfilt_pullback(Ω̄: Any) -> tuple[Any, ...]:
            got = pb(Ω̄)
            return (NO_,) + tuple(got[1:4]) + rest
        return Ω, filtfilt_pullback

    register_frule(_signal.filtfilt, config="forward")(filtfilt_frule)
    register_rrule(_signal.filtfilt, config="reverse")(filtfilt_rrule)


_rules_filtfilt()
