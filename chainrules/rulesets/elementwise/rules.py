"""The frule and rrule of every row of the element-wise table
(`elementwise/table.py`), for any array namespace.

A rule finds `xp = namespace(x, y)` and computes Ω (the primal itself),
the pushforward and the pullback with `xp`'s functions and the array
operators only: the same body runs on NumPy, array-api-strict, PyTorch, JAX
and Dask arrays and returns that library's arrays (a Dask array stays lazy).

- frule:    ΔΩ = Σᵢ ∂ᵢ·Δxᵢ, broadcast to Ω's shape and cast to its dtype;
- pullback: x̄ᵢ = project(unbroadcast(conj(∂ᵢ)·ȳ)) for real and holomorphic
  arguments, the row's complex rule for the others.

The projection keeps each argument's dtype (float32 stays float32), takes the
real part for a real argument and gives NoTangent() to integer and boolean
ones.  A Python-number argument is a 0-d array of Ω's dtype for the partials;
its cotangent is, on NumPy, the Python float/complex ProjectTo makes and,
elsewhere, a 0-d array of that library (turning it into a Python number would
pull a lazy or device value to the host).  NumPy arrays given to another
library's function (jnp.sin(ndarray)) are computed with in that library, and
their cotangents are its arrays.

A namespace lacking a function the rule needs is a TypeError naming it;
arrays of two libraries (among the arguments, or a tangent or cotangent of
another library than its primal's) are a NamespaceError naming both.
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
    Thunk,
    is_traced,
    pullback_seed,
    register_frule,
    register_rrule,
    unthunk,
    untraced,
)
from chainrules._protocols import Pullback
from chainrules._xp import (namespace, is_numpy, astype, through_engines, unbroadcast, check_tangent,
                            missing_function)
from chainrules.rulesets._arrays import NO, ZERO, like, named_rule, reject_out
from chainrules.rulesets.elementwise import ONE, NEG_ONE, STAND_INS, TABLE
from chainrules.rulesets.elementwise.real import RealUnary, same_real, times as _times, traced_real
from chainrules.rulesets.elementwise.scalar import PYTHON_SCALARS, ScalarProject, real_python_scalars

__all__ = ["rules_for", "register_row", "register_name"]

_NUMBERS = (int, float, complex)


# ----- arrays, dtypes and projections with xp -------------------------------------

# dtype -> (inexact, complex), and namespace -> is it NumPy's: asked on every
# call, answered once (array_api_compat's isdtype is Python code)
_kinds: dict[Any, Any] = {}
_numpy_namespaces: dict[Any, Any] = {}


def _kind(xp: Any, dtype: Any) -> Any:
    # keyed by identity (dtypes are singletons in every library; an entry keeps its
    # dtype alive, so its id is not reused), never comparing dtypes of two libraries
    entry = _kinds.get(id(dtype))
    if entry is not None and entry[0] is dtype:
        return entry[1]
    k = (xp.isdtype(dtype, ("real floating", "complex floating")), xp.isdtype(dtype, "complex floating"))
    if len(_kinds) >= 1024:         # parametric dtypes made per call: bounded
        _kinds.clear()
    _kinds[id(dtype)] = (dtype, k)
    return k


def _inexact(xp: Any, a: Any) -> Any:
    return _kind(xp, a.dtype)[0]


def _complex(xp: Any, a: Any) -> Any:
    return _kind(xp, a.dtype)[1]


def _is_numpy(xp: Any) -> Any:
    r = _numpy_namespaces.get(xp)
    if r is None:
        r = _numpy_namespaces[xp] = is_numpy(xp)
    return r


_NUMPY_VALUES = (np.ndarray, np.generic, *_NUMBERS)


def _of_namespace(xp: Any, Ω: Any) -> bool:
    """Is the output Ω an array of xp?  Not when the arguments are Python
    numbers or NumPy arrays given to another library's function (jnp.sin of
    an ndarray): the rule then computes in Ω's namespace.  A tracked Ω (the
    rule differentiated) is of its primal's library."""
    if xp is not np and not _is_numpy(xp):
        return True
    if is_traced(Ω):
        Ω = untraced(Ω)
    return isinstance(Ω, _NUMPY_VALUES)


