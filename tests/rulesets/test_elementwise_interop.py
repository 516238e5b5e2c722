"""The element-wise rules on other array libraries (elementwise_interop.py):
for array-api-strict, PyTorch (CPU, float64 and float32), JAX (x64) and Dask
arrays, the functions of each namespace, the operators and the array type's
dunders give Ω, ΔΩ and cotangents that are that library's arrays (Dask's
still lazy) and equal the NumPy rule's numbers; two libraries in one call
raise; the rules are registered when the library is imported."""

import operator
import subprocess
import sys

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent, unthunk
from chainrules._xp import NamespaceError
from chainrules.rulesets.elementwise import TABLE
from chainrules.testing.backends import to_numpy

pytestmark = pytest.mark.interop

RNG = np.random.default_rng(7)
NT = NoTangent()


class Lib:
    """One namespace under test: where its functions are, how to make and
    read its arrays."""

    def __init__(self, name, ns, asarray, to_numpy, array_type, dunder_type=None, lazy=False):
        self.name, self.ns, self.asarray, self.to_numpy = name, ns, asarray, to_numpy
        self.array_type, self.dunder_type, self.lazy = array_type, dunder_type or array_type, lazy

    def fn(self, row):
        for n in dict.fromkeys((row.name,) + row.numpy):
            f = getattr(self.ns, n, None)
            if f is not None:
                return f
        return None


@pytest.fixture(scope="module")
def jax_x64():
    jax = pytest.importorskip("jax")
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)


def _strict():
    xs = pytest.importorskip("array_api_strict")
    from array_api_strict._array_object import Array
    return Lib("array_api_strict", xs, xs.asarray, to_numpy, Array)   # read-only arrays too


def _torch(compat):
    torch = pytest.importorskip("torch")
    ns = pytest.importorskip("array_api_compat.torch") if compat else torch
    return Lib("torch" + ("-compat" if compat else ""), ns, torch.asarray, lambda t: t.numpy(), torch.Tensor)


def _jax(jax):
    import jax.numpy as jnp
    from jax._src.array import ArrayImpl
    return Lib("jax", jnp, jnp.asarray, np.asarray, jax.Array, ArrayImpl)


def _dask(compat):
    da = pytest.importorskip("dask.array")
    ns = pytest.importorskip("array_api_compat.dask.array") if compat else da
    return Lib("dask" + ("-compat" if compat else ""), ns, lambda a: da.from_array(np.asarray(a), chunks=2),
               lambda a: np.asarray(a.compute()), da.Array, lazy=True)


LIBS = ["array_api_strict", "torch", "torch-compat", "jax", "dask", "dask-compat"]


@pytest.fixture(params=LIBS)
def lib(request):
    name = request.param
    if name == "array_api_strict":
        return _strict()
    if name.startswith("torch"):
        return _torch(name.endswith("compat"))
    if name == "jax":
        return _jax(request.getfixturevalue("jax_x64"))
    return _dask(name.endswith("compat"))


# ----- checking one call against the NumPy rule ------------------------------------

def _numpy_function(row):
    for n in row.numpy:
        f = getattr(np, n, None)
        if f is not None:
            return f
    return None


def _points(row, shapes, dtype):
    lo, hi = {"acosh": (1.3, 2.0)}.get(row.name, (0.2, 0.8))
    out = []
    for i, shape in enumerate(shapes):
        x = RNG.uniform(lo, hi, shape) + (1.0 if i else 0.0)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * RNG.uniform(0.2, 0.6, shape)
        out.append(np.asarray(x, dtype=dtype))
    if row.name == "ldexp":
        out[1] = RNG.integers(-3, 4, shapes[1])
    return out


def _check_array(lib, v, want, rtol):
    """v is lib's array (lazy for Dask: checked before computing) equal to want."""
    if isinstance(want, NoTangent):
        assert isinstance(v, NoTangent), v
        return
    if isinstance(v, ZeroTangent) or isinstance(want, ZeroTangent):
        other = want if isinstance(v, ZeroTangent) else v
        assert isinstance(other, ZeroTangent) or np.all(np.asarray(other if isinstance(other, np.ndarray)
                                                                   else lib.to_numpy(other)) == 0)
        return
    assert isinstance(v, lib.array_type), f"{type(v)} is not {lib.array_type}"
    got = lib.to_numpy(v)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    assert np.allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True), (got, want)


