"""to_vec: flatten a value to a real vector, and back.

Finite differences work on real vectors; `to_vec(x)` gives `(v, back)` with `v`
a 1-D float64 array and `back(v)` a value like x.  Complex numbers count as
two reals (real part, imaginary part), as ChainRules treats ℂ as ℝ².  Leaves
without a tangent space (Python ints, bools, NumPy integer values and arrays,
strings, None, functions, the zero tangents) contribute nothing and come back
untouched.

The same layout also reads a tangent of x into a vector aligned with `v`
(`_Layout.tangent_vec`) and turns such a vector into a tangent of x
(`_Layout.tangent`): `Tangent[P]` for tuples, dicts and dataclasses,
`NoTangent()` for leaves without a tangent space.  That is what `jvp` and
`vjp` use, so that a `Tangent[P]` and a primal-shaped tangent both work.
"""

import copy
import dataclasses
from typing import Any, Callable

import numpy as np

from chainrules import (
    AbstractThunk,
    AbstractZero,
    NoTangent,
    StructuralTangent,
    Tangent,
    ZeroTangent,
    unthunk,
)

__all__ = ["to_vec"]

_EMPTY = np.zeros(0)


def to_vec(x: Any) -> tuple[np.ndarray[Any, np.dtype[np.float64]], Callable[[np.ndarray[Any, Any]], Any]]:
    """to_vec(x) -> (v, back)

    `v`: the differentiable content of x as a 1-D float64 array (complex
    numbers as real and imaginary part); `back(v)` rebuilds a value of the
    same type, dtype and shape as x (np.float32 stays np.float32, a tuple
    stays a tuple).  Supports numbers, NumPy scalars and arrays of any shape
    (0-d and empty included), tuples, namedtuples, lists, dicts, dataclasses
    and `Tangent` values; integers, bools, strings, None and integer arrays are left
    untouched.

    Example::

        >>> v, back = to_vec((1.0, np.array([2j, 3.0])))
        >>> v
        array([1., 0., 2., 3., 0.])
        >>> back(v * 2)
        (2.0, array([0.+4.j, 6.+0.j]))
    """
    x = unthunk(x)
    layout = layout_of(x)
    return layout.flatten(x), layout.unflatten


