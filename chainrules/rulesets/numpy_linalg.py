"""Rules for NumPy's linear algebra: products (dot, vdot, vecdot, inner, outer,
matmul and `@` on arrays, tensordot, einsum, kron, trace, cross, and the
ndarray methods dot and trace) and `numpy.linalg` (inv, det, slogdet, solve,
cholesky, qr, svd, svdvals, eigh, eigvalsh, norm, vector_norm, matrix_norm,
pinv, lstsq, matrix_power, and the NumPy 2 spellings matmul, tensordot,
cross, vecdot).

Conventions (ChainRules'; docs/conventions.md gathers them for every rule set):

- Complex arrays are treated as R²: the frule applies J, the pullback applies
  Jᵀ, which for holomorphic maps is the conjugate transpose of the derivative
  (matmul: Ā = Ȳ Bᴴ, B̄ = Aᴴ Ȳ).
- Stacked ("batched") matrices are supported wherever NumPy supports them;
  batch dimensions that broadcasting added are summed back by the shared
  `unbroadcast`.
- Functions that read ONE triangle of their argument (cholesky reads the lower
  triangle, or the upper one with ``upper=True``; eigh/eigvalsh read the
  triangle named by ``UPLO``; both use only the real part of the diagonal) are
  differentiated as the functions NumPy computes: the cotangent lives in that
  triangle, with a real diagonal, and the frule ignores the other triangle of
  the input tangent.  (ChainRules.jl gets the same answer through the
  `Hermitian(A, uplo)` rule.)
- Degenerate spectra.  The eigenvector (eigh) and singular-vector (svd)
  derivatives contain the "F matrix" F_ij = 1/(λ_j − λ_i) (λ = eigenvalues,
  or squared singular values for svd).  For a degenerate pair — |λ_j − λ_i| ≤
  100·n·eps·max|λ|, n the matrix size, eps that of the dtype — F_ij is set to
  zero (JAX's convention), so the rules never return inf/NaN.  The result is
  the exact derivative of every function of the decomposition that does not
  depend on the choice of basis inside a degenerate eigenspace (the spectrum,
  projectors, matrix functions, losses with equal weights on a degenerate
  cluster); for the vectors themselves no derivative exists there.  Likewise
  the 1/σ terms of the svd rule (non-square matrices, complex phases) are set
  to zero for σ below the same tolerance, as in a pseudo-inverse.
- Complex eigenvectors and singular vectors are defined only up to a phase
  per column; the rules fix the gauge as ChainRules does (Vᴴ dV has a zero
  diagonal for svd's V and eigh's V, Uᴴ dU gets the imaginary diagonal term).
  LAPACK may choose a different phase, so only phase-invariant functions of a
  complex U or V have a well-defined derivative.
- qr differentiates the reduced factorisation of a full-rank matrix (tall,
  square or wide); svd needs ``full_matrices=False`` (or a square matrix, or
  ``compute_uv=False``).
- `det` at a singular matrix uses the adjugate (computed by SVD), so the
  gradient stays exact; `norm`'s subgradients: max/min-type norms give the
  derivative to one extremal element (the first), `ord=0` is
  non-differentiable.
- `einsum` takes the subscripts form (a str first); the interleaved
  (operand, sublist) form has no rule (rrule/frule return None).
"""

import functools
import operator
import string
from collections import Counter

import numpy as np

from chainrules._core import (
    ProjectTo,
    Tangent,
    Thunk,
    Tracked,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    is_zero as _zero,
    named_rule,
    reject_out,
    unbroadcast,
    zero_for as _zero_for,
    seed,
    plain,
)


# ----- helpers ----------------------------------------------------------------

def _diff(x):
    """Is `x` an array or number with a tangent space (float or complex)?"""
    return np.asarray(x).dtype.kind in "fc"


if hasattr(np.ndarray, "mT"):     # NumPy >= 2: an attribute, much cheaper than swapaxes
    def _T(x):
        return x.mT

    def _H(x):
        return x.mT.conj()
else:  # pragma: no cover - NumPy 1.x
    def _T(x):
        return np.swapaxes(x, -1, -2)

    def _H(x):
        return np.swapaxes(x, -1, -2).conj()


def _diag(x):
    return np.diagonal(x, axis1=-2, axis2=-1)


def _diag_embed(d, dtype=None):
    k = d.shape[-1]
    out = np.zeros(d.shape + (k,), dtype=dtype or d.dtype)
    i = np.arange(k)
    out[..., i, i] = d
    return out


def _eye_like(x):
    return np.eye(x.shape[-1], dtype=x.dtype)


def _add(x, y):
    """x + y where either may be a zero tangent."""
    if _zero(x):
        return y
    if _zero(y):
        return x
    return x + y


def _bilinear_tangent(f, a, b, ȧ, ḃ, *args, **kw):
    """The pushforward of a bilinear f: f(ȧ, b) + f(a, ḃ), zeros skipped."""
    ȧ, ḃ = plain(unthunk(ȧ)), plain(unthunk(ḃ))
    a, b = plain(a), plain(b)
    ẏ = ZERO
    if not _zero(ȧ):
        ẏ = f(ȧ, b, *args, **kw)
    if not _zero(ḃ):
        ẏ = _add(ẏ, f(a, ḃ, *args, **kw))
    return ẏ


def _bilinear_frule(f, fname):
    """The frule of a bilinear f(a, b) without options: ẏ = f(ȧ, b) + f(a, ḃ)."""
    def bilinear_frule(tangents, a, b, **kw):
        if kw:
            reject_out(fname, kw)
        return f(a, b, **kw), _bilinear_tangent(f, a, b, tangents[1], tangents[2])
    return named_rule(bilinear_frule, fname.rsplit(".", 1)[1])


def _sum_tangents(ts):
    out = ZERO
    for t in ts:
        out = _add(out, t)
    return out


def _opts(fname, rest, kw, spec):
    """Values of the optional parameters `spec` ((name, default), …) from the
    extra positional arguments `rest` and the keywords `kw`."""
    if len(rest) > len(spec):
        raise TypeError(f"{fname}: takes at most {len(spec)} optional positional arguments, got {len(rest)}")
    vals = list(rest) + [kw.get(name, default) for name, default in spec[len(rest):]]
    for (name, _), r in zip(spec, rest):
        if name in kw:
            raise TypeError(f"{fname}: got multiple values for argument {name!r}")
    return vals


def _eps(dtype):
    dt = np.dtype(dtype)
    if dt.kind not in "fc":
        dt = np.dtype(float)
    return np.finfo(dt).eps


def _degeneracy_tol(lam):
    """Gap below which two eigenvalues (or squared singular values) count as
    degenerate: 100·n·eps·max|λ|, per stacked matrix (shape (..., 1, 1))."""
    n = max(lam.shape[-1], 1)
    scale = np.max(np.abs(lam), axis=-1, keepdims=True) if lam.shape[-1] else np.zeros(lam.shape[:-1] + (1,))
    return (100 * n * _eps(lam.dtype) * scale)[..., None]


def _inv_gaps(lam):
    """F_ij = 1/(λ_j − λ_i), zero on the diagonal and for degenerate pairs."""
    d = lam[..., None, :] - lam[..., :, None]
    degenerate = np.abs(d) <= _degeneracy_tol(lam)
    return np.where(degenerate, 0, 1 / np.where(degenerate, 1, d))


def _safe_inv(s):
    """1/σ, zero for σ at or below the degeneracy tolerance (pseudo-inverse)."""
    tol = np.max(np.abs(s), axis=-1, keepdims=True) * (100 * max(s.shape[-1], 1) * _eps(s.dtype)) \
        if s.shape[-1] else s
    small = np.abs(s) <= tol
    return np.where(small, 0, 1 / np.where(small, 1, s))


# =============================================================================
# matmul, operator.matmul
# =============================================================================

def _fit(x, g, p):
    """Project the cotangent g of x, summing broadcast batch dimensions."""
    return p(g if g.shape == x.shape else unbroadcast(x, g))


def _matmul_cotangents(ȳ, a, b, pa, pb):
    """(ā, b̄) for y = a @ b (NumPy's 1-d promotion and batch broadcasting)."""
    ȳ = np.asarray(ȳ)
    if a.ndim == 1 or b.ndim == 1:
        return _matmul_vector_cotangents(ȳ, a, b, pa, pb)

    def matmul_ā():
        return _fit(a, ȳ @ _H(b), pa)

    def matmul_b̄():
        return _fit(b, _H(a) @ ȳ, pb)

    return (Thunk(matmul_ā) if pa.kind else NO), (Thunk(matmul_b̄) if pb.kind else NO)