def _check_call(lib, f, row, args, rtol=1e-12, swap=False):
    """rrule and frule of f at args (NumPy arrays, given to f as lib's
    arrays) against the NumPy rule of the row's NumPy function; `swap`: f(x, y)
    is that function of (y, x) (x.__rsub__(y) = y - x)."""
    g = _numpy_function(row)
    order = (lambda v: tuple(v)[::-1]) if swap else tuple
    largs = [lib.asarray(a) for a in args]
    res = cr.rrule(f, *largs)
    assert res is not None, f"no rrule for {f} on {lib.name}"
    Ω, pb = res
    Ωn, pbn = cr.rrule(g, *order(args))
    _check_array(lib, Ω, np.asarray(Ωn), rtol)
    ȳ = np.asarray(RNG.standard_normal(np.shape(Ωn)), dtype=np.asarray(Ωn).dtype)
    for got, want in zip(pb(lib.asarray(ȳ))[1:], order(pbn(ȳ)[1:])):
        _check_array(lib, unthunk(got), unthunk(want), rtol)
    Δ = [np.asarray(RNG.standard_normal(np.shape(a)), dtype=a.dtype) if a.dtype.kind in "fc" else NT
         for a in args]
    ΔΩ = cr.frule((NT,) + tuple(lib.asarray(d) if not isinstance(d, NoTangent) else d for d in Δ), f, *largs)[1]
    ΔΩn = cr.frule((NT,) + order(Δ), g, *order(args))[1]
    _check_array(lib, unthunk(ΔΩ), unthunk(ΔΩn), rtol)


def _check_rows(lib, rows, dtype, rtol=1e-12):
    """Every row the library has a function for; returns how many."""
    checked, failed = 0, []
    for row in rows:
        f = lib.fn(row)
        if f is None:
            continue
        try:
            _check_call(lib, f, row, _points(row, _shapes(row), dtype), rtol)
        except Exception as e:  # noqa: BLE001 - collected, reported below
            failed.append(f"{row.name}: {type(e).__name__}: {e}")
        checked += 1
    assert not failed, "\n".join(failed)
    return checked


# real/imag/conj of real arrays: torch refuses imag; tested on complex arrays
REAL_ROWS = [r for r in TABLE.values() if _numpy_function(r) is not None and r.name not in ("imag",)]
COMPLEX_ROWS = [r for r in TABLE.values() if _numpy_function(r) is not None
                and (r.holomorphic or r.complex_rule) and r.name not in ("floor_divide", "remainder")
                and any(t.startswith("D" * r.arity) for t in getattr(_numpy_function(r), "types", ["DD"]))]


def _shapes(row):
    return [(2, 3)] if row.arity == 1 else [(3,), (2, 1)]


def test_functions_float64(lib):
    assert _check_rows(lib, REAL_ROWS, np.float64) >= 40


def test_torch_float32():
    assert _check_rows(_torch(compat=True), [r for r in REAL_ROWS if r.name != "ldexp"], np.float32,
                       rtol=1e-5) >= 40


@pytest.mark.filterwarnings("error::UserWarning")
def test_torch_ldexp_broadcasting_its_first_argument_warns_nothing():
    # torch.ldexp(x, e) with e broadcasting x larger resized an output of x's shape, which
    # PyTorch deprecates with a UserWarning (the suite printed it from chainrules/_xp.py)
    torch = pytest.importorskip("torch")
    x, e = RNG.standard_normal(3), np.array([[1], [-2]])
    Ω, pb = cr.rrule(torch.ldexp, torch.asarray(x), torch.asarray(e))
    np.testing.assert_array_equal(Ω.numpy(), np.ldexp(x, e))
    ȳ = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(unthunk(pb(torch.asarray(ȳ))[1]).numpy(), np.sum(ȳ * 2.0 ** e, axis=0))
    ẋ = RNG.standard_normal(3)
    _, ΔΩ = cr.frule((NT, torch.asarray(ẋ), NT), torch.ldexp, torch.asarray(x), torch.asarray(e))
    np.testing.assert_allclose(unthunk(ΔΩ).numpy(), ẋ * 2.0 ** e)


@pytest.mark.parametrize("name", ["torch-compat", "jax", "array_api_strict"])
def test_functions_complex(name, request):
    lib = _strict() if name == "array_api_strict" else \
        _torch(True) if name.startswith("torch") else _jax(request.getfixturevalue("jax_x64"))
    assert _check_rows(lib, COMPLEX_ROWS, np.complex128) >= 25


# ----- operators and dunders -------------------------------------------------------

OPS = [(operator.add, "add"), (operator.sub, "subtract"), (operator.mul, "multiply"),
       (operator.truediv, "divide"), (operator.pow, "pow"), (operator.mod, "remainder")]


@pytest.mark.parametrize("op,name", OPS, ids=[n for _, n in OPS])
def test_operators(lib, op, name):
    row = TABLE[name]
    x, y = _points(row, [(3,), (2, 1)], np.float64)
    _check_call(lib, op, row, [x, y])
    stem = op.__name__.strip("_")
    _check_call(lib, getattr(lib.dunder_type, f"__{stem}__"), row, [x, y])
    _check_call(lib, getattr(lib.dunder_type, f"__r{stem}__"), row, [y, x], swap=True)


