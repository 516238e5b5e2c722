"""Order 2 for the element-wise rules on other array libraries
(elementwise_interop.py): every row of the table that array-api-strict,
PyTorch (array_api_compat.torch), JAX (x64) and Dask (array_api_compat.dask)
have a function for, through the testing kit's `backend=` with order=2 (the
order-1 checks of the same calls are test_elementwise_interop.py's): the rule
bodies run on arrays of that library tracked by chainrules.ad."""

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

def _function(ns, row):
    """The namespace's function of this row, or None."""
    return next((getattr(ns, n) for n in dict.fromkeys((row.name,) + row.numpy) if hasattr(ns, n)), None)


# The rows a library has no function for (checked by test_absent_rows_are_the_missing_functions;
# the libraries are imported by the tests, never at collection: importing several
# array_api_compat namespaces registers rules on functions that share a name).
ABSENT = {
    "array_api_strict": {"exp2", "cbrt", "fabs", "deg2rad", "rad2deg", "fmod", "fmax", "fmin", "logaddexp2", "ldexp"},
    "torch": {"cbrt", "fabs"},
    "jax": set(),
    "dask": set(),
}


def _cases():
    for lib in LIBS:
        for row in ROWS[lib]:
            if row.name not in ABSENT[lib]:
                yield pytest.param(lib, row.name, id=f"{lib}-{row.name}")


CASES = list(_cases())


@pytest.mark.parametrize("lib,name", CASES)
def test_order_two(lib, name, request):
    backend, namespace = LIBS[lib]
    ns = pytest.importorskip(namespace)
    if lib == "jax":
        request.getfixturevalue("jax_x64")
    (row,) = [r for r in REAL_ROWS if r.name == name]
    args = _points(row, _shapes(row), np.float64)
    for tester in TESTERS[lib]:
        tester(_numpy_function(row), *args, order=2, backend=backend, backend_f=_function(ns, row))


@pytest.mark.parametrize("lib", list(LIBS))
def test_absent_rows_are_the_missing_functions(lib):
    """ABSENT lists exactly the rows the library has no function for."""
    ns = pytest.importorskip(LIBS[lib][1])
    missing = {r.name for r in REAL_ROWS if _function(ns, r) is None}
    assert missing == ABSENT[lib]
