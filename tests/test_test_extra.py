"""The test extra installs every library the suite's optional tests import.

Tests on other array libraries (and numba, array-api-compat) skip with
`pytest.importorskip` where a library cannot be installed: PyTorch on
CPython 3.12+, where PyPI has CUDA builds only.  So that such a skip never
hides a library the set-up failed to install, this test fails wherever the
test extra's requirement applies (its environment marker holds) and the
library does not import."""

import importlib
from importlib import metadata

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.interop      # imports PyTorch and JAX (not under the sanitizers)

# requirement of the test extra -> the module the tests import
IMPORTED_AS = {
    "array-api-strict": "array_api_strict",
    "array-api-compat": "array_api_compat.numpy",
    "torch": "torch",
    "jax": "jax",
    "dask": "dask.array",
    "numba": "numba",
    "hypothesis": "hypothesis",
    "autograd": "autograd",
}


def _test_extra():
    reqs = [Requirement(r) for r in metadata.requires("chainrules") or []]
    return [r for r in reqs if r.marker is not None and r.marker.evaluate({"extra": "test"})
            and "extra" in str(r.marker)]


def test_every_library_the_optional_tests_import_is_in_the_test_extra():
    named = {r.name for r in [Requirement(r) for r in metadata.requires("chainrules") or []]
             if r.marker is not None and "extra == \"test\"" in str(r.marker)}
    assert set(IMPORTED_AS) <= named, sorted(set(IMPORTED_AS) - named)


@pytest.mark.parametrize("name", sorted(IMPORTED_AS))
def test_the_test_extra_installed_it_where_it_applies(name):
    applicable = [r for r in _test_extra() if r.name == name]
    if not applicable:
        # its marker excludes this interpreter (torch on CPython 3.12+): the
        # tests that need it skip, saying so; nothing else may be missing
        assert name == "torch", f"{name}: the test extra's marker excludes this interpreter"
        return
    importlib.import_module(IMPORTED_AS[name])