def _arr(xp: Any, v: Any, Ω: Any, into_c: bool = False) -> Any:
    """v for the partials' arithmetic: a Python number as a 0-d array of Ω's
    dtype (of its own kind when Ω is an integer array), a NumPy array given to
    another library's function as that library's array; arrays of xp as they
    are.  `into_c` (see _left_the_reals): a tracked real number as the complex
    number the function took it for (cmath.acos'(2.0) is -1/sqrt(1 - 4 + 0j))."""
    if xp is PYTHON_SCALARS:
        return v
    if into_c and not isinstance(v, _NUMBERS):
        return v + 0j       # a real number tracked by an enclosing differentiation
    if isinstance(v, _NUMBERS):
        if isinstance(v, bool) or not _inexact(xp, Ω):
            return xp.asarray(v)
        return xp.asarray(v, dtype=Ω.dtype)
    if xp is not np and not _is_numpy(xp) and isinstance(v, (np.ndarray, np.generic)):
        return xp.asarray(v)
    return v


def _tangent(xp: Any, Δ: Any, x: Any) -> Any:
    """An input tangent for the partials' arithmetic (Python numbers as 0-d
    arrays of x's dtype)."""
    if xp is PYTHON_SCALARS:
        return Δ
    if isinstance(Δ, _NUMBERS):
        return xp.asarray(Δ, dtype=x.dtype if not isinstance(Δ, complex) or _complex(xp, x) else None)
    if xp is not np and not _is_numpy(xp) and isinstance(Δ, (np.ndarray, np.generic)):
        return xp.asarray(Δ)
    return Δ


