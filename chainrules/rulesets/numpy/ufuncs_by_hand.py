"""Rules for NumPy's one-argument ufuncs written by hand (the table's rows
and the linear ones are in `ufuncs.py`, whose conventions hold here): the
non-holomorphic functions (abs, sign, angle, real, imag), nan_to_num, the
multi-output ufuncs (modf, frexp), the piecewise constant functions (zero
derivative) and the non-differentiable ones (comparisons, predicates,
bitwise).  Imported by `ufuncs.py`."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tangent,
    is_traced,
    non_differentiable,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.elementwise import TABLE
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    output_parts as _output_parts,
    dense,
    plain,
    seed,
    is_complex as _is_complex,
    like as _like,
    named_rule,
    reject_out,
    traced_call,
)
from chainrules.rulesets.numpy.ufuncs import (
    OMEGA,
    _array_like,
    _check_kwargs,
    _of_x,
    _omega,
    _unary_rules,
    numpy_partial,
)

# ----- Non-holomorphic unary functions, by hand ----------------------------

def _safe_abs(z: Any) -> Any:
    """|z| with 1 where z == 0, for dividing by it."""
    r = np.abs(z)
    return np.where(r == 0, 1, r)


# absolute: for real x the table row's partial (sign(x), abs'(0) = 0, as
# ChainRules); for complex z, ΔΩ = Re(conj(z)·Δz)/|z| and z̄ = Re(ȳ)·z/|z|
# (0 at z = 0).

def _as_function(deriv: Any) -> Any:
    """A derivative of `_unary`'s kinds as a function f'(x, Ω)."""
    return _omega if deriv is OMEGA else _of_x(deriv) if isinstance(deriv, np.ufunc) else deriv


_ABS_DERIV = _as_function(numpy_partial(TABLE["abs"]))


def _abs_rules(f: Any, name: str) -> None:
    """The rules of absolute."""

    def abs_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = f(x, **kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        x, Δx = _array_like(x), dense(Δx)
        if _is_complex(x):
            return Ω, np.real(np.conj(x) * Δx) / _safe_abs(x)
        return Ω, _ABS_DERIV(x, Ω) * Δx

    def abs_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = f(x, **kwargs)
        project = ProjectTo(x)
        x = _array_like(x)

        def abs_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return NO, project(ZERO)
            ȳ = np.real(ȳ)
            if _is_complex(x):
                return NO, project(ȳ * (x / _safe_abs(x)))
            return NO, project(_ABS_DERIV(x, Ω) * ȳ)
        return Ω, abs_pullback

    _unary_rules[f] = (register_frule(f)(named_rule(abs_frule, name)),
                       register_rrule(f)(named_rule(abs_rrule, name)))


_abs_rules(np.absolute, "absolute")     # fabs (real only) is a table row above


# sign: piecewise constant for real x (derivative zero).  For complex z NumPy
# >= 2 gives z/|z|, whose derivative is the projection orthogonal to Ω over
# |z|: (Δz - Ω·Re(conj(Ω)·Δz))/|z|, its own adjoint; taken as 0 at z = 0.

_COMPLEX_SIGN_IS_UNIT = np.sign(np.complex128(1j)) == 1j


def _sign_jvp(x: Any, Ω: Any, Δ: Any) -> Any:
    return (Δ - Ω * np.real(np.conj(Ω) * Δ)) / _safe_abs(x) * (x != 0)


@register_frule(np.sign)
def sign_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
    if kwargs:
        _check_kwargs("sign", kwargs)
    Ω = np.sign(x, **kwargs)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero) or not (_COMPLEX_SIGN_IS_UNIT and _is_complex(x)):
        return Ω, ZERO
    return Ω, _sign_jvp(plain(x), plain(Ω), dense(Δx))


@register_rrule(np.sign)
def sign_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    if kwargs:
        _check_kwargs("sign", kwargs)
    Ω = np.sign(x, **kwargs)
    project = ProjectTo(x)
    x, Ωp = plain(x), plain(Ω)

    def sign_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "sign")
        if isinstance(ȳ, AbstractZero) or not (_COMPLEX_SIGN_IS_UNIT and _is_complex(x)):
            return NO, project(ZERO)
        return NO, project(_sign_jvp(x, Ωp, ȳ))
    return Ω, sign_pullback


# angle(z) = atan2(Im z, Re z): ΔΩ = Im(conj(z)·Δz)/|z|², z̄ = Re(ȳ)·i·z/|z|²;
# zero for real input (0 or π).

@register_frule(np.angle)
def angle_frule(tangents: Any, z: Any, deg: Any = False) -> tuple[Any, Any]:
    Ω = np.angle(z, deg)
    Δz = tangents[1]
    if isinstance(Δz, AbstractZero) or not _is_complex(z):
        return Ω, ZERO
    z = plain(z)
    d = np.imag(np.conj(z) * dense(Δz)) / _safe_abs(z) ** 2
    return Ω, d * (180 / math.pi) if deg else d


@register_rrule(np.angle)
def angle_rrule(z: Any, *args: Any, deg: Any = False) -> tuple[Any, Pullback]:
    deg = args[0] if args else deg
    Ω = np.angle(z, deg)
    project = ProjectTo(z)
    z = plain(z)
    rest = (NO,) * len(args)

    def angle_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "angle")
        if isinstance(ȳ, AbstractZero) or not _is_complex(z):
            return (NO, project(ZERO)) + rest
        ȳ = np.real(ȳ)
        if deg:
            ȳ = ȳ * (180 / math.pi)
        return (NO, project(ȳ * 1j * z / _safe_abs(z) ** 2)) + rest
    return Ω, angle_pullback


# real / imag: R-linear projections; their adjoints put a real cotangent back
# in the real or imaginary part.

@register_frule(np.real)
def real_frule(tangents: Any, x: Any) -> tuple[Any, Any]:
    Ω = np.real(x)
    Δx = tangents[1]
    return Ω, (Δx if isinstance(Δx, AbstractZero) else _like(Ω, np.real(dense(Δx))))


@register_rrule(np.real)
def real_rrule(x: Any) -> tuple[Any, Pullback]:
    project = ProjectTo(x)

    def real_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "real")
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return NO, project(ZERO)
        return NO, project(np.real(ȳ))
    return np.real(x), real_pullback


@register_frule(np.imag)
def imag_frule(tangents: Any, x: Any) -> tuple[Any, Any]:
    Ω = np.imag(x)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero) or not _is_complex(x):
        return Ω, ZERO
    return Ω, _like(Ω, np.imag(dense(Δx)))


@register_rrule(np.imag)
def imag_rrule(x: Any) -> tuple[Any, Pullback]:
    project = ProjectTo(x)

    def imag_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "imag")
        if isinstance(ȳ, AbstractZero) or not _is_complex(x):
            return NO, project(ZERO)
        return NO, project(1j * np.real(ȳ))
    return np.imag(x), imag_pullback


# nan_to_num: the identity where x is finite, a constant elsewhere.

@register_frule(np.nan_to_num)
def nan_to_num_frule(tangents: Any, x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    Ω = np.nan_to_num(x, *args, **kwargs)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, ZERO
    return Ω, np.where(np.isfinite(x), dense(Δx), 0)


@register_rrule(np.nan_to_num)
def nan_to_num_rrule(x: Any, *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    Ω = np.nan_to_num(x, *args, **kwargs)
    project = ProjectTo(x)
    rest = (NO,) * len(args)

    def nan_to_num_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = seed(ȳ, "nan_to_num")
        if isinstance(ȳ, AbstractZero) or project.kind == 0:
            return (NO, project(ZERO)) + rest
        return (NO, project(np.where(np.isfinite(x), ȳ, 0))) + rest
    return Ω, nan_to_num_pullback


# ----- Multi-output unary ufuncs ---------------------------------------------

@register_frule(np.modf)
def modf_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
    # modf(x) = (x - trunc(x), trunc(x)): the fractional part moves with x.
    if kwargs:
        _check_kwargs("modf", kwargs)
    Ω = np.modf(x, **kwargs)
    Δx = tangents[1]
    return Ω, Tangent[tuple](ZERO if isinstance(Δx, AbstractZero) else dense(Δx), ZERO)  # type: ignore[type-arg]


@register_rrule(np.modf)
def modf_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    if kwargs:
        _check_kwargs("modf", kwargs)
    Ω = np.modf(x, **kwargs)
    project = ProjectTo(x)

    def modf_pullback(ȳ: Any) -> tuple[Any, ...]:
        frac, _ = _output_parts(ȳ, 2, "modf")
        return NO, project(ZERO if isinstance(frac, AbstractZero) else unthunk(frac))
    return Ω, modf_pullback


@register_frule(np.frexp)
def frexp_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
    # frexp(x) = (m, e) with x = m·2**e: m moves as 2**-e·x, e is an integer.
    if kwargs:
        _check_kwargs("frexp", kwargs)
    m, e = Ω = np.frexp(x, **kwargs)
    Δx = tangents[1]
    if isinstance(Δx, AbstractZero):
        return Ω, Tangent[tuple](ZERO, NO)  # type: ignore[type-arg]
    return Ω, Tangent[tuple](np.ldexp(dense(Δx), -e), NO)  # type: ignore[type-arg]


@register_rrule(np.frexp)
def frexp_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    if kwargs:
        _check_kwargs("frexp", kwargs)
    m, e = Ω = np.frexp(x, **kwargs)
    project = ProjectTo(x)

    def frexp_pullback(ȳ: Any) -> tuple[Any, ...]:
        m̄, _ = _output_parts(ȳ, 2, "frexp")
        if isinstance(m̄, AbstractZero) or project.kind == 0:
            return NO, project(ZERO)
        return NO, project(np.ldexp(np.real(unthunk(m̄)), -e))
    return Ω, frexp_pullback


# ----- Zero derivative: piecewise constant functions of real numbers -----------
# Their output has a tangent space (it is float) but the derivative is zero:
# ZeroTangent() forward, ZeroTangent() back to each float input (NoTangent()
# to integer arguments such as `decimals`).

def _zero_derivative(f: Any, ndiff: Any = 1, name: str | None = None, primal: Any = None) -> None:
    """The zero-derivative rules of f; `primal` computes f's value when it is
    not f itself (np.fix: np.trunc, the same values without NumPy 2.5's
    DeprecationWarning from inside a rule the engines call)."""
    name = name or f.__name__
    fn, f = f, primal or f

    def zero_frule(tangents: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            reject_out(name, kwargs)
        if args and is_traced(args[0]):
            return traced_call(f, args[0], args[1:], kwargs), ZERO
        return f(*args, **kwargs), ZERO

    def zero_rrule(*args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            reject_out(name, kwargs)
        Ω = f(*args, **kwargs) if not (args and is_traced(args[0])) else \
            traced_call(f, args[0], args[1:], kwargs)
        zeros = (NO,) + tuple(ProjectTo(a)(ZERO) if i < ndiff else NO for i, a in enumerate(args))

        def zero_pullback(ȳ: Any) -> tuple[Any, ...]:
            if type(ȳ) is not np.ndarray:
                seed(ȳ, name)
            return zeros
        return Ω, zero_pullback

    register_frule(fn)(named_rule(zero_frule, name))
    register_rrule(fn)(named_rule(zero_rrule, name))


_f: Any
for _f in (np.floor, np.ceil, np.rint, np.trunc, np.round, np.around, np.spacing):
    _zero_derivative(_f)
_zero_derivative(np.fix, primal=np.trunc)
_zero_derivative(np.ndarray.round, name="ndarray.round")
_zero_derivative(np.floor_divide, 2)


# ----- Non-differentiable: boolean and integer results ------------------------

for _f in (np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
           np.logical_and, np.logical_or, np.logical_xor, np.logical_not,
           np.isnan, np.isinf, np.isfinite, np.signbit, np.isnat, np.isposinf, np.isneginf,
           np.iscomplex, np.isreal, np.iscomplexobj, np.isrealobj, np.isclose, np.allclose,
           np.array_equal, np.array_equiv,
           np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
           np.gcd, np.lcm):
    non_differentiable(_f)
del _f
