"""Every `>>>` example in the docstrings of chainrules runs and prints what it
shows (house style: every docstring and README example runs in the suite).

The examples are found with `doctest` in every module of the package, the
compiled core included (which `pytest --doctest-modules` does not collect),
and each docstring is one test, run in its module's namespace with the rule
registry restored afterwards."""

import doctest
import re
import importlib
import pkgutil

import pytest

import chainrules
from conftest import registry_restored

# Examples known to fail, in files another change is editing (issue 12): each
# is a strict xfail, so the suite says so the day it is fixed.
KNOWN_FAILURES = {
    # random draws: the values shown depend on the state of the kit's generator
    "chainrules.testing.rand_tangent.rand_tangent": "shows random values",
}


def _modules():
    names = ["chainrules", "chainrules._core"]
    for info in pkgutil.walk_packages(chainrules.__path__, "chainrules."):
        if info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return sorted(set(names))


def _doctests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = {}
    for name in _modules():
        module = importlib.import_module(name)
        for test in finder.find(module, name):
            if test.examples and test.name not in found:
                found[test.name] = test
    return [found[k] for k in sorted(found)]


DOCTESTS = _doctests()


def test_the_examples_are_found():
    names = {t.name for t in DOCTESTS}
    # one docstring of each kind: a Python module, a function, the compiled core
    assert "chainrules.ad.config" in names
    assert "chainrules.finite_differences.to_vec.to_vec" in names
    assert any(n.startswith("chainrules._core.") for n in names), sorted(names)


@pytest.mark.parametrize(
    "test",
    [pytest.param(t, id=t.name,
                  marks=[pytest.mark.xfail(reason=KNOWN_FAILURES[t.name], strict=True)]
                  if t.name in KNOWN_FAILURES else [])
     for t in DOCTESTS])
def test_docstring_examples(test):
    # an example on another array library needs it installed (PyTorch: CPython 3.11 only)
    for lib in ("torch", "jax", "dask"):
        if any(re.search(rf"(import {lib}\b|backend=['\"]{lib}|to_backend\(.*['\"]{lib})", ex.source)
               for ex in test.examples):
            pytest.importorskip(lib)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    lines = []
    with registry_restored():
        result = runner.run(test, out=lines.append, clear_globs=False)
    assert result.failed == 0, "".join(lines)