def _matmul_vector_cotangents(ȳ, a, b, pa, pb):
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    ȳ2 = ȳ
    if b.ndim == 1:
        ȳ2 = np.expand_dims(ȳ2, -1)
    if a.ndim == 1:
        ȳ2 = np.expand_dims(ȳ2, -2)

    def matmul_ā():
        return pa(unbroadcast(a2, ȳ2 @ _H(b2)).reshape(a.shape))

    def matmul_b̄():
        return pb(unbroadcast(b2, _H(a2) @ ȳ2).reshape(b.shape))

    return (Thunk(matmul_ā) if pa.kind else NO), (Thunk(matmul_b̄) if pb.kind else NO)


def _matmul_kw(fname, kw):
    if kw:
        reject_out(fname, kw, "axes", "axis", "signature", "where")


@register_frule(np.matmul, object, object)
@register_frule(np.linalg.matmul, object, object)
@register_frule(operator.matmul, np.ndarray, object)
@register_frule(operator.matmul, object, np.ndarray)
def matmul_frule(tangents, a, b, **kw):
    _matmul_kw("numpy.matmul", kw)
    _, ȧ, ḃ = tangents
    y = np.matmul(a, b, **kw)
    return y, _bilinear_tangent(np.matmul, a, b, ȧ, ḃ)


@register_rrule(np.matmul, object, object)
@register_rrule(np.linalg.matmul, object, object)
def matmul_rrule(a, b, **kw):
    _matmul_kw("numpy.matmul", kw)
    pa, pb = ProjectTo(a), ProjectTo(b)
    # a tracked a or b (the rule differentiated by chainrules.ad) as it is: NumPy's functions track it
    a = a if isinstance(a, Tracked) else np.asarray(a)
    b = b if isinstance(b, Tracked) else np.asarray(b)
    y = np.matmul(a, b, **kw) if kw else a @ b

    def matmul_pullback(ȳ):
        ȳ = seed(ȳ, 'matmul')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        return (NO,) + _matmul_cotangents(ȳ, a, b, pa, pb)

    return y, matmul_pullback


@register_rrule(operator.matmul, np.ndarray, object)
@register_rrule(operator.matmul, object, np.ndarray)
def operator_matmul_rrule(a, b):
    return matmul_rrule(a, b)


# x.__matmul__(y) is x @ y; the reflected x.__rmatmul__(y) is y @ x
register_frule(np.ndarray.__matmul__, np.ndarray, object)(matmul_frule)
register_rrule(np.ndarray.__matmul__, np.ndarray, object)(operator_matmul_rrule)


@register_frule(np.ndarray.__rmatmul__, np.ndarray, object)
def rmatmul_frule(tangents, x, y):
    return matmul_frule((tangents[0], tangents[2], tangents[1]), y, x)


@register_rrule(np.ndarray.__rmatmul__, np.ndarray, object)
def rmatmul_rrule(x, y):
    Ω, matmul_pullback = matmul_rrule(y, x)

    def rmatmul_pullback(ȳ):
        ȳ = seed(ȳ, 'rmatmul')
        s, ȳ_y, x̄ = matmul_pullback(ȳ)
        return s, x̄, ȳ_y
    return Ω, rmatmul_pullback


# =============================================================================
# tensordot (and the contractions built on it: dot, inner)
# =============================================================================

def _tensordot_axes(a, b, axes):
    """Normalised (ia, ib) lists of contracted axes."""
    try:
        n = operator.index(axes)
    except TypeError:
        ia, ib = axes
        ia = [ia] if np.ndim(ia) == 0 else list(ia)
        ib = [ib] if np.ndim(ib) == 0 else list(ib)
    else:
        ia = list(range(a.ndim - n, a.ndim))
        ib = list(range(n))
    ia = [int(i) % a.ndim if a.ndim else int(i) for i in ia]
    ib = [int(i) % b.ndim if b.ndim else int(i) for i in ib]
    return ia, ib


def _tensordot_ā(ȳ, a, b, ia, ib):
    fa = [i for i in range(a.ndim) if i not in ia]
    fb = [j for j in range(b.ndim) if j not in ib]
    nfa = len(fa)
    g = np.tensordot(ȳ, b.conj(), axes=(list(range(nfa, nfa + len(fb))), fb))
    src = fa + [ia[ib.index(j)] for j in sorted(ib)]
    return np.transpose(g, np.argsort(src)) if src != sorted(src) else g


def _tensordot_b̄(ȳ, a, b, ia, ib):
    fa = [i for i in range(a.ndim) if i not in ia]
    fb = [j for j in range(b.ndim) if j not in ib]
    g = np.tensordot(a.conj(), ȳ, axes=(fa, list(range(len(fa)))))
    src = [ib[ia.index(i)] for i in sorted(ia)] + fb
    return np.transpose(g, np.argsort(src)) if src != sorted(src) else g


def _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb):
    ȳ = np.asarray(ȳ)

    def tensordot_ā():
        return pa(_tensordot_ā(ȳ, a, b, ia, ib))

    def tensordot_b̄():
        return pb(_tensordot_b̄(ȳ, a, b, ia, ib))

    return (Thunk(tensordot_ā) if pa.kind else NO), (Thunk(tensordot_b̄) if pb.kind else NO)


@register_frule(np.tensordot, object, object, ...)
@register_frule(np.linalg.tensordot, object, object)
def tensordot_frule(tangents, a, b, *rest, **kw):
    axes, = _opts("numpy.tensordot", rest, kw, (("axes", 2),))
    _, ȧ, ḃ = tangents[:3]
    y = np.tensordot(a, b, axes)
    return y, _bilinear_tangent(np.tensordot, a, b, ȧ, ḃ, axes)


