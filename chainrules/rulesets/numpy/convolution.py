"""Rules for convolutions and correlations: NumPy's `convolve` and
`correlate` here, and the factory that SciPy's (`scipy.signal.convolve`,
`correlate`, `fftconvolve`, `oaconvolve`, `convolve2d`, `correlate2d`)
use too (`chainrules/rulesets/scipy/signal.py`).

A convolution y = a ∗ v is bilinear: ẏ = ȧ ∗ v + a ∗ v̇, computed with the
function itself.  Its pullback, for the full output, is a correlation in
'valid' mode, ā = corr(ȳ, v) and v̄ = corr(ȳ, a) with
corr(x, v)[k] = Σⱼ x[k+j]·conj(v[j]) (the conj of ℂ as ℝ²); the 'same' and
'valid' outputs are a window of the full one, so their cotangent is first
zero-padded to the full shape (np.pad, which has rules).  A correlation is
the convolution with w = conj(flip(v)), so its v̄ is conj(flip(w̄)).  Every
step is a function with rules (the convolution itself, np.pad, np.flip,
np.conj): the rules differentiate again, at any order.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import AbstractZero, StructuralTangent, Thunk, Wrapped, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, array_or_traced, named_rule, project_to, reject_out, seed

__all__ = ["convolution_rules", "on_any", "array_arg"]

_PLAIN = (np.ndarray, np.generic, int, float, complex, str, bytes, type(None), slice)


def array_arg(v: Any) -> Any:
    """An argument or tangent as an array: a list or tuple (or the Tangent of one, zeros
    filled in) stacked, with np.stack, so that values an AD tracks stay tracked; zeros and
    arrays as they are."""
    v = unthunk(v)
    if isinstance(v, AbstractZero) or v is None:
        return v
    if isinstance(v, (list, tuple, StructuralTangent)):
        parts = [array_arg(e) for e in v]
        like = next((np.shape(p) for p in parts if not isinstance(p, AbstractZero)), ())
        parts = [np.zeros(like) if isinstance(p, AbstractZero) else p for p in parts]
        return np.stack(parts) if parts else np.zeros(0)
    return array_or_traced(v)


def _plain(a: Any) -> bool:
    """A plain value: an array, a number, or a list or tuple of them."""
    if isinstance(a, _PLAIN):
        return True
    return isinstance(a, (list, tuple)) and all(_plain(e) for e in a)


def on_any(f: Any) -> Any:
    """f, callable on the values an AD tracks too (a rule differentiated):
    on plain arrays and numbers it is f itself; on anything else it goes
    through `Wrapped(f)`, which the AD answers with f's rules.  (SciPy's
    functions, unlike NumPy's, do not dispatch on their arguments' types.)"""
    w = Wrapped(f)

    def on_any(*args: Any, **kw: Any) -> Any:
        for a in args:
            if not _plain(a):
                return w(*args, **kw)
        return f(*args, **kw)
    on_any.__name__ = on_any.__qualname__ = getattr(f, "__name__", "f")
    return on_any

_MODES = ("full", "same", "valid")


def _flip_conj(v: Any) -> Any:
    return np.conj(np.flip(v))


def convolution_rules(f: Any, name: str, *, correlation: bool, corr_valid: Any, offsets: Any,
                      mode_default: str = "full", keywords: Any = (), check: Any = None,
                      conjugated: Any = None) -> None:
    """Register frule and rrule for `f(in1, in2, mode, *options)`, a
    convolution (`correlation=False`) or correlation of two arrays.
    `corr_valid(x, v, kw)` computes corr(x, v) in 'valid' mode with
    functions that have rules; `offsets(s1, s2, full, out, mode)` gives the
    start of the mode's window in the full output along each axis; `keywords`
    names the options after `mode` (passed on, no tangent); `check(kw)`
    refuses the options the rule does not cover; `conjugated(s1, s2, mode)`
    says when f returns the conjugate of its correlation (SciPy's correlate2d
    in 'valid' mode with the larger array second)."""
    names = ("mode",) + tuple(keywords)
    g = on_any(f)

    def options(rest: Any, kw: Any) -> Any:
        reject_out(name, kw)
        if len(rest) > len(names):
            raise TypeError(f"{name}: too many positional arguments for the rule")
        opts = dict(zip(names, rest))
        for k, v in kw.items():
            if k in opts:
                raise TypeError(f"{name}: got {k}= twice")
            opts[k] = v
        mode = opts.get("mode", mode_default)
        if mode not in _MODES:
            raise ValueError(f"{name}: mode must be one of {_MODES}, got {mode!r}")
        if check is not None:
            check(opts)
        return mode, opts

    def conv_frule(tangents: Any, in1: Any, in2: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
        options(rest, kw)
        Ω = g(in1, in2, *rest, **kw)
        in1, in2 = array_arg(in1), array_arg(in2)
        ȧ, v̇ = array_arg(tangents[1]), array_arg(tangents[2])
        terms = []
        if not isinstance(ȧ, AbstractZero):
            terms.append(g(ȧ, in2, *rest, **kw))
        if not isinstance(v̇, AbstractZero):
            terms.append(g(in1, v̇, *rest, **kw))
        if not terms:
            return Ω, ZERO
        return Ω, terms[0] if len(terms) == 1 else terms[0] + terms[1]

    def conv_rrule(in1: Any, in2: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
        mode, opts = options(rest, kw)
        Ω = g(in1, in2, *rest, **kw)
        pa, pv = project_to(in1), project_to(in2)
        in1, in2 = array_arg(in1), array_arg(in2)
        s1, s2 = np.shape(in1), np.shape(in2)
        full = tuple(m + n - 1 for m, n in zip(s1, s2))
        out = np.shape(Ω)
        pad = [(o, F - n - o) for o, F, n in zip(offsets(s1, s2, full, out, mode), full, out)]
        ckw = {k: v for k, v in opts.items() if k != "mode"}
        conj_out = conjugated is not None and conjugated(s1, s2, mode)
        nrest = (NO,) * len(rest)

        def conv_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero):
                return (NO, pa(ZERO), pv(ZERO)) + nrest
            ȳ = np.reshape(array_or_traced(ȳ), out)
            if conj_out:
                ȳ = np.conj(ȳ)
            ȳf = np.pad(ȳ, pad) if any(p != (0, 0) for p in pad) else ȳ
            w = _flip_conj(in2) if correlation else in2

            def conv_ā() -> Any:
                return pa(corr_valid(ȳf, w, ckw))

            def conv_v̄() -> Any:
                w̄ = corr_valid(ȳf, in1, ckw)
                return pv(_flip_conj(w̄) if correlation else w̄)
            return (NO, Thunk(conv_ā) if pa.kind else NO, Thunk(conv_v̄) if pv.kind else NO) + nrest
        return Ω, conv_pullback

    register_frule(f)(named_rule(conv_frule, name.rsplit(".", 1)[-1]))
    register_rrule(f)(named_rule(conv_rrule, name.rsplit(".", 1)[-1]))


# ----- numpy.convolve, numpy.correlate ------------------------------------------------------
# NumPy's windows (numpy/_core/src/multiarray/multiarraymodule.c, _pyarray_correlate): with n
# the shorter length, 'same' starts n-1-n//2 into the full output, except for a correlate
# whose first argument is the shorter (NumPy swaps them and reverses the result): n//2.

def _numpy_offsets(correlate: bool) -> Any:
    def offsets(s1: Any, s2: Any, full: Any, out: Any, mode: str) -> Any:
        n = min(s1[0], s2[0])
        if mode == "full":
            return (0,)
        if mode == "valid":
            return (n - 1,)
        return (n // 2,) if correlate and s1[0] < s2[0] else (n - 1 - n // 2,)
    return offsets


def _numpy_check(name: str) -> Any:
    def check(opts: Any) -> None:
        extra = set(opts) - {"mode"}
        if extra:
            raise TypeError(f"{name}: unexpected arguments {sorted(extra)}")
    return check


def _numpy_corr_valid(x: Any, v: Any, kw: Any) -> Any:
    return np.correlate(x, v, "valid")


convolution_rules(np.convolve, "numpy.convolve", correlation=False, corr_valid=_numpy_corr_valid,
                  offsets=_numpy_offsets(False), check=_numpy_check("numpy.convolve"))
convolution_rules(np.correlate, "numpy.correlate", correlation=True, corr_valid=_numpy_corr_valid,
                  offsets=_numpy_offsets(True), mode_default="valid", check=_numpy_check("numpy.correlate"))
