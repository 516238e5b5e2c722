"""flatten: a nesting of tuples, lists and dicts (keys sorted) holding arrays
or numbers, as one 1-D array; and back.

Both directions are NumPy functions with rules (`np.ravel`,
`np.concatenate`, slicing, `np.reshape`), so either may run on values
tracked by chainrules.ad and be differentiated: an optimizer's flat
parameter vector maps to the structured parameters and a structured
gradient to a flat one.  The leaves' dtypes are promoted together as
`np.concatenate` promotes them (mixed ints and floats come back as floats);
a leaf that was a Python or NumPy scalar comes back as a 0-d value.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["flatten", "flatten_func"]


def _leaves(value: Any, out: list[Any]) -> Any:
    """The structure of value (what unflatten rebuilds), its leaves appended to out."""
    t = type(value)
    if t in (list, tuple):
        return (t, [_leaves(v, out) for v in value])
    if t is dict:
        keys = sorted(value)
        return (dict, keys, [_leaves(value[k], out) for k in keys])
    out.append(value)
    return (None, np.shape(value), np.ndim(value) == 0 and not isinstance(value, np.ndarray))


def _build(spec: Any, flat: Any, at: list[int]) -> Any:
    kind = spec[0]
    if kind is dict:
        return {k: _build(s, flat, at) for k, s in zip(spec[1], spec[2])}
    if kind is not None:
        return kind(_build(s, flat, at) for s in spec[1])
    shape, scalar = spec[1], spec[2]
    size = int(np.prod(shape)) if shape else 1
    start = at[0]
    at[0] += size
    if scalar:
        return flat[start]
    return np.reshape(flat[start:start + size], shape)


def flatten(value: Any) -> tuple[Any, Callable[[Any], Any]]:
    """(the leaves of value raveled and concatenated, unflatten): `unflatten`
    maps a 1-D array of the same length back to value's nesting."""
    leaves: list[Any] = []
    spec = _leaves(value, leaves)
    flat = np.concatenate([np.ravel(v) for v in leaves]) if leaves else np.array([])
    n = int(np.shape(flat)[0])

    def unflatten(vector: Any) -> Any:
        if np.ndim(vector) != 1 or np.shape(vector)[0] != n:
            raise ValueError(f"chainrules.ad.autograd.misc.flatten: unflatten expects a 1-D array of "
                             f"{n} values, got shape {np.shape(vector)}")
        return _build(spec, vector, [0])

    return flat, unflatten


def flatten_func(func: Callable[..., Any], example: Any) -> tuple[Callable[..., Any], Callable[[Any], Any], Any]:
    """(func on flat vectors, unflatten, example flattened): `func(value,
    *args)` of a nesting shaped like `example` as a function of its flat
    vector, returning its own output flattened."""
    flat_example, unflatten = flatten(example)

    def flat_func(vector: Any, *args: Any) -> Any:
        return flatten(func(unflatten(vector), *args))[0]

    return flat_func, unflatten, flat_example