@register_rrule(np.tensordot, object, object, ...)
@register_rrule(np.linalg.tensordot, object, object)
def tensordot_rrule(a, b, *rest, **kw):
    axes, = _opts("numpy.tensordot", rest, kw, (("axes", 2),))
    pa, pb = ProjectTo(a), ProjectTo(b)
    # a tracked a or b (the rule differentiated by chainrules.ad) as it is: NumPy's functions track it
    a = a if isinstance(a, Tracked) else np.asarray(a)
    b = b if isinstance(b, Tracked) else np.asarray(b)
    y = np.tensordot(a, b, axes)
    ia, ib = _tensordot_axes(a, b, axes)
    nrest = (NO,) * len(rest)

    def tensordot_pullback(ȳ):
        ȳ = seed(ȳ, 'tensordot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb) + nrest

    return y, tensordot_pullback


# =============================================================================
# dot
# =============================================================================

def _dot_axes(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return [], []
    return [a.ndim - 1], [max(b.ndim - 2, 0)]


dot_frule = _bilinear_frule(np.dot, "numpy.dot")
register_frule(np.dot, object, object)(dot_frule)
register_frule(np.ndarray.dot, np.ndarray, object)(dot_frule)


@register_rrule(np.dot, object, object)
@register_rrule(np.ndarray.dot, np.ndarray, object)
def dot_rrule(a, b, **kw):
    reject_out("numpy.dot", kw)
    pa, pb = ProjectTo(a), ProjectTo(b)
    # a tracked a or b (the rule differentiated by chainrules.ad) as it is: NumPy's functions track it
    a = a if isinstance(a, Tracked) else np.asarray(a)
    b = b if isinstance(b, Tracked) else np.asarray(b)
    y = np.dot(a, b)
    as_matmul = 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2
    ia, ib = _dot_axes(a, b)

    def dot_pullback(ȳ):
        ȳ = seed(ȳ, 'dot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        if as_matmul:
            return (NO,) + _matmul_cotangents(ȳ, a, b, pa, pb)
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb)

    return y, dot_pullback


# =============================================================================
# inner
# =============================================================================

inner_frule = _bilinear_frule(np.inner, "numpy.inner")
register_frule(np.inner, object, object)(inner_frule)


@register_rrule(np.inner, object, object)
def inner_rrule(a, b):
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b = np.asarray(a), np.asarray(b)
    y = np.inner(a, b)
    if a.ndim == 0 or b.ndim == 0:
        ia, ib = [], []
    else:
        ia, ib = [a.ndim - 1], [b.ndim - 1]

    def inner_pullback(ȳ):
        ȳ = seed(ȳ, 'inner')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        return (NO,) + _tensordot_pullback_parts(ȳ, a, b, ia, ib, pa, pb)

    return y, inner_pullback


# =============================================================================
# vdot: conj(a)·b over the flattened arrays (antilinear in a)
# =============================================================================

vdot_frule = _bilinear_frule(np.vdot, "numpy.vdot")
register_frule(np.vdot, object, object)(vdot_frule)


@register_rrule(np.vdot, object, object)
def vdot_rrule(a, b):
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b = np.asarray(a), np.asarray(b)
    y = np.vdot(a, b)

    def vdot_pullback(ȳ):
        ȳ = seed(ȳ, 'vdot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        # y = Σ conj(a)·b:  ā = b·conj(ȳ),  b̄ = a·ȳ
        ā = Thunk(lambda: pa((b * np.conj(ȳ)).reshape(a.shape))) if pa.kind else NO
        b̄ = Thunk(lambda: pb((a * ȳ).reshape(b.shape))) if pb.kind else NO
        return NO, ā, b̄

    return y, vdot_pullback


# =============================================================================
# vecdot (numpy.vecdot, numpy.linalg.vecdot): Σ conj(x1)·x2 along an axis
# =============================================================================

def _vecdot_axis(kw):
    reject_out("numpy.vecdot", kw, "axes", "keepdims", "signature", "where")
    return kw.get("axis", -1)


@register_frule(np.linalg.vecdot, object, object)
def vecdot_frule(tangents, x1, x2, **kw):
    _vecdot_axis(kw)
    y = np.linalg.vecdot(x1, x2, **kw)
    return y, _bilinear_tangent(np.linalg.vecdot, x1, x2, tangents[1], tangents[2], **kw)


@register_rrule(np.linalg.vecdot, object, object)
def vecdot_rrule(x1, x2, **kw):
    axis = _vecdot_axis(kw)
    p1, p2 = ProjectTo(x1), ProjectTo(x2)
    x1 = x1 if isinstance(x1, Tracked) else np.asarray(x1)      # tracked: as it is (see matmul_rrule)
    x2 = x2 if isinstance(x2, Tracked) else np.asarray(x2)
    y = np.linalg.vecdot(x1, x2, **kw)

    def vecdot_pullback(ȳ):
        ȳ = seed(ȳ, 'vecdot')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(p1), _zero_for(p2)
        # y = Σ conj(x1)·x2:  x̄1 = x2·conj(ȳ),  x̄2 = x1·ȳ  (ȳ spread along the axis)
        nd = max(x1.ndim, x2.ndim)
        ȳe = np.expand_dims(np.asarray(ȳ), axis % nd if nd else axis)
        x̄1 = Thunk(lambda: p1(unbroadcast(x1, x2 * ȳe.conj()))) if p1.kind else NO
        x̄2 = Thunk(lambda: p2(unbroadcast(x2, x1 * ȳe))) if p2.kind else NO
        return NO, x̄1, x̄2

    return y, vecdot_pullback


if isinstance(getattr(np, "vecdot", None), np.ufunc):      # NumPy >= 2.0
    register_frule(np.vecdot, object, object)(vecdot_frule)
    register_rrule(np.vecdot, object, object)(vecdot_rrule)


# =============================================================================
# outer (flattens its arguments)
# =============================================================================

def _outer_rrule(f, fname):
    """The rrule of np.outer, or of np.linalg.outer (the same for 1-d
    arguments, an error for others): f computes Ω."""
    def outer_rrule(a, b, **kw):
        reject_out(fname, kw)
        pa, pb = ProjectTo(a), ProjectTo(b)
        a, b = np.asarray(a), np.asarray(b)
        y = f(a, b)
        return y, _outer_pullback(pa, pb, a, b)
    return named_rule(outer_rrule, "outer")


def _outer_pullback(pa, pb, a, b):

    def outer_pullback(ȳ):
        ȳ = seed(ȳ, 'outer')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        ȳ = np.asarray(ȳ)
        ā = Thunk(lambda: pa((ȳ @ b.ravel().conj()).reshape(a.shape))) if pa.kind else NO
        b̄ = Thunk(lambda: pb((a.ravel().conj() @ ȳ).reshape(b.shape))) if pb.kind else NO
        return NO, ā, b̄

    return outer_pullback


register_frule(np.outer, object, object)(_bilinear_frule(np.outer, "numpy.outer"))
register_rrule(np.outer, object, object)(_outer_rrule(np.outer, "numpy.outer"))
if hasattr(np.linalg, "outer"):      # NumPy >= 2
    register_frule(np.linalg.outer, object, object)(_bilinear_frule(np.linalg.outer, "numpy.linalg.outer"))
    register_rrule(np.linalg.outer, object, object)(_outer_rrule(np.linalg.outer, "numpy.linalg.outer"))


# =============================================================================
# einsum (subscripts form; any operands, implicit or explicit output)
# =============================================================================

class _EinsumPlan:
    """A parsed einsum: explicit input subscripts with the ellipsis replaced
    by fresh letters, the explicit output subscripts, and per operand the
    einsum that gives its cotangent.  Plans are cached by (subscripts,
    operand dimensions)."""

    def __init__(self, subscripts, ndims):
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

    def _plan(self, k):
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

    def cotangent(self, k, ȳ, operands, optimize):
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
            g = np.array(np.broadcast_to(g, ushape))
        if diagonal is None:
            return g
        full = np.zeros(op.shape, dtype=np.result_type(g.dtype, op.dtype))
        np.einsum(diagonal, full)[...] = g       # einsum gives a writeable view of the diagonal
        return full


@functools.lru_cache(maxsize=512)
def _einsum_plan(subscripts, ndims):
    return _EinsumPlan(subscripts, ndims)


def _einsum_kw(kw):
    if not kw:
        return False
    reject_out("numpy.einsum", kw)
    return kw.get("optimize", False)


@register_frule(np.einsum, str, ...)
def einsum_frule(tangents, subscripts, *operands, **kw):
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
def einsum_rrule(subscripts, *operands, **kw):
    optimize = _einsum_kw(kw)
    projs = [ProjectTo(op) for op in operands]
    ops = [np.asarray(op) for op in operands]
    y = np.einsum(subscripts, *ops, **kw)
    parsed = _einsum_plan(subscripts, tuple(op.ndim for op in ops))

    def einsum_pullback(ȳ):
        ȳ = seed(ȳ, 'einsum')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, NO) + tuple(_zero_for(p) for p in projs)
        ȳ = np.asarray(ȳ)

        def operand_cotangent(k):
            p = projs[k]
            if not p.kind:
                return NO
            return Thunk(lambda: p(parsed.cotangent(k, ȳ, ops, optimize)))

        return (NO, NO) + tuple(operand_cotangent(k) for k in range(len(ops)))

    return y, einsum_pullback


# =============================================================================
# kron
# =============================================================================

def _kron_shapes(a, b):
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    return nd, sa, sb


kron_frule = _bilinear_frule(np.kron, "numpy.kron")
register_frule(np.kron, object, object)(kron_frule)


@register_rrule(np.kron, object, object)
def kron_rrule(a, b):
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b = np.asarray(a), np.asarray(b)
    y = np.kron(a, b)
    nd, sa, sb = _kron_shapes(a, b)

    def kron_pullback(ȳ):
        ȳ = seed(ȳ, 'kron')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        # y[i0*p0+k0, …] = a[i0, …]·b[k0, …]: view ȳ as (a0, b0, a1, b1, …)
        ȳ4 = np.reshape(ȳ, [d for pair in zip(sa, sb) for d in pair])
        ev, od = list(range(0, 2 * nd, 2)), list(range(1, 2 * nd, 2))

        def kron_ā():
            return pa(np.tensordot(ȳ4, b.reshape(sb).conj(), axes=(od, list(range(nd)))).reshape(a.shape))

        def kron_b̄():
            return pb(np.tensordot(a.reshape(sa).conj(), ȳ4, axes=(list(range(nd)), ev)).reshape(b.shape))

        return NO, (Thunk(kron_ā) if pa.kind else NO), (Thunk(kron_b̄) if pb.kind else NO)

    return y, kron_pullback


# =============================================================================
# trace
# =============================================================================

_TRACE_SPEC = (("offset", 0), ("axis1", 0), ("axis2", 1), ("dtype", None))


@register_frule(np.trace, object, ...)
@register_frule(np.ndarray.trace, np.ndarray, ...)
def trace_frule(tangents, a, *rest, **kw):
    reject_out("numpy.trace", kw)
    offset, axis1, axis2, dtype = _opts("numpy.trace", rest, kw, _TRACE_SPEC)
    y = np.trace(a, offset, axis1, axis2, dtype)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    return y, np.trace(ȧ, offset, axis1, axis2)


@register_rrule(np.trace, object, ...)
@register_rrule(np.ndarray.trace, np.ndarray, ...)
def trace_rrule(a, *rest, **kw):
    reject_out("numpy.trace", kw)
    offset, axis1, axis2, dtype = _opts("numpy.trace", rest, kw, _TRACE_SPEC)
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.trace(a, offset, axis1, axis2, dtype)
    nrest = (NO,) * len(rest)

    def trace_pullback(ȳ):
        ȳ = seed(ȳ, 'trace')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or not pa.kind:
            return (NO, _zero_for(pa)) + nrest

        def trace_ā():
            ā = np.zeros(a.shape, dtype=np.result_type(a.dtype, np.asarray(ȳ).dtype))
            m = np.moveaxis(ā, (axis1, axis2), (-2, -1))   # a view
            r, c = m.shape[-2:]
            i = np.arange(max(0, min(r + min(offset, 0), c - max(offset, 0))))
            m[..., i - min(offset, 0), i + max(offset, 0)] = np.asarray(ȳ)[..., None]
            return pa(ā)

        return (NO, Thunk(trace_ā)) + nrest

    return y, trace_pullback


if hasattr(np.linalg, "trace"):      # NumPy >= 2: the trace of the last two axes
    @register_frule(np.linalg.trace, object)
    def linalg_trace_frule(tangents, x, *, offset=0, dtype=None):
        return trace_frule(tangents[:2], x, offset, -2, -1, dtype)

    @register_rrule(np.linalg.trace, object)
    def linalg_trace_rrule(x, *, offset=0, dtype=None):
        return trace_rrule(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


# =============================================================================
# cross (3-vectors; NumPy 2 deprecates 2-vectors, which get no rule)
# =============================================================================

_CROSS_SPEC = (("axisa", -1), ("axisb", -1), ("axisc", -1), ("axis", None))


def _cross_axes(a, b, rest, kw):
    axisa, axisb, axisc, axis = _opts("numpy.cross", rest, kw, _CROSS_SPEC)
    if axis is not None:
        axisa = axisb = axisc = axis
    try:
        three = np.shape(a)[axisa] == 3 and np.shape(b)[axisb] == 3
    except IndexError:          # no such axis (a 0-d argument): no rule; the primal raises
        return None
    if not three:
        return None
    return axisa, axisb, axisc


@register_frule(np.cross, object, object, ...)
@register_frule(np.linalg.cross, object, object)
def cross_frule(tangents, a, b, *rest, **kw):
    axes = _cross_axes(a, b, rest, kw)
    if axes is None:
        return None
    axisa, axisb, axisc = axes
    y = np.cross(a, b, axisa, axisb, axisc)
    return y, _bilinear_tangent(np.cross, a, b, tangents[1], tangents[2], axisa, axisb, axisc)


@register_rrule(np.cross, object, object, ...)
@register_rrule(np.linalg.cross, object, object)
def cross_rrule(a, b, *rest, **kw):
    axes = _cross_axes(a, b, rest, kw)
    if axes is None:
        return None
    axisa, axisb, axisc = axes
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b = np.asarray(a), np.asarray(b)
    y = np.cross(a, b, axisa, axisb, axisc)
    nrest = (NO,) * len(rest)
    a3, b3 = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)

    def cross_pullback(ȳ):
        ȳ = seed(ȳ, 'cross')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        ȳ3 = np.moveaxis(np.asarray(ȳ), axisc, -1)

        # Jᵀ of a ↦ a × b is c̄ ↦ conj(b) × c̄;  of b ↦ a × b: c̄ ↦ c̄ × conj(a)
        def cross_ā():
            return pa(np.moveaxis(unbroadcast(a3, np.cross(b3.conj(), ȳ3)), -1, axisa))

        def cross_b̄():
            return pb(np.moveaxis(unbroadcast(b3, np.cross(ȳ3, a3.conj())), -1, axisb))

        return (NO, (Thunk(cross_ā) if pa.kind else NO), (Thunk(cross_b̄) if pb.kind else NO)) + nrest

    return y, cross_pullback


# =============================================================================
# linalg.inv
# =============================================================================

@register_frule(np.linalg.inv, object)
def inv_frule(tangents, a):
    y = np.linalg.inv(a)
    if type(y) is not np.ndarray:
        return y, inv_frule(tangents, plain(a))[1]
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    return y, -(y @ ȧ @ y)


@register_rrule(np.linalg.inv, object)
def inv_rrule(a):
    pa = ProjectTo(a)
    y = np.linalg.inv(a)

    def inv_pullback(ȳ):
        ȳ = seed(ȳ, 'inv')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        yh = _H(y)
        return NO, Thunk(lambda: pa(-(yh @ ȳ @ yh)))

    return y, inv_pullback


# =============================================================================
# linalg.det
# =============================================================================

def _exclusive_prod(s):
    """p_i = Π_{j≠i} s_j along the last axis, without division."""
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return left * right


def _cofactor(a, d):
    """∂det(a)/∂a = adj(a)ᵀ, by the inverse where a is invertible and by the
    SVD otherwise (exact at singular matrices too)."""
    d = np.asarray(d)
    if np.all(d != 0) and np.all(np.isfinite(d)):
        try:
            return d[..., None, None] * _T(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            pass
    # adj(U S Vh) = det(U)·det(Vh) · Vhᴴ diag(Π_{j≠i} s_j) Uᴴ
    u, s, vh = np.linalg.svd(a)
    phase = np.linalg.det(u) * np.linalg.det(vh)
    adj = phase[..., None, None] * (_H(vh) * _exclusive_prod(s)[..., None, :]) @ _H(u)
    return _T(adj)


@register_frule(np.linalg.det, object)
def det_frule(tangents, a):
    a = np.asarray(a)
    y = np.linalg.det(a)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    return y, np.sum(_cofactor(a, y) * ȧ, axis=(-2, -1))


@register_rrule(np.linalg.det, object)
def det_rrule(a):
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.linalg.det(a)

    def det_pullback(ȳ):
        ȳ = seed(ȳ, 'det')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        ȳ = np.asarray(ȳ)
        return NO, Thunk(lambda: pa(ȳ[..., None, None] * _cofactor(a, y).conj()))

    return y, det_pullback


# =============================================================================
# linalg.slogdet  ->  SlogdetResult(sign, logabsdet)
# =============================================================================

@register_frule(np.linalg.slogdet, object)
def slogdet_frule(tangents, a):
    a = np.asarray(a)
    y = np.linalg.slogdet(a)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    t = np.sum(_T(np.linalg.inv(a)) * ȧ, axis=(-2, -1))    # tr(a⁻¹ ȧ)
    ṡ = y.sign * 1j * t.imag if a.dtype.kind == "c" else ZERO
    return y, Tangent[type(y)](sign=ṡ, logabsdet=np.real(t))


@register_rrule(np.linalg.slogdet, object)
def slogdet_rrule(a):
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.linalg.slogdet(a)
    is_complex = a.dtype.kind == "c"

    def slogdet_pullback(ȳ):
        ȳ = seed(ȳ, 'slogdet')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        s̄, l̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        # logabsdet = Re log det, sign = exp(i·Im log det); the gradient of
        # log det is a⁻ᵀ, so ā = (l̄ + i·θ̄)·a⁻ᴴ with θ̄ = Im(conj(sign)·s̄).
        c = np.zeros(np.shape(y.logabsdet)) if _zero(l̄) else np.asarray(l̄, dtype=float)
        if is_complex and not _zero(s̄):
            c = c + 1j * np.imag(np.conj(y.sign) * s̄)
        if _zero(l̄) and not (is_complex and not _zero(s̄)):
            return NO, _zero_for(pa)
        return NO, Thunk(lambda: pa(np.asarray(c)[..., None, None] * _H(np.linalg.inv(a))))

    return y, slogdet_pullback


# =============================================================================
# linalg.solve
# =============================================================================

_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _solve_is_vector(a, b):
    return b.ndim == 1 if _NUMPY2 else (b.ndim == 1 or b.ndim == a.ndim - 1)


@register_frule(np.linalg.solve, object, object)
def solve_frule(tangents, a, b):
    a, b = np.asarray(a), np.asarray(b)
    y = np.linalg.solve(a, b)
    ȧ, ḃ = plain(unthunk(tangents[1])), unthunk(tangents[2])
    if _zero(ȧ) and _zero(ḃ):
        return y, ZERO
    vec = _solve_is_vector(a, b)
    y2 = y[..., None] if vec else y
    rhs = ZERO if _zero(ḃ) else (np.asarray(ḃ)[..., None] if vec else ḃ)
    if not _zero(ȧ):
        rhs = _add(rhs, -(ȧ @ y2))
    ẏ = np.linalg.solve(a, np.broadcast_to(rhs, np.broadcast_shapes(np.shape(rhs), y2.shape)))
    return y, (ẏ[..., 0] if vec else ẏ)


@register_rrule(np.linalg.solve, object, object)
def solve_rrule(a, b):
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b = np.asarray(a), np.asarray(b)
    y = np.linalg.solve(a, b)
    vec = _solve_is_vector(a, b)
    b2 = b[..., None] if vec else b
    y2 = y[..., None] if vec else y

    def solve_pullback(ȳ):
        ȳ = seed(ȳ, 'solve')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa), _zero_for(pb)
        ȳ2 = np.asarray(ȳ)[..., None] if vec else np.asarray(ȳ)
        # b̄ = a⁻ᴴ ȳ is needed by both cotangents: compute it once, on demand.
        cache = []

        def solve_ȳ():
            if not cache:
                rhs = ȳ2 if ȳ2.shape == y2.shape else np.broadcast_to(ȳ2, y2.shape)
                cache.append(np.linalg.solve(_H(a), rhs))
            return cache[0]

        def solve_ā():
            return _fit(a, -(solve_ȳ() @ _H(y2)), pa)

        def solve_b̄():
            g = solve_ȳ()
            g = g if g.shape == b2.shape else unbroadcast(b2, g)
            return pb(g.reshape(b.shape) if vec else g)

        return NO, (Thunk(solve_ā) if pa.kind else NO), (Thunk(solve_b̄) if pb.kind else NO)

    return y, solve_pullback


# =============================================================================
# linalg.cholesky (reads the lower triangle; the upper one with upper=True)
# =============================================================================

def _phi(x):
    """Lower triangle with the diagonal halved."""
    out = np.tril(x)
    d = _diag(out)
    i = np.arange(x.shape[-1])
    out[..., i, i] = d / 2
    return out


def _hermitian_from_lower(x):
    """The Hermitian matrix NumPy reads from the lower triangle of x."""
    low = np.tril(x, -1)
    return low + _H(low) + _diag_embed(_diag(x).real, dtype=x.dtype)


def _lower_adjoint(g):
    """Adjoint of `_hermitian_from_lower`: a lower-triangular cotangent with a
    real diagonal."""
    return np.tril(g + _H(g), -1) + _diag_embed(_diag(g).real, dtype=g.dtype)


def _cholesky_lower_pushforward(L, ȧ):
    Linv = np.linalg.inv(L)
    return L @ _phi(Linv @ _hermitian_from_lower(ȧ) @ _H(Linv))


def _cholesky_lower_pullback(L, L̄):
    Linv = np.linalg.inv(L)
    g = _H(Linv) @ _phi(_H(L) @ L̄) @ Linv
    return _lower_adjoint(g)


@register_frule(np.linalg.cholesky, object)
def cholesky_frule(tangents, a, **kw):
    upper = kw.get("upper", False)
    y = np.linalg.cholesky(a, **kw)
    if type(y) is not np.ndarray:
        return y, cholesky_frule(tangents, plain(a), **kw)[1]
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    if upper:
        return y, _H(_cholesky_lower_pushforward(_H(y), _H(np.asarray(ȧ))))
    return y, _cholesky_lower_pushforward(y, np.asarray(ȧ))


@register_rrule(np.linalg.cholesky, object)
def cholesky_rrule(a, **kw):
    upper = kw.get("upper", False)
    pa = ProjectTo(a)
    y = np.linalg.cholesky(a, **kw)

    def cholesky_pullback(ȳ):
        ȳ = seed(ȳ, 'cholesky')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return NO, _zero_for(pa)
        ȳ = np.asarray(ȳ)
        if upper:
            return NO, Thunk(lambda: pa(_H(_cholesky_lower_pullback(_H(y), _H(ȳ)))))
        return NO, Thunk(lambda: pa(_cholesky_lower_pullback(y, ȳ)))

    return y, cholesky_pullback


# =============================================================================
# linalg.qr  ->  QRResult(Q, R) (mode='reduced'), or R (mode='r')
# =============================================================================

def _qr_mode(a, rest, kw):
    mode, = _opts("numpy.linalg.qr", rest, kw, (("mode", "reduced"),))
    shape = np.shape(a)         # fewer than 2 dimensions: the primal raises LinAlgError
    if mode == "complete" and len(shape) >= 2 and shape[-2] <= shape[-1]:
        return "reduced"
    if mode not in ("reduced", "r"):
        raise ValueError(f"numpy.linalg.qr: the rule differentiates mode='reduced' and mode='r' "
                         f"(and 'complete' for wide matrices), not mode={mode!r}")
    return mode


def _qr_square_pushforward(Q, R, ȧ):
    """(Q̇, Ṙ) of a = QR with m ≥ n and LAPACK's real diagonal of R."""
    Y = ȧ @ np.linalg.inv(R)
    X = _H(Q) @ Y
    low = np.tril(X, -1)
    Ω = low - _H(low)
    if X.dtype.kind == "c":
        Ω = Ω + _diag_embed(1j * _diag(X).imag, dtype=X.dtype)
    return Q @ (Ω - X) + Y, (X - Ω) @ R


def _qr_square_pullback(Q, R, Q̄, R̄):
    W = ZERO
    if not _zero(R̄):
        W = R̄ @ _H(R)
    if not _zero(Q̄):
        W = _add(W, -(_H(Q) @ Q̄))
    # Z = W − Ω*(W), Ω*(W) = tril(W,−1) − tril(Wᴴ,−1) + i·Im diag(W)
    Z = np.triu(W, 1) + np.tril(_H(W), -1) + _diag_embed(_diag(W).real, dtype=W.dtype)
    Ȳ = Q @ Z if _zero(Q̄) else Q̄ + Q @ Z
    return _H(np.linalg.solve(R, _H(Ȳ)))     # Ȳ R⁻ᴴ


def _qr_pushforward(Q, R, a, ȧ):
    m, n = a.shape[-2:]
    if m >= n:
        return _qr_square_pushforward(Q, R, ȧ)
    Q̇, Ṙ1 = _qr_square_pushforward(Q, R[..., :, :m], ȧ[..., :, :m])
    Ṙ2 = _H(Q̇) @ a[..., :, m:] + _H(Q) @ ȧ[..., :, m:]
    return Q̇, np.concatenate([Ṙ1, Ṙ2], axis=-1)


def _qr_pullback(Q, R, a, Q̄, R̄):
    m, n = a.shape[-2:]
    if m >= n:
        return _qr_square_pullback(Q, R, Q̄, R̄)
    a2 = a[..., :, m:]
    R̄1, R̄2 = (ZERO, ZERO) if _zero(R̄) else (R̄[..., :, :m], R̄[..., :, m:])
    if not _zero(R̄2):
        Q̄ = _add(Q̄, a2 @ _H(R̄2))
    ā1 = _qr_square_pullback(Q, R[..., :, :m], Q̄, R̄1)
    ā2 = np.zeros(a2.shape, dtype=ā1.dtype) if _zero(R̄2) else Q @ R̄2
    return np.concatenate([ā1, ā2], axis=-1)


@register_frule(np.linalg.qr, object, ...)
def qr_frule(tangents, a, *rest, **kw):
    mode = _qr_mode(a, rest, kw)
    a = np.asarray(a)
    y = np.linalg.qr(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    Q, R = (y.Q, y.R) if mode == "reduced" else np.linalg.qr(a)
    Q̇, Ṙ = _qr_pushforward(Q, R, a, np.asarray(ȧ))
    return y, (Tangent[type(y)](Q=Q̇, R=Ṙ) if mode == "reduced" else Ṙ)


@register_rrule(np.linalg.qr, object, ...)
def qr_rrule(a, *rest, **kw):
    mode = _qr_mode(a, rest, kw)
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.linalg.qr(a, *rest, **kw)
    Q, R = (y.Q, y.R) if mode == "reduced" else np.linalg.qr(a)
    nrest = (NO,) * len(rest)

    def qr_pullback(ȳ):
        ȳ = seed(ȳ, 'qr')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        if mode == "reduced":
            Q̄, R̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        else:
            Q̄, R̄ = ZERO, ȳ
        if _zero(Q̄) and _zero(R̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_qr_pullback(Q, R, a, Q̄, R̄)))) + nrest

    return y, qr_pullback


# =============================================================================
# linalg.svd  ->  SVDResult(U, S, Vh), or S with compute_uv=False
# =============================================================================

_SVD_SPEC = (("full_matrices", True), ("compute_uv", True), ("hermitian", False))


def _svd_opts(a, rest, kw):
    full, uv, herm = _opts("numpy.linalg.svd", rest, kw, _SVD_SPEC)
    if herm:
        raise ValueError("numpy.linalg.svd: the rule cannot honour hermitian=True; call it without")
    shape = np.shape(a)         # fewer than 2 dimensions: the primal raises LinAlgError
    if uv and full and len(shape) >= 2 and shape[-2] != shape[-1]:
        raise ValueError("numpy.linalg.svd: the rule differentiates the thin SVD; pass "
                         "full_matrices=False (the extra columns of U or V are not unique)")
    return uv


def _svd_pushforward(U, s, Vh, ȧ, need_uv):
    V = _H(Vh)
    dP = _H(U) @ ȧ @ V
    ṡ = _diag(dP).real
    if not need_uv:
        return None, ṡ, None
    m, n = U.shape[-2], V.shape[-2]
    k = s.shape[-1]
    F = _inv_gaps(s * s)
    sinv = _safe_inv(s)
    ΩU = F * (dP * s[..., None, :] + s[..., :, None] * _H(dP))
    ΩV = F * (s[..., :, None] * dP + _H(dP) * s[..., None, :])
    if dP.dtype.kind == "c":
        ΩU = ΩU + _diag_embed(1j * _diag(dP).imag * sinv, dtype=dP.dtype)
    U̇ = U @ ΩU
    V̇ = V @ ΩV
    if m > k:
        U̇ = U̇ + (ȧ @ V - U @ dP) * sinv[..., None, :]
    if n > k:
        V̇ = V̇ + (_H(ȧ) @ U - V @ _H(dP)) * sinv[..., None, :]
    return U̇, ṡ, _H(V̇)


def _svd_pullback(U, s, Vh, Ū, s̄, V̄h):
    V = _H(Vh)
    m, n = U.shape[-2], V.shape[-2]
    k = s.shape[-1]
    dtype = np.result_type(U.dtype, *[np.asarray(t).dtype for t in (Ū, s̄, V̄h) if not _zero(t)])
    M = np.zeros(s.shape + (k,), dtype=dtype)
    if not _zero(s̄):
        M = M + _diag_embed(np.asarray(s̄).astype(dtype))
    if not (_zero(Ū) and _zero(V̄h)):
        F = _inv_gaps(s * s)
        sinv = _safe_inv(s)
    if not _zero(Ū):
        UŪ = _H(U) @ Ū
        J = F * UŪ
        M = M + (J + _H(J)) * s[..., None, :]
        if dtype.kind == "c":
            M = M + _diag_embed(1j * _diag(UŪ).imag * sinv, dtype=dtype)
    if not _zero(V̄h):
        V̄ = _H(V̄h)
        K = F * (_H(V) @ V̄)
        M = M + s[..., :, None] * (K + _H(K))
    ā = U @ M @ Vh
    if not _zero(Ū) and m > k:
        ā = ā + ((Ū - U @ UŪ) * sinv[..., None, :]) @ Vh
    if not _zero(V̄h) and n > k:
        ā = ā + U @ (sinv[..., :, None] * (V̄h - (V̄h @ V) @ Vh))
    return ā


@register_frule(np.linalg.svd, object, ...)
def svd_frule(tangents, a, *rest, **kw):
    uv = _svd_opts(a, rest, kw)
    a = np.asarray(a)
    y = np.linalg.svd(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    U, s, Vh = (y.U, y.S, y.Vh) if uv else np.linalg.svd(a, full_matrices=False)
    U̇, ṡ, V̇h = _svd_pushforward(U, s, Vh, np.asarray(ȧ), uv)
    return y, (Tangent[type(y)](U=U̇, S=ṡ, Vh=V̇h) if uv else ṡ)


@register_rrule(np.linalg.svd, object, ...)
def svd_rrule(a, *rest, **kw):
    uv = _svd_opts(a, rest, kw)
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.linalg.svd(a, *rest, **kw)
    U, s, Vh = (y.U, y.S, y.Vh) if uv else np.linalg.svd(a, full_matrices=False)
    nrest = (NO,) * len(rest)

    def svd_pullback(ȳ):
        ȳ = seed(ȳ, 'svd')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        if uv:
            Ū, s̄, V̄h = unthunk(ȳ[0]), unthunk(ȳ[1]), unthunk(ȳ[2])
        else:
            Ū, s̄, V̄h = ZERO, ȳ, ZERO
        if _zero(Ū) and _zero(s̄) and _zero(V̄h):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_svd_pullback(U, s, Vh, Ū, s̄, V̄h)))) + nrest

    return y, svd_pullback


