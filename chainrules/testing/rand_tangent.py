"""rand_tangent: a random tangent for a primal, of the right type.

The tangent of a float is a float, of an np.float32 an np.float32, of a
complex a complex, of an array an array of the same dtype and shape; tuples,
dicts and dataclasses get a `Tangent[P]`, lists a list; integers, bools,
strings, None, functions and integer arrays have no tangent space and get
`NoTangent()`, as does a structure none of whose parts has one.
"""

import dataclasses

import zlib
from typing import Any

import numpy as np

from chainrules import AbstractTangent, NoTangent, Tangent, backing

# Tangent subscripted with the type of a value (Tangent[type(x)]): a type checker reads
# Tangent[...] as a type, which a runtime value cannot be.
_Tangent: Any = Tangent

__all__ = ["rand_tangent"]

# The kit's generator.  The testers reseed it from the name of the function
# under test (`reseed_for`), so that a test draws the same tangents whatever
# ran before it: no result depends on the order or the selection of tests.
_RNG = np.random.default_rng(20240611)


def reseed_for(f: Any) -> None:
    """Reseed the kit's generator from f's name (stable across runs)."""
    global _RNG
    name = f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', type(f).__name__)}"
    _RNG = np.random.default_rng(zlib.crc32(name.encode()))


def _number(rng: Any) -> Any:
    # Readable values (two decimals), bounded away from zero so that a tangent
    # never hides a bug by being 0.
    return round(float(rng.uniform(0.5, 3.0)) * float(rng.choice((-1.0, 1.0))), 2)


def rand_tangent(x: Any, rng: np.random.Generator | None = None) -> Any:
    """rand_tangent(x, rng=None) -> a random tangent of x

    - float → float; np.float32/np.float64 scalars keep their type; complex
      (Python or NumPy) → complex of the same type.
    - float/complex arrays → an array of the same dtype and shape (0-d and
      empty included).
    - int, bool, NumPy integers and bools, integer arrays, str, bytes, None,
      functions, classes → `NoTangent()`.
    - tuple/namedtuple → `Tangent[type(x)](...)`; list → list; dict →
      `Tangent[type(x)]({...})`; dataclass or object with fields →
      `Tangent[type(x)](**fields)`; `NoTangent()` when no part has a tangent.

    `rng`: a `numpy.random.Generator` (default: the kit's own, seeded once).

    Example::

        >>> rand_tangent(np.ones(2, dtype=np.float32)).dtype
        dtype('float32')
        >>> rand_tangent((1.0, 2))
        Tangent[tuple](-1.37, NoTangent())
    """
    if rng is None:
        rng = _RNG
    if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, (str, bytes, AbstractTangent)):
        return NoTangent()
    if isinstance(x, np.generic):
        kind = x.dtype.kind
        if kind == "f":
            return type(x)(_number(rng))
        if kind == "c":
            return type(x)(complex(_number(rng), _number(rng)))
        return NoTangent()
    if isinstance(x, float):
        return type(x)(_number(rng))
    if isinstance(x, complex):
        return type(x)(complex(_number(rng), _number(rng)))
    if isinstance(x, int):
        return NoTangent()
    if isinstance(x, np.ndarray):
        kind = x.dtype.kind
        if kind == "f":
            return np.asarray(rng.standard_normal(x.shape), dtype=x.dtype)
        if kind == "c":
            return np.asarray(rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape), dtype=x.dtype)
        if kind == "O":
            out = np.empty(x.shape, dtype=object)
            for i, v in np.ndenumerate(x):
                out[i] = rand_tangent(v, rng)
            return out
        return NoTangent()
    if isinstance(x, list):
        ts = [rand_tangent(v, rng) for v in x]
        return NoTangent() if all(isinstance(t, NoTangent) for t in ts) else ts
    if isinstance(x, tuple):
        ts = [rand_tangent(v, rng) for v in x]
        return NoTangent() if all(isinstance(t, NoTangent) for t in ts) else _Tangent[type(x)](*ts)
    if isinstance(x, dict):
        entries = {k: rand_tangent(v, rng) for k, v in x.items()}
        if all(isinstance(t, NoTangent) for t in entries.values()):
            return NoTangent()
        return _Tangent[type(x)](entries)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        fields = {f.name: rand_tangent(getattr(x, f.name), rng) for f in dataclasses.fields(x)}
        if all(isinstance(t, NoTangent) for t in fields.values()):
            return NoTangent()
        return _Tangent[type(x)](**fields)
    if isinstance(x, type) or callable(x):
        return NoTangent()
    try:
        b = backing(x)
    except TypeError:
        return NoTangent()
    fields = {k: rand_tangent(v, rng) for k, v in b.items()}
    if all(isinstance(t, NoTangent) for t in fields.values()):
        return NoTangent()
    return _Tangent[type(x)](**fields)
