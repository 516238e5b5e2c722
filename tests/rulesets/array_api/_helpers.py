"""Shared by the array-API rule tests: the generic rules registered on thin
wrappers of array_api_compat.numpy's functions (some of which ARE NumPy's
own functions, which keep their NumPy rules: the wrappers make the generic
bodies run on ndarrays), and the other libraries' namespaces."""

import functools

import numpy as np
import pytest

import chainrules as cr
from chainrules import unthunk
from chainrules.rulesets.array_api import linalg, linalg_ext, reductions, shapes
from chainrules.rulesets.array_api._common import register_table
from chainrules.testing import test_frule, test_rrule
from chainrules.testing.backends import to_numpy as backend_to_numpy

try:        # imported before any test's `registry` fixture, which would undo its hook's rules
    import array_api_compat.numpy  # noqa: F401
except ImportError:
    pass

RNG = np.random.default_rng(12)
F32 = dict(rtol=3e-2, atol=3e-2)


def both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


def array(shape, dtype=np.float64, lo=0.5, hi=1.5):
    x = RNG.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(lo, hi, shape)
    return np.asarray(x, dtype=dtype)


def generic(table, sub=None):
    """{name: wrapper of array_api_compat.numpy.<name>} (of its `sub`
    namespace: "linalg") with the generic rules registered on the wrappers
    (use inside the `registry` fixture)."""
    xp = pytest.importorskip("array_api_compat.numpy")
    xp = getattr(xp, sub) if sub else xp
    out = {}
    for name in table:
        f = getattr(xp, name)

        @functools.wraps(f)
        def wrapper(*args, _f=f, **kwargs):
            return _f(*args, **kwargs)
        out[name] = wrapper
    register_table(table, out)
    return out


ALL = {**reductions.TABLE, **shapes.TABLE, **linalg.TABLE}
LINALG = {**linalg.TABLE, **linalg_ext.TABLE}       # the `linalg` namespace's


# ----- other libraries -------------------------------------------------------------------------

def _strict():
    return pytest.importorskip("array_api_strict")


def _torch():
    pytest.importorskip("torch")
    return pytest.importorskip("array_api_compat.torch")


def _jax():
    pytest.importorskip("jax")
    import jax.numpy as jnp
    return jnp


def _dask():
    pytest.importorskip("dask.array")
    return pytest.importorskip("array_api_compat.dask.array")


BACKENDS = {"array_api_strict": _strict, "torch": _torch, "jax": _jax, "dask": _dask}


@pytest.fixture(params=list(BACKENDS))
def backend(request):
    """(name, xp, to_xp(ndarray), to_numpy(array)) for each other library;
    JAX with x64 enabled for the test (restored after)."""
    name = request.param
    xp = BACKENDS[name]()
    if name == "jax":
        import jax
        before = jax.config.jax_enable_x64
        jax.config.update("jax_enable_x64", True)
        request.addfinalizer(lambda: jax.config.update("jax_enable_x64", before))
    if name == "dask":
        import dask.array as da

        def to_xp(a):
            return da.from_array(np.asarray(a), chunks=2)
    elif name == "torch":
        import torch

        def to_xp(a):
            return torch.asarray(np.asarray(a))
    else:
        def to_xp(a):
            return xp.asarray(np.asarray(a))

    def to_numpy(v):
        v = unthunk(v)
        if name == "dask":
            return np.asarray(v.compute())
        if name == "array_api_strict":
            return backend_to_numpy(v)      # read-only arrays too (NumPy 2.0's DLPack refuses them)
        if name == "torch":
            return v.detach().cpu().numpy()
        return np.asarray(v)
    return name, xp, to_xp, to_numpy


def is_native(name, xp, v):
    """v is an array of that library (dask: a lazy dask Array)."""
    v = unthunk(v)
    if name == "dask":
        import dask.array as da
        return isinstance(v, da.Array)
    if name == "torch":
        import torch
        return isinstance(v, torch.Tensor)
    if name == "jax":
        import jax
        return isinstance(v, jax.Array)
    return isinstance(v, type(xp.asarray(0.0)))


def _same_values(name, xp, to_numpy, got, ref, rtol, atol, what):
    """got (the library's array, or a tuple of them, or a zero) against ref
    (NumPy's)."""
    got, ref = unthunk(got), unthunk(ref)
    if isinstance(ref, (cr.NoTangent, cr.ZeroTangent)):
        assert type(got) is type(ref), (what, got, ref)
        return
    if isinstance(ref, (tuple, cr.Tangent)):
        assert len(got) == len(ref), what
        for g, r in zip(got, ref):
            _same_values(name, xp, to_numpy, g, r, rtol, atol, what)
        return
    assert is_native(name, xp, got), f"{what} is a {type(got)}"
    assert to_numpy(got).dtype == np.asarray(ref).dtype, (what, to_numpy(got).dtype, np.asarray(ref).dtype)
    np.testing.assert_allclose(to_numpy(got), np.asarray(ref), rtol=rtol, atol=atol)