# =============================================================================
# linalg.svdvals (NumPy >= 2): svd(a, compute_uv=False)
# =============================================================================

if hasattr(np.linalg, "svdvals"):
    @register_frule(np.linalg.svdvals, object)
    def svdvals_frule(tangents, a):
        return svd_frule(tangents, a, compute_uv=False)

    @register_rrule(np.linalg.svdvals, object)
    def svdvals_rrule(a):
        return svd_rrule(a, compute_uv=False)


# =============================================================================
# linalg.eigh  ->  EighResult(eigenvalues, eigenvectors);  linalg.eigvalsh
# =============================================================================

def _uplo(fname, rest, kw):
    uplo, = _opts(fname, rest, kw, (("UPLO", "L"),))
    uplo = str(uplo).upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"{fname}: UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


def _read_triangle(ȧ, uplo):
    """The Hermitian matrix eigh reads from the tangent (triangle `uplo`)."""
    return _hermitian_from_lower(ȧ) if uplo == "L" else _H(_hermitian_from_lower(_H(ȧ)))


def _triangle_adjoint(g, uplo):
    return _lower_adjoint(g) if uplo == "L" else _H(_lower_adjoint(_H(g)))


def _eigh_pushforward(w, V, ȧ, uplo, need_vectors):
    dP = _H(V) @ _read_triangle(np.asarray(ȧ), uplo) @ V
    ẇ = _diag(dP).real
    if not need_vectors:
        return ẇ, None
    return ẇ, V @ (_inv_gaps(w) * dP)


