"""Order 2 for the element-wise rules on other array libraries
(elementwise_interop.py): every row of the table that array-api-strict,
PyTorch (array_api_compat.torch), JAX (x64) and Dask (array_api_compat.dask)
have a function for, through the testing kit's `backend=` with order=2 (the
order-1 checks of the same calls are test_elementwise_interop.py's).  Today
chainrules.ad cannot track these libraries' arrays: every case is a strict
xfail naming that, and turns into a failure the day one passes."""

import importlib

import numpy as np
import pytest

from chainrules.testing import test_frule, test_rrule

from .test_elementwise_interop import REAL_ROWS, _numpy_function, _points, _shapes, jax_x64  # noqa: F401

pytestmark = pytest.mark.interop

# library -> (the testers' backend, the namespace whose functions are registered)
LIBS = {
    "array_api_strict": ("array_api_strict", "array_api_strict"),
    "torch": ("torch", "array_api_compat.torch"),
    "jax": ("jax.numpy", "jax.numpy"),
    "dask": ("dask.array", "array_api_compat.dask.array"),
}
# JAX and Dask take every third row (the rule bodies are the table's, checked row
# by row on array-api-strict and PyTorch; what JAX and Dask add is their arrays)
# and run the rrule only (its order-2 check includes the primal's second
# derivative): their first-order checks, which each order-2 call repeats, are
# slow (a Dask graph computed per value), and test_elementwise_interop.py has them.
TESTERS = {"array_api_strict": (test_frule, test_rrule), "torch": (test_frule, test_rrule),
           "jax": (test_rrule,), "dask": (test_rrule,)}
ROWS = {"array_api_strict": REAL_ROWS, "torch": REAL_ROWS, "jax": REAL_ROWS[::3], "dask": REAL_ROWS[1::3]}
_NOT_TRACKED = ("chainrules.ad cannot track a {lib} array (ad.jvp: \"cannot give a tangent to a {type}\"; "
                "Tracked.__array_namespace__ is still a stub), so no rule on {lib} arrays can be differentiated "
                "yet (issue 12, item 2)")
XFAIL = {lib: _NOT_TRACKED.format(lib=lib, type=t)
         for lib, t in [("array_api_strict", "Array"), ("torch", "Tensor"), ("jax", "ArrayImpl"), ("dask", "Array")]}


def _function(ns, row):
    """The namespace's function of this row, or None."""
    return next((getattr(ns, n) for n in dict.fromkeys((row.name,) + row.numpy) if hasattr(ns, n)), None)


def _cases():
    """(lib, row) for every row the library has a function for (the library is
    imported to know; one that is not installed gives one skipped case)."""
    for lib, (_, namespace) in LIBS.items():
        try:
            ns = importlib.import_module(namespace)
        except ImportError:
            yield pytest.param(lib, None, id=f"{lib}-not-installed",
                               marks=pytest.mark.skip(reason=f"{namespace} is not installed"))
            continue
        for row in ROWS[lib]:
            if _function(ns, row) is not None:
                yield pytest.param(lib, row.name, id=f"{lib}-{row.name}",
                                   marks=[pytest.mark.xfail(strict=True, reason=XFAIL[lib])] if lib in XFAIL else [])


CASES = list(_cases())


@pytest.mark.parametrize("lib,name", CASES)
def test_order_two(lib, name, request):
    backend, namespace = LIBS[lib]
    ns = importlib.import_module(namespace)
    if lib == "jax":
        request.getfixturevalue("jax_x64")
    (row,) = [r for r in REAL_ROWS if r.name == name]
    args = _points(row, _shapes(row), np.float64)
    for tester in TESTERS[lib]:
        tester(_numpy_function(row), *args, order=2, backend=backend, backend_f=_function(ns, row))


def test_array_api_strict_has_every_standard_row():
    """The standard's element-wise functions are all checked (array-api-strict has each)."""
    xs = pytest.importorskip("array_api_strict")
    names = {c.values[1] for c in CASES if c.values[0] == "array_api_strict"}
    assert len(names) >= 40 and all(_function(xs, r) is None or r.name in names for r in REAL_ROWS)
