"""The rule sets, laid out by the module they differentiate (ChainRules.jl's
`src/rulesets/`): `python/` (math, cmath, builtins, nondiff), `numpy/`
(element-wise, reductions, shapes and indexing, `linalg/`, fft, statistics),
`scipy/special.py`, `scipy/linalg.py`; `higher_order.py` holds the rules that call back into an
AD.  Importing this package registers them.

The scalar rules of math, cmath, operator and the builtins are rows of the C
table in `chainrules._core`; the modules here hold the rules written in Python.
The rules for other libraries are registered when that library is imported
(`ON_IMPORT`: `scipy.special`, `scipy.linalg`, and the array libraries of
`elementwise.interop.LIBRARIES` and `array_api.MODULES`): at once if it already is, else by an import
hook the first time it is (importing SciPy costs ~0.2 s and starts its BLAS
threads, PyTorch and JAX much more; a program that never uses them pays
nothing).
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

from chainrules.rulesets import python  # noqa: E402,F401
from chainrules.rulesets import numpy  # noqa: E402,F401
from chainrules.rulesets import higher_order  # noqa: E402,F401

from chainrules.rulesets.elementwise import interop as elementwise_interop  # noqa: E402
from chainrules.rulesets import array_api as _array_api  # noqa: E402

# each SciPy module's rules, in chainrules/rulesets/scipy/<module>.py, imported once
# SciPy's module is (a module with no rules file yet has no entry)
_SCIPY_MODULES = ("special", "linalg", "signal", "integrate", "optimize", "interpolate", "stats")


def _scipy_rules(name: str) -> Any:
    def register(module: Any) -> None:
        importlib.import_module(f"chainrules.rulesets.scipy.{name}")
    return register


def _guarded(what: str, name: str, register_for: Any) -> Any:
    """The function registering `what` rules for the library `name`, called
    with the module once it has been imported: `register_for(name, module)`,
    whose failure is a RuntimeWarning (never break the user's import of the
    library)."""
    def register(module: Any) -> None:
        try:
            register_for(name, module)
        except Exception as e:
            warnings.warn(f"chainrules: registering the {what} rules for {name} failed: {e!r}",
                          RuntimeWarning, stacklevel=2)
    return register


def _all_of(*fs: Any) -> Any:
    def register(module: Any) -> None:
        for f in fs:
            f(module)
    return register


# the libraries that have scipy.special's functions (jax.scipy.special, torch.special): the
# rows of the scipy.special table registered on them (rulesets/scipy/special_libs.py)
_SPECIAL_LIBRARIES = ("jax.scipy.special", "torch")


def _special_register_for(name: str, module: Any) -> None:
    if importlib.util.find_spec("scipy") is not None:
        from chainrules.rulesets.scipy import special_libs
        special_libs.register_for(name, module)


def _stats_register_for(name: str, module: Any) -> None:
    if importlib.util.find_spec("scipy") is None:
        return
    if name == "torch" and "scipy.stats" not in sys.modules:
        return      # registered with scipy.stats' rules (importing it would cost every torch user 0.6 s)
    from chainrules.rulesets.scipy.stats import libs
    libs.register_for(name, module)


# module name -> the function registering the rules for it, called with the
# module once it has been imported (and again if it is reloaded)
ON_IMPORT = {f"scipy.{m}": _scipy_rules(m) for m in _SCIPY_MODULES
             if importlib.util.find_spec(f"chainrules.rulesets.scipy.{m}") is not None}
for _name in dict.fromkeys([*elementwise_interop.LIBRARIES, *_array_api.MODULES]):
    ON_IMPORT[_name] = _all_of(*([elementwise_interop.LIBRARIES[_name]]
                                 if _name in elementwise_interop.LIBRARIES else []),
                               *([_guarded("array-API", _name, _array_api.register_for)]
                                 if _name in _array_api.MODULES else []))
for _name in _SPECIAL_LIBRARIES:
    _special = _guarded("scipy.special", _name, _special_register_for)
    ON_IMPORT[_name] = _all_of(ON_IMPORT[_name], _special) if _name in ON_IMPORT else _special
# the libraries that have scipy.stats' functions: its methods' rules registered on them
# (rulesets/scipy/stats/libs.py)
ON_IMPORT["jax.scipy.stats"] = _guarded("scipy.stats", "jax.scipy.stats", _stats_register_for)
# (torch.distributions' rules: when torch is imported after scipy.stats, else at the end of
# chainrules.rulesets.scipy.stats, when its rules are complete)
ON_IMPORT["torch"] = _all_of(ON_IMPORT["torch"], _guarded("scipy.stats", "torch", _stats_register_for))
_pending = set()        # the names the hook still waits for


class _RegisterAfter(importlib.abc.Loader):
    """A module's loader, wrapped: once the module has run, the rules for it
    are registered.  Everything else is the real loader's."""

    def __init__(self, loader: Any, register: Any) -> None:
        self._loader = loader
        self._register = register

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        self._register(module)

    def __getattr__(self, name: str) -> Any:            # get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _OnImportHook(importlib.abc.MetaPathFinder):
    """Finds the modules of ON_IMPORT with the other finders and wraps their
    loaders; removes itself from `sys.meta_path` once none is pending."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in _pending:
            return None
        _pending.discard(name)
        if not _pending:
            _remove_hook()
        spec = _find_with(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfter(spec.loader, ON_IMPORT[name])
        return spec


def _find_with(name: str, path: Any, target: Any) -> Any:
    for finder in sys.meta_path:
        if isinstance(finder, _OnImportHook):
            continue
        find = getattr(finder, "find_spec", None)
        if find is not None:
            spec = find(name, path, target)
            if spec is not None:
                return spec
    return None


def _remove_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _OnImportHook)]


for _name, _register in ON_IMPORT.items():
    if _name in sys.modules:
        _register(sys.modules[_name])
    else:
        _pending.add(_name)
if _pending:
    sys.meta_path.insert(0, _OnImportHook())
del _name, _register
