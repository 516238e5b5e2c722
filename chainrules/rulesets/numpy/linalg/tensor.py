"""Rules for `numpy.linalg.multi_dot`, `tensorinv` and `tensorsolve`.

multi_dot(arrays) is the product A₁·A₂·…·Aₙ (a 1-d first array a row, a 1-d
last one a column): Ȧ = Σᵢ A₁…Ȧᵢ…Aₙ, Āᵢ = (A₁…Aᵢ₋₁)ᴴ·Ȳ·(Aᵢ₊₁…Aₙ)ᴴ; its
argument's tangent is a Tangent of the list (or tuple).  tensorinv and
tensorsolve are inv and solve of `a` reshaped to a square matrix: the same
derivatives (−X·Ȧ·X; ẋ = M⁻¹(ḃ − Ṁx), b̄ = M⁻ᴴx̄, M̄ = −b̄·xᴴ), reshaped back.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules._core import register_frule, register_rrule
from chainrules._protocols import Pullback
from chainrules.rulesets.numpy.linalg._on_numpy import as_array
from chainrules.rulesets._arrays import NO, ZERO, is_zero, like, project_to, reject_out, seed
from chainrules.rulesets._by_signature import H, define, value
from chainrules.rulesets.array_api._common import sequence_parts, sequence_tangent


# ----- multi_dot --------------------------------------------------------------------------------

def _as_matrices(arrays: Any) -> Any:
    out = [as_array(a) for a in arrays]
    if np.ndim(value(out[0])) == 1:
        out[0] = out[0][None, :]
    if np.ndim(value(out[-1])) == 1:
        out[-1] = out[-1][:, None]
    return out


def _chain(ms: Any) -> Any:
    out = ms[0]
    for m in ms[1:]:
        out = out @ m
    return out


def _multi_dot_check(arrays: Any, kwargs: Any) -> None:
    reject_out("numpy.linalg.multi_dot", kwargs)
    if len(arrays) < 2:
        raise ValueError("numpy.linalg.multi_dot: the argument arrays needs at least two arrays")


@register_frule(np.linalg.multi_dot)
def multi_dot_frule(tangents: Any, arrays: Any, **kwargs: Any) -> tuple[Any, Any]:
    _multi_dot_check(arrays, kwargs)
    Ω = np.linalg.multi_dot(arrays)
    parts = sequence_parts(tangents[1], arrays, "numpy.linalg.multi_dot")
    if parts is None:
        return Ω, ZERO
    ms, ṁs = _as_matrices(arrays), _as_matrices(parts)
    total = sum(_chain(ms[:i] + [ṁs[i]] + ms[i + 1:]) for i in range(len(ms)))
    return Ω, like(Ω, np.reshape(total, np.shape(value(Ω))))


@register_rrule(np.linalg.multi_dot)
def multi_dot_rrule(arrays: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    _multi_dot_check(arrays, kwargs)
    Ω = np.linalg.multi_dot(arrays)
    projects = [project_to(a) for a in arrays]
    ms = _as_matrices(arrays)

    def multi_dot_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "numpy.linalg.multi_dot")
        if is_zero(ȳ):
            return NO, sequence_tangent(arrays, [p(ZERO) for p in projects])
        n = len(ms)
        g = np.reshape(as_array(ȳ), (ms[0].shape[0], ms[-1].shape[1]))
        left: list[Any] = [None] * n                   # (A₁…Aᵢ₋₁)ᴴ·Ȳ
        right: list[Any] = [None] * n                  # (Aᵢ₊₁…Aₙ)ᴴ
        acc = g
        for i in range(n):
            left[i] = acc
            acc = H(ms[i]) @ acc
        acc = None  # type: ignore[assignment]  # no product yet
        for i in reversed(range(n)):
            right[i] = acc
            acc = H(ms[i]) if acc is None else acc @ H(ms[i])
        parts = []
        for i, (p, a) in enumerate(zip(projects, arrays)):
            ā = left[i] if right[i] is None else left[i] @ right[i]
            parts.append(p(np.reshape(ā, np.shape(value(a)))))
        return NO, sequence_tangent(arrays, parts)
    return Ω, multi_dot_pullback


# ----- tensorinv, tensorsolve ----------------------------------------------------------------------

def _tensorinv_body(o: Any, Ω: Any) -> Any:
    a, ind = o["a"], o["ind"]
    shape = np.shape(value(a))
    m = math.prod(shape[:ind])
    X = np.reshape(Ω, (math.prod(shape[ind:]), m))

    def forward(Δ: Any) -> Any:
        return np.reshape(-(X @ np.reshape(Δ["a"], (m, -1)) @ X), np.shape(value(Ω)))

    def adjoint(ȳ: Any) -> Any:
        g = np.reshape(ȳ, np.shape(value(X)))
        return {"a": np.reshape(-(H(X) @ g @ H(X)), shape)}
    return forward, adjoint


def _tensorinv_check(o: Any) -> None:
    if o["ind"] <= 0:
        raise ValueError(f"numpy.linalg.tensorinv: ind must be a positive integer, got {o['ind']}")


define(np.linalg.tensorinv, "numpy.linalg.tensorinv", ("a",), _tensorinv_body, _tensorinv_check)


def _tensorsolve_body(o: Any, x: Any) -> Any:
    a, b, axes = o["a"], o["b"], o["axes"]
    order = list(range(np.ndim(value(a))))
    if axes is not None:                    # NumPy moves these axes of a to the end
        for k in axes:
            order.remove(k % len(order))
            order.append(k % len(order))
    bshape = np.shape(value(b))
    n = math.prod(bshape)

    def matrix(t: Any) -> Any:
        return np.reshape(np.transpose(t, order), (n, -1))
    M = matrix(a)
    xv = np.reshape(x, (-1, 1))

    def forward(Δ: Any) -> Any:
        rhs = np.reshape(Δ["b"], (n, 1)) if "b" in Δ else 0
        if "a" in Δ:
            rhs = rhs - matrix(Δ["a"]) @ xv
        return np.reshape(np.linalg.solve(M, rhs + 0 * xv), np.shape(value(x)))

    def adjoint(x̄: Any) -> Any:
        b̄ = np.linalg.solve(H(M), np.reshape(x̄, (-1, 1)) + 0 * xv)
        M̄ = -(b̄ @ H(xv))
        tshape = [np.shape(value(a))[i] for i in order]
        ā = np.transpose(np.reshape(M̄, tshape), np.argsort(order))
        return {"a": ā, "b": np.reshape(b̄, bshape)}
    return forward, adjoint


define(np.linalg.tensorsolve, "numpy.linalg.tensorsolve", ("a", "b"), _tensorsolve_body)
