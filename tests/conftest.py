"""Fixtures shared by the whole suite."""

import pytest

from chainrules import _core


@pytest.fixture
def registry():
    """Rules registered by the test are removed afterwards (the built-in
    functions' rules and C rows are as before)."""
    saved = _core._save_registry()
    try:
        yield
    finally:
        _core._restore_registry(saved)