@pytest.mark.parametrize("op,name", [(operator.neg, "negative"), (operator.pos, "positive"), (operator.abs, "abs")])
def test_unary_operators(lib, op, name):
    row = TABLE[name]
    (x,) = _points(row, [(2, 3)], np.float64)
    x = x - 0.5
    _check_call(lib, op, row, [x])
    _check_call(lib, getattr(lib.dunder_type, f"__{op.__name__.strip('_')}__"), row, [x])


def test_python_number_arguments(lib):
    x = lib.asarray(np.array([0.3, 0.6]))
    _, pb = cr.rrule(operator.mul, x, 2.5)
    x̄, c̄ = [unthunk(c) for c in pb(lib.asarray(np.ones(2)))[1:]]
    _check_array(lib, x̄, np.array([2.5, 2.5]), 1e-12)
    _check_array(lib, c̄, np.asarray(0.9), 1e-12)      # a 0-d array of the library, real


# ----- laziness, mixing libraries, missing functions --------------------------------

def test_dask_stays_lazy():
    da = pytest.importorskip("dask.array")
    cda = pytest.importorskip("array_api_compat.dask.array")
    from dask.callbacks import Callback
    computed = []

    class Count(Callback):
        def _start(self, dsk):
            computed.append(dsk)
    x = da.from_array(np.array([0.3, 0.5, 0.7]), chunks=2)
    y = da.from_array(np.array([[1.2], [1.4]]), chunks=1)
    with Count():
        for f, args in [(cda.sin, (x,)), (cda.acos, (x,)), (da.arctan2, (x, y)), (operator.mul, (x, y)),
                        (cda.abs, (x,)), (cda.pow, (x, y))]:
            Ω, pb = cr.rrule(f, *args)
            cts = [unthunk(c) for c in pb(da.ones(Ω.shape, chunks=2))[1:]]
            ΔΩ = cr.frule((NT,) + tuple(da.ones_like(a) for a in args), f, *args)[1]
            assert all(isinstance(v, da.Array) for v in [Ω, ΔΩ, *cts]), f
    assert computed == []


def test_two_libraries_in_one_call_raise():
    torch = pytest.importorskip("torch")
    xs = pytest.importorskip("array_api_strict")
    t, s = torch.ones(3, dtype=torch.float64), xs.ones(3)
    with pytest.raises(NamespaceError, match="torch"):
        cr.rrule(operator.mul, t, s)
    with pytest.raises(NamespaceError, match="array_api_strict"):
        cr.frule((NT, t, s), operator.add, t, s)
    _, pb = cr.rrule(torch.sin, t)
    with pytest.raises(NamespaceError):
        pb(xs.ones(3))


def test_a_namespace_lacking_a_function_is_a_type_error_naming_it(monkeypatch):
    xs = pytest.importorskip("array_api_strict")
    x = xs.asarray([0.3, 0.5])
    _, pb = cr.rrule(xs.sin, x)
    monkeypatch.delattr(xs, "cos")
    with pytest.raises(TypeError, match="'cos'"):
        pb(xs.ones(2))


def test_bad_seed_shape_names_the_function():
    torch = pytest.importorskip("torch")
    _, pb = cr.rrule(torch.exp, torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="exp"):
        pb(torch.ones(4, dtype=torch.float64))


# ----- registration at import -------------------------------------------------------

def _run(code):
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split()


def test_importing_chainrules_imports_no_array_library():
    pytest.importorskip("torch")
    out = _run("import sys, chainrules\n"
               "print(*[m in sys.modules for m in ('torch', 'jax', 'dask', 'array_api_strict', "
               "'array_api_compat')])")
    assert out == ["False"] * 5


@pytest.mark.parametrize("order", ["before", "after"])
def test_rules_registered_whenever_the_library_is_imported(order):
    pytest.importorskip("torch")
    pytest.importorskip("array_api_strict")
    imports = "import torch, array_api_strict as xs, array_api_compat.torch as ct"
    code = (f"{imports}\nimport chainrules as cr" if order == "before" else
            f"import chainrules as cr\n{imports}")
    out = _run(code + "\nimport operator\nt = torch.ones(2, dtype=torch.float64)\n"
               "print(*[cr.rrule(f, t) is not None for f in (torch.sin, ct.acos, torch.Tensor.__neg__)],"
               " cr.rrule(operator.mul, t, t) is not None, cr.rrule(xs.exp, xs.ones(2)) is not None)")
    assert out == ["True"] * 5
