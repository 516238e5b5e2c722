"""`numpy.linalg`'s inverses and solvers, each served by the ONE array-API
rule body (array_api/linalg_ext.py) registered here with NumPy's spelling:
inv, det (adj(a)ᵀ: exact at singular matrices), slogdet, solve (a vector b
when b is 1-d, NumPy 2's rule), pinv (rcond=, rtol=; hermitian=True a
TypeError naming it), matrix_power; matrix_rank has no derivative.
Inside inv's, solve's, det's, pinv's and matrix_power's registrations a
NumPy fast path serves float ndarrays (the common call): what the body
computes without its generic layers (checked bit for bit by tests/rulesets/numpy/test_linalg_one_body.py).

lstsq is NumPy's alone: its rule is written here with pinv's body (the
solution is pinv(a)·b at constant rank), so that its derivatives of every
order are those of the body."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import ProjectTo, Tangent, Thunk, non_differentiable, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules.rulesets._arrays import NO, ZERO, is_zero as _zero, output_parts, seed, zero_for as _zero_for
from chainrules.rulesets.array_api import linalg_ext as body
from chainrules.rulesets.numpy.linalg._common import _H, _opts
from chainrules.rulesets.numpy.linalg._on_numpy import as_array, register_body, register_fast, register_unary_fast

__all__ = ["inv_frule", "inv_rrule", "solve_frule", "solve_rrule", "lstsq_frule", "lstsq_rrule"]


def _fast(*xs: Any) -> bool:
    """The common call a fast path serves: float ndarrays of one dtype."""
    dtype = xs[0].dtype if type(xs[0]) is np.ndarray else None
    return all(type(x) is np.ndarray and x.dtype == dtype for x in xs) and dtype is not None \
        and dtype.kind in "fc"


def _fits(ȳ: Any, y: Any) -> bool:
    return type(ȳ) is np.ndarray and ȳ.dtype == y.dtype and ȳ.shape == y.shape


# ----- inv --------------------------------------------------------------------------------------------

def _inv_fast_frule(tangents: Any, a: Any) -> Any:
    Δa = tangents[1]
    if not (_fast(a, Δa) and a.ndim >= 2):
        return None
    y = np.linalg.inv(a)
    return y, -np.matmul(np.matmul(y, Δa), y)          # the body's pushforward


def _inv_fast_rrule(a: Any) -> Any:
    if not (_fast(a) and a.ndim >= 2):
        return None
    y = np.linalg.inv(a)

    def inv_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "inv")
        if not _fits(ȳ, y):
            return inv_rrule(a)[1](ȳ)  # type: ignore[no-any-return]
        yh = _H(y) if y.dtype.kind == "c" else y.mT
        return NO, -np.matmul(np.matmul(yh, ȳ), yh)        # the body's adjoint
    return y, inv_pullback


inv_frule, inv_rrule = register_body([np.linalg.inv], body.inv_rules(np.linalg.inv), np.linalg.inv, 1, "inv")
register_fast([np.linalg.inv], _inv_fast_frule, _inv_fast_rrule, (inv_frule, inv_rrule), 1, "inv")

# ----- det, slogdet, pinv, matrix_power: the bodies as they are ------------------------------------------

_det_rules = register_body([np.linalg.det], body.det_rules(np.linalg.det), np.linalg.det, 1, "det")
_EYES: dict[Any, Any] = {}


def _det_fast_body(xp: Any, a: Any, d: Any, opts: Any) -> Any:
    """det's body (array_api/linalg_ext.py's `_det_body`) for one float
    matrix of 2 to 4 rows on NumPy: its adjoint ȳ·conj(adj(a)ᵀ) by the same
    Faddeev–LeVerrier recursion -- the same NumPy calls on the same values,
    without the namespace's wrappers (checked bit for bit by
    tests/rulesets/numpy/test_linalg_one_body.py); any other a: the body."""
    n = a.shape[-1]
    if a.ndim != 2 or not 2 <= n <= body._SMALL:
        return body._det_body(xp, a, d, opts)
    complex_ = a.dtype.kind == "c"
    real = a.real.dtype if complex_ else a.dtype
    eye = _EYES.get((n, real))
    if eye is None:
        eye = _EYES[(n, real)] = np.eye(n, dtype=real)
        eye.flags.writeable = False

    def det_fast_adjoint(ȳ: Any) -> Any:
        m = eye.astype(a.dtype) if complex_ else eye
        for k in range(2, n + 1):
            am = np.matmul(a, m)
            # the body's tr·I/(k−1); real: I·(tr/(k−1)), the same numbers (tr·1 = tr, and tr·0/(k−1)
            # and 0·(tr/(k−1)) are one zero, or NaN for both) with one array operation less
            m = am - am.trace() * eye / (k - 1) if complex_ else am - eye * (am.trace() / (k - 1))
        c = (m if n % 2 else -m).mT                # ∂det/∂a = adj(a)ᵀ
        return np.multiply(ȳ, np.conj(c) if complex_ else c)
    return None, det_fast_adjoint


register_unary_fast([np.linalg.det], _det_fast_body, np.linalg.det, _det_rules, "det")
register_body([np.linalg.slogdet], body.slogdet_rules(np.linalg.slogdet), np.linalg.slogdet, 1, "slogdet")
pinv_frule, pinv_rrule = register_body([np.linalg.pinv], body.pinv_rules(np.linalg.pinv), np.linalg.pinv, 1,
                                       "pinv")
register_unary_fast([np.linalg.pinv], body._pinv_body, np.linalg.pinv, (pinv_frule, pinv_rrule), "pinv")
non_differentiable(np.linalg.matrix_rank)       # an integer: no derivative
_matrix_power_rules = register_body([np.linalg.matrix_power], body.matrix_power_rules(np.linalg.matrix_power),
                                    np.linalg.matrix_power, 1, "matrix_power")
register_unary_fast([np.linalg.matrix_power], body._matrix_power_body, np.linalg.matrix_power, _matrix_power_rules,
                    "matrix_power", ("n",))


# ----- solve ------------------------------------------------------------------------------------------

def _solve_fast_rrule(a: Any, b: Any) -> Any:
    if not _fast(a, b) or a.ndim != 2 or b.ndim > 2:
        return None
    y = np.linalg.solve(a, b)
    vec = b.ndim == 1

    def solve_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "solve")
        if not _fits(ȳ, y):
            return solve_rrule(a, b)[1](ȳ)  # type: ignore[no-any-return]
        # the body's adjoints: g = a⁻ᴴ ȳ, ā = −g yᴴ, b̄ = g
        ah = _H(a) if a.dtype.kind == "c" else a.mT
        if vec:
            g = np.linalg.solve(ah, ȳ[:, None])
            ā = -np.matmul(g, _H(y[:, None]) if y.dtype.kind == "c" else y[None, :])
            return NO, ā, np.reshape(g, b.shape)
        g = np.linalg.solve(ah, ȳ)
        return NO, -np.matmul(g, _H(y) if y.dtype.kind == "c" else y.mT), g
    return y, solve_pullback


def _decline(tangents: Any, a: Any, b: Any) -> None:
    return None


solve_frule, solve_rrule = register_body([np.linalg.solve], body.solve_rules(np.linalg.solve), np.linalg.solve, 2,
                                         "solve")
register_fast([np.linalg.solve], _decline, _solve_fast_rrule, (solve_frule, solve_rrule), 2, "solve")


# ----- lstsq  ->  (x, residuals, rank, s): NumPy's alone, with pinv's body --------------------------------

def _lstsq_setup(a: Any, b: Any, rest: Any, kw: Any) -> Any:
    """(a, b, Ω, X = pinv(a) with lstsq's cutoff, pinv's body at a)."""
    rcond, = _opts("numpy.linalg.lstsq", rest, kw, (("rcond", None),))
    a, b = as_array(a), as_array(b)
    Ω = np.linalg.lstsq(a, b, rcond)
    m, n = a.shape
    cutoff = np.finfo(np.result_type(a.dtype, float)).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    X = np.linalg.pinv(a, rcond=cutoff)
    return a, b, Ω, X, body._pinv_body(np, a, X, {})


def _col(v: Any, vec: bool) -> Any:
    return np.expand_dims(v, -1) if vec else v


def _svd_parts(a: Any) -> Any:
    U, _, Vh = np.linalg.svd(a, full_matrices=False)
    return U, Vh


def lstsq_frule(tangents: Any, a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Any]:
    a, b, y, X, (pinv_forward, _) = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    Δa, Δb = unthunk(tangents[1]), unthunk(tangents[2])
    if _zero(Δa) and _zero(Δb):
        return y, ZERO
    vec = b.ndim == 1
    x2, b2 = _col(x, vec), _col(b, vec)
    Δb2: Any = ZERO if _zero(Δb) else _col(as_array(Δb), vec)
    ẋ: Any = ZERO if _zero(Δb2) else np.matmul(X, Δb2)
    if not _zero(Δa):
        t = np.matmul(pinv_forward(as_array(Δa)), b2)
        ẋ = t if _zero(ẋ) else ẋ + t
    # residuals (the squared norms of e = b − a x): x is optimal, so only the
    # explicit dependence counts: ṙ = 2 Re Σ conj(e)·(Δb − Δa x)
    ṙ: Any = ZERO
    if res.size:
        ė = Δb2 if _zero(Δa) else (-np.matmul(Δa, x2) if _zero(Δb2) else Δb2 - np.matmul(Δa, x2))
        e = b2 - np.matmul(a, x2)
        ṙ = 2 * np.sum(np.real(np.conj(e) * ė), axis=0)
    ṡ: Any = ZERO
    if not _zero(Δa):                       # singular values: ṡ = Re diag(Uᴴ Δa V)
        U, Vh = _svd_parts(a)
        ṡ = np.real(np.sum(np.conj(U) * np.matmul(as_array(Δa), _H(Vh)), axis=-2))
    ẋ = ẋ[..., 0] if vec and not _zero(ẋ) else ẋ
    return y, Tangent[tuple](ẋ, ṙ, NO, ṡ)  # type: ignore[type-arg]


def lstsq_rrule(a: Any, b: Any, *rest: Any, **kw: Any) -> tuple[Any, Pullback]:
    pa, pb = ProjectTo(a), ProjectTo(b)
    a, b, y, X, (_, pinv_adjoint) = _lstsq_setup(a, b, rest, kw)
    x, res, rank, s = y
    vec = b.ndim == 1
    x2, b2 = _col(x, vec), _col(b, vec)
    nrest = (NO,) * len(rest)

    def lstsq_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, 'lstsq')
        if _zero(ȳ):
            return (NO, _zero_for(pa), _zero_for(pb)) + nrest
        x̄, r̄, _, s̄ = output_parts(ȳ, 4, "lstsq")
        x̄2: Any = ZERO if _zero(x̄) else _col(as_array(x̄), vec)
        # residuals: r̄ₖ·2eₖ for b, −r̄ₖ·2eₖ xₖᴴ for a (e = b − a x)
        er: Any = ZERO if _zero(r̄) or not res.size else 2 * (b2 - np.matmul(a, x2)) * np.real(as_array(r̄))

        def lstsq_ā() -> Any:
            ā: Any = ZERO if _zero(x̄2) else pinv_adjoint(np.matmul(x̄2, _H(b2)))
            if not _zero(er):
                t = -np.matmul(er, _H(x2))
                ā = t if _zero(ā) else ā + t
            if not _zero(s̄):                # singular values: U diag(s̄) Vᴴ
                U, Vh = _svd_parts(a)
                t = np.matmul(U * np.expand_dims(as_array(s̄), -2), Vh)
                ā = t if _zero(ā) else ā + t
            return pa(ā)

        def lstsq_b̄() -> Any:
            b̄: Any = ZERO if _zero(x̄2) else np.matmul(_H(X), x̄2)
            b̄ = er if _zero(b̄) else (b̄ if _zero(er) else b̄ + er)
            return pb(np.reshape(b̄, b.shape))

        need_b = not (_zero(x̄2) and _zero(er))
        need_a = need_b or not _zero(s̄)
        ā = Thunk(lstsq_ā) if need_a and pa.kind else _zero_for(pa)
        b̄ = Thunk(lstsq_b̄) if need_b and pb.kind else _zero_for(pb)
        return (NO, ā, b̄) + nrest

    return y, lstsq_pullback


register_frule(np.linalg.lstsq, object, object, ...)(lstsq_frule)
register_rrule(np.linalg.lstsq, object, object, ...)(lstsq_rrule)
