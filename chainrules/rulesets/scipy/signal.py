"""Rules for `scipy.signal`: the convolutions (`convolve`, `correlate`,
`fftconvolve`, `oaconvolve`, `convolve2d`, `correlate2d`, every `mode`,
`method=` passed on) and the linear filters (`lfilter` in b, a, x and zi,
`sosfilt` in sos, x and zi, `filtfilt` in b, a and x).

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

from chainrules.rulesets.numpy.convolution import convolution_rules, on_any

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
