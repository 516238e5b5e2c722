"""Rules for nested differentiation of array functions whose rules need
plain arrays: cumprod, linalg.norm, solve, inv, det, slogdet.  (prod, var
and std need none: their own rules are differentiated as they are.)

Their rules in `chainrules.rulesets` call `np.asarray` (and LAPACK) on the
primals, so they cannot receive values tracked by an enclosing
differentiation (a Hessian, `derivative(derivative(f))`).  The rules here
compute the same Ω, ΔΩ and pullbacks with NumPy functions applied to the
arguments as they are: on values tracked by the enclosing differentiation,
every call goes to that engine (which uses the first-order rules, or these
again for third derivatives), so the first derivative is itself
differentiated.  The engines use them only at nested tracked values; a rule
returns None to decline (unsupported keywords or shapes, complex matrices,
zeros in cumprod), and the engine then falls back to the ordinary rule,
which reports what it met.

`frule(f, tangents, *args, **kwargs)` and `rrule(f, *args, **kwargs)` follow
the ChainRules conventions; tangents and cotangents of integer arguments
(axes) are NoTangent().
"""

import numpy as np

from chainrules._core import AbstractZero, NoTangent, Tangent, ZeroTangent, _ad_strip_all, unthunk

__all__ = ["RULES", "frule", "rrule"]

NO = NoTangent()
ZERO = ZeroTangent()


def _plain(x):
    return _ad_strip_all(x)


def _is_complex(*xs):
    return any(np.iscomplexobj(_plain(x)) for x in xs)


def _conj(x, cplx):
    return np.conjugate(x) if cplx else x


def _H(a, cplx):
    """The conjugate transpose of a matrix (tracked or not)."""
    return _conj(np.swapaxes(a, -1, -2), cplx)


def _axis(x, axis):
    """A normalised int axis, None for all axes; False when unsupported."""
    if axis is None:
        return None
    if isinstance(axis, tuple):
        if len(axis) != 1:
            return False
        axis = axis[0]
    if type(axis) is not int:
        return False
    nd = np.ndim(_plain(x))
    return axis + nd if axis < 0 else axis


def _expand(g, x, axis, keepdims):
    """A reduction's cotangent broadcastable against x again."""
    if axis is None:
        return g if keepdims or np.ndim(_plain(x)) == 0 else np.reshape(g, (1,) * np.ndim(_plain(x)))
    return g if keepdims else np.expand_dims(g, axis)


def _zero(t):
    return isinstance(t, AbstractZero)


# ----- cumprod -----------------------------------------------------------

def _cumprod_args(x, axis=None, **rest):
    if rest or 0 in np.shape(_plain(x)) or np.any(_plain(x) == 0):
        return False            # the division below needs non-zero elements
    return _axis(x, axis)


def _cumprod_prep(x, axis):
    if axis is None:
        return np.ravel(x), 0
    return x, axis


def cumprod_frule(tangents, x, *args, **kwargs):
    axis = _cumprod_args(x, *args, **kwargs)
    if axis is False:
        return None
    omega = np.cumprod(x, *args, **kwargs)
    dx = unthunk(tangents[1])
    if _zero(dx):
        return omega, ZERO
    xf, ax = _cumprod_prep(x, axis)
    dxf = np.ravel(dx) if axis is None else dx
    return omega, omega * np.cumsum(dxf / xf, axis=ax)


def cumprod_rrule(x, *args, **kwargs):
    axis = _cumprod_args(x, *args, **kwargs)
    if axis is False:
        return None
    omega = np.cumprod(x, *args, **kwargs)
    cplx = _is_complex(x)

    def nested_cumprod_pullback(ybar):
        ybar = unthunk(ybar)
        if _zero(ybar):
            return (NO, ZERO) + (NO,) * len(args)
        xf, ax = _cumprod_prep(x, axis)
        # x̄_i = Σ_{j≥i} ȳ_j conj(y_j) / conj(x_i)
        s = np.flip(np.cumsum(np.flip(ybar * _conj(omega, cplx), ax), axis=ax), ax) / _conj(xf, cplx)
        return (NO, np.reshape(s, np.shape(_plain(x))) if axis is None else s) + (NO,) * len(args)
    return omega, nested_cumprod_pullback


# ----- linalg.norm (the 2-norm of vectors, Frobenius of matrices) ----------------

def _norm_args(x, ord=None, axis=None, keepdims=False):
    nd = np.ndim(_plain(x))
    ax = _axis(x, axis)
    if ax is False:
        return False
    vector = ax is not None or nd == 1
    if not (ord is None or (ord == 2 and vector) or (ord == "fro" and nd == 2 and axis is None)):
        return False
    return ax, bool(keepdims)


def norm_frule(tangents, x, *args, **kwargs):
    spec = _norm_args(x, *args, **kwargs)
    if spec is False:
        return None
    axis, keepdims = spec
    omega = np.linalg.norm(x, *args, **kwargs)
    dx = unthunk(tangents[1])
    if _zero(dx):
        return omega, ZERO
    return omega, np.sum(np.real(_conj(x, _is_complex(x)) * dx), axis=axis, keepdims=keepdims) / omega