def _broadcast_shape(a: Any, b: Any) -> Any:
    """The broadcast of two shapes, or None when they do not broadcast."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for p, q in zip(a, b):
        if p != q and p != 1 and q != 1:
            return None
        out.append(q if p == 1 else p)
    return tuple(out)


class _Project:
    """The projection onto an argument's tangent space in a namespace other
    than NumPy's: the shape (summing broadcast axes), the real part for a real
    argument, the dtype.  `kind` 0: no tangent (integers, booleans)."""
    __slots__ = ("xp", "shape", "dtype", "real", "kind")

    def __init__(self, xp: Any, x: Any, xa: Any) -> None:
        self.xp = xp
        self.shape = tuple(xa.shape)
        if isinstance(x, bool) or not _inexact(xp, xa) and not isinstance(x, _NUMBERS):
            self.kind = 0
            return
        self.kind = 1
        self.real = not isinstance(x, complex) and (isinstance(x, _NUMBERS) or not _complex(xp, xa))
        self.dtype = None if isinstance(x, _NUMBERS) else xa.dtype

    def __call__(self, x̄: Any) -> Any:
        if self.kind == 0:
            return NO
        if isinstance(x̄, AbstractZero):
            return x̄
        xp = self.xp
        x̄ = unbroadcast(xp, x̄, self.shape)
        if self.real and _complex(xp, x̄):
            x̄ = xp.real(x̄)
        if self.dtype is not None and x̄.dtype != self.dtype:
            x̄ = astype(xp, x̄, self.dtype)
        return x̄


def _projector(xp: Any, x: Any, xa: Any) -> Any:
    if xp is PYTHON_SCALARS:
        return ScalarProject(x)
    if xp is np or _is_numpy(xp):
        if is_traced(x):
            p = untraced(x)
            if type(p) is np.ndarray and p.dtype.kind in "fc":
                return _TracedArrayProject(p)
        return _NumpyProject(x)
    return _Project(xp, x, xa)


class _TracedArrayProject:
    """The projection onto the tangent space of a float or complex ndarray
    traced by an enclosing differentiation (the rule differentiated): a
    cotangent of its shape, real for a real array, is its own projection;
    others are summed back, their real part taken, or projected by ProjectTo
    (a plain cotangent: its dtype too)."""
    __slots__ = ("plain", "shape", "real")
    kind = 1

    def __init__(self, plain: Any) -> None:
        self.plain = plain
        self.shape = plain.shape
        self.real = plain.dtype.kind != "c"

    def __call__(self, x̄: Any) -> Any:
        if isinstance(x̄, AbstractZero):
            return x̄
        if is_traced(x̄):
            p = untraced(x̄)
            if type(p) is np.ndarray and p.shape == self.shape and (not self.real or p.dtype.kind != "c"):
                return x̄
            x̄ = unbroadcast(np, x̄, self.shape)
            return np.real(x̄) if self.real and _is_complex_value(x̄) else x̄
        return ProjectTo(self.plain)(unbroadcast(np, x̄, self.shape))


class _NumpyProject:
    """ProjectTo(x) after summing the broadcast axes (NumPy: the projection
    the NumPy rules make, so a Python float gets a Python float)."""
    __slots__ = ("project", "shape", "kind", "real")

    def __init__(self, x: Any) -> None:
        self.project = ProjectTo(x)
        self.kind = self.project.kind
        self.shape = tuple(getattr(x, "shape", ()))
        self.real = not _is_complex_value(x)

    def __call__(self, x̄: Any) -> Any:
        if self.kind == 0:
            return NO
        if isinstance(x̄, AbstractZero):
            return x̄
        x̄ = unbroadcast(np, x̄, self.shape)
        if is_traced(x̄):
            # a cotangent tracked by an enclosing differentiation (the rule
            # differentiated): the real part for a real argument, with np.real's rule
            return np.real(x̄) if self.real and _is_complex_value(x̄) else x̄
        return self.project(x̄)


def _is_complex_value(v: Any) -> Any:
    """np.iscomplexobj of v, or of the plain value under a tracked v (asking
    NumPy would go through the engines' dispatcher)."""
    t = type(v)
    if t is np.ndarray:
        return v.dtype.kind == "c"
    if t is float:
        return False
    if is_traced(v):
        v = untraced(v)
        t = type(v)
        if t is np.ndarray:
            return v.dtype.kind == "c"
        if t is float or t is np.float64:
            return False
    return np.iscomplexobj(v)


def _left_the_reals(Ω: Any) -> bool:
    """Ω of real Python numbers is complex (cmath.sin(x), (-8.0) ** (1/3)):
    PYTHON_SCALARS computes in the reals only, so the partials take NumPy's
    namespace, at the arguments made complex (math.sqrt would refuse
    cmath.acos's 1 - x² < 0), and a real argument's cotangent is projected
    there (its real part, at every order, as the C row does at order 1)."""
    return bool(_is_complex_value(Ω))


def _zero_for(project: Any) -> Any:
    return ZERO if project.kind else NO


def _conj(xp: Any, d: Any) -> Any:
    if d is ONE or d is NEG_ONE or xp is PYTHON_SCALARS or isinstance(d, float) or not _complex(xp, d):
        return d
    return xp.conj(d)


def _fit(xp: Any, Ω: Any, ΔΩ: Any) -> Any:
    """ΔΩ with Ω's shape and dtype (the real part for a real Ω)."""
    if xp is PYTHON_SCALARS:
        return ΔΩ                       # real numbers, tracked or not: nothing to fit
    if tuple(ΔΩ.shape) != tuple(Ω.shape):
        ΔΩ = xp.broadcast_to(ΔΩ, tuple(Ω.shape))
    if ΔΩ.dtype != Ω.dtype and _inexact(xp, Ω):
        if _complex(xp, ΔΩ) and not _complex(xp, Ω):
            ΔΩ = xp.real(ΔΩ)
        if ΔΩ.dtype != Ω.dtype:
            ΔΩ = astype(xp, ΔΩ, Ω.dtype)
    return like(Ω, ΔΩ) if xp is np or _is_numpy(xp) else ΔΩ


def _seed(xp: Any, name: str, ȳ: Any, Ω: Any) -> Any:
    """The incoming cotangent as an array of Ω's shape (a smaller one, a
    scalar seed say, is spread over it); one that does not broadcast to Ω is
    a ValueError naming the function; one that is not a tangent (None, a
    str) a TypeError naming it."""
    ȳ = pullback_seed(ȳ, name)
    if isinstance(ȳ, _NUMBERS):
        ȳ = xp.asarray(ȳ, dtype=Ω.dtype if not isinstance(ȳ, complex) else None)
    elif type(ȳ) is not type(Ω):
        check_tangent(f"pullback of {name}", "the cotangent", ȳ, Ω)    # two libraries: NamespaceError
    shape, target = tuple(getattr(ȳ, "shape", ())), tuple(Ω.shape)
    if shape != target:
        if _broadcast_shape(shape, target) != target:
            raise ValueError(f"pullback of {name}: a cotangent of shape {shape} does not fit the "
                             f"output of shape {target}")
        ȳ = xp.broadcast_to(ȳ, target)
    return ȳ


def _missing(name: str, xp: Any, e: Any) -> Any:
    """A namespace without a function the rule needs: a TypeError naming it."""
    return missing_function(name, e, xp)


def _check_kwargs(name: str, kwargs: Any) -> None:
    reject_out(name, kwargs)
    if kwargs.get("where", True) is not True:
        raise TypeError(f"{name}: the rule cannot honour the argument where=; call the primal without it")


# ----- unary rules -------------------------------------------------------------------

def _unary_rules(f: Any, row: Any, name: str, python_scalars: bool) -> Any:
    (d,) = row.partials
    complex_rule = row.complex_rule
    row_zero = row.zero
    # of real Python numbers only cmath's functions give complex numbers (see _left_the_reals)
    may_leave_reals = python_scalars and getattr(f, "__module__", None) == "cmath"

    def unary_frule(tangents: Any, x: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        if kwargs:
            _check_kwargs(name, kwargs)
        xp = namespace(x)
        if python_scalars and xp is np and real_python_scalars(x):
            xp = PYTHON_SCALARS
        Ω = f(x, **kwargs)
        Δx = unthunk(tangents[1])
        if isinstance(Δx, AbstractZero) or row_zero:
            return Ω, ZERO
        if type(Δx) is not type(x):
            check_tangent(name, "the tangent of x", Δx, x)
        into_c = may_leave_reals and xp is PYTHON_SCALARS and _left_the_reals(Ω)
        if into_c or not _of_namespace(xp, Ω):
            xp = namespace(Ω)
        try:
            xa = _arr(xp, x, Ω, into_c)
            if not _inexact(xp, xa) and not isinstance(x, _NUMBERS):
                return Ω, ZERO
            Δx = _tangent(xp, Δx, xa)
            if complex_rule is not None and _complex(xp, xa):
                ΔΩ = complex_rule[0](xp, xa, Ω, Δx)
            elif d is None:
                return Ω, ZERO
            else:
                ΔΩ = _times(xp, d(xp, xa, Ω) if callable(d) else d, Δx)
            return Ω, _fit(xp, Ω, ΔΩ)
        except AttributeError as e:
            raise _missing(name, xp, e) from e

    def unary_rrule_body(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
        xp = namespace(x)
        if python_scalars and xp is np and real_python_scalars(x):
            xp = PYTHON_SCALARS
        Ω = f(x, **kwargs)
        into_c = may_leave_reals and xp is PYTHON_SCALARS and _left_the_reals(Ω)
        if into_c or not _of_namespace(xp, Ω):
            xp = namespace(Ω)
        xa = _arr(xp, x, Ω, into_c)
        project = _projector(xp, x, xa)
        cplx = complex_rule is not None and _complex(xp, xa)
        if project.kind == 0 or row_zero or (d is None and not cplx):
            zero = _zero_for(project)

            def unary_zero_pullback(ȳ: Any) -> tuple[Any, ...]:
                if not isinstance(ȳ, AbstractZero):
                    _seed(xp, name, ȳ, Ω)         # a seed that does not fit is still an error
                return NO, zero
            return Ω, unary_zero_pullback

        def unary_pullback(ȳ: Any) -> tuple[Any, ...]:
            if isinstance(ȳ, AbstractZero):
                return NO, ZERO
            ȳ = _seed(xp, name, ȳ, Ω)
            try:
                if cplx:
                    return NO, project(complex_rule[1](xp, xa, Ω, ȳ))
                return NO, project(_times(xp, _conj(xp, d(xp, xa, Ω) if callable(d) else d), ȳ))
            except AttributeError as e:
                raise _missing(name, xp, e) from e
        return Ω, unary_pullback

    # what these rules compute on a real array of a namespace: for a traced NumPy array
    # (below) and an adapter that calls them on every call of one function (interop.torch)
    real = RealUnary(f, d) if not may_leave_reals and not row_zero and d is not None else None

    def unary_rrule(x: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        # a real ndarray traced by an enclosing differentiation (ad.hvp's inner gradient on
        # Duals): the body's cotangent without its seed, conjugate and projection layers,
        # which leave a cotangent of Ω's layout as it is; any other cotangent, the body's
        if not kwargs and real is not None and type(x) is not np.ndarray:
            layout = traced_real((x,))
            if layout is not None:
                Ω = real.primal(x)
                if same_real(Ω, layout):
                    def unary_traced_pullback(ȳ: Any) -> tuple[Any, ...]:
                        if same_real(ȳ, layout):
                            return NO, real.times(np, x, Ω, ȳ)
                        return body(x)[1](ȳ)
                    return Ω, unary_traced_pullback
        return body(x, **kwargs)

    ident = _ident(name)
    body = named_rule(unary_rrule_body, ident)
    fr, rr = named_rule(unary_frule, ident), named_rule(unary_rrule, ident)
    if real is not None:
        fr.real_rule = rr.real_rule = real  # type: ignore[attr-defined]
    rr.body = body      # type: ignore[attr-defined]  # the generic body, for the tests of the fast path
    return fr, rr


# ----- binary rules ------------------------------------------------------------------

def _partial(xp: Any, d: Any, x: Any, y: Any, Ω: Any) -> Any:
    return d(xp, x, y, Ω) if callable(d) else d


def _binary_rules(f: Any, row: Any, name: str, reflected: Any, python_scalars: bool) -> Any:
    """Rules of f(x, y) with the row's partials; `reflected`: f(x, y) is the
    row's function of (y, x) (x.__radd__(y) is y + x)."""
    dx, dy = row.partials
    # of two real Python numbers only a power gives a complex number: (-8.0) ** (1/3)
    may_leave_reals = python_scalars and row.name == "pow"
    if reflected:
        dx, dy = dy, dx

        def partial_at(d: Any, x: Any, y: Any, Ω: Any, xp: Any) -> Any:
            return d(xp, y, x, Ω) if callable(d) else d
    else:
        def partial_at(d: Any, x: Any, y: Any, Ω: Any, xp: Any) -> Any:
            return d(xp, x, y, Ω) if callable(d) else d

    def binary_frule(tangents: Any, x: Any, y: Any, **kwargs: Any) -> tuple[Any, Any] | None:
        if kwargs:
            _check_kwargs(name, kwargs)
        xp = namespace(x, y)            # arrays of two libraries: NamespaceError, before any work
        if python_scalars and xp is np and real_python_scalars(x, y):
            xp = PYTHON_SCALARS
        Ω = f(x, y, **kwargs)
        into_c = may_leave_reals and xp is PYTHON_SCALARS and _left_the_reals(Ω)
        if into_c or not _of_namespace(xp, Ω):
            xp = namespace(Ω)
        Δx, Δy = unthunk(tangents[1]), unthunk(tangents[2])
        if type(Δx) is not type(x) and not isinstance(Δx, AbstractZero):
            check_tangent(name, "the tangent of x", Δx, x)
        if type(Δy) is not type(y) and not isinstance(Δy, AbstractZero):
            check_tangent(name, "the tangent of y", Δy, y)
        try:
            xa, ya = _arr(xp, x, Ω, into_c), _arr(xp, y, Ω, into_c)
            ΔΩ = None
            if dx is not None and not isinstance(Δx, AbstractZero) and _has_tangent(xp, x, xa):
                ΔΩ = _times(xp, partial_at(dx, xa, ya, Ω, xp), _tangent(xp, Δx, xa))
            if dy is not None and not isinstance(Δy, AbstractZero) and _has_tangent(xp, y, ya):
                t = _times(xp, partial_at(dy, xa, ya, Ω, xp), _tangent(xp, Δy, ya))
                ΔΩ = t if ΔΩ is None else ΔΩ + t
            if ΔΩ is None:
                return Ω, ZERO
            return Ω, _fit(xp, Ω, ΔΩ)
        except AttributeError as e:
            raise _missing(name, xp, e) from e

    def binary_rrule_body(x: Any, y: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        if kwargs:
            _check_kwargs(name, kwargs)
        xp = namespace(x, y)
        if python_scalars and xp is np and real_python_scalars(x, y):
            xp = PYTHON_SCALARS
        Ω = f(x, y, **kwargs)
        into_c = may_leave_reals and xp is PYTHON_SCALARS and _left_the_reals(Ω)
        if into_c or not _of_namespace(xp, Ω):
            xp = namespace(Ω)
        xa, ya = _arr(xp, x, Ω, into_c), _arr(xp, y, Ω, into_c)
        px, py = _projector(xp, x, xa), _projector(xp, y, ya)
        cplx = _inexact(xp, Ω) and _complex(xp, Ω)

        def cotangent(d: Any, project: Any, seed: Any) -> Any:
            if d is None or project.kind == 0:
                return _zero_for(project)
            if d is ONE and tuple(project.shape) == tuple(Ω.shape):
                return project(seed)              # add: ȳ itself, nothing to compute

            def binary_cotangent() -> Any:
                try:
                    p = partial_at(d, xa, ya, Ω, xp)
                    return project(_times(xp, _conj(xp, p) if cplx else p, seed))
                except AttributeError as e:
                    raise _missing(name, xp, e) from e
            return Thunk(binary_cotangent)        # (named after the function with the rule)

        def binary_pullback(ȳ: Any) -> tuple[Any, ...]:
            if isinstance(ȳ, AbstractZero):
                return NO, _zero_for(px), _zero_for(py)
            ȳ = _seed(xp, name, ȳ, Ω)
            return NO, cotangent(dx, px, ȳ), cotangent(dy, py, ȳ)
        return Ω, binary_pullback

    def binary_rrule(x: Any, y: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        # real ndarrays of one layout, one traced at least (see unary_rrule): the body's
        # cotangents without its seed, conjugate and projection layers
        if not kwargs and not may_leave_reals and (type(x) is not np.ndarray or type(y) is not np.ndarray):
            layout = traced_real((x, y))
            if layout is not None:
                Ω = f(x, y)
                if same_real(Ω, layout):
                    def binary_traced_cotangent(d: Any, ȳ: Any) -> Any:
                        if d is None:
                            return ZERO
                        if d is ONE:
                            return ȳ

                        def binary_traced_thunk() -> Any:
                            return _times(np, partial_at(d, x, y, Ω, np), ȳ)
                        return Thunk(binary_traced_thunk)

                    def binary_traced_pullback(ȳ: Any) -> tuple[Any, ...]:
                        if same_real(ȳ, layout):
                            return NO, binary_traced_cotangent(dx, ȳ), binary_traced_cotangent(dy, ȳ)
                        return body(x, y)[1](ȳ)
                    return Ω, binary_traced_pullback
        return body(x, y, **kwargs)

    ident = _ident(name)
    body = named_rule(binary_rrule_body, ident)
    rr = named_rule(binary_rrule, ident)
    rr.body = body      # type: ignore[attr-defined]  # the generic body, for the tests of the fast path
    return named_rule(binary_frule, ident), rr


def _ident(name: str) -> Any:
    """The name a rule's code gets (tracebacks): `jax.numpy.sin` → `sin`."""
    return name.rsplit(".", 1)[-1]


def _has_tangent(xp: Any, v: Any, va: Any) -> Any:
    return not isinstance(v, bool) and (isinstance(v, _NUMBERS) or _inexact(xp, va))


# ----- building and registering ------------------------------------------------------

def rules_for(f: Any, row: Any, name: str | None = None, reflected: Any = False, python_scalars: bool = False) -> Any:
    """(frule, rrule) of the function f, whose derivatives are the table row
    `row` (a Row or its name).  `reflected`: f(x, y) computes row(y, x).
    `python_scalars` (Python's scalar functions): on real Python numbers,
    tracked or not, the partials are computed with Python numbers
    (`elementwise.scalar.PYTHON_SCALARS`), not NumPy's float64s."""
    if isinstance(row, str):
        row = TABLE[row]
    name = name or getattr(f, "__name__", row.name)
    f = through_engines(STAND_INS.get(f, f) if STAND_INS else f)     # the body differentiable by the calling AD
    if row.arity == 1:
        return _unary_rules(f, row, name, python_scalars)
    return _binary_rules(f, row, name, reflected, python_scalars)


def register_row(f: Any, row: Any, *types: Any, name: str | None = None, reflected: Any = False) -> Any:
    """Register the rules of the table row `row` for f (restricted to the
    argument `types`, as register_frule takes them)."""
    fr, rr = rules_for(f, row, name, reflected)
    register_frule(f, *types)(fr)
    register_rrule(f, *types)(rr)
    return fr, rr


def register_name(module: Any, name: str, row: Any, skip: Any = ()) -> Any:
    """Register the row's rules for `module.<name>`, if the module has such a
    function and it is not one of `skip` (NumPy's own ufuncs keep their
    rules).  Returns the function, or None."""
    f = getattr(module, name, None)
    if f is None or not callable(f) or isinstance(f, type):
        return None
    try:
        if f in skip:
            return None
        hash(f)
    except TypeError:
        return None
    register_row(f, row, name=f"{getattr(module, '__name__', '')}.{name}".lstrip("."))
    return f