def _random_like(Ω_ref, to_xp):
    """A random cotangent for Ω_ref (a Tangent for a tuple) and the same
    converted by to_xp."""
    if isinstance(Ω_ref, tuple):
        parts = [_random_like(p, to_xp) for p in Ω_ref]
        return (cr.Tangent[type(Ω_ref)](*[p[0] for p in parts]),
                lambda T: cr.Tangent[T](*[p[1] for p in parts]))
    ȳ = np.asarray(RNG.standard_normal(np.shape(Ω_ref)), dtype=np.result_type(Ω_ref))
    return ȳ, to_xp(ȳ)


def compare_with_numpy(backend, fname, args, kwargs=None, seed=None, dtypes=None, tangents=None,
                       rtol=1e-10, atol=1e-12, sub=None):
    """rrule and frule of the library's `fname` (in its `sub` namespace:
    "linalg") at `args` (NumPy arrays, converted) against the generic rule
    run on NumPy: outputs and cotangents are that library's arrays with
    NumPy's numbers.  Non-array args (ints, tuples of indices) pass as they
    are; `args` entries wrapped in a list are sequences of arrays."""
    name, xp, to_xp, to_numpy = backend
    kwargs = kwargs or {}
    f = getattr(getattr(xp, sub) if sub else xp, fname)
    # the generic rule itself, run on NumPy arrays (NumPy's own function as primal)
    ref_xp = pytest.importorskip("array_api_compat.numpy")
    table = LINALG if sub == "linalg" else ALL
    ref_frule, ref_rrule = table[fname](getattr(getattr(ref_xp, sub) if sub else ref_xp, fname), fname)

    def conv(a):
        if isinstance(a, np.ndarray):
            return to_xp(a)
        if isinstance(a, list):
            return [conv(e) for e in a]
        return a
    xargs = [conv(a) for a in args]
    Ω_ref, pb_ref = ref_rrule(*args, **kwargs)
    res = cr.rrule(f, *xargs, **kwargs)
    assert res is not None, f"no rrule for {name}.{fname}"
    Ω, pb = res
    _same_values(name, xp, to_numpy, Ω, Ω_ref, rtol, atol, f"{name}.{fname}: Ω")
    if seed is not None:
        ȳ = np.asarray(seed, dtype=np.result_type(Ω_ref))
        xȳ = to_xp(ȳ)
    else:
        ȳ, xȳ = _random_like(Ω_ref, to_xp)
        xȳ = xȳ(type(Ω)) if callable(xȳ) else xȳ
    cts_ref = pb_ref(ȳ)
    cts = pb(xȳ)
    assert len(cts) == len(cts_ref)
    for c, r in zip(cts, cts_ref):
        c, r = unthunk(c), unthunk(r)
        if isinstance(r, (cr.NoTangent, cr.ZeroTangent)):
            assert type(c) is type(r), (c, r)
            continue
        if isinstance(r, cr.Tangent):
            for ce, re_ in zip(c, r):
                assert is_native(name, xp, unthunk(ce))
                np.testing.assert_allclose(to_numpy(ce), np.asarray(unthunk(re_)), rtol=rtol, atol=atol)
            continue
        assert is_native(name, xp, c), f"{name}.{fname}: cotangent is a {type(c)}"
        assert to_numpy(c).dtype == np.asarray(r).dtype
        np.testing.assert_allclose(to_numpy(c), np.asarray(r), rtol=rtol, atol=atol)
    # frule with random tangents on the float arguments
    ts, xts = [cr.NoTangent()], [cr.NoTangent()]
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            t = np.asarray(RNG.standard_normal(a.shape), dtype=a.dtype)
            ts.append(t)
            xts.append(to_xp(t))
        elif isinstance(a, list):
            t = [np.asarray(RNG.standard_normal(e.shape), dtype=e.dtype) for e in a]
            ts.append(cr.Tangent[list](*t))
            xts.append(cr.Tangent[list](*[to_xp(e) for e in t]))
        else:
            ts.append(cr.NoTangent())
            xts.append(cr.NoTangent())
    _, ΔΩ_ref = ref_frule(tuple(ts), *args, **kwargs)
    Ω2, ΔΩ = cr.frule(tuple(xts), f, *xargs, **kwargs)
    _same_values(name, xp, to_numpy, Ω2, Ω_ref, rtol, atol, f"{name}.{fname}: frule's Ω")
    _same_values(name, xp, to_numpy, ΔΩ, ΔΩ_ref, rtol, atol, f"{name}.{fname}: frule's ΔΩ")
