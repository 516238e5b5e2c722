"""chainrules.interop: the rules inside JAX, PyTorch and autograd.

`to_jax(f)`, `to_torch(f)` and `to_autograd(f)` turn a function with rules
into a native function of that engine whose derivatives (first and higher
order, where the engine allows) are chainrules' rules for f; `export(engine,
fs)` does many at once.  Each engine has a `RuleConfig` (`JaxConfig`,
`TorchConfig`, `AutogradConfig`) whose `rrule_via_ad`/`frule_via_ad` call
back into it, so higher-order rules (`map`, `functools.reduce`, …) run
inside the engine.  Importing chainrules.interop imports none of the
engines: each is imported when a wrapped function is first called.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from chainrules.interop.autograd import AutogradConfig, to_autograd
from chainrules.interop.jax import JaxConfig, to_jax
from chainrules.interop.torch import TorchConfig, to_torch

__all__ = ["to_jax", "to_torch", "to_autograd", "export", "ENGINES",
           "JaxConfig", "TorchConfig", "AutogradConfig"]

# engine name -> its adapter
ENGINES: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "jax": to_jax, "torch": to_torch, "autograd": to_autograd}


def export(engine: str, fs: Mapping[str, Callable[..., Any]] | Any) -> dict[str, Callable[..., Any]]:
    """export(engine, fs) -> {name: wrapped function}

    Wrap many functions at once for `engine` ("jax", "torch" or
    "autograd"): `fs` is a mapping name → function, an iterable of functions
    (named by their `__name__`), or a module/namespace object (its public
    callables that have rules: `export("jax", scipy.special)`).  The result
    is a dict; `types.SimpleNamespace(**export(...))` makes it a namespace.

    >>> import numpy as np
    >>> from chainrules.interop import export
    >>> sorted(export("jax", [np.sin, np.cos]))
    ['cos', 'sin']
    """
    try:
        wrap = ENGINES[engine]
    except KeyError:
        raise ValueError(f"export: unknown engine {engine!r}; expected one of {sorted(ENGINES)}") from None
    if isinstance(fs, Mapping):
        items = list(fs.items())
    elif isinstance(fs, (list, tuple, set, frozenset)):
        items = [(getattr(f, "__name__", None), f) for f in fs]
        unnamed = [f for n, f in items if not isinstance(n, str)]
        if unnamed:
            raise TypeError(f"export: {unnamed[0]!r} has no __name__; pass a dict name -> function")
    else:
        from chainrules._core import _rules_of
        items = [(n, getattr(fs, n)) for n in dir(fs) if not n.startswith("_")]
        items = [(n, f) for n, f in items if callable(f) and any(_rules_of(f))]
    for name, f in items:
        if not callable(f):
            raise TypeError(f"export: {name!r} is not callable ({type(f).__name__})")
    return {str(name): wrap(f) for name, f in items}