def layout_of(x: Any) -> Any:
    """The `_Layout` of x: how x maps to a real vector."""
    if isinstance(x, AbstractThunk):
        x = unthunk(x)
    if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, (str, bytes, AbstractZero)):
        return _Fixed(x)
    if isinstance(x, np.generic):
        kind = x.dtype.kind
        if kind == "f":
            return _Real(type(x))
        if kind == "c":
            return _Complex(type(x))
        return _Fixed(x)
    if isinstance(x, float):
        return _Real(type(x))
    if isinstance(x, complex):
        return _Complex(type(x))
    if isinstance(x, int):
        return _Fixed(x)
    if isinstance(x, np.ndarray):
        kind = x.dtype.kind
        if kind == "f":
            return _RealArray(x.dtype, x.shape)
        if kind == "c":
            return _ComplexArray(x.dtype, x.shape)
        if kind == "O":
            return _ObjectArray(x)
        return _Fixed(x)
    if isinstance(x, StructuralTangent):
        return _StructTangent(x)
    if isinstance(x, (tuple, list)):
        return _Sequence(x)
    if isinstance(x, dict):
        return _Dict(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return _Dataclass(x)
    return _Fixed(x)


class _Layout:
    """How one value maps to a slice of the real vector."""
    size = 0

    def flatten(self, x: Any) -> None:
        """x (a value of this layout) -> 1-D float64 array of `size`."""
        raise NotImplementedError

    def unflatten(self, v: Any) -> None:
        """1-D array of `size` -> a value like the one the layout was built from."""
        raise NotImplementedError

    def tangent_vec(self, dx: Any) -> None:
        """A tangent of the value -> 1-D float64 array of `size` (zeros for zero tangents)."""
        raise NotImplementedError

    def tangent(self, v: Any) -> None:
        """1-D array of `size` -> a tangent of the value (Tangent for structures)."""
        raise NotImplementedError


def _check_len(layout: Any, v: Any) -> Any:
    v = np.asarray(v)
    if v.ndim != 1 or v.shape[0] != layout.size:
        raise ValueError(f"to_vec: expected a vector of length {layout.size}, got shape {v.shape}")
    return v


class _Fixed(_Layout):
    """A leaf without a tangent space: no entries, comes back untouched."""

    def __init__(self, x: Any) -> None:
        self.value = x

    def flatten(self, x: Any) -> Any:
        return _EMPTY.copy()

    def unflatten(self, v: Any) -> Any:
        _check_len(self, v)
        return self.value

    def tangent_vec(self, dx: Any) -> Any:
        return _EMPTY.copy()

    def tangent(self, v: Any) -> Any:
        return NoTangent()


def _scalar_of(dx: Any, what: str) -> Any:
    dx = unthunk(dx)
    if isinstance(dx, AbstractZero):
        return 0.0
    if isinstance(dx, np.ndarray):
        if dx.size != 1:
            raise ValueError(f"to_vec: a tangent of shape {dx.shape} for a {what}")
        dx = dx.reshape(())[()]
    if not isinstance(dx, (int, float, complex, np.number)) or isinstance(dx, (bool, np.bool_)):
        raise TypeError(f"to_vec: a {type(dx).__name__} is not a tangent of a {what}")
    return dx


class _Real(_Layout):
    size = 1

    def __init__(self, t: Any) -> None:
        self.type = t

    def flatten(self, x: Any) -> Any:
        return np.array([float(x)])

    def unflatten(self, v: Any) -> Any:
        return self.type(_check_len(self, v)[0])

    def tangent_vec(self, dx: Any) -> Any:
        d = _scalar_of(dx, self.type.__name__)
        if isinstance(d, (complex, np.complexfloating)):
            if d.imag != 0:
                raise ValueError(f"to_vec: the complex tangent {d!r} of a real {self.type.__name__} has an "
                                 "imaginary part, which has no direction to perturb")
            d = d.real
        return np.array([float(d)])

    def tangent(self, v: Any) -> Any:
        return self.unflatten(v)


class _Complex(_Layout):
    size = 2

    def __init__(self, t: Any) -> None:
        self.type = t

    def flatten(self, x: Any) -> Any:
        return np.array([x.real, x.imag], dtype=np.float64)

    def unflatten(self, v: Any) -> Any:
        v = _check_len(self, v)
        return self.type(complex(v[0], v[1]))

    def tangent_vec(self, dx: Any) -> Any:
        d = complex(_scalar_of(dx, self.type.__name__))
        return np.array([d.real, d.imag])

    def tangent(self, v: Any) -> Any:
        return self.unflatten(v)


def _array_of(dx: Any, shape: Any, what: str) -> Any:
    dx = unthunk(dx)
    if isinstance(dx, AbstractZero):
        return None
    if isinstance(dx, StructuralTangent):
        raise TypeError(f"to_vec: a {type(dx).__name__} is not a tangent of {what}")
    a = np.asarray(dx)
    if a.shape != shape:
        if a.size == 1 and a.ndim <= len(shape) and all(d == 1 for d in shape):
            a = a.reshape(shape)
        else:
            raise ValueError(f"to_vec: a tangent of shape {a.shape} for {what} of shape {shape}")
    return a


class _RealArray(_Layout):
    def __init__(self, dtype: Any, shape: Any) -> None:
        self.dtype = dtype
        self.shape = shape
        self.size = int(np.prod(shape, dtype=np.int64))

    def flatten(self, x: Any) -> Any:
        return np.asarray(x, dtype=np.float64).ravel().copy()

    def unflatten(self, v: Any) -> Any:
        return _check_len(self, v).reshape(self.shape).astype(self.dtype)

    def tangent_vec(self, dx: Any) -> Any:
        a = _array_of(dx, self.shape, f"a {self.dtype} array")
        if a is None:
            return np.zeros(self.size)
        if a.dtype.kind == "c":
            if np.any(a.imag != 0):
                raise ValueError(f"to_vec: a complex tangent with nonzero imaginary part for a real "
                                 f"{self.dtype} array")
            a = a.real
        return np.asarray(a, dtype=np.float64).ravel().copy()

    def tangent(self, v: Any) -> Any:
        return self.unflatten(v)


class _ComplexArray(_Layout):
    def __init__(self, dtype: Any, shape: Any) -> None:
        self.dtype = dtype
        self.shape = shape
        self.size = 2 * int(np.prod(shape, dtype=np.int64))

    def flatten(self, x: Any) -> Any:
        x = np.asarray(x)
        return np.stack([x.real.ravel(), x.imag.ravel()], axis=-1).astype(np.float64).ravel()

    def unflatten(self, v: Any) -> Any:
        pairs = _check_len(self, v).reshape(-1, 2)
        z = np.empty(pairs.shape[0], dtype=self.dtype)
        z.real = pairs[:, 0]
        z.imag = pairs[:, 1]
        return z.reshape(self.shape)

    def tangent_vec(self, dx: Any) -> Any:
        a = _array_of(dx, self.shape, f"a {self.dtype} array")
        if a is None:
            return np.zeros(self.size)
        return self.flatten(a.astype(np.complex128))

    def tangent(self, v: Any) -> Any:
        return self.unflatten(v)


class _Composite(_Layout):
    """A value made of children: the vector is the children's, concatenated."""

    def _init_children(self, keys: Any, values: Any) -> None:
        self.keys = list(keys)
        self.children = [layout_of(v) for v in values]
        self.size = sum(c.size for c in self.children)

    def _split(self, v: Any) -> Any:
        v = _check_len(self, v)
        out, i = [], 0
        for c in self.children:
            out.append(v[i:i + c.size])
            i += c.size
        return out

    def _flat_children(self, values: Any) -> Any:
        parts = [c.flatten(x) for c, x in zip(self.children, values)]
        return np.concatenate(parts) if parts else _EMPTY.copy()

    def _tangent_children(self, dx: Any) -> Any:
        """The tangents of the children from a tangent of the whole."""
        dx = unthunk(dx)
        if isinstance(dx, AbstractZero):
            return [ZeroTangent()] * len(self.children)
        if isinstance(dx, StructuralTangent):
            b = dx.backing
            if isinstance(b, tuple):
                if len(b) != len(self.children):
                    raise ValueError(f"to_vec: a {type(dx).__name__} of {len(b)} elements for a value of "
                                     f"{len(self.children)}")
                return list(b)
            return [b.get(k, ZeroTangent()) for k in self.keys]
        return self._children_of_plain(dx)

    def _children_of_plain(self, dx: Any) -> None:
        raise TypeError(f"to_vec: a {type(dx).__name__} is not a tangent of {self.describe()}")

    def tangent_vec(self, dx: Any) -> Any:
        parts = [c.tangent_vec(d) for c, d in zip(self.children, self._tangent_children(dx))]
        return np.concatenate(parts) if parts else _EMPTY.copy()

    def _child_tangents(self, v: Any) -> Any:
        ts = [c.tangent(part) for c, part in zip(self.children, self._split(v))]
        return ts, all(isinstance(t, NoTangent) for t in ts)

    def describe(self) -> str:
        return "a structure"


class _Sequence(_Composite):
    def __init__(self, x: Any) -> None:
        self.type = type(x)
        self.namedtuple = isinstance(x, tuple) and hasattr(type(x), "_fields")
        self._init_children(range(len(x)), x)

    def describe(self) -> str:
        return f"a {self.type.__name__} of {len(self.children)} elements"

    def flatten(self, x: Any) -> Any:
        return self._flat_children(list(x))

    def _build(self, elems: Any) -> Any:
        if self.namedtuple:
            return self.type(*elems)
        if self.type in (tuple, list):
            return self.type(elems)
        return self.type(elems)

    def unflatten(self, v: Any) -> Any:
        return self._build([c.unflatten(part) for c, part in zip(self.children, self._split(v))])

    def _children_of_plain(self, dx: Any) -> Any:
        if isinstance(dx, (tuple, list)):
            if len(dx) != len(self.children):
                raise ValueError(f"to_vec: a tangent of {len(dx)} elements for {self.describe()}")
            return list(dx)
        return super()._children_of_plain(dx)

    def tangent(self, v: Any) -> Any:
        ts, none = self._child_tangents(v)
        if self.type is list or (issubclass(self.type, list)):
            return ts
        if none:
            return NoTangent()
        return Tangent[self.type](*ts)  # type: ignore[name-defined]  # P known at run time


class _Dict(_Composite):
    def __init__(self, x: Any) -> None:
        self.type = type(x)
        self._init_children(x.keys(), x.values())
        self.template = x

    def describe(self) -> str:
        return f"a {self.type.__name__} with keys {self.keys}"

    def flatten(self, x: Any) -> Any:
        return self._flat_children([x[k] for k in self.keys])

    def unflatten(self, v: Any) -> Any:
        items = zip(self.keys, [c.unflatten(part) for c, part in zip(self.children, self._split(v))])
        if self.type is dict:
            return dict(items)
        out = copy.copy(self.template)
        out.clear()
        out.update(items)
        return out

    def _children_of_plain(self, dx: Any) -> Any:
        if isinstance(dx, dict):
            unknown = [k for k in dx if k not in self.keys]
            if unknown:
                raise ValueError(f"to_vec: the tangent has keys {unknown} that {self.describe()} lacks")
            return [dx.get(k, ZeroTangent()) for k in self.keys]
        return super()._children_of_plain(dx)

    def tangent(self, v: Any) -> Any:
        ts, none = self._child_tangents(v)
        if none:
            return NoTangent()
        return Tangent[self.type](dict(zip(self.keys, ts)))  # type: ignore[name-defined]  # P known at run time


class _Dataclass(_Composite):
    def __init__(self, x: Any) -> None:
        self.type = type(x)
        self.template = x
        names = [f.name for f in dataclasses.fields(x)]
        self._init_children(names, [getattr(x, n) for n in names])

    def describe(self) -> str:
        return f"a {self.type.__name__}"

    def flatten(self, x: Any) -> Any:
        return self._flat_children([getattr(x, k) for k in self.keys])

    def unflatten(self, v: Any) -> Any:
        out = copy.copy(self.template)
        for k, c, part in zip(self.keys, self.children, self._split(v)):
            object.__setattr__(out, k, c.unflatten(part))
        return out

    def _children_of_plain(self, dx: Any) -> Any:
        if isinstance(dx, self.type):
            return [getattr(dx, k) for k in self.keys]
        if isinstance(dx, dict):
            return [dx.get(k, ZeroTangent()) for k in self.keys]
        return super()._children_of_plain(dx)

    def tangent(self, v: Any) -> Any:
        ts, none = self._child_tangents(v)
        if none:
            return NoTangent()
        return Tangent[self.type](**dict(zip(self.keys, ts)))  # type: ignore[name-defined]  # P known at run time


class _StructTangent(_Composite):
    """A Tangent[P] / MutableTangent[P] as a value: its fields."""

    def __init__(self, x: Any) -> None:
        self.type = type(x)
        b = x.backing
        self.tuple_backed = isinstance(b, tuple)
        self.dict_primal = isinstance(x.primal_type, type) and issubclass(x.primal_type, dict)
        if self.tuple_backed:
            self._init_children(range(len(b)), b)
        else:
            self._init_children(b.keys(), b.values())

    def describe(self) -> str:
        return f"a {self.type.__name__}"

    def flatten(self, x: Any) -> Any:
        b = x.backing
        return self._flat_children(list(b) if self.tuple_backed else [b[k] for k in self.keys])

    def _build(self, elems: Any) -> Any:
        if self.tuple_backed:
            return self.type(*elems)
        fields = dict(zip(self.keys, elems))
        return self.type(fields) if self.dict_primal else self.type(**fields)

    def unflatten(self, v: Any) -> Any:
        return self._build([c.unflatten(part) for c, part in zip(self.children, self._split(v))])

    def tangent(self, v: Any) -> Any:
        ts, _ = self._child_tangents(v)
        return self._build(ts)


class _ObjectArray(_Composite):
    """An object array: element by element."""

    def __init__(self, x: Any) -> None:
        self.shape = x.shape
        self._init_children(range(x.size), list(x.ravel()))

    def describe(self) -> str:
        return f"an object array of shape {self.shape}"

    def flatten(self, x: Any) -> Any:
        return self._flat_children(list(np.asarray(x).ravel()))

    def _build(self, elems: Any) -> Any:
        out = np.empty(len(elems), dtype=object)
        out[:] = elems
        return out.reshape(self.shape)

    def unflatten(self, v: Any) -> Any:
        return self._build([c.unflatten(part) for c, part in zip(self.children, self._split(v))])

    def _children_of_plain(self, dx: Any) -> Any:
        a = np.asarray(dx, dtype=object)
        if a.shape != self.shape:
            raise ValueError(f"to_vec: a tangent of shape {a.shape} for {self.describe()}")
        return list(a.ravel())

    def tangent(self, v: Any) -> Any:
        ts, _ = self._child_tangents(v)
        return self._build(ts)
