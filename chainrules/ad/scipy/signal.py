"""chainrules.ad.scipy.signal: scipy.signal for autograd programs.

`convolve` is autograd.scipy.signal's: a convolution of two arrays along
chosen pairs of axes, with other pairs summed over (a tensor product), in
`"full"`, `"same"` or `"valid"` mode::

    convolve(A, B, axes=None, dot_axes=((), ()), mode="full")

`axes` is a pair of sequences (A's axes, B's axes) convolved together
(default: every axis of A with the same axis of B), `dot_axes` a pair of
sequences summed over as in `np.tensordot`.  The result's axes are A's other
axes, then B's other axes, then the convolved axes in the order of `axes`.
Along a convolved pair of lengths n (A) and m (B) the result has n + m − 1
entries (full), max(n, m) − min(n, m) + 1 (valid, the entries where the
shorter array lies within the longer) or n (same: the full result's middle
n entries, centred as `scipy.signal.convolve` centres them).  With the
defaults it is `scipy.signal.convolve(A, B, mode)`.

It is written with NumPy functions that have rules (`np.pad`, `np.take`,
flips, `np.einsum`), so chainrules.ad differentiates it in A and B to any
order.  Every other public function of scipy.signal is SciPy's, wrapped as
in `chainrules.ad.scipy.linalg`: those with rules
(chainrules.rulesets.scipy.signal: its convolutions, `lfilter`, `sosfilt`,
`filtfilt`, ...) are differentiated by them; the others raise a NoRuleError
naming the function.  SciPy's own convolve, whose third argument is `mode`,
is `scipy_convolve` here.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.signal as _signal

import chainrules.rulesets.scipy.signal  # noqa: F401  (the rules)
from chainrules.ad._namespace import populate_from_library

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _axes_pair(name: str, value: Any, ndim_a: int, ndim_b: int) -> tuple[list[int], list[int]]:
    try:
        a_axes, b_axes = value
        a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
    except (TypeError, ValueError):
        raise TypeError(f"chainrules.ad.scipy.signal.convolve: {name} must be a pair of sequences of "
                        f"axes (A's, B's), got {value!r}") from None
    if len(a_axes) != len(b_axes):
        raise ValueError(f"chainrules.ad.scipy.signal.convolve: {name} pairs {len(a_axes)} axes of A "
                         f"with {len(b_axes)} of B")
    for axes, ndim, who in ((a_axes, ndim_a, "A"), (b_axes, ndim_b, "B")):
        for i in axes:
            if not -ndim <= i < ndim:
                raise ValueError(f"chainrules.ad.scipy.signal.convolve: {name} names axis {i} of {who}, "
                                 f"which has {ndim} dimensions")
    return [i % ndim_a for i in a_axes], [i % ndim_b for i in b_axes]


def convolve(A: Any, B: Any, axes: Sequence[Sequence[int]] | None = None,
             dot_axes: Sequence[Sequence[int]] = ((), ()), mode: str = "full") -> Any:
    """The convolution of A and B along `axes`, summed over `dot_axes`, in
    `mode` ("full", "same" or "valid"); see the module docstring."""
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"chainrules.ad.scipy.signal.convolve: mode must be 'full', 'same' or 'valid', "
                         f"got {mode!r}")
    A, B = np.asarray(A) if np.isscalar(A) else A, np.asarray(B) if np.isscalar(B) else B
    nda, ndb = np.ndim(A), np.ndim(B)
    if axes is None:
        if nda != ndb:
            raise ValueError("chainrules.ad.scipy.signal.convolve: without axes=, A and B need the same "
                             f"number of dimensions (got {nda} and {ndb})")
        axes = (range(nda), range(nda))
    conv_a, conv_b = _axes_pair("axes", axes, nda, ndb)
    dot_a, dot_b = _axes_pair("dot_axes", dot_axes, nda, ndb)
    used_a, used_b = conv_a + dot_a, conv_b + dot_b
    if len(set(used_a)) != len(used_a) or len(set(used_b)) != len(used_b):
        raise ValueError("chainrules.ad.scipy.signal.convolve: an axis is named twice in axes and dot_axes")
    sa, sb = np.shape(A), np.shape(B)
    for i, j in zip(dot_a, dot_b):
        if sa[i] != sb[j]:
            raise ValueError(f"chainrules.ad.scipy.signal.convolve: dot_axes pair axis {i} of A (length "
                             f"{sa[i]}) with axis {j} of B (length {sb[j]})")
    if mode == "valid":
        sizes = [(sa[i], sb[j]) for i, j in zip(conv_a, conv_b)]
        if not (all(n >= m for n, m in sizes) or all(n <= m for n, m in sizes)):
            raise ValueError("chainrules.ad.scipy.signal.convolve: in 'valid' mode one array must be at "
                             "least as long as the other along every convolved axis")

    # Full convolution along each pair (i of A, j of B), lengths n and m:
    #   out[k] = Σ_t A[n-1-t] · Bpad[k + t],  k < n + m - 1, t < n,
    # with Bpad = B padded by n - 1 zeros at both ends along j.  np.take with the index
    # table k + t replaces B's axis j by two axes (k, t); A's axis i is flipped.  Every
    # step is a NumPy function with rules.
    letters = iter(_LETTERS)
    a_sub = [next(letters) for _ in range(nda)]
    b_sub: list[Any] = [next(letters) for _ in range(ndb)]
    for i, j in zip(dot_a, dot_b):
        b_sub[j] = a_sub[i]
    A_flipped = A
    if conv_a:
        A_flipped = np.flip(A, axis=tuple(conv_a))
    pads = [(0, 0)] * ndb
    for i, j in zip(conv_a, conv_b):
        pads[j] = (sa[i] - 1, sa[i] - 1)
    Bv = np.pad(B, pads) if conv_a else B
    # gather one axis at a time; the new axes (k, t) replace axis j in place
    positions = list(range(ndb))        # where B's axis j now is
    conv_out = []
    for i, j in zip(conv_a, conv_b):
        n, m = sa[i], sb[j]
        k = np.arange(n + m - 1)[:, None] + np.arange(n)[None, :]
        Bv = np.take(Bv, k, axis=positions[j])
        for q in range(ndb):
            if positions[q] > positions[j]:
                positions[q] += 1
        k_letter = next(letters)
        b_sub[j] = [k_letter, a_sub[i]]          # (k, t): t is summed with A's flipped axis
        conv_out.append(k_letter)
    b_flat = "".join(s if isinstance(s, str) else "".join(s) for s in b_sub)
    ignore_a = [a_sub[q] for q in range(nda) if q not in used_a]
    ignore_b = [b_sub[q] for q in range(ndb) if q not in used_b]
    out_sub = "".join(ignore_a) + "".join(ignore_b) + "".join(conv_out)
    out = np.einsum(f"{''.join(a_sub)},{b_flat}->{out_sub}", A_flipped, Bv)

    if mode == "full" or not conv_a:
        return out
    first = len(ignore_a) + len(ignore_b)
    index: list[Any] = [slice(None)] * np.ndim(out)
    for q, (i, j) in enumerate(zip(conv_a, conv_b)):
        n, m = sa[i], sb[j]
        if mode == "same":
            start, length = (m - 1) // 2, n
        else:
            start, length = min(n, m) - 1, abs(n - m) + 1
        index[first + q] = slice(start, start + length)
    return out[tuple(index)]


__all__ = populate_from_library(_signal, globals(), {"convolve": "scipy_convolve"}) + ["convolve"]
