"""The rule sets, one module per domain; importing this package registers them.

The scalar rules of math, cmath, operator and the builtins are rows of the C
table in `chainrules._core`; the modules here hold the rules written in Python.
`scipy_special` is registered when `scipy.special` is imported: at once if it
already is, else by an import hook the first time it is (importing SciPy costs
~0.2 s and starts its BLAS threads; a program that never uses it pays nothing).
"""

import importlib
import importlib.abc
import sys

from chainrules.rulesets import nondiff  # noqa: E402,F401
from chainrules.rulesets import python_scalars  # noqa: E402,F401
from chainrules.rulesets import numpy_ufuncs  # noqa: E402,F401
from chainrules.rulesets import numpy_reductions  # noqa: E402,F401
from chainrules.rulesets import numpy_shapes  # noqa: E402,F401
from chainrules.rulesets import numpy_linalg  # noqa: E402,F401
from chainrules.rulesets import numpy_fft  # noqa: E402,F401
from chainrules.rulesets import numpy_statistics  # noqa: E402,F401
from chainrules.rulesets import higher_order  # noqa: E402,F401

_SCIPY_RULES = "chainrules.rulesets.scipy_special"


class _RegisterAfter(importlib.abc.Loader):
    """The loader of `scipy.special`, wrapped: once the module has run, the
    rules for it are registered.  Everything else is the real loader's."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        importlib.import_module(_SCIPY_RULES)

    def __getattr__(self, name):            # get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _ScipySpecialHook(importlib.abc.MetaPathFinder):
    """Finds `scipy.special` with the other finders and wraps its loader;
    removes itself from `sys.meta_path` once used."""

    def find_spec(self, name, path, target=None):
        if name != "scipy.special":
            return None
        _remove_hook()
        spec = _find_with(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfter(spec.loader)
        return spec


def _find_with(name, path, target):
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is not None:
            spec = find(name, path, target)
            if spec is not None:
                return spec
    return None


def _remove_hook():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ScipySpecialHook)]


if "scipy.special" in sys.modules:
    importlib.import_module(_SCIPY_RULES)
else:
    sys.meta_path.insert(0, _ScipySpecialHook())

# the array-API rules of other libraries, registered when each is imported
from chainrules.rulesets.array_api import _hooks  # noqa: E402,F401
