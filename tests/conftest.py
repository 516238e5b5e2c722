"""Fixtures and settings shared by the whole suite.

The hypothesis profiles of the property tests: the default ("suite") is
derandomized, so every run draws the same examples and a property test
passes or fails the same way each time (a strict xfail stays honest);
`HYPOTHESIS_PROFILE=explore` draws many more, at random, to hunt for new
failures by hand."""

import os

import pytest
from hypothesis import settings

from chainrules import _core

settings.register_profile("suite", max_examples=50, deadline=None, derandomize=True, database=None,
                          print_blob=True)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


@pytest.fixture
def registry():
    """Rules registered by the test are removed afterwards (the built-in
    functions' rules and C rows are as before)."""
    saved = _core._save_registry()
    try:
        yield
    finally:
        _core._restore_registry(saved)


@pytest.fixture
def jax_x64():
    """JAX in 64-bit mode for the test (skipped where JAX is not installed)."""
    jax = pytest.importorskip("jax")
    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)