def _eigh_pullback(w, V, w̄, V̄, uplo):
    dtype = np.result_type(V.dtype, *[np.asarray(t).dtype for t in (w̄, V̄) if not _zero(t)])
    M = np.zeros(w.shape + (w.shape[-1],), dtype=dtype)
    if not _zero(w̄):
        M = M + _diag_embed(np.asarray(w̄).real.astype(dtype))
    if not _zero(V̄):
        M = M + _inv_gaps(w) * (_H(V) @ V̄)
    return _triangle_adjoint(V @ M @ _H(V), uplo)


@register_frule(np.linalg.eigh, object, ...)
def eigh_frule(tangents, a, *rest, **kw):
    uplo = _uplo("numpy.linalg.eigh", rest, kw)
    y = np.linalg.eigh(a, uplo)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return y, ZERO
    ẇ, V̇ = _eigh_pushforward(y.eigenvalues, y.eigenvectors, ȧ, uplo, True)
    return y, Tangent[type(y)](eigenvalues=ẇ, eigenvectors=V̇)


@register_rrule(np.linalg.eigh, object, ...)
def eigh_rrule(a, *rest, **kw):
    uplo = _uplo("numpy.linalg.eigh", rest, kw)
    pa = ProjectTo(a)
    y = np.linalg.eigh(a, uplo)
    w, V = y.eigenvalues, y.eigenvectors
    nrest = (NO,) * len(rest)

    def eigh_pullback(ȳ):
        ȳ = seed(ȳ, 'eigh')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa)) + nrest
        w̄, V̄ = unthunk(ȳ[0]), unthunk(ȳ[1])
        if _zero(w̄) and _zero(V̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_eigh_pullback(w, V, w̄, V̄, uplo)))) + nrest

    return y, eigh_pullback


