"""Registration of the array-API rules: on import of each library (never by
importing it ourselves), on PyTorch's own functions where they mean the
standard's, NumPy's own functions keeping their rules, and the errors for
two libraries in one call."""

import subprocess
import sys

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent
from chainrules._xp import NamespaceError
from chainrules.rulesets import array_api

from ._helpers import array, is_native


def test_importing_chainrules_imports_no_array_library():
    code = ("import sys, chainrules; "
            "print(sorted(m for m in ('torch', 'jax', 'dask', 'array_api_strict', 'array_api_compat') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.interop
def test_rules_registered_when_the_library_is_imported_after_chainrules():
    pytest.importorskip("array_api_strict")
    code = ("import chainrules as cr, array_api_strict as xp; "
            "x = xp.asarray([1.0, 2.0, 3.0]); Ω, pb = cr.rrule(xp.prod, x); "
            "print(type(pb(xp.asarray(1.0))[1]).__name__, [float(v) for v in pb(xp.asarray(1.0))[1]])")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Array [6.0, 3.0, 2.0]"


def test_numpys_own_functions_keep_their_rules():
    xp = pytest.importorskip("array_api_compat.numpy")
    assert xp.sum is np.sum
    registered = array_api.register(xp)
    assert "sum" not in registered and "var" in registered and "cumulative_sum" in registered
    from chainrules.rulesets.numpy import reductions as numpy_reductions
    _, pb = cr.rrule(np.sum, array((2, 3)), axis=0)
    assert pb.__name__ == "sum_pullback"
    assert numpy_reductions.sum_rrule.__module__ in ("chainrules.rulesets.numpy.reductions", "chainrules.rulesets.numpy._reductions_fast")


def test_register_for_an_unknown_module_does_nothing():
    array_api.register_for("not.a.library", object())


@pytest.mark.interop
def test_torch_own_functions_with_dim_and_keepdim():
    torch = pytest.importorskip("torch")
    x = torch.asarray(array((2, 3)))
    Ω, pb = cr.rrule(torch.sum, x, dim=1, keepdim=True)
    assert Ω.shape == (2, 1)
    x̄ = pb(torch.ones((2, 1), dtype=torch.float64))[1]
    assert isinstance(x̄, torch.Tensor) and torch.equal(x̄, torch.ones((2, 3), dtype=torch.float64))
    Ω, pb = cr.rrule(torch.mean, x, 0)
    assert torch.allclose(pb(torch.ones(3, dtype=torch.float64))[1], torch.full((2, 3), 0.5, dtype=torch.float64))
    _, ΔΩ = cr.frule((NoTangent(), torch.ones_like(x), NoTangent()), torch.roll, x, 1)
    assert isinstance(ΔΩ, torch.Tensor)
    _, pb = cr.rrule(torch.roll, x, shifts=1, dims=1)
    assert torch.equal(pb(x)[1], torch.roll(x, shifts=-1, dims=1))
    _, pb = cr.rrule(torch.tensordot, x, torch.ones((3, 2), dtype=torch.float64), dims=1)
    assert cr.unthunk(pb(torch.ones((2, 2), dtype=torch.float64))[1]).shape == (2, 3)
    # not registered: torch.var (correction 1 by default), torch.max with dim (a tuple)
    assert cr.rrule(torch.var, x) is None and cr.rrule(torch.max, x) is None


@pytest.mark.interop
def test_two_libraries_in_one_call_raise():
    torch = pytest.importorskip("torch")
    xp = pytest.importorskip("array_api_compat.torch")
    a = torch.ones((2, 3), dtype=torch.float64)
    with pytest.raises(NamespaceError, match="torch.*numpy|numpy.*torch"):
        cr.rrule(xp.matmul, a, np.ones((3, 2)))
    _, pb = cr.rrule(xp.sum, a)
    with pytest.raises(NamespaceError):
        pb(np.ones(()))


@pytest.mark.interop
def test_dask_stays_lazy():
    da = pytest.importorskip("dask.array")
    import dask
    xp = pytest.importorskip("array_api_compat.dask.array")
    x = da.from_array(array((4, 3)), chunks=2)
    computed = []

    class Count(dask.callbacks.Callback):
        def _start(self, dsk):
            computed.append(1)
    with Count():
        for f, args in [(xp.prod, ()), (xp.max, ()), (xp.std, ()), (xp.sort, ()), (xp.cumulative_sum, ())]:
            kw = {"axis": 0}
            Ω, pb = cr.rrule(f, x, *args, **kw)
            x̄ = pb(da.ones(Ω.shape, chunks=2))[1]
            assert is_native("dask", xp, Ω) and is_native("dask", xp, x̄)
        Ω, pb = cr.rrule(da.Array.__getitem__, x, (slice(None, None, 2), 1))
        assert is_native("dask", xp, pb(da.ones(Ω.shape, chunks=2))[1])
    assert computed == []
