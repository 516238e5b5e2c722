"""Rules for NumPy's ufuncs on arrays (and for the few element-wise functions
that are not ufuncs: `np.real`, `np.imag`, `np.angle`, `np.sinc`, ...): the
one-argument ones here, the binary ones and the `operator` module on arrays
in `ufuncs_binary.py`.

A differentiable ufunc is one table row: its partial derivatives, written in
terms of the output Ω where that is cheaper (`exp -> Ω`, `tanh -> 1 - Ω²`).
The factories below turn a row into an frule and an rrule:

- frule:    ΔΩ = Σᵢ ∂ᵢ·Δxᵢ                  (zeros skipped)
- pullback: x̄ᵢ = project(unbroadcast(xᵢ, conj(∂ᵢ)·ȳ))

Broadcasting is undone by the ONE shared `unbroadcast`; `ProjectTo(xᵢ)`
(built in the forward pass) keeps dtypes (float32 stays float32), takes the
real part for real inputs and gives `NoTangent()` for integer and boolean
inputs.  Complex arrays follow ChainRules: holomorphic functions pull back
with conj(f'), the non-holomorphic ones (abs, angle, real, imag, sign) are
written by hand, in `ufuncs_by_hand.py` with the functions whose derivative is
zero and the non-differentiable ones (comparisons, predicates).

NumPy ufuncs called on Python or NumPy *scalars* are served by the C scalar
table first; these rules see scalars only when that table declines.  Lists
and tuples (array-likes) are accepted; their cotangents are `Tangent[list]` /
`Tangent[tuple]`.  The `operator` module on arrays (`operator.mul(x, y)`,
`operator.neg(x)`...) and the methods `x.conj()`, `x.conjugate()`,
`x.round()` use the same rules.

A pullback may return the incoming cotangent itself (add, subtract,
positive...): an AD must not accumulate in place into a cotangent it did not
allocate.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    is_traced,
    register_frule,
    register_rrule,
)
from chainrules._protocols import Pullback
from chainrules._core import _UnaryFrule, _UnaryRrule
from chainrules.rulesets import _formula
from chainrules.rulesets.elementwise import NEG_ONE, NUMPY_ONLY, ONE, TABLE
from chainrules.rulesets._arrays import (
    NO,
    ZERO,
    dense,
    plain,
    seed,
    is_complex as _is_complex,
    like as _like,
    named_rule,
    reject_out,
    traced_call,
    broadcast_view,
)

_unary_rules: dict[Any, Any] = {}     # f -> (frule, rrule), for the operator module below


def _check_kwargs(name: str, kwargs: Any) -> None:
    """`out=` and a `where=` mask leave parts of the output unwritten: refuse."""
    if kwargs.get("where", True) is not True:
        raise TypeError(f"{name}: the rule cannot honour the argument where=; call the primal without it")
    reject_out(name, kwargs)


def _array_like(x: Any) -> Any:
    """Lists and tuples (array-likes) as arrays, ndarray subclasses as plain
    ndarrays (np.matrix's * is a matrix product), for the partials' arithmetic."""
    t = type(x)
    if t is np.ndarray or t is float:
        return x
    return np.asarray(x) if isinstance(x, (list, tuple, np.ndarray)) else x


def _seed_error(name: str, ȳ: Any, Ω: Any) -> Any:
    return ValueError(f"pullback of {name}: a cotangent of shape {np.shape(ȳ)} does not fit the "
                      f"output of shape {np.shape(Ω)}")


def _check_seed(name: str, ȳ: Any, Ω: Any) -> None:
    """A cotangent must broadcast to the output's shape (a smaller one, such
    as a scalar seed, is spread over it)."""
    try:
        fits = np.broadcast_shapes(np.shape(ȳ), np.shape(Ω)) == np.shape(Ω)
    except ValueError:
        fits = False
    if not fits:
        raise _seed_error(name, ȳ, Ω)


def _spread_seed(name: str, ȳ: Any, Ω: Any) -> Any:
    """The cotangent of a binary ufunc's output, unthunked; a smaller one
    (a scalar seed, say) is spread over Ω's shape, one that does not
    broadcast to it is an error naming the function."""
    ȳ = seed(ȳ, name)
    shape = np.shape(Ω)
    if np.shape(ȳ) != shape:
        _check_seed(name, ȳ, Ω)
        ȳ = broadcast_view(ȳ, shape)
    return ȳ


def _no_tangent_pullback(ȳ: Any) -> tuple[Any, ...]:
    """The pullback of a one-argument rule at an integer or boolean input."""
    return NO, NO


# ----- Unary ufuncs: one row per function, f'(x) given x and Ω ---------------

OMEGA = "Ω"     # a table row's derivative that is the output itself (exp -> Ω)


def _fit(Ω: Any, ΔΩ: Any) -> Any:
    """A binary frule's ΔΩ with the output's shape and kind (a tangent of one
    broadcast operand alone may be smaller than Ω)."""
    if type(ΔΩ) is np.ndarray and type(Ω) is np.ndarray:
        if ΔΩ.shape != Ω.shape:                 # (np.shape is a dispatching Python call)
            ΔΩ = np.broadcast_to(ΔΩ, Ω.shape)
    elif not isinstance(ΔΩ, AbstractZero) and np.shape(ΔΩ) != np.shape(Ω):
        ΔΩ = np.broadcast_to(ΔΩ, np.shape(Ω))
    return _like(Ω, ΔΩ)


def _unary(f: Any, deriv: Any, name: str | None = None) -> None:
    """frule and rrule of a unary holomorphic (or real) function from its
    derivative: `deriv(x, Ω) = f'(x)`, or a ufunc `deriv` with f'(x) =
    deriv(x), or `OMEGA` for f'(x) = Ω.  The last two let the compiled rule
    skip a Python call."""
    name = name or f.__name__
    if deriv is OMEGA:
        mode, fast = 2, None
        deriv = _omega
    elif isinstance(deriv, np.ufunc):
        mode, fast = 1, deriv
        deriv = _of_x(deriv)
    else:
        mode, fast = 0, deriv

    def unary_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = f(x, **kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, ZERO
        return Ω, deriv(_array_like(x), plain(Ω)) * dense(Δx)

    def unary_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
            Ω = f(x, **kwargs)
        else:
            Ω = f(x)
        project = ProjectTo(x)
        if type(x) is np.ndarray:         # the common case, inline
            conj = x.dtype.kind == "c"
        else:
            conj = _is_complex(Ω)
            x = _array_like(x)
        Ωp = plain(Ω)

        if project.kind == 0:               # integer or boolean input
            return Ω, _no_tangent_pullback

        def unary_pullback(ȳ: Any) -> tuple[Any, ...]:
            if type(ȳ) is not np.ndarray:
                if isinstance(ȳ, AbstractZero):
                    return NO, ZERO
                ȳ = seed(ȳ, name)
            d = deriv(x, Ωp)
            try:
                return NO, project((np.conj(d) if conj else d) * ȳ)
            except ValueError as e:
                raise _seed_error(name, ȳ, Ω) from e
        return Ω, unary_pullback

    # The common call, f(float or complex ndarray), runs compiled (_UnaryRrule,
    # _UnaryFrule: _core/array_rules.pxi, array_frules.pxi); every other call falls back to
    # unary_rrule / unary_frule.
    rrule = _UnaryRrule(f, fast, mode, name, named_rule(unary_rrule, name))
    frule = _UnaryFrule(f, fast, mode, name, named_rule(unary_frule, name))
    _unary_rules[f] = (register_frule(f)(frule), register_rrule(f)(rrule))


def _omega(x: Any, Ω: Any) -> Any:
    return Ω


def _of_x(u: Any) -> Any:
    def deriv(x: Any, Ω: Any) -> Any:
        return u(x)
    deriv.__name__ = deriv.__qualname__ = f"{u.__name__}_of_x"
    return deriv


# ----- The unary rows of the element-wise table (elementwise/table.py): each row's
#       formula, rendered to NumPy (the ufunc itself where f' is one, Ω where
#       it is Ω), gives the ufunc's rules -----------------------------------

def numpy_partial(row: Any) -> Any:
    """The derivative `_unary` takes for a unary row: OMEGA, a ufunc u
    (f' = u(x)), or a function f'(x, Ω) compiled from the row's formula
    (`dz` for complex x where the row has one)."""
    formula = row.formulas[0]
    if formula.dz is None:
        if formula.d == "Ω":
            return OMEGA
        u = getattr(np, _formula.single_call(formula.d) or "", None)
        if isinstance(u, np.ufunc):
            return u
    fname = f"{row.name}_deriv"
    body = f"    return {_formula.python_source(formula.d, generic=False)}\n"
    if formula.dz is not None:
        body = (f"    if _is_complex(x):\n        return {_formula.python_source(formula.dz, generic=False)}\n"
                + body)
    namespace: dict[str, Any] = {k: v for k, (v, _) in _formula.CONSTANTS.items()}
    namespace.update(xp=np, _is_complex=_is_complex)
    exec(compile(f"def {fname}(x, Ω):\n{body}", f"<numpy rule of the row {row.name}>", "exec"), namespace)
    fn = namespace[fname]
    fn.formula = formula
    return fn


def numpy_partials2(row: Any, one: Any) -> tuple[Any, Any]:
    """(∂x, ∂y) of a binary row for `ufuncs_binary._binary`: each a function
    (x, y, Ω) compiled from the row's formula, None where it is zero, a
    function giving `one` (the binary rules' "no multiply") where it is ONE."""
    out: list[Any] = []
    for i, formula in enumerate(row.formulas):
        if formula is None:
            p = row.partials[i]
            if p is ONE:
                out.append(lambda x, y, Ω: one)
            elif p is NEG_ONE:
                out.append(lambda x, y, Ω: -1)
            elif p is None:
                out.append(None)
            else:
                raise ValueError(f"the row {row.name}: a partial that is no formula")
            continue
        fname = f"{row.name}_d{'xy'[i]}"
        src = f"def {fname}(x, y, Ω):\n    return {_formula.python_source(formula.d, generic=False)}\n"
        namespace: dict[str, Any] = {k: v for k, (v, _) in _formula.CONSTANTS.items()}
        namespace["xp"] = np
        exec(compile(src, f"<numpy rule of the row {row.name}>", "exec"), namespace)
        fn = namespace[fname]
        fn.formula = formula
        out.append(fn)
    return out[0], out[1]


def _unary_rows() -> Any:
    """(ufunc, row) for the table's unary rows with a formula that is not a
    constant (deg2rad & co. are linear maps, below) and no complex rule by
    hand (abs, below)."""
    for row in (*TABLE.values(), *NUMPY_ONLY.values()):
        if row.arity != 1 or row.formulas[0] is None or row.complex_rule is not None \
                or _formula.is_constant(row.formulas[0].d):
            continue
        for f in dict.fromkeys(getattr(np, n) for n in row.numpy if hasattr(np, n)):
            yield f, row


# f -> the derivative its rules take (numpy_partial)
UNARY_DERIVS: dict[Any, Any] = {}
for _f, _row in _unary_rows():
    UNARY_DERIVS[_f] = numpy_partial(_row)
    _unary(_f, UNARY_DERIVS[_f])


# ----- Linear unary functions: the pushforward is f itself, and so is the
#       pullback (each is its own adjoint) ----------------------------------

def _linear_unary(f: Any, name: str | None = None, key: Any = None, types: Any = ()) -> None:
    """The rules of the linear map f, registered for `key` (default f), which
    computes Ω: x.conj() keeps a 0-d array where np.conjugate gives a scalar."""
    key = f if key is None else key
    name = name or f.__name__

    def linear_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = key(x, **kwargs) if not is_traced(x) else traced_call(key, x, (), kwargs)
        Δx = tangents[1]
        if isinstance(Δx, AbstractZero):
            return Ω, Δx
        return Ω, _like(Ω, f(dense(Δx)))

    def linear_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
        Ω = key(x, **kwargs) if not is_traced(x) else traced_call(key, x, (), kwargs)
        project = ProjectTo(x)

        def linear_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, name)
            if isinstance(ȳ, AbstractZero) or project.kind == 0:
                return NO, project(ZERO)
            # Project first: deg2rad & co. refuse the complex cotangent of a real
            # x; project again if a 0-d array came back as a scalar.
            x̄ = f(project(ȳ))
            return NO, x̄ if type(x̄) is np.ndarray else project(x̄)
        return Ω, linear_pullback

    _unary_rules[key] = (register_frule(key, *types)(named_rule(linear_frule, name)),
                         register_rrule(key, *types)(named_rule(linear_rrule, name)))


for _f in (np.negative, np.positive, np.conjugate, np.deg2rad, np.radians, np.rad2deg, np.degrees):
    _linear_unary(_f)
del _f, _row


# the one-argument ufuncs written by hand (abs, sign, angle, real, imag, modf,
# frexp, the piecewise constant and the non-differentiable ones): their own module
from chainrules.rulesets.numpy import ufuncs_by_hand  # noqa: E402,F401