@register_frule(np.linalg.eigvalsh, object, ...)
def eigvalsh_frule(tangents, a, *rest, **kw):
    uplo = _uplo("numpy.linalg.eigvalsh", rest, kw)
    w, V = np.linalg.eigh(a, uplo)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return w, ZERO
    return w, _eigh_pushforward(w, V, ȧ, uplo, False)[0]


@register_rrule(np.linalg.eigvalsh, object, ...)
def eigvalsh_rrule(a, *rest, **kw):
    uplo = _uplo("numpy.linalg.eigvalsh", rest, kw)
    pa = ProjectTo(a)
    w, V = np.linalg.eigh(a, uplo)
    nrest = (NO,) * len(rest)

    def eigvalsh_pullback(w̄):
        w̄ = seed(w̄, "eigvalsh")
        if _zero(w̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_eigh_pullback(w, V, w̄, ZERO, uplo)))) + nrest

    return w, eigvalsh_pullback


# =============================================================================
# linalg.norm
# =============================================================================

_NORM_SPEC = (("ord", None), ("axis", None), ("keepdims", False))


def _sign(x):
    """x/|x| (0 at 0), the derivative of |x| for real and complex x."""
    if x.dtype.kind != "c":
        return np.sign(x)
    ax = np.abs(x)
    return np.where(ax == 0, 0, x / np.where(ax == 0, 1, ax))


