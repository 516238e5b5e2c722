"""Every rule of issue 12 has an order-2 test: the registered functions of
the element-wise, reduction, statistics and shape rule sets (the modules of
chainrules/rulesets/numpy/ in FAMILIES) and the products of
numpy/linalg/products.py (matmul, tensordot, vecdot, dot) and the
factorizations (cholesky, eigh, eigvalsh, qr, svd, svdvals) are
found in the registry and compared with the functions the order-2 tests
parametrize over; likewise the array-API rules' names (generic bodies and
array-api-strict) and the element-wise table's rows on the other libraries.
A new rule without an order-2 test fails here."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules.rulesets.array_api import linalg, linalg_ext, reductions, shapes

from . import test_elementwise_interop_order2
from .array_api import test_linalg_ext, test_order2 as array_api_order2
from .numpy import test_linalg_order2, test_reductions_order2, test_shapes_order2, test_ufuncs, test_ufuncs_order2
from .test_elementwise_interop import REAL_ROWS

# the modules (under chainrules.rulesets) of issue 12's NumPy rules; np.pad's rules
# (numpy/padding.py) are made by the _linear factory of numpy/shapes.py, whose module they carry
FAMILIES = {"numpy.ufuncs", "numpy.ufuncs_binary", "numpy.reductions", "numpy.averages", "numpy.cumulative",
            "numpy.statistics", "numpy.shapes", "numpy.joining", "numpy.indexing"}
PRODUCTS = [np.matmul, np.linalg.matmul, operator.matmul, np.ndarray.__matmul__, np.ndarray.__rmatmul__, np.dot,
            np.ndarray.dot, np.tensordot, np.linalg.tensordot, np.vecdot, np.linalg.vecdot]
# the functions chainrules.ad's nested registry (ad/_nested.py, deleted) stood in for,
# now differentiated through their own rules (numpy/test_linalg_order2.py)
FORMERLY_NESTED = [np.inner, np.vdot, np.outer, np.linalg.outer, np.kron, np.cross, np.linalg.cross, np.einsum,
                   np.trace, np.linalg.trace, np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.solve,
                   np.linalg.norm, np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
                   np.fft.rfft, np.fft.rfftn, np.fft.irfft, np.fft.hfft, np.fft.ihfft]

# the factorizations, differentiable at order 2 since (numpy/linalg/factorizations.py)
FACTORIZATIONS = [np.linalg.cholesky, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.qr, np.linalg.svd] + \
    ([np.linalg.svdvals] if hasattr(np.linalg, "svdvals") else [])


def _key(f):
    """A registered function's identity (a ufunc's bound method is a new object on every access)."""
    owner = getattr(f, "__self__", None)
    return (id(owner), f.__name__) if isinstance(owner, np.ufunc) else f


def _name(f):
    owner = getattr(f, "__self__", None)
    prefix = f"{getattr(owner, '__name__', type(owner).__name__)}." if owner is not None and \
        not isinstance(owner, type(np)) else f"{getattr(f, '__module__', '')}."
    return prefix + getattr(f, "__qualname__", repr(f))


def _rule_modules(f):
    """The rule-set modules (names under chainrules.rulesets) whose rules are registered for f;
    the np.matrix guard of _arrays.register is looked through."""
    out = set()
    frules, rrules = cr._core._rules_of(f)
    for r in frules + rrules:
        fn = r.fn
        mod = getattr(fn, "__module__", None) or ""
        if mod == "chainrules.rulesets._arrays":
            for cell in fn.__closure__ or ():
                inner = getattr(cell.cell_contents, "__module__", None) or ""
                if inner.startswith("chainrules.rulesets.") and inner != "chainrules.rulesets._arrays":
                    mod = inner
        out.add(mod.removeprefix("chainrules.rulesets."))
    return out


def _from_a_test(f):
    mod = getattr(f, "__module__", None) or ""
    return mod.rsplit(".", 1)[-1].startswith("test_")


def issue12_numpy_functions():
    fs = [f for f in cr._core._registered_functions()
          if _rule_modules(f) & FAMILIES and not _from_a_test(f)]
    return fs + PRODUCTS + FORMERLY_NESTED + FACTORIZATIONS


def _parametrized(test):
    """The callables a test function is parametrized over."""
    out = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name == "parametrize":
            for v in mark.args[1]:
                out.extend(x for x in getattr(v, "values", (v,)) if callable(x))
    return out


def order2_numpy_functions():
    covered = set()
    for mod in (test_reductions_order2, test_shapes_order2, test_ufuncs_order2, test_linalg_order2):
        covered.update(_key(c.f) for c in mod.CASES)
    for name, test in vars(test_ufuncs).items():
        if name.startswith("test_") and "order_two" in name:
            covered.update(_key(f) for f in _parametrized(test))
    # numpy/test_ufuncs.test_tuple_outputs_order_two calls them directly
    covered.update({np.modf, np.frexp, np.divmod})
    return covered


def test_every_numpy_rule_of_issue_12_has_an_order_two_test():
    fs = issue12_numpy_functions()
    assert len(fs) > 150, len(fs)          # the registry was read (a broken lookup would find nothing)
    covered = order2_numpy_functions()
    missing = sorted({_name(f) for f in fs if _key(f) not in covered})
    assert not missing, f"registered rules of issue 12 without an order-2 test: {missing}"


def test_the_coverage_test_finds_each_family():
    found = set()
    for f in issue12_numpy_functions():
        found |= _rule_modules(f) & FAMILIES
    assert found == FAMILIES


def test_every_array_api_rule_has_an_order_two_test():
    names = set(reductions.TABLE) | set(shapes.TABLE) | set(linalg.TABLE) | {"getitem"}
    generic = {name for _, name, *_ in array_api_order2.SPECS}
    strict = {name for _, name, *_ in array_api_order2.STRICT_SPECS}
    assert not names - generic, f"array-API rules without a generic order-2 test: {sorted(names - generic)}"
    assert not names - strict, f"array-API rules without an array-api-strict test: {sorted(names - strict)}"


def test_every_linalg_extension_rule_has_an_order_two_test():
    names = set(linalg_ext.TABLE)
    generic = {name for _, name, *_ in test_linalg_ext.SPECS}
    strict = {name for id, name, *_ in test_linalg_ext.SPECS
              if id not in test_linalg_ext.KIT_LEFT_OUT["array_api_strict"]}
    assert not names - generic, f"linalg rules without a generic order-2 test: {sorted(names - generic)}"
    assert not names - strict, f"linalg rules without an array-api-strict test: {sorted(names - strict)}"


@pytest.mark.parametrize("lib", ["array_api_strict", "torch"])
def test_every_element_wise_row_has_an_order_two_test_on(lib):
    have = {r.name for r in REAL_ROWS} - test_elementwise_interop_order2.ABSENT[lib]
    tested = {c.values[1] for c in test_elementwise_interop_order2.CASES if c.values[0] == lib}
    assert have and not have - tested, sorted(have - tested)
