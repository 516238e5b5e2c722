"""The import hook that registers the array-API rules for a library when it
is imported (at once for one already imported).  A minimal one of this
branch's own; the shared hook table of chainrules/rulesets/__init__.py calls
`register_for` the same way."""

import importlib.abc
import sys
import warnings

from chainrules.rulesets.array_api import MODULES, register_for

__all__ = ["install"]


class _RegisterAfter(importlib.abc.Loader):
    """A module's loader, wrapped: once the module has run, its rules are
    registered.  Everything else is the real loader's."""

    def __init__(self, loader, name):
        self._loader = loader
        self._name = name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            register_for(self._name, module)
        except Exception as e:      # noqa: BLE001 - never break the user's import
            warnings.warn(f"chainrules: the array-API rules for {self._name} could not be registered: "
                          f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=2)

    def __getattr__(self, name):            # get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _ArrayApiHook(importlib.abc.MetaPathFinder):
    """Finds the modules of MODULES with the other finders and wraps their
    loaders; forgets each once found, and leaves sys.meta_path when none is left."""

    def __init__(self, names):
        self.pending = set(names)

    def find_spec(self, name, path, target=None):
        if name not in self.pending:
            return None
        self.pending.discard(name)
        if not self.pending:
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        spec = _find_with(self, name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfter(spec.loader, name)
        return spec


def _find_with(hook, name, path, target):
    for finder in sys.meta_path:
        if finder is hook:
            continue
        find = getattr(finder, "find_spec", None)
        if find is not None:
            spec = find(name, path, target)
            if spec is not None:
                return spec
    return None


def install():
    """Register the rules for the libraries already imported; hook the others."""
    pending = []
    for name in MODULES:
        module = sys.modules.get(name)
        if module is not None:
            register_for(name, module)
        else:
            pending.append(name)
    if pending and not any(isinstance(f, _ArrayApiHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _ArrayApiHook(pending))


install()
