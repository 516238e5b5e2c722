"""The generated rule-set reference (docs/_ext/ruleset_reference.py) lists
every function of the registry, those registered on import of scipy.special
and those a user registers included."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import chainrules as cr
from chainrules import _core

EXT = Path(__file__).resolve().parents[2] / "docs" / "_ext" / "ruleset_reference.py"


def _extension():
    spec = importlib.util.spec_from_file_location("ruleset_reference", EXT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_registered_function_has_a_row(registry):
    ext = _extension()
    def my_function(x):
        return x
    cr.register_rrule(my_function, float)(lambda x: (x, lambda ȳ: (cr.NoTangent(), ȳ)))
    text = ext.render()                      # imports scipy.special: its rules register
    import scipy.special
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    answering = [f for f in _core._registered_functions()
                 if any(_core._rules_of(f)) or _core._scalar_row(f) is not None]
    assert len(rows) == len(answering)
    names = {row.split("`")[1] for row in rows}
    public = [row for row in rows if "<locals>" not in row.split("`")[1]]
    assert len({row.split("`")[1] for row in public}) == len(public), "two functions share a name"
    for expected in ["math.sin", "numpy.sin", "numpy.linalg.svd", "numpy.ndarray.sum",
                     "numpy.add.reduce", "scipy.special.erf", "scipy.special.logsumexp",
                     "abs", "map"]:
        assert expected in names, expected
    assert scipy.special.erf in _core._registered_functions()
    mine = next(row for row in rows if "my_function" in row)
    cells = [c.strip() for c in mine.split("|")]
    assert cells[2] == "—"                   # no frule
    assert cells[3].startswith("rule (float)")


def test_the_rows_say_what_answers():
    ext = _extension()
    text = ext.render()
    row = {line.split("`")[1]: line for line in text.splitlines() if line.startswith("| `")}
    assert "C table (1 scalar argument)" in row["math.sin"]
    assert "C table (1 or 2 scalar arguments)" in row["math.log"]
    assert "non-differentiable" in row["len"]
    assert "needs a RuleConfig with reverse" in row["map"]
    # what the reference says about math.sin is what the registry does
    assert cr.rrule(math.sin, 1.0) is not None and cr.rrule(np.sin, np.ones(2)) is not None


@pytest.mark.interop
def test_rows_are_named_apart_with_every_array_library_imported():
    # array-api-compat's wrappers share a __module__ across libraries and JAX's
    # dunders share a __qualname__: each is named by the namespace (or class) it
    # is registered for, so no two rows read alike whatever the import order
    for name in ("array_api_compat.numpy", "array_api_compat.torch", "array_api_compat.dask.array",
                 "array_api_strict", "jax.numpy", "dask.array", "torch"):
        pytest.importorskip(name)
    rows = [line for line in _extension().render().splitlines() if line.startswith("| `")]
    names = [row.split("`")[1] for row in rows if "<locals>" not in row.split("`")[1]]
    assert len(set(names)) == len(names), sorted({n for n in names if names.count(n) > 1})
    numbered = [n for n in names if n.endswith(")") and n.rsplit(" (", 1)[-1][:-1].isdigit()]
    assert not numbered, numbered       # collect()'s numbering is a last resort, not needed here
    assert {"jax.Array.__add__", "jax.ArrayImpl.__add__", "torch.Tensor.__add__"} <= set(names)
