"""Rules for `numpy.fft`: fft, ifft, fft2, ifft2, fftn, ifftn (complex), rfft,
rfft2, rfftn (real to half spectrum) and irfft, irfft2, irfftn (half spectrum
to real), with their `n`/`s`, `axis`/`axes` and `norm` arguments.

Every transform is linear, so the frule applies the transform itself to the
tangent.  The pullbacks apply the adjoint (Jᵀ, with ℂ as ℝ²):

- fft family: the adjoint of `fftn(·, norm)` is `ifftn(·, norm=dual)` and vice
  versa, dual(backward) = forward, dual(ortho) = ortho; padding or truncation
  of the input (`n`, `s`) is undone by truncating or zero-padding the
  cotangent.
- rfft: the output keeps the first n//2+1 bins, so the adjoint zero-pads the
  cotangent to the full spectrum and keeps the real part of its inverse
  transform.  That is `irfft(w·ȳ, n, norm=dual)` with the Hermitian weights
  w = 1 for the zero-frequency bin (and the Nyquist bin when n is even) and
  w = ½ for the others, because irfft counts every other bin twice.
- irfft: reads bins 0…n//2 of its input (the imaginary parts of the
  zero-frequency and Nyquist bins are ignored) and counts the others twice,
  so z̄ = w′·rfft(x̄, n, norm=dual) with w′ = 2 on the bins counted twice and
  1 on the others; its imaginary part at those two bins is zero.

The multi-dimensional r-transforms act as the 1-d one on the last of `axes`
and as the complex transform on the others.  `out=` is rejected.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    Thunk,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, named_rule, project_to, reject_out, seed


_DUAL: dict[str | None, Any] = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _plan(a: Any, nd: int, size: Any, axes: Any, kind: Any) -> Any:
    """(lengths, axes) of the transform: one length per axis, as NumPy
    derives them (`size` is n or s, `nd` False for the 1-d functions)."""
    shape = np.shape(a)
    if not nd:
        axes = [axes]
        size = None if size is None else [size]
    elif axes is None:
        axes = list(range(-len(size), 0)) if size is not None else list(range(len(shape)))
    axes = [int(ax) % len(shape) for ax in axes]
    if size is None:
        lengths = [shape[ax] for ax in axes]
        if kind == "irfft":
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        lengths = [shape[ax] if n == -1 else int(n) for ax, n in zip(axes, size)]
    return lengths, axes


def _fit(x: Any, shape: Any, axes: Any) -> Any:
    """x truncated or zero-padded along `axes` to the lengths of `shape`."""
    index = [slice(None)] * x.ndim
    pad = [(0, 0)] * x.ndim
    for ax in axes:
        if x.shape[ax] > shape[ax]:
            index[ax] = slice(0, shape[ax])
        elif x.shape[ax] < shape[ax]:
            pad[ax] = (0, shape[ax] - x.shape[ax])
    x = x[tuple(index)]
    if any(p != (0, 0) for p in pad):
        x = np.pad(x, pad)
    return x


def _half_weights(n: int, m: Any, doubled: Any) -> Any:
    """Weights along the half-spectrum axis (m = n//2 + 1 bins): the bins that
    irfft counts twice get `doubled`, the others 1."""
    w = np.full(m, doubled)
    w[0] = 1
    if n % 2 == 0:
        w[-1] = 1
    return w


def _along(w: Any, ax: Any, ndim: int) -> Any:
    shape = [1] * ndim
    shape[ax] = len(w)
    return w.reshape(shape)


def _complex_adjoint(inverse_of: Any) -> Any:
    def adjoint(ȳ: Any, a: Any, lengths: Any, axes: Any, norm: Any) -> Any:
        return _fit(inverse_of(ȳ, axes=axes, norm=_DUAL[norm]), np.shape(a), axes)
    return adjoint


def _rfft_adjoint(ȳ: Any, a: Any, lengths: Any, axes: Any, norm: Any) -> Any:
    w = _along(_half_weights(lengths[-1], ȳ.shape[axes[-1]], 0.5), axes[-1], ȳ.ndim)
    x̄ = np.fft.irfftn(ȳ * w, s=lengths, axes=axes, norm=_DUAL[norm])
    return _fit(x̄, np.shape(a), axes)


def _irfft_adjoint(x̄: Any, z: Any, lengths: Any, axes: Any, norm: Any) -> Any:
    z̄ = np.fft.rfftn(x̄, s=lengths, axes=axes, norm=_DUAL[norm])
    z̄ = z̄ * _along(_half_weights(lengths[-1], z̄.shape[axes[-1]], 2.0), axes[-1], z̄.ndim)
    return _fit(z̄, np.shape(z), axes)


# name, function, n-dimensional?, default axes, kind, adjoint
_TRANSFORMS = [
    ("fft", np.fft.fft, False, -1, "complex", _complex_adjoint(np.fft.ifftn)),
    ("ifft", np.fft.ifft, False, -1, "complex", _complex_adjoint(np.fft.fftn)),
    ("fft2", np.fft.fft2, True, (-2, -1), "complex", _complex_adjoint(np.fft.ifftn)),
    ("ifft2", np.fft.ifft2, True, (-2, -1), "complex", _complex_adjoint(np.fft.fftn)),
    ("fftn", np.fft.fftn, True, None, "complex", _complex_adjoint(np.fft.ifftn)),
    ("ifftn", np.fft.ifftn, True, None, "complex", _complex_adjoint(np.fft.fftn)),
    ("rfft", np.fft.rfft, False, -1, "rfft", _rfft_adjoint),
    ("rfft2", np.fft.rfft2, True, (-2, -1), "rfft", _rfft_adjoint),
    ("rfftn", np.fft.rfftn, True, None, "rfft", _rfft_adjoint),
    ("irfft", np.fft.irfft, False, -1, "irfft", _irfft_adjoint),
    ("irfft2", np.fft.irfft2, True, (-2, -1), "irfft", _irfft_adjoint),
    ("irfftn", np.fft.irfftn, True, None, "irfft", _irfft_adjoint),
]


def _options(name: str, nd: int, default_axes: Any, rest: Any, kw: Any) -> Any:
    fname = f"numpy.fft.{name}"
    reject_out(fname, kw)
    names = ("s", "axes", "norm") if nd else ("n", "axis", "norm")
    if len(rest) > 3:
        raise TypeError(f"{fname}: the rule takes the array, {', '.join(names)} positionally; "
                        "pass out= as a keyword (it is rejected)")
    spec = zip(names, (None, default_axes, None))
    vals = [rest[i] if i < len(rest) else kw.get(k, d) for i, (k, d) in enumerate(spec)]
    if vals[2] not in _DUAL:
        raise ValueError(f"{fname}: invalid norm {vals[2]!r}")
    return vals


# =============================================================================
# fft, ifft, fft2, ifft2, fftn, ifftn, rfft, rfft2, rfftn, irfft, irfft2, irfftn
# (one frule and one rrule per transform, made from the table above)
# =============================================================================

def _make_rules(name: str, fn: Any, nd: int, default_axes: Any, kind: Any, adjoint: Any) -> None:

    def fft_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        size, axes, norm = _options(name, nd, default_axes, rest, kw)
        y = fn(a, *rest, **kw)
        ȧ = unthunk(tangents[1])
        if isinstance(ȧ, AbstractZero):
            return y, ZERO
        return y, fn(ȧ, *rest, **kw)

    def fft_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
        size, axes, norm = _options(name, nd, default_axes, rest, kw)
        pa = project_to(a)
        y = fn(a, *rest, **kw)
        lengths, axes = _plan(a, nd, size, axes, kind)
        nrest = (NO,) * len(rest)

        def fft_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero) or not pa.kind:
                return (NO, ZERO if pa.kind else NO) + nrest
            ȳ = array_or_traced(ȳ)
            return (NO, Thunk(lambda: pa(adjoint(ȳ, a, lengths, axes, norm)))) + nrest

        fft_pullback.__name__ = fft_pullback.__qualname__ = f"{name}_pullback"
        return y, fft_pullback

    fft_frule.__name__ = fft_frule.__qualname__ = f"{name}_frule"
    fft_rrule.__name__ = fft_rrule.__qualname__ = f"{name}_rrule"
    register_frule(fn, object, ...)(fft_frule)
    register_rrule(fn, object, ...)(fft_rrule)


for _row in _TRANSFORMS:
    _make_rules(*_row)
del _row


# =============================================================================
# hfft, ihfft: hfft(a) = irfft(conj(a)) and ihfft(a) = conj(rfft(a)), each with
# the dual normalisation (NumPy's own definition).  conj is R-linear and its
# own adjoint: hfft's cotangent is conj(irfft's adjoint(ȳ)), ihfft's is
# rfft's adjoint(conj(ȳ)).
# =============================================================================

def _hermitian_rules(name: str, fn: Any, inner: Any, kind: Any, adjoint: Any, conj_in: Any) -> None:
    def hermitian_frule(tangents: Any, a: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        _options(name, False, -1, rest, kw)
        y = fn(a, *rest, **kw)
        ȧ = unthunk(tangents[1])
        if isinstance(ȧ, AbstractZero):
            return y, ZERO
        n, axis, norm = _options(name, False, -1, rest, kw)
        if conj_in:
            return y, inner(np.conj(ȧ), n, axis, _DUAL[norm])
        return y, np.conj(inner(ȧ, n, axis, _DUAL[norm]))

    def hermitian_rrule(a: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
        n, axis, norm = _options(name, False, -1, rest, kw)
        pa = project_to(a)
        y = fn(a, *rest, **kw)
        lengths, axes = _plan(a, False, n, axis, kind)
        nrest = (NO,) * len(rest)
        dual = _DUAL[norm]

        def hermitian_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero) or not pa.kind:
                return (NO, ZERO if pa.kind else NO) + nrest
            ȳ = array_or_traced(ȳ)

            def hermitian_ā() -> Any:
                if conj_in:
                    return pa(np.conj(adjoint(ȳ, a, lengths, axes, dual)))
                return pa(adjoint(np.conj(ȳ), a, lengths, axes, dual))
            return (NO, Thunk(hermitian_ā)) + nrest
        return y, hermitian_pullback

    register_frule(fn, object, ...)(named_rule(hermitian_frule, name))
    register_rrule(fn, object, ...)(named_rule(hermitian_rrule, name))


_hermitian_rules("hfft", np.fft.hfft, np.fft.irfft, "irfft", _irfft_adjoint, True)
_hermitian_rules("ihfft", np.fft.ihfft, np.fft.rfft, "rfft", _rfft_adjoint, False)
