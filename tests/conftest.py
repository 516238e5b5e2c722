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


# The slowest test files (measured: seconds in a full run on one core), marked `heavy`:
# README command 2 runs them; the floor jobs (.ci/floors: Python 3.12 and 3.13, NumPy
# 2.0) deselect them, so that CI keeps within its time as the rule set grows.
HEAVY = {
    "interop/test_jax.py": 61, "interop/test_jax_host.py": 44, "interop/test_adapter.py": 36,
    "rulesets/array_api/test_linalg_ext.py": 110, "rulesets/test_elementwise_interop.py": 51,
    "rulesets/array_api/test_shapes.py": 50, "rulesets/array_api/test_reductions.py": 46,
    "rulesets/test_properties_rules.py": 34, "native/test_numba.py": 63, "native/test_numba_ad.py": 47,
    "test_typing.py": 53, "bench/test_tools.py": 27,
    "rulesets/scipy/test_special_table.py": 11, "rulesets/scipy/test_linalg.py": 16,
    "rulesets/numpy/test_linalg_eig.py": 5, "rulesets/numpy/test_more.py": 15,
    "rulesets/scipy/test_signal.py": 10, "rulesets/scipy/test_integrate.py": 8,
    "rulesets/scipy/test_stats_jax.py": 46, "rulesets/scipy/test_stats_libs.py": 50,
    "rulesets/scipy/test_integrate_ode.py": 35,
}


def pytest_collection_modifyitems(config, items):
    tests = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        rel = os.path.relpath(str(item.path), tests).replace(os.sep, "/")
        if rel in HEAVY:
            item.add_marker(pytest.mark.heavy)