def _norm_plan(x, ord, axis):
    """('flat'|'vector'|'matrix', axes) as NumPy decides it."""
    nd = x.ndim
    if axis is None:
        if ord is None:
            return "flat", tuple(range(nd))
        if nd == 1:
            return "vector", (0,)
        if nd == 2:
            # the Frobenius norm is the 2-norm of the flattened matrix (issue 11:
            # ord='fro' without axis raised)
            return ("flat", (0, 1)) if ord in ("fro", "f") else ("matrix", (0, 1))
        raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = tuple(int(i) % nd for i in axes)
    if len(axes) == 1:
        return "vector", axes
    if len(axes) == 2:
        return ("flat", axes) if ord in (None, "fro", "f") else ("matrix", axes)
    raise ValueError("numpy.linalg.norm: improper number of dimensions to norm")


def _onehot_extremum(vals, axis, fn):
    """A boolean mask, along `axis`, of the first element where `fn` (argmax
    or argmin) lands."""
    idx = np.expand_dims(fn(vals, axis=axis), axis)
    mask = np.zeros(vals.shape, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=axis)
    return mask


def _norm_gradient(x, y, ord, kind, axes):
    """∂norm/∂x (same shape as x; x̄ = gradient · ȳ, ẏ = Re Σ conj(gradient)·ẋ),
    or None for ord=0."""
    yk = np.asarray(y)
    if kind == "flat" or (kind == "vector" and ord in (None, 2)):
        yb = _keep(yk, axes, x.ndim)
        return np.where(yb == 0, 0, x / np.where(yb == 0, 1, yb))
    if kind == "vector":
        (ax,) = axes
        if ord == 0:
            return None
        if ord == 1:
            return _sign(x)
        if ord == np.inf or ord == -np.inf:
            mask = _onehot_extremum(np.abs(x), ax, np.argmax if ord > 0 else np.argmin)
            return np.where(mask, _sign(x), 0)
        p = float(ord)
        yb = _keep(yk, axes, x.ndim)
        ax_ = np.abs(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = _sign(x) * (ax_ / np.where(yb == 0, 1, yb)) ** (p - 1)
        return np.where((ax_ == 0) | (yb == 0), 0, g)
    # matrix norms
    r, c = axes
    if ord == "nuc" or ord in (2, -2):
        xm = np.moveaxis(x, (r, c), (-2, -1))
        U, s, Vh = np.linalg.svd(xm, full_matrices=False)
        if ord == "nuc":
            g = U @ Vh
        else:
            k = 0 if ord == 2 else -1
            g = U[..., :, k:k + 1 or None] @ Vh[..., k:k + 1 or None, :]
        return np.moveaxis(g, (-2, -1), (r, c))
    if ord in (1, -1):       # max/min over columns of the column sums
        sums = np.sum(np.abs(x), axis=r, keepdims=True)
        mask = _onehot_extremum(sums, c, np.argmax if ord > 0 else np.argmin)
        return np.where(mask, _sign(x), 0)
    if ord in (np.inf, -np.inf):   # max/min over rows of the row sums
        sums = np.sum(np.abs(x), axis=c, keepdims=True)
        mask = _onehot_extremum(sums, r, np.argmax if ord > 0 else np.argmin)
        return np.where(mask, _sign(x), 0)
    raise ValueError(f"numpy.linalg.norm: invalid norm order {ord!r} for matrices")


def _keep(y, axes, nd):
    """y with the reduced axes put back (length 1), if they are not there."""
    y = np.asarray(y)
    if y.ndim == nd:
        return y
    return np.expand_dims(y, tuple(sorted(axes)))


@register_frule(np.linalg.norm, object, ...)
def norm_frule(tangents, x, *rest, **kw):
    ord, axis, keepdims = _opts("numpy.linalg.norm", rest, kw, _NORM_SPEC)
    x = np.asarray(x)
    y = np.linalg.norm(x, ord, axis, keepdims)
    ẋ = plain(unthunk(tangents[1]))
    if not _diff(x):
        return y, NO
    kind, axes = _norm_plan(x, ord, axis)
    if kind == "vector" and ord == 0:
        return y, NO
    if _zero(ẋ):
        return y, ZERO
    g = _norm_gradient(x, y, ord, kind, axes)
    ẏ = np.sum((g.conj() * ẋ).real, axis=axes, keepdims=keepdims)
    return y, (ẏ.astype(np.asarray(y).dtype) if isinstance(ẏ, np.ndarray) else ẏ)


@register_rrule(np.linalg.norm, object, ...)
def norm_rrule(x, *rest, **kw):
    ord, axis, keepdims = _opts("numpy.linalg.norm", rest, kw, _NORM_SPEC)
    px = ProjectTo(x)
    x = np.asarray(x)
    y = np.linalg.norm(x, ord, axis, keepdims)
    kind, axes = _norm_plan(x, ord, axis)
    nrest = (NO,) * len(rest)
    nondiff = kind == "vector" and ord == 0

    def norm_pullback(ȳ):
        ȳ = seed(ȳ, 'norm')
        ȳ = unthunk(ȳ)
        if nondiff:
            return (NO, NO) + nrest
        if _zero(ȳ):
            return (NO, _zero_for(px)) + nrest

        def norm_x̄():
            return px(_norm_gradient(x, y, ord, kind, axes) * _keep(np.real(ȳ), axes, x.ndim))

        return (NO, Thunk(norm_x̄) if px.kind else NO) + nrest

    return y, norm_pullback


# =============================================================================
# linalg.vector_norm, linalg.matrix_norm (NumPy >= 2)
# =============================================================================

def _vector_norm_gradient(x, y, ord, axes):
    """∂vector_norm/∂x over several axes: the vector gradient of the
    flattened axes."""
    if ord in (2, None):
        return _norm_gradient(x, y, None, "flat", axes)
    back = list(range(x.ndim - len(axes), x.ndim))
    xm = np.moveaxis(x, axes, back)
    rest = xm.shape[:x.ndim - len(axes)]
    g = _norm_gradient(xm.reshape(rest + (-1,)), np.reshape(y, rest), ord, "vector", (len(rest),))
    return np.moveaxis(g.reshape(xm.shape), back, axes)


def _vector_norm_axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(sorted(int(i) % x.ndim for i in ((axis,) if np.ndim(axis) == 0 else axis)))


if hasattr(np.linalg, "vector_norm"):
    @register_frule(np.linalg.vector_norm, object)
    def vector_norm_frule(tangents, x, **kw):
        x = np.asarray(x)
        y = np.linalg.vector_norm(x, **kw)
        ord, keepdims = kw.get("ord", 2), kw.get("keepdims", False)
        ẋ = plain(unthunk(tangents[1]))
        if not _diff(x) or ord == 0:
            return y, NO
        if _zero(ẋ):
            return y, ZERO
        axes = _vector_norm_axes(x, kw.get("axis"))
        g = _vector_norm_gradient(x, y, ord, axes)
        ẏ = np.sum((g.conj() * ẋ).real, axis=axes, keepdims=keepdims)
        return y, ProjectTo(y)(ẏ)

    @register_rrule(np.linalg.vector_norm, object)
    def vector_norm_rrule(x, **kw):
        px = ProjectTo(x)
        x = np.asarray(x)
        y = np.linalg.vector_norm(x, **kw)
        ord = kw.get("ord", 2)
        axes = _vector_norm_axes(x, kw.get("axis"))

        def vector_norm_pullback(ȳ):
            ȳ = seed(ȳ, 'vector_norm')
            ȳ = unthunk(ȳ)
            if ord == 0:
                return NO, NO
            if _zero(ȳ) or not px.kind:
                return NO, _zero_for(px)
            return NO, Thunk(lambda: px(_vector_norm_gradient(x, y, ord, axes)
                                        * _keep(np.real(ȳ), axes, x.ndim)))

        return y, vector_norm_pullback

if hasattr(np.linalg, "matrix_norm"):
    @register_frule(np.linalg.matrix_norm, object)
    def matrix_norm_frule(tangents, x, **kw):
        return norm_frule(tangents, x, ord=kw.get("ord", "fro"), axis=(-2, -1),
                          keepdims=kw.get("keepdims", False))

    @register_rrule(np.linalg.matrix_norm, object)
    def matrix_norm_rrule(x, **kw):
        return norm_rrule(x, ord=kw.get("ord", "fro"), axis=(-2, -1), keepdims=kw.get("keepdims", False))


# =============================================================================
# linalg.pinv
# =============================================================================

def _pinv_opts(rest, kw):
    rcond, herm = _opts("numpy.linalg.pinv", rest, kw, (("rcond", None), ("hermitian", False)))
    if herm:
        raise ValueError("numpy.linalg.pinv: the rule cannot honour hermitian=True; call it without")


def _pinv_pushforward(a, X, ȧ):
    """Ẋ = −X ȧ X + X Xᴴ ȧᴴ (I − a X) + (I − X a) ȧᴴ Xᴴ X (constant rank)."""
    ȧh = _H(ȧ)
    return (-(X @ ȧ @ X) + X @ (_H(X) @ (ȧh - (ȧh @ a) @ X))
            + (ȧh - X @ (a @ ȧh)) @ (_H(X) @ X))


def _pinv_pullback(a, X, X̄):
    Xh = _H(X)
    X̄h = _H(X̄)
    return (-(Xh @ X̄ @ Xh) + (X̄h - a @ (X @ X̄h)) @ (X @ Xh)
            + (Xh @ X) @ (X̄h - (X̄h @ X) @ a))


@register_frule(np.linalg.pinv, object, ...)
def pinv_frule(tangents, a, *rest, **kw):
    _pinv_opts(rest, kw)
    a = np.asarray(a)
    X = np.linalg.pinv(a, *rest, **kw)
    ȧ = plain(unthunk(tangents[1]))
    if _zero(ȧ):
        return X, ZERO
    return X, _pinv_pushforward(a, X, np.asarray(ȧ))


@register_rrule(np.linalg.pinv, object, ...)
def pinv_rrule(a, *rest, **kw):
    _pinv_opts(rest, kw)
    pa = ProjectTo(a)
    a = np.asarray(a)
    X = np.linalg.pinv(a, *rest, **kw)
    nrest = (NO,) * len(rest)

    def pinv_pullback(X̄):
        X̄ = seed(X̄, "pinv")
        if _zero(X̄):
            return (NO, _zero_for(pa)) + nrest
        return (NO, Thunk(lambda: pa(_pinv_pullback(a, X, np.asarray(X̄))))) + nrest

    return X, pinv_pullback


# =============================================================================
# linalg.lstsq  ->  (x, residuals, rank, s)
# =============================================================================

def _lstsq_setup(a, b, rest, kw):
    rcond, = _opts("numpy.linalg.lstsq", rest, kw, (("rcond", None),))
    a, b = np.asarray(a), np.asarray(b)
    out = np.linalg.lstsq(a, b, rcond)
    m, n = a.shape
    cutoff = np.finfo(np.result_type(a.dtype, float)).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    X = np.linalg.pinv(a, rcond=cutoff)
    return a, b, out, X


@register_frule(np.linalg.lstsq, object, object, ...)
def lstsq_frule(tangents, a, b, *rest, **kw):
    a, b, y, X = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    ȧ, ḃ = plain(unthunk(tangents[1])), unthunk(tangents[2])
    if _zero(ȧ) and _zero(ḃ):
        return y, ZERO
    vec = b.ndim == 1
    x2, b2 = (x[:, None], b[:, None]) if vec else (x, b)
    ḃ2 = ZERO if _zero(ḃ) else (np.asarray(ḃ)[:, None] if vec else np.asarray(ḃ))
    ẋ = ZERO if _zero(ḃ2) else X @ ḃ2
    if not _zero(ȧ):
        ẋ = _add(ẋ, _pinv_pushforward(a, X, np.asarray(ȧ)) @ b2)
    # residuals (the squared norms of e = b − a x): x is optimal, so only the
    # explicit dependence counts: ṙ = 2 Re Σ conj(e)·(ḃ − ȧ x)
    ṙ = ZERO
    if res.size:
        ė = ḃ2 if _zero(ȧ) else _add(ḃ2, -(np.asarray(ȧ) @ x2))
        e = b2 - a @ x2
        ṙ = (2 * np.sum((e.conj() * ė).real, axis=0)).astype(res.dtype)
    ṡ = ZERO
    if not _zero(ȧ):
        U, sv, Vh = np.linalg.svd(a, full_matrices=False)
        ṡ = _svd_pushforward(U, sv, Vh, np.asarray(ȧ), False)[1]
    ẋ = ẋ[:, 0] if vec and not _zero(ẋ) else ẋ
    return y, Tangent[tuple](ẋ, ṙ, NO, ṡ)


@register_rrule(np.linalg.lstsq, object, object, ...)
def lstsq_rrule(a, b, *rest, **kw):
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b, y, X = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    vec = b.ndim == 1
    x2, b2 = (x[:, None], b[:, None]) if vec else (x, b)
    nrest = (NO,) * len(rest)

    def lstsq_pullback(ȳ):
        ȳ = seed(ȳ, 'lstsq')
        ȳ = unthunk(ȳ)
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        x̄, r̄, s̄ = unthunk(ȳ[0]), unthunk(ȳ[1]), unthunk(ȳ[3])
        x̄2 = ZERO if _zero(x̄) else (np.asarray(x̄)[:, None] if vec else np.asarray(x̄))
        # residuals: r̄ₖ·2eₖ for b, −r̄ₖ·2eₖ xₖᴴ for a (e = b − a x)
        er = ZERO if _zero(r̄) or not res.size else 2 * (b2 - a @ x2) * np.real(np.asarray(r̄))

        def lstsq_ā():
            ā = ZERO if _zero(x̄2) else _pinv_pullback(a, X, x̄2 @ _H(b2))
            if not _zero(er):
                ā = _add(ā, -(er @ _H(x2)))
            if not _zero(s̄):
                U, sv, Vh = np.linalg.svd(a, full_matrices=False)
                ā = _add(ā, _svd_pullback(U, sv, Vh, ZERO, s̄, ZERO))
            return pa(ā)

        def lstsq_b̄():
            b̄ = _add(ZERO if _zero(x̄2) else _H(X) @ x̄2, er)
            return pb(b̄.reshape(b.shape))

        need_b = not (_zero(x̄2) and _zero(er))
        need_a = need_b or not _zero(s̄)
        ā = Thunk(lstsq_ā) if need_a and pa.kind else _zero_for(pa)
        b̄ = Thunk(lstsq_b̄) if need_b and pb.kind else _zero_for(pb)
        return (NO, ā, b̄) + nrest

    return y, lstsq_pullback


# =============================================================================
# linalg.matrix_power
# =============================================================================

def _powers(a, n):
    """[a⁰, a¹, …, a^(n−1)]"""
    out = [np.broadcast_to(_eye_like(a), a.shape)]
    for _ in range(n - 1):
        out.append(out[-1] @ a)
    return out


@register_frule(np.linalg.matrix_power, object, object)
def matrix_power_frule(tangents, a, n):
    a = np.asarray(a)
    y = np.linalg.matrix_power(a, n)
    ȧ = plain(unthunk(tangents[1]))
    n = operator.index(n)
    if _zero(ȧ) or n == 0:
        return y, ZERO
    if n < 0:
        b = np.linalg.inv(a)
        ȧ = -(b @ ȧ @ b)
        a, n = b, -n
    P = _powers(a, n)
    return y, _sum_tangents([P[k] @ ȧ @ P[n - 1 - k] for k in range(n)])


@register_rrule(np.linalg.matrix_power, object, object)
def matrix_power_rrule(a, n):
    pa = ProjectTo(a)
    a = np.asarray(a)
    y = np.linalg.matrix_power(a, n)
    n = operator.index(n)

    def matrix_power_pullback(ȳ):
        ȳ = seed(ȳ, 'matrix_power')
        ȳ = unthunk(ȳ)
        if _zero(ȳ) or n == 0:
            return NO, _zero_for(pa), NO

        def matrix_power_ā():
            base, m = (np.linalg.inv(a), -n) if n < 0 else (a, n)
            P = [_H(p) for p in _powers(base, m)]
            b̄ = _sum_tangents([P[k] @ ȳ @ P[m - 1 - k] for k in range(m)])
            if n < 0:
                bh = _H(base)
                b̄ = -(bh @ b̄ @ bh)
            return pa(b̄)

        return NO, Thunk(matrix_power_ā), NO

    return y, matrix_power_pullback
