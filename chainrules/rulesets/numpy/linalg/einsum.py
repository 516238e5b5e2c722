"""The rule for `np.einsum` (the subscripts form; NumPy's alone); `np.einsum_path`
(a contraction order and a report: no value to differentiate) is declared
non-differentiable.  The traces are trace's array-API body: products.py."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import functools
import string
from collections import Counter
from typing import Any

import numpy as np

from chainrules._core import (
    Thunk,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import (
    NO,
    is_zero as _zero,
    reject_out,
    zero_for as _zero_for,
    seed,
    project_to,
)
from chainrules.rulesets.numpy.linalg._on_numpy import as_array
from chainrules.rulesets.numpy.linalg._common import _sum_tangents


# =============================================================================
# einsum (subscripts form; any operands, implicit or explicit output)
# =============================================================================

class _EinsumPlan:
    """A parsed einsum: explicit input subscripts with the ellipsis replaced
    by fresh letters, the explicit output subscripts, and per operand the
    einsum that gives its cotangent.  Plans are cached by (subscripts,
    operand dimensions)."""

    def __init__(self, subscripts: Any, ndims: Any) -> None:
        s = subscripts.replace(" ", "")
        if "->" in s:
            ins, out = s.split("->")
        else:
            ins, out = s, None
        subs = ins.split(",")
        if len(subs) != len(ndims):
            raise ValueError(f"numpy.einsum: {len(subs)} subscripts for {len(ndims)} operands")
        used = {c for c in s if c.isalpha()}
        ell = [nd - (len(sub) - 3) if "..." in sub else 0 for sub, nd in zip(subs, ndims)]
        n_ell = max(ell, default=0)
        fresh = "".join([c for c in string.ascii_letters if c not in used][:n_ell])
        if len(fresh) < n_ell:
            raise ValueError("numpy.einsum: too many dimensions for the rule to name")
        if out is None:
            counts = Counter(c for sub in subs for c in sub if c.isalpha())
            out = ("..." if any("..." in sub for sub in subs) else "") + \
                "".join(sorted(c for c, k in counts.items() if k == 1))
        self.inputs = [sub.replace("...", fresh[n_ell - e:]) if "..." in sub else sub
                       for sub, e in zip(subs, ell)]
        self.output = out.replace("...", fresh)
        self.cotangent_plans = [self._plan(k) for k in range(len(ndims))]

    def _plan(self, k: Any) -> Any:
        """(expression, others, unique letters, positions of letters only
        operand k carries, the diagonal expression or None)."""
        sub = self.inputs[k]
        others = [j for j in range(len(self.inputs)) if j != k]
        avail = set(self.output).union(*[self.inputs[j] for j in others])
        uniq = "".join(dict.fromkeys(sub))
        target = "".join(c for c in uniq if c in avail)
        expr = ",".join([self.output] + [self.inputs[j] for j in others]) + "->" + target
        missing = [i for i, c in enumerate(uniq) if c not in avail]
        diagonal = sub + "->" + uniq if len(uniq) < len(sub) else None
        return expr, others, uniq, missing, diagonal

    def cotangent(self, k: Any, ȳ: Any, operands: Any, optimize: Any) -> Any:
        """The cotangent of operand k: an einsum of ȳ with the conjugates of
        the other operands, then broadcast along indices that only operand k
        carries, summed along its broadcast (size-1) dimensions, and written
        onto the diagonal for repeated indices."""
        expr, others, uniq, missing, diagonal = self.cotangent_plans[k]
        op = operands[k]
        g = np.einsum(expr, ȳ, *[operands[j].conj() for j in others], optimize=optimize)
        if diagonal is None and not missing and g.shape == op.shape:
            return g
        sub = self.inputs[k]
        ushape = tuple(op.shape[sub.index(c)] for c in uniq)
        if missing:
            g = np.expand_dims(g, missing)
        shrink = tuple(i for i, n in enumerate(ushape) if n == 1 and g.shape[i] != 1)
        if shrink:
            g = np.sum(g, axis=shrink, keepdims=True)
        if missing:
            g = np.array(np.broadcast_to(g, ushape)) if type(g) is np.ndarray else np.broadcast_to(g, ushape)
        if diagonal is None:
            return g
        if type(g) is not np.ndarray:      # a traced value (the rule differentiated): no writes
            return self._on_diagonal(sub, uniq, g, op.shape)
        full = np.zeros(op.shape, dtype=np.result_type(g.dtype, op.dtype))
        np.einsum(diagonal, full)[...] = g       # einsum gives a writeable view of the diagonal
        return full

    @staticmethod
    def _on_diagonal(sub: Any, uniq: Any, g: Any, shape: Any) -> Any:
        """The array of `shape` (subscripts `sub`, repeated letters) holding g
        (subscripts `uniq`) on its diagonal and zeros elsewhere, as an einsum
        of g with identity matrices: each repeat of a letter gets a fresh
        letter tied to the first by δ (np.eye)."""
        fresh = iter([c for c in string.ascii_letters if c not in sub])
        out, deltas, eyes, seen = [], [], [], set()
        for c, n in zip(sub, shape):
            if c in seen:
                d = next(fresh)
                out.append(d)
                deltas.append(c + d)
                eyes.append(np.eye(n, dtype=g.dtype))
            else:
                seen.add(c)
                out.append(c)
        return np.einsum(",".join([uniq] + deltas) + "->" + "".join(out), g, *eyes)


@functools.lru_cache(maxsize=512)
def _einsum_plan(subscripts: Any, ndims: Any) -> Any:
    return _EinsumPlan(subscripts, ndims)


def _einsum_kw(kw: Any) -> Any:
    if not kw:
        return False
    reject_out("numpy.einsum", kw)
    return kw.get("optimize", False)


@register_frule(np.einsum, str, ...)
def einsum_frule(tangents: Any, subscripts: Any, *operands: Any, **kw: Any) -> tuple[Any, Any]:
    optimize = _einsum_kw(kw)
    y = np.einsum(subscripts, *operands, **kw)
    terms = []
    for k, ȧ in enumerate(tangents[2:]):
        ȧ = unthunk(ȧ)
        if _zero(ȧ):
            continue
        ops = list(operands)
        ops[k] = ȧ
        terms.append(np.einsum(subscripts, *ops, optimize=optimize))
    return y, _sum_tangents(terms)


@register_rrule(np.einsum, str, ...)
def einsum_rrule(subscripts: Any, *operands: Any, **kw: Any) -> tuple[Any, Pullback]:
    optimize = _einsum_kw(kw)
    projs = [project_to(op) for op in operands]
    ops = [as_array(op) for op in operands]
    y = np.einsum(subscripts, *ops, **kw)
    parsed = _einsum_plan(subscripts, tuple(op.ndim for op in ops))

    def einsum_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'einsum')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, NO) + tuple(_zero_for(p) for p in projs)
        ȳ = as_array(ȳ)

        def operand_cotangent(k: Any) -> Any:
            p = projs[k]
            if not p.kind:
                return NO
            return Thunk(lambda: p(parsed.cotangent(k, ȳ, ops, optimize)))

        return (NO, NO) + tuple(operand_cotangent(k) for k in range(len(ops)))

    return y, einsum_pullback


# einsum_path returns the contraction order (a list of index tuples) and a text report
non_differentiable(np.einsum_path)
