"""Fixtures and settings shared by the whole suite.

The hypothesis profiles of the property tests: the default ("suite") is
derandomized, so every run draws the same examples and a property test
passes or fails the same way each time (a strict xfail stays honest);
`HYPOTHESIS_PROFILE=explore` draws many more, at random, to hunt for new
failures by hand."""

import contextlib
import importlib
import os
import sys

import pytest
from hypothesis import settings

from chainrules import _core, rulesets
# chainrules.ad registers rules on its tracked values when it is imported (indexing, NumPy's
# functions, the scalar rows): imported here, before any test snapshots the registry, so that
# the `registry` fixture's restore cannot drop them when a test happens to import it first.
import chainrules.ad  # noqa: F401,E402
from chainrules.rulesets import array_api as _array_api
from chainrules.rulesets.array_api import _common

settings.register_profile("suite", max_examples=50, deadline=None, derandomize=True, database=None,
                          print_blob=True)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture
def registry():
    """Rules registered by the test are removed afterwards (the built-in
    functions' rules and C rows are as before)."""
    with registry_restored():
        yield


@contextlib.contextmanager
def registry_restored():
    """The rules as before the block, with those of a library first imported
    in it: its import hook registered them then (`rulesets.ON_IMPORT`), and
    the hook does not run again, so restoring the snapshot alone would leave
    the library without rules for the rest of the session."""
    before = {name for name in rulesets.ON_IMPORT if name in sys.modules}
    saved = _core._save_registry()
    try:
        yield
    finally:
        _core._restore_registry(saved)
        # the once-per-function guard of the array-API rules forgets the functions that lost them
        for key, f in list(_common._REGISTERED.items()):
            if _core._rules_of(f) == ((), ()):
                del _common._REGISTERED[key]
        for name, register in rulesets.ON_IMPORT.items():
            if name in before or name not in sys.modules:
                continue
            if name.startswith("scipy."):
                # a rules module registers on import: run it again (reload)
                importlib.reload(sys.modules[f"chainrules.rulesets.{name}"])
            else:
                _array_api._DONE.discard(name)      # register_for runs once per library
                register(sys.modules[name])


@pytest.fixture
def jax_x64():
    """JAX in 64-bit mode for the test (skipped where JAX is not installed)."""
    jax = pytest.importorskip("jax")
    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)
