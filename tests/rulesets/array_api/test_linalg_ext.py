"""The array-API rules of the standard's `linalg` extension
(chainrules/rulesets/array_api/linalg_ext.py): every function with the
testing kit on NumPy arrays (the generic rules on thin wrappers of
array_api_compat.numpy.linalg), at order 1 and 2, complex and float32; then
on array-api-strict, PyTorch, JAX (and Dask where its linalg has the
function) against the NumPy numbers; bad input; chainrules.ad.gradient of
array-API code calling xp.linalg.inv/det/solve on torch and JAX arrays."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ad
from chainrules.rulesets.array_api import linalg_ext
from chainrules.testing import PrimalAndTangent

from .._order2 import F32 as F32_2, Case, params
from ._helpers import BACKENDS, F32, backend, compare_with_numpy, generic  # noqa: F401

RNG = np.random.default_rng(16)


def _matrix(shape, dtype=np.float64):
    """Well-conditioned square matrices (a random part plus 3·I)."""
    x = RNG.uniform(-0.5, 0.5, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(-0.5, 0.5, shape)
    return np.asarray(x + 3 * np.eye(shape[-1]), dtype=dtype)


def _spd(shape, dtype=np.float64):
    a = _matrix(shape, dtype)
    return np.asarray(a @ np.conj(np.swapaxes(a, -1, -2)), dtype=dtype)


def _plain(shape, dtype=np.float64):
    """Distinct values and absolute values, away from 0, both signs (norms are smooth there)."""
    n = int(np.prod(shape))
    v = np.linspace(-1.3, 1.7, n + 2)[1:-1]          # no tie of |x|
    v = np.where(np.abs(v) < 1e-9, 0.07, v)[np.random.default_rng(n + 5).permutation(n)].reshape(shape)
    if np.dtype(dtype).kind == "c":
        v = v + 0.5j * v[..., ::-1]
    return np.asarray(v, dtype=dtype)


def fixed(x):
    return PrimalAndTangent(x, NoTangent())


A = _matrix((3, 3))
AB = _matrix((2, 3, 3))
AC = _matrix((3, 3), np.complex128)
A32 = _matrix((3, 3), np.float32)
S = _spd((3, 3))
SC = _spd((3, 3), np.complex128)
S32 = _spd((3, 3), np.float32)
X = _plain((3, 4))
XC = _plain((3, 4), np.complex128)
X32 = _plain((3, 4), np.float32)
V = _plain((3,))
W = _plain((2, 3))

# (id, name, args, fkwargs, tolerances)
SPECS = [
    ("inv", "inv", (A,), {}, {}),
    ("inv-stack", "inv", (AB,), {}, {}),
    ("inv-complex", "inv", (AC,), {}, {}),
    ("inv-float32", "inv", (A32,), {}, F32),
    ("det", "det", (A,), {}, {}),
    ("det-stack", "det", (AB,), {}, {}),
    ("det-complex", "det", (AC,), {}, {}),
    ("det-float32", "det", (A32,), {}, F32),
    ("slogdet", "slogdet", (A,), {}, {}),
    ("slogdet-stack", "slogdet", (AB,), {}, {}),
    ("slogdet-complex", "slogdet", (AC,), {}, {}),
    ("solve-vector", "solve", (A, V), {}, {}),
    ("solve-matrix", "solve", (A, X), {}, {}),
    ("solve-stack-vector", "solve", (AB, V), {}, {}),
    ("solve-broadcast", "solve", (AB, _plain((1, 3, 2))), {}, {}),
    ("solve-complex", "solve", (AC, XC), {}, {}),
    ("solve-float32", "solve", (A32, X32), {}, F32),
    ("cholesky", "cholesky", (S,), {}, {}),
    ("cholesky-upper", "cholesky", (S,), {"upper": True}, {}),
    ("cholesky-complex", "cholesky", (SC,), {}, {}),
    ("cholesky-float32", "cholesky", (S32,), {}, F32),
    ("vector_norm", "vector_norm", (X,), {}, {}),
    ("vector_norm-axis-keepdims", "vector_norm", (X,), {"axis": 1, "keepdims": True}, {}),
    ("vector_norm-1", "vector_norm", (X,), {"ord": 1, "axis": 0}, {}),
    ("vector_norm-inf", "vector_norm", (X,), {"ord": float("inf"), "axis": 1}, {}),
    ("vector_norm--inf", "vector_norm", (X,), {"ord": -float("inf")}, {}),
    ("vector_norm-3", "vector_norm", (X,), {"ord": 3, "axis": (0, 1)}, {}),
    ("vector_norm-complex", "vector_norm", (XC,), {"axis": -1}, {}),
    ("vector_norm-float32", "vector_norm", (X32,), {}, F32),
    ("matrix_norm", "matrix_norm", (X,), {}, {}),
    ("matrix_norm-keepdims", "matrix_norm", (_plain((2, 3, 2)),), {"keepdims": True}, {}),
    ("matrix_norm-nuc", "matrix_norm", (X,), {"ord": "nuc"}, {}),
    ("matrix_norm-2", "matrix_norm", (X,), {"ord": 2}, {}),
    ("matrix_norm--2", "matrix_norm", (X,), {"ord": -2}, {}),
    ("matrix_norm-1", "matrix_norm", (X,), {"ord": 1}, {}),
    ("matrix_norm--1", "matrix_norm", (X,), {"ord": -1}, {}),
    ("matrix_norm-inf", "matrix_norm", (X,), {"ord": float("inf")}, {}),
    ("matrix_norm--inf", "matrix_norm", (X,), {"ord": -float("inf")}, {}),
    ("matrix_norm-complex", "matrix_norm", (XC,), {}, {}),
    ("matrix_norm-float32", "matrix_norm", (X32,), {}, F32),
    ("trace", "trace", (X,), {}, {}),
    ("trace-offset", "trace", (_plain((2, 3, 4)),), {"offset": 1}, {}),
    ("trace-complex", "trace", (XC,), {"offset": -1}, {}),
    ("diagonal", "diagonal", (X,), {}, {}),
    ("diagonal-offset", "diagonal", (X,), {"offset": 2}, {}),
    ("diagonal-negative", "diagonal", (_plain((2, 4, 3)),), {"offset": -1}, {}),
    ("diagonal-complex", "diagonal", (XC,), {}, {}),
    ("outer", "outer", (V, X[0]), {}, {}),
    ("outer-complex", "outer", (XC[0], XC[1]), {}, {}),
    ("outer-mixed", "outer", (V, XC[0, :3]), {}, {}),
    ("cross", "cross", (W, W[::-1]), {}, {}),
    ("cross-broadcast", "cross", (V, W), {}, {}),
    ("cross-axis", "cross", (W.T, W.T[:, ::-1]), {"axis": -2}, {}),
    ("cross-complex", "cross", (XC[:2, :3], XC[1:, 1:]), {}, {}),
    ("matrix_power-3", "matrix_power", (A, fixed(3)), {}, {}),
    ("matrix_power-1", "matrix_power", (AB, fixed(1)), {}, {}),
    ("matrix_power-0", "matrix_power", (A, fixed(0)), {}, {}),
    ("matrix_power--2", "matrix_power", (A, fixed(-2)), {}, {}),
    ("matrix_power-complex", "matrix_power", (AC, fixed(2)), {}, {}),
    ("matrix_power-float32", "matrix_power", (A32, fixed(2)), {}, F32),
    ("pinv", "pinv", (A,), {}, {}),
    ("pinv-wide", "pinv", (X,), {}, {}),
    ("pinv-tall-stack", "pinv", (np.swapaxes(_plain((2, 4, 3)), -1, -2).copy(),), {}, {}),
    ("pinv-complex", "pinv", (XC,), {}, {}),
    ("pinv-float32", "pinv", (X32,), {}, F32),
]


@pytest.fixture
def g(registry):
    return generic(linalg_ext.TABLE, "linalg")


def _case(g, spec_id):
    (spec,) = [s for s in SPECS if s[0] == spec_id]
    id, name, args, kw, tol = spec
    if tol is F32:
        tol = F32_2
    return Case(id, g[name], *args, fkwargs=kw or None, tol=tol)


@pytest.mark.parametrize("spec", params([Case(s[0], None) for s in SPECS], {}))
def test_generic_order_one(g, spec):
    _case(g, spec.id).run(order=1)


# order 2: the bodies run on chainrules.ad's tracked values (differentiable themselves)
@pytest.mark.parametrize("spec", params([Case(s[0], None) for s in SPECS], {}))
def test_generic_order_two(g, spec):
    _case(g, spec.id).run(order=2)


def test_real_arguments_get_real_cotangents_float32_stays(g):
    _, pb = cr.rrule(g["solve"], A, XC[:, :2])
    ā, b̄ = [cr.unthunk(c) for c in pb(np.ones((3, 2), np.complex128))[1:]]
    assert ā.dtype == np.float64 and b̄.dtype == np.complex128
    Ω, pb = cr.rrule(g["det"], A32)
    assert cr.unthunk(pb(np.float32(1.0))[1]).dtype == np.float32
    Ω, ΔΩ = cr.frule((NoTangent(), np.ones_like(A32)), g["inv"], A32)
    assert ΔΩ.dtype == np.float32


def test_slogdet_sign_has_no_tangent_for_real(g):
    Ω, ΔΩ = cr.frule((NoTangent(), np.ones_like(A)), g["slogdet"], A)
    assert isinstance(ΔΩ[0], cr.ZeroTangent)
    np.testing.assert_allclose(ΔΩ[1], np.sum(np.linalg.inv(A)))         # tr(a⁻¹·1)
    _, pb = cr.rrule(g["slogdet"], A)
    np.testing.assert_allclose(cr.unthunk(pb(cr.Tangent[type(Ω)](cr.ZeroTangent(), 1.0))[1]), np.linalg.inv(A).T)


def test_norm_conventions(g):
    z = np.zeros((2, 3))
    _, pb = cr.rrule(g["vector_norm"], z, axis=1)
    np.testing.assert_array_equal(cr.unthunk(pb(np.ones(2))[1]), z)          # 0 at zero
    _, pb = cr.rrule(g["vector_norm"], np.array([1.0, -3.0, 3.0]), ord=float("inf"))
    np.testing.assert_array_equal(cr.unthunk(pb(np.float64(1.0))[1]), [0.0, -1.0, 0.0])   # the first of a tie
    assert cr.rrule(g["vector_norm"], X, ord=0)[1](1.0)[1] is NoTangent()
    assert cr.frule((NoTangent(), X), g["vector_norm"], X, ord=0)[1] is NoTangent()
    with pytest.raises(TypeError, match="matrix_norm"):
        cr.rrule(g["matrix_norm"], X, axis=(0, 1))


# ----- array-api-strict, PyTorch, JAX through the testing kit's backend= (orders 1 and 2) ---------

# the library's own function (finite differences of NumPy's of the same name) at each case
KIT = {"array_api_strict": "array_api_strict", "torch": "torch", "jax": "jax.numpy"}
# cholesky's upper=True reads the lower triangle in array-api-strict, and JAX reads the
# Hermitian part: NumPy's finite differences along non-symmetric directions are not theirs
# (test_cholesky_reads_the_triangle_its_library_reads checks them)
KIT_LEFT_OUT = {"array_api_strict": {"cholesky-upper"}, "torch": set(),
                "jax": {s[0] for s in SPECS if s[1] == "cholesky"}}
# torch and JAX at order 2: one case of each function (order 1: every case)
TORCH_JAX_ORDER2 = {"inv", "det-stack", "solve-vector", "solve-broadcast", "cholesky", "vector_norm-inf",
                    "vector_norm-3", "matrix_norm", "matrix_norm-1", "trace-offset", "diagonal-negative",
                    "outer", "cross-broadcast", "matrix_power--2", "inv-complex", "matrix_norm-nuc", "pinv-wide"}
_SLOGDET = ("the testing kit's backend= compares a tuple output's fields as NumPy values (and PyTorch's "
            "named tuple has no .detach): slogdet is checked by test_other_libraries")
_SVD = "order 2 of matrix_norm's nuc/±2 needs a rule for the library's svd, which the array-API rule set lacks"


def _kit_params(order):
    out = []
    for lib in KIT:
        for id, name, args, kw, tol in SPECS:
            if id in KIT_LEFT_OUT[lib] or (order == 2 and lib != "array_api_strict" and id not in TORCH_JAX_ORDER2):
                continue
            reason = _SLOGDET if name == "slogdet" else (
                _SVD if order == 2 and name == "matrix_norm" and kw.get("ord") in ("nuc", 2, -2) else None)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(lib, id, id=f"{lib}-{id}", marks=marks))
    return out


def _kit_run(lib, spec_id, order):
    if lib == "array_api_strict":
        xp = pytest.importorskip("array_api_strict")
    elif lib == "torch":
        pytest.importorskip("torch")
        xp = pytest.importorskip("array_api_compat.torch")
    else:
        jax = pytest.importorskip("jax")
        import jax.numpy as xp
        if not jax.config.jax_enable_x64:
            pytest.skip("JAX without x64")
    (spec,) = [s for s in SPECS if s[0] == spec_id]
    id, name, args, kw, tol = spec
    Case(id, getattr(np.linalg, name), *args, fkwargs=kw or None, tol=F32_2 if tol is F32 else tol,
         backend=KIT[lib], backend_f=getattr(xp.linalg, name)).run(order=order)


@pytest.fixture
def x64():
    """JAX with x64 enabled for the test (restored after)."""
    try:
        import jax
    except ImportError:
        yield
        return
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


@pytest.mark.interop
@pytest.mark.parametrize("lib,spec_id", _kit_params(1))
def test_kit_backend_order_one(x64, lib, spec_id):
    _kit_run(lib, spec_id, 1)


@pytest.mark.interop
@pytest.mark.parametrize("lib,spec_id", _kit_params(2))
def test_kit_backend_order_two(x64, lib, spec_id):
    _kit_run(lib, spec_id, 2)


# ----- other libraries ---------------------------------------------------------------------------

CASES = [
    ("inv", (A,), {}), ("inv", (AB,), {}), ("inv", (AC,), {}),
    ("det", (A,), {}), ("det", (AB,), {}),
    ("slogdet", (A,), {}), ("slogdet", (AC,), {}),
    ("solve", (A, V), {}), ("solve", (AB, X[:, :2]), {}), ("solve", (AC, XC), {}),
    ("vector_norm", (X,), {}), ("vector_norm", (X,), {"ord": 1, "axis": 1, "keepdims": True}),
    ("vector_norm", (X,), {"ord": float("inf"), "axis": 0}), ("vector_norm", (XC,), {"ord": 3}),
    ("matrix_norm", (X,), {}), ("matrix_norm", (X,), {"ord": "nuc"}), ("matrix_norm", (X,), {"ord": 2}),
    ("matrix_norm", (X,), {"ord": -1}), ("matrix_norm", (_plain((2, 3, 2)),), {"ord": float("inf")}),
    ("trace", (X,), {"offset": 1}), ("diagonal", (_plain((2, 3, 4)),), {"offset": -1}),
    ("outer", (V, X[0]), {}), ("cross", (W, V), {}), ("cross", (W.T, np.ascontiguousarray(W.T[:, ::-1])), {"axis": -2}),
    ("matrix_power", (A, 3), {}), ("matrix_power", (A, -2), {}),
    ("pinv", (X,), {}), ("pinv", (XC.T.copy(),), {}),
]


# On Dask the rules are registered on inv and solve of 2-D arrays only (its linalg
# wants square chunks, its cholesky gives the upper factor by default, its eye with
# k != 0 fails when computed, its float32 inv is float64): the other cases are not
# generated for it, and test_dask_has_no_rule_for_the_others checks they have none.
NOT_DASK = [name for name in BACKENDS if name != "dask"]


def _on_dask(fname, args):
    return fname in ("inv", "solve") and all(np.ndim(a) <= 2 for a in args)


OTHER_CASES = [pytest.param(name, fname, args, kwargs, id=f"{name}-{fname}{i}")
               for name in BACKENDS for i, (fname, args, kwargs) in enumerate(CASES)
               if name != "dask" or _on_dask(fname, args)]


def _in(backend, fname):
    """The backend, its arrays in one chunk on Dask; it must have `fname`."""
    name, xp, to_xp, to_numpy = backend
    assert hasattr(xp.linalg, fname), f"{name}.linalg has no {fname}"
    if name == "dask":
        import dask.array as da

        def to_xp(a):
            return da.from_array(np.asarray(a), chunks=-1)
    return name, xp, to_xp, to_numpy


@pytest.mark.interop
@pytest.mark.parametrize("backend,fname,args,kwargs", OTHER_CASES, indirect=["backend"])
def test_other_libraries(backend, fname, args, kwargs):
    compare_with_numpy(_in(backend, fname), fname, args, kwargs, sub="linalg", rtol=1e-8, atol=1e-10)


@pytest.mark.interop
@pytest.mark.parametrize("backend", NOT_DASK, indirect=True)
def test_other_libraries_float32(backend):
    for fname, args in (("inv", (A32,)), ("det", (A32,)), ("solve", (A32, X32)),
                        ("vector_norm", (X32,)), ("matrix_norm", (X32,))):
        compare_with_numpy(_in(backend, fname), fname, args, {}, sub="linalg", rtol=2e-4, atol=2e-4)


@pytest.mark.interop
def test_dask_has_no_rule_for_the_others():
    """Dask's linalg functions other than inv and solve have no rule (None, not a
    rule computing something else); inv and solve have one."""
    import dask.array as da
    pytest.importorskip("array_api_compat.dask.array")
    a = da.from_array(A, chunks=-1)
    assert cr.rrule(da.linalg.cholesky, a) is None
    assert cr.rrule(da.linalg.qr, a) is None
    assert cr.rrule(da.linalg.inv, a) is not None
    assert cr.rrule(da.linalg.solve, a, da.from_array(V, chunks=-1)) is not None


@pytest.mark.interop
@pytest.mark.parametrize("backend", NOT_DASK, indirect=True)
@pytest.mark.parametrize("kw", [{}, {"upper": True}], ids=["lower", "upper"])
def test_cholesky_reads_the_triangle_its_library_reads(backend, kw):
    """NumPy and PyTorch read the upper triangle with upper=True,
    array-api-compat and array-api-strict the lower one, JAX the Hermitian
    part: the frule against central differences of the library's own
    function along a non-symmetric direction, the pullback its adjoint."""
    name, xp, to_xp, to_numpy = _in(backend, "cholesky")
    f = xp.linalg.cholesky
    Δ, ȳ, eps = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3)), 1e-6
    fd = (to_numpy(f(to_xp(S + eps * Δ), **kw)) - to_numpy(f(to_xp(S - eps * Δ), **kw))) / (2 * eps)
    Ω, ΔΩ = cr.frule((NoTangent(), to_xp(Δ)), f, to_xp(S), **kw)
    np.testing.assert_allclose(to_numpy(ΔΩ), fd, rtol=1e-6, atol=1e-8)
    _, pb = cr.rrule(f, to_xp(S), **kw)
    S̄ = to_numpy(cr.unthunk(pb(to_xp(ȳ))[1]))
    np.testing.assert_allclose(np.sum(S̄ * Δ), np.sum(ȳ * fd), rtol=1e-6)


@pytest.mark.interop
def test_torch_linalg_functions_have_the_rules():
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat.torch")
    a = torch.asarray(A)
    b = torch.asarray(np.stack([V, V[::-1]]))               # PyTorch's batch of vectors (2, 3)
    a2 = torch.asarray(np.stack([A, A.T]))
    for f, args in ((torch.linalg.inv, (a,)), (torch.linalg.det, (a,)), (torch.linalg.solve, (a2, b)),
                    (torch.linalg.matrix_norm, (a,)), (torch.linalg.vector_norm, (a,)),
                    (torch.linalg.cholesky, (torch.asarray(S),))):
        Ω, pb = cr.rrule(f, *args)
        cts = pb(torch.ones_like(Ω))
        assert all(isinstance(cr.unthunk(c), torch.Tensor) for c in cts[1:]), f
    # solve's batch of vectors against NumPy's column solve
    Ω, pb = cr.rrule(torch.linalg.solve, a2, b)
    expect = np.linalg.solve(np.stack([A, A.T]), np.stack([V, V[::-1]])[..., None])[..., 0]
    np.testing.assert_allclose(Ω.numpy(), expect)
    b̄ = cr.unthunk(pb(torch.ones_like(Ω))[2]).numpy()
    np.testing.assert_allclose(b̄, np.linalg.solve(np.swapaxes(np.stack([A, A.T]), -1, -2), np.ones((2, 3, 1)))[..., 0])
    with pytest.raises(TypeError, match="left"):
        cr.rrule(torch.linalg.solve, a, a, left=False)


# ----- bad input ---------------------------------------------------------------------------------------

def test_two_libraries_are_a_type_error_naming_both():
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(A)
    with pytest.raises(TypeError) as e:
        cr.frule((NoTangent(), np.ones((3, 3))), xs.linalg.inv, a)
    assert "numpy" in str(e.value) and "array_api_strict" in str(e.value) and "inv" in str(e.value)
    with pytest.raises(TypeError) as e:
        cr.rrule(xs.linalg.solve, a, np.ones(3))
    assert "numpy" in str(e.value) and "array_api_strict" in str(e.value)
    with pytest.raises(TypeError) as e:
        cr.rrule(xs.linalg.det, a)[1](np.asarray(1.0))
    assert "numpy" in str(e.value) and "array_api_strict" in str(e.value) and "det" in str(e.value)


def test_slogdet_cotangent_of_another_library_and_options_it_cannot_honour():
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(A)
    Ω, pb = cr.rrule(xs.linalg.slogdet, a)
    with pytest.raises(TypeError) as e:
        pb(cr.Tangent[type(Ω)](cr.ZeroTangent(), np.asarray(1.0)))
    assert "numpy" in str(e.value) and "array_api_strict" in str(e.value) and "slogdet" in str(e.value)
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat.torch")
    t = torch.asarray(np.stack([X, X]))
    with pytest.raises(TypeError, match="matrix_norm.*axis"):
        cr.rrule(torch.linalg.matrix_norm, t, dim=(0, 1))
    with pytest.raises(TypeError, match="pinv.*hermitian"):
        cr.rrule(torch.linalg.pinv, torch.asarray(S), hermitian=True)


def test_a_namespace_lacking_the_function_is_a_type_error_naming_it(monkeypatch):
    xs = pytest.importorskip("array_api_strict")
    a = xs.asarray(A)
    _, pb = cr.rrule(xs.linalg.det, a)
    monkeypatch.delattr(xs.linalg, "trace")         # det's adjugate of a 3x3 matrix: traces and products
    with pytest.raises(TypeError, match="det.*'trace'"):
        pb(xs.asarray(1.0))
    monkeypatch.delattr(xs.linalg, "inv")
    with pytest.raises(TypeError, match="slogdet.*'inv'"):
        cr.frule((NoTangent(), xs.ones((3, 3), dtype=xs.float64)), xs.linalg.slogdet, a)


# ----- chainrules.ad on array-API code ----------------------------------------------------------------

def _loss(a, b):
    xp = a.__array_namespace__()
    x = xp.linalg.solve(a, b)
    return xp.sum(xp.linalg.inv(a) * a) * xp.linalg.det(a) + xp.sum(x * x)


def _loss_numpy(a, b):
    x = np.linalg.solve(a, b)
    return np.sum(np.linalg.inv(a) * a) * np.linalg.det(a) + np.sum(x * x)


@pytest.mark.interop
@pytest.mark.parametrize("lib", ["torch", "jax"])
def test_ad_gradient_of_array_api_code(lib):
    if lib == "torch":
        torch = pytest.importorskip("torch")
        pytest.importorskip("array_api_compat.torch")
        to, native = torch.asarray, torch.Tensor

        def back(v):
            return v.numpy()
    else:
        jax = pytest.importorskip("jax")
        import jax.numpy as jnp
        before = jax.config.jax_enable_x64
        jax.config.update("jax_enable_x64", True)
        to, native, back = jnp.asarray, jax.Array, np.asarray
    try:
        b = X[:, :2]
        ga, gb = ad.gradient(_loss, to(A), to(b))
        assert isinstance(ga, native) and isinstance(gb, native)
        ra, rb = ad.gradient(_loss_numpy, A, b)
        np.testing.assert_allclose(back(ga), ra, rtol=1e-10)
        np.testing.assert_allclose(back(gb), rb, rtol=1e-10)
        # and the gradient against central differences
        eps, e = 1e-6, np.zeros_like(A)
        e[0, 1] = 1.0
        fd = (_loss_numpy(A + eps * e, b) - _loss_numpy(A - eps * e, b)) / (2 * eps)
        np.testing.assert_allclose(back(ga)[0, 1], fd, rtol=1e-6)
    finally:
        if lib == "jax":
            jax.config.update("jax_enable_x64", before)