def norm_rrule(x, *args, **kwargs):
    spec = _norm_args(x, *args, **kwargs)
    if spec is False:
        return None
    axis, keepdims = spec
    omega = np.linalg.norm(x, *args, **kwargs)

    def nested_norm_pullback(ybar):
        ybar = unthunk(ybar)
        if _zero(ybar):
            return (NO, ZERO) + (NO,) * len(args)
        return (NO, _expand(np.real(ybar) / omega, x, axis, keepdims) * x) + (NO,) * len(args)
    return omega, nested_norm_pullback


# ----- linalg.solve, inv, det, slogdet (real square matrices) ------------------

def _square(a):
    p = _plain(a)
    return np.ndim(p) == 2 and p.shape[0] == p.shape[1] and not np.iscomplexobj(p)


def solve_frule(tangents, a, b):
    if not _square(a) or np.ndim(_plain(b)) not in (1, 2) or _is_complex(b):
        return None
    omega = np.linalg.solve(a, b)
    da, db = unthunk(tangents[1]), unthunk(tangents[2])
    if _zero(da) and _zero(db):
        return omega, ZERO
    rhs = ZERO if _zero(db) else db
    if not _zero(da):
        rhs = rhs - da @ omega if not _zero(rhs) else -(da @ omega)
    return omega, np.linalg.solve(a, rhs)


def solve_rrule(a, b):
    if not _square(a) or np.ndim(_plain(b)) not in (1, 2) or _is_complex(b):
        return None
    omega = np.linalg.solve(a, b)
    vec = np.ndim(_plain(b)) == 1

    def nested_solve_pullback(ybar):
        ybar = unthunk(ybar)
        if _zero(ybar):
            return NO, ZERO, ZERO
        bbar = np.linalg.solve(np.transpose(a), ybar)
        abar = -np.outer(bbar, omega) if vec else -(bbar @ np.transpose(omega))
        return NO, abar, bbar
    return omega, nested_solve_pullback


def inv_frule(tangents, a):
    if not _square(a):
        return None
    omega = np.linalg.inv(a)
    da = unthunk(tangents[1])
    if _zero(da):
        return omega, ZERO
    return omega, -(omega @ da @ omega)


def inv_rrule(a):
    if not _square(a):
        return None
    omega = np.linalg.inv(a)

    def nested_inv_pullback(ybar):
        ybar = unthunk(ybar)
        if _zero(ybar):
            return NO, ZERO
        t = np.transpose(omega)
        return NO, -(t @ ybar @ t)
    return omega, nested_inv_pullback


def _trace_inv_times(a, da):
    """tr(a⁻¹ ȧ)."""
    return np.sum(np.transpose(np.linalg.inv(a)) * da)


def det_frule(tangents, a):
    if not _square(a):
        return None
    omega = np.linalg.det(a)
    da = unthunk(tangents[1])
    if _zero(da):
        return omega, ZERO
    return omega, omega * _trace_inv_times(a, da)


def det_rrule(a):
    if not _square(a):
        return None
    omega = np.linalg.det(a)

    def nested_det_pullback(ybar):
        ybar = unthunk(ybar)
        if _zero(ybar):
            return NO, ZERO
        return NO, (ybar * omega) * np.transpose(np.linalg.inv(a))
    return omega, nested_det_pullback


def slogdet_frule(tangents, a):
    if not _square(a):
        return None
    omega = np.linalg.slogdet(a)
    da = unthunk(tangents[1])
    if _zero(da):
        return omega, ZERO
    return omega, Tangent[type(omega)](sign=ZERO, logabsdet=_trace_inv_times(a, da))


def slogdet_rrule(a):
    if not _square(a):
        return None
    omega = np.linalg.slogdet(a)

    def nested_slogdet_pullback(ybar):
        ybar = unthunk(ybar)
        lbar = ZERO if _zero(ybar) else unthunk(ybar[1])
        if _zero(lbar):
            return NO, ZERO        # the sign is locally constant for real matrices
        return NO, lbar * np.transpose(np.linalg.inv(a))
    return omega, nested_slogdet_pullback


# ----- the table ---------------------------------------------------------------

RULES = {
    np.cumprod: (cumprod_frule, cumprod_rrule),
    np.linalg.norm: (norm_frule, norm_rrule),
    np.linalg.solve: (solve_frule, solve_rrule),
    np.linalg.inv: (inv_frule, inv_rrule),
    np.linalg.det: (det_frule, det_rrule),
    np.linalg.slogdet: (slogdet_frule, slogdet_rrule),
}


def frule(f, tangents, args, kwargs):
    """The nested frule of f at these arguments, or None (no such rule, or
    it declines)."""
    return RULES[f][0](tangents, *args, **kwargs)


def rrule(f, args, kwargs):
    """The nested rrule of f at these arguments, or None."""
    return RULES[f][1](*args, **kwargs)
