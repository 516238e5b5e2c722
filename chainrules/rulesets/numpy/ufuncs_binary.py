"""Rules for NumPy's binary ufuncs on arrays (one table row each: the partials
(∂Ω/∂x, ∂Ω/∂y) given x, y and Ω), the linear ones (add, subtract), divmod,
and the same rules on the `operator` module and the `np.ndarray` operator
methods (`x.__add__(y)`, the reflected `x.__radd__(y)`).  The factories and
conventions are those of `ufuncs.py`.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tangent,
    Thunk,
    register_frule,
    register_rrule,
    unthunk,
)
from chainrules._protocols import FruleFunction, Pullback, RruleFunction
from chainrules._core import _BinaryFrule, _BinaryRrule
from chainrules.rulesets._arrays import (
    register_for_arrays,
    TRACED,
    NO,
    ZERO,
    output_parts as _output_parts,
    dense,
    plain,
    is_complex as _is_complex,
    named_rule,
    unbroadcast,
)
from chainrules.rulesets.elementwise import NUMPY_ONLY, TABLE
from chainrules.rulesets.numpy.ufuncs import (
    numpy_partials2,
    _unary_rules,
    _check_kwargs,
    _array_like,
    _spread_seed,
    _fit,
    _linear_unary,
)


# ----- Binary ufuncs: one row per function, (∂Ω/∂x, ∂Ω/∂y) given x, y, Ω --------
# A partial of None is zero (no work); _ONE is the identity (no multiply).

_ONE = object()


def _times(d: Any, v: Any) -> Any:
    return v if d is _ONE else d * v


def _conj(d: Any) -> Any:
    return d if d is _ONE else np.conj(d)


def _binary(f: Any, dx: Any, dy: Any, name: str | None = None) -> Any:
    name = name or f.__name__

    def binary_frule(tangents: Any, x: Any, y: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = f(x, y, **kwargs)
        x, y, Ωp = _array_like(x), _array_like(y), plain(Ω)
        Δx, Δy = tangents[1], tangents[2]
        ΔΩ = ZERO
        if dx is not None and not isinstance(Δx, AbstractZero):
            ΔΩ = _times(dx(x, y, Ωp), dense(Δx))
        if dy is not None and not isinstance(Δy, AbstractZero):
            t = _times(dy(x, y, Ωp), dense(Δy))
            ΔΩ = t if ΔΩ is ZERO else ΔΩ + t
        return Ω, _fit(Ω, ΔΩ)

    def binary_pullback_at(x: Any, y: Any, Ω: Any) -> Pullback:
        px, py = ProjectTo(x), ProjectTo(y)
        if type(x) is not np.ndarray or type(y) is not np.ndarray:
            x, y = _array_like(x), _array_like(y)
        Ω = plain(Ω)

        def binary_pullback(ȳ: Any) -> tuple[Any, ...]:
            if isinstance(ȳ, AbstractZero):
                return NO, px(ZERO), py(ZERO)
            ȳ = _spread_seed(name, ȳ, Ω)
            cplx = _is_complex(Ω)

            def binary_dx() -> Any:
                d = dx(x, y, Ω)
                return px(unbroadcast(x, _times(_conj(d) if cplx else d, ȳ)))

            def binary_dy() -> Any:
                d = dy(x, y, Ω)
                return py(unbroadcast(y, _times(_conj(d) if cplx else d, ȳ)))
            return (NO,
                    px(ZERO) if dx is None or px.kind == 0 else Thunk(binary_dx),
                    py(ZERO) if dy is None or py.kind == 0 else Thunk(binary_dy))
        return binary_pullback

    return _register_binary(f, name, binary_frule, binary_pullback_at)


# The common call of the four arithmetic ufuncs, f(float or complex ndarray,
# float or complex ndarray), runs compiled (_BinaryRrule and _BinaryFrule,
# _core/array_rules.pxi and array_frules.pxi); every other call, and every
# seed that is not an array of the output's shape, goes to the Python rule
# and its pullback.
_COMPILED_BINARY = {np.add: 0, np.subtract: 1, np.multiply: 2, np.true_divide: 3}


def _register_binary(f: Any, name: str, frule: Any, pullback_at: Any) -> Any:
    """Register f's frule and its rrule: Ω = f(x, y) and `pullback_at(x, y, Ω)`."""
    pullback_at = named_rule(pullback_at, name)

    def binary_rrule(x: Any, y: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
            Ω = f(x, y, **kwargs)
        else:
            Ω = f(x, y)
        return Ω, pullback_at(x, y, Ω)
    rrule = named_rule(binary_rrule, name)
    frule = named_rule(frule, name)
    if f in _COMPILED_BINARY:
        rrule = _BinaryRrule(f, _COMPILED_BINARY[f], name, rrule, pullback_at)
        frule = _BinaryFrule(f, _COMPILED_BINARY[f], name, frule)
    return register_frule(f)(frule), register_rrule(f)(rrule)


def _power_dx(x: Any, p: Any, Ω: Any) -> Any:
    # p·x^(p-1), written p·Ω/x away from x = 0.  At x = 0 ChainRules' table:
    # 1 for p = 1, 0 for p = 0 or p > 1, inf for 0 < p < 1 (p·0^(p-1)).
    with np.errstate(divide="ignore", invalid="ignore"):
        d = p * (Ω / x)
        zero = np.equal(x, 0)
        if np.any(zero):
            at0 = np.where(np.equal(p, 0), 0, p * np.power(np.where(zero, x, 1), p - 1))
            d = np.where(zero, at0, d)
    return d


def _power_dp(x: Any, p: Any, Ω: Any) -> Any:
    # Ω·log(x); for real x < 0 the real part log|x| (the real projection of
    # the complex derivative); 0 at x = 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        if _is_complex(x):
            logx = np.log(x)
        elif _is_complex(p):
            logx = np.log(x + 0j)          # a real base under a complex exponent
        else:
            logx = np.log(np.abs(x))
        return np.where(np.equal(x, 0), 0, Ω * logx)


# The binary rows of the element-wise table (elementwise/table.py) with formulas: their
# NumPy partials are compiled from them (ufuncs.numpy_partials2)
_FROM_THE_TABLE = ("multiply", "divide", "atan2", "hypot", "logaddexp", "logaddexp2",
                   "maximum", "minimum", "fmax", "fmin", "remainder", "fmod", "nextafter", "copysign")

# The rows not yet written in the formula language: their partials here
_BINARY: list[tuple[Any, Any, Any]] = [
    # f               ∂Ω/∂x                                       ∂Ω/∂y
    (np.power,        _power_dx,                                  _power_dp),
    (np.float_power,  _power_dx,                                  _power_dp),
    (np.ldexp,        lambda x, e, Ω: np.ldexp(np.asarray(1, np.result_type(x, 1.0)), e), None),
]
for _row in (*(TABLE[n] for n in _FROM_THE_TABLE), NUMPY_ONLY["heaviside"]):
    for _f in dict.fromkeys(getattr(np, n) for n in _row.numpy if hasattr(np, n)):
        _BINARY.append((_f, *numpy_partials2(_row, _ONE)))

_binary_rules: dict[Any, Any] = {}
for _f, _dx, _dy in _BINARY:
    _binary_rules[_f] = _binary(_f, _dx, _dy)


# ----- Linear binary ufuncs: add and subtract -------------------------------
# The cotangent is ȳ itself (summed back when broadcasting made it bigger:
# that reduction is the only cost, so only then is it thunked).

def _addsub(f: Any, sign: Any) -> Any:
    name = f.__name__

    def addsub_frule(tangents: Any, x: Any, y: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = f(x, y, **kwargs)
        Δx, Δy = tangents[1], tangents[2]
        zx, zy = isinstance(Δx, AbstractZero), isinstance(Δy, AbstractZero)
        if zx and zy:
            return Ω, ZERO
        if zy:
            ΔΩ = dense(Δx)
        elif zx:
            ΔΩ = dense(Δy) if sign > 0 else -dense(Δy)
        else:
            ΔΩ = f(dense(Δx), dense(Δy))
        return Ω, _fit(Ω, ΔΩ)

    def addsub_pullback_at(x: Any, y: Any, Ω: Any) -> Pullback:
        px, py = ProjectTo(x), ProjectTo(y)
        shape = np.shape(Ω)
        same_x, same_y = np.shape(x) == shape, np.shape(y) == shape

        def addsub_pullback(ȳ: Any) -> tuple[Any, ...]:
            if isinstance(ȳ, AbstractZero):
                return NO, px(ZERO), py(ZERO)
            ȳ = _spread_seed(name, ȳ, Ω)
            if px.kind == 0:
                x̄: Any = NO
            elif same_x:
                x̄ = px(ȳ)
            else:
                x̄ = Thunk(lambda: px(unbroadcast(x, ȳ)))
            if py.kind == 0:
                ȳ_y: Any = NO
            elif same_y and sign > 0:
                ȳ_y = py(ȳ)
            else:
                ȳ_y = Thunk(lambda: py(unbroadcast(y, ȳ if sign > 0 else -ȳ)))
            return NO, x̄, ȳ_y
        return addsub_pullback

    return _register_binary(f, name, addsub_frule, addsub_pullback_at)


_binary_rules[np.add] = _addsub(np.add, 1)
_binary_rules[np.subtract] = _addsub(np.subtract, -1)


# ----- ufunc.outer: f.outer(x, y) is f(x with y.ndim axes of length 1 appended, y) --------------
# The rules are f's own on the reshaped x (so as differentiable as f's), the
# tangent of x reshaped alike and its cotangent reshaped back.

def _outer_rules(f: Any, frule: Any, rrule: Any) -> None:
    method, name = f.outer, f"{f.__name__}.outer"

    def lifted(x: Any, y: Any) -> Any:
        """x with y's axes appended (a number, or an array meeting a 0-d y, as it is)."""
        if isinstance(x, (int, float, complex)) or not np.ndim(y):
            return x
        return np.reshape(x, np.shape(x) + (1,) * np.ndim(y))

    def lifted_tangent(Δx: Any, x: Any, y: Any) -> Any:
        Δx = unthunk(Δx)
        if isinstance(Δx, AbstractZero) or isinstance(x, (int, float, complex)) or not np.ndim(y):
            return Δx
        return np.reshape(np.broadcast_to(dense(Δx), np.shape(x)), np.shape(x) + (1,) * np.ndim(y))

    def outer_frule(tangents: Any, x: Any, y: Any, **kwargs: Any) -> Any:
        return frule((NO, lifted_tangent(tangents[1], x, y), tangents[2]), lifted(x, y), y, **kwargs)

    def outer_rrule(x: Any, y: Any, **kwargs: Any) -> Any:
        Ω, pullback = rrule(lifted(x, y), y, **kwargs)
        shape, project_x = np.shape(x), ProjectTo(x)

        def outer_pullback(ȳ: Any) -> Any:
            s, x̄, ȳ_y = pullback(ȳ)
            if isinstance(x̄, AbstractZero) or isinstance(x, (int, float, complex)) or not np.ndim(y):
                return s, x̄, ȳ_y
            # reshaped back, and a NumPy scalar x (lifted to an array) gets a NumPy scalar
            return s, Thunk(lambda: project_x(np.reshape(unthunk(x̄), shape))), ȳ_y
        return Ω, outer_pullback

    fname = f"{f.__name__}_outer"
    register_frule(method)(named_rule(outer_frule, fname))
    register_rrule(method)(named_rule(outer_rrule, fname))


for _f, (_fr, _rr) in list(_binary_rules.items()):
    _outer_rules(_f, _fr, _rr)


# divmod(x, y) = (floor_divide(x, y), remainder(x, y)): the quotient is
# piecewise constant, the remainder as in np.remainder.

@register_frule(np.divmod)
def divmod_frule(tangents: Any, x: Any, y: Any, **kwargs: Any) -> tuple[Any, Any]:
    if kwargs:
        _check_kwargs("divmod", kwargs)
    q, r = Ω = np.divmod(x, y, **kwargs)
    _, Δr = _binary_rules[np.remainder][0](tangents, x, y)
    return Ω, Tangent[tuple](ZERO, Δr)  # type: ignore[type-arg]


@register_rrule(np.divmod)
def divmod_rrule(x: Any, y: Any, **kwargs: Any) -> tuple[Any, Pullback]:
    if kwargs:
        _check_kwargs("divmod", kwargs)
    Ω = np.divmod(x, y, **kwargs)
    _, remainder_pullback = _binary_rules[np.remainder][1](x, y)
    px, py = ProjectTo(x), ProjectTo(y)

    def divmod_pullback(ȳ: Any) -> tuple[Any, ...]:
        _, r̄ = _output_parts(ȳ, 2, "divmod")
        if isinstance(r̄, AbstractZero):
            return NO, px(ZERO), py(ZERO)
        return remainder_pullback(r̄)  # type: ignore[no-any-return]  # the remainder's rrule: a Pullback
    return Ω, divmod_pullback


# ----- The operator module on arrays: the same rules -------------------------
# (for ndarrays; on values tracked by an AD the operator functions have
# the element-wise table's generic rows, for any library: elementwise/interop.py)

def _register_operators() -> None:
    binary = [(operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
              (operator.truediv, np.true_divide), (operator.pow, np.power), (operator.mod, np.remainder)]
    for op, f in binary:
        register_for_arrays(op, *_binary_rules[f], object, arrays=(np.ndarray,))
    for op, f in [(operator.neg, np.negative), (operator.pos, np.positive), (operator.abs, np.absolute)]:  # type: ignore[assignment]
        register_for_arrays(op, *_unary_rules[f], arrays=(np.ndarray,))


_register_operators()


# ----- The ndarray operator methods: x.__add__(y) is np.add(x, y), and the
#       reflected x.__radd__(y) is np.add(y, x) (cotangents swapped back) ---------

def _reflected(f: Any, fr: FruleFunction, rr: RruleFunction) -> Any:
    name = "r" + f.__name__

    def reflected_frule(tangents: Any, x: Any, y: Any) -> tuple[Any, Any] | None:
        return fr((tangents[0], tangents[2], tangents[1]), y, x)

    def reflected_rrule(x: Any, y: Any) -> tuple[Any, Pullback] | None:
        res = rr(y, x)
        if res is None:
            return None
        Ω, pullback = res

        def reflected_pullback(ȳ: Any) -> tuple[Any, ...]:
            s, ȳ_y, x̄ = pullback(ȳ)
            return s, x̄, ȳ_y
        return Ω, reflected_pullback
    return named_rule(reflected_frule, name), named_rule(reflected_rrule, name)


def _register_dunders() -> None:
    for op, f in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                  ("truediv", np.true_divide), ("pow", np.power), ("mod", np.remainder)]:
        fr, rr = _binary_rules[f]
        register_for_arrays(getattr(np.ndarray, f"__{op}__"), fr, rr, object, either=False)
        register_for_arrays(getattr(np.ndarray, f"__r{op}__"), *_reflected(f, fr, rr), object, either=False)
    for op, u in [("neg", np.negative), ("pos", np.positive), ("abs", np.absolute)]:
        register_for_arrays(getattr(np.ndarray, f"__{op}__"), *_unary_rules[u])


_register_dunders()


# The ndarray methods that are these functions: x.conj(), x.conjugate().
for _m in (np.ndarray.conj, np.ndarray.conjugate):
    _linear_unary(np.conjugate, name=_m.__name__, key=_m, types=(np.ndarray,))
    register_for_arrays(_m, *_unary_rules[_m], arrays=(TRACED,))
del _f, _dx, _dy, _m, _row
