"""Every registered NumPy rule with a PyTorch counterpart (a function of the
same name, or of its element-wise row's names, in torch, torch.special,
torch.linalg or torch.fft), through `to_torch`: one test per function, with
the checks in a loop:

- the primal equals NumPy's;
- backward against finite differences (`torch.autograd.gradcheck`, float64);
- double backward (`gradgradcheck`);
- forward mode: `torch.func.jvp` against the VJP (⟨ȳ, Jẋ⟩ = ⟨Jᵀȳ, ẋ⟩);
- `torch.func.vmap` against the calls one by one;
- float32 in, float32 out and float32 gradients, near the float64 ones;
- a NumPy array refused naming `to_torch(f)`; a Python float beside a tensor
  (binary element-wise functions) as a constant.

The registry is read at collection: `test_every_candidate_is_swept_or_excluded`
keeps RECIPES ∪ EXCLUDED equal to it, EXCLUDED says why per function."""

import numpy as np
import pytest

import chainrules as cr
from chainrules.rulesets.elementwise import row_for_numpy_name

# interop: another library; sweep: a registry-wide sweep, run once in CI (README command 2), not in the floor jobs
pytestmark = [pytest.mark.interop, pytest.mark.sweep]
# PyTorch's CPU build is installed by the test extra on CPython 3.11 only (pyproject.toml)
torch = pytest.importorskip("torch")
import array_api_compat.torch  # noqa: E402,F401  (registers the rules on torch's functions)

from chainrules.interop import to_torch  # noqa: E402
from chainrules.interop.torch import _lookup, _twin  # noqa: E402

RNG = np.random.default_rng(21)


def U(*shape, lo=0.2, hi=0.8):
    return RNG.uniform(lo, hi, shape)


V, W = U(3), U(3, lo=1.2, hi=1.8)
A, B = U(3, 4), U(4, 2)
S = U(3, 3) + 3 * np.eye(3)            # well conditioned
SPD = S @ S.T
Z = U(4) + 1j * U(4)


def _candidates():
    """(module name, NumPy function) of every registered NumPy function with a
    torch counterpart."""
    out = {}
    for f in cr._core._registered_functions():
        name = getattr(f, "__name__", None)
        if not isinstance(name, str):
            continue
        for mod, tmods in ((np, (torch, torch.special)), (np.linalg, (torch.linalg,)), (np.fft, (torch.fft,))):
            if getattr(mod, name, None) is f:
                row = row_for_numpy_name(name) if mod is np else None
                names = (name,) + ((row.name,) + tuple(row.numpy) if row else ())
                if any(hasattr(t, n) for n in names for t in tmods):
                    out[f"{mod.__name__}.{name}"] = f
    return out


CANDIDATES = _candidates()

_ROUNDING = dict(lo=0.05, hi=0.45)      # no integer or half-integer between
_ONE_BINADE = dict(lo=0.27, hi=0.48)    # spacing is constant in [0.25, 0.5)
_DOMAINS = {"acosh": dict(lo=1.3, hi=2.0), "round": _ROUNDING, "floor": _ROUNDING, "ceil": _ROUNDING,
            "trunc": _ROUNDING}


def _elementwise(name):
    """args of a function of the element-wise table: x, and y in [1.2, 1.8]."""
    row = row_for_numpy_name(name)
    if row is None:
        return None
    x = U(3, **_DOMAINS.get(row.name, {}))
    if row.arity == 1:
        return (x,), {}
    y = RNG.integers(-2, 3, 3) if row.name == "ldexp" else U(3, lo=1.2, hi=1.8)
    return (x, y), {}


# args and kwargs of the functions outside the element-wise table
RECIPES = {
    "numpy.sinc": ((V,), {}), "numpy.angle": ((Z,), {}), "numpy.imag": ((Z,), {}), "numpy.nan_to_num": ((V,), {}),
    "numpy.fix": ((U(3, **_ROUNDING),), {}), "numpy.heaviside": ((V - 0.5, 0.5), {}),
    "numpy.spacing": ((U(3, **_ONE_BINADE),), {}),
    "numpy.sum": ((A,), {"axis": 0}), "numpy.nansum": ((A,), {"axis": 1}), "numpy.mean": ((A,), {"axis": 0}),
    "numpy.nanmean": ((A,), {}), "numpy.prod": ((A,), {"axis": 1}), "numpy.max": ((A,), {"axis": 0}),
    "numpy.amax": ((A,), {}), "numpy.min": ((A,), {"axis": 1}), "numpy.amin": ((A,), {}),
    "numpy.var": ((A,), {"axis": 0}), "numpy.std": ((A,), {"axis": 1}), "numpy.cumsum": ((A,), {"axis": 1}),
    "numpy.cumprod": ((A,), {"axis": 0}), "numpy.diff": ((A,), {}),
    "numpy.reshape": ((A, (4, 3)), {}), "numpy.ravel": ((A,), {}), "numpy.transpose": ((A,), {}),
    "numpy.swapaxes": ((A, 0, 1), {}), "numpy.moveaxis": ((A, 0, 1), {}), "numpy.squeeze": ((A[None],), {}),
    "numpy.broadcast_to": ((V, (2, 3)), {}), "numpy.tile": ((A, 2), {}), "numpy.flip": ((A,), {}),
    "numpy.flipud": ((A,), {}), "numpy.fliplr": ((A,), {}), "numpy.rot90": ((A,), {}),
    "numpy.roll": ((A, 1), {}), "numpy.diagonal": ((S,), {}), "numpy.linalg.diagonal": ((S,), {}),
    "numpy.diag": ((V,), {}), "numpy.triu": ((S,), {}), "numpy.tril": ((S,), {}),
    "numpy.concatenate": (([A, 2 * A],), {}), "numpy.stack": (([A, 2 * A],), {}),
    "numpy.hstack": (([A, 2 * A],), {}), "numpy.vstack": (([A, 2 * A],), {}),
    "numpy.dstack": (([A, 2 * A],), {}), "numpy.column_stack": (([V, 2 * V],), {}),
    "numpy.atleast_1d": ((A,), {}), "numpy.atleast_2d": ((V,), {}), "numpy.atleast_3d": ((A,), {}),
    "numpy.where": ((A > 0.5, A, 2 * A), {}), "numpy.clip": ((A, 0.3, 0.7), {}), "numpy.sort": ((A,), {}),
    "numpy.take": ((V, np.array([2, 0])), {}),
    "numpy.matmul": ((A, B), {}), "numpy.linalg.matmul": ((A, B), {}), "numpy.tensordot": ((A, B), {"axes": 1}),
    "numpy.dot": ((A, B), {}), "numpy.inner": ((A, 2 * A), {}), "numpy.vdot": ((V, W), {}),
    "numpy.linalg.vecdot": ((V, W), {}), "numpy.outer": ((V, W), {}), "numpy.kron": ((V, W), {}),
    "numpy.cross": ((V, W), {}), "numpy.linalg.cross": ((V, W), {}), "numpy.einsum": (("ij,jk->ik", A, B), {}),
    "numpy.trace": ((S,), {}),
    "numpy.linalg.cholesky": ((SPD,), {}), "numpy.linalg.svdvals": ((A,), {}),
    "numpy.linalg.eigvalsh": ((SPD,), {}), "numpy.linalg.inv": ((S,), {}), "numpy.linalg.det": ((S,), {}),
    "numpy.linalg.solve": ((S, V), {}), "numpy.linalg.pinv": ((A,), {}),
    "numpy.linalg.matrix_power": ((S, 3), {}), "numpy.linalg.norm": ((A,), {}),
    "numpy.linalg.vector_norm": ((V,), {}), "numpy.linalg.matrix_norm": ((A,), {}),
    "numpy.fft.fft": ((V,), {}), "numpy.fft.ifft": ((V,), {}), "numpy.fft.fft2": ((A,), {}),
    "numpy.fft.ifft2": ((A,), {}), "numpy.fft.fftn": ((A,), {}), "numpy.fft.ifftn": ((A,), {}),
    "numpy.fft.rfft": ((U(4),), {}), "numpy.fft.rfft2": ((A,), {}), "numpy.fft.rfftn": ((A,), {}),
    "numpy.fft.irfft": ((Z,), {}), "numpy.fft.irfft2": ((A + 1j * A,), {}), "numpy.fft.irfftn": ((A + 1j * A,), {}),
    "numpy.fft.hfft": ((Z,), {}), "numpy.fft.ihfft": ((U(4),), {}),
    "numpy.cov": ((A,), {}), "numpy.corrcoef": ((A,), {}), "numpy.quantile": ((V, 0.3), {}),
    "numpy.median": ((V,), {}), "numpy.nanmedian": ((V,), {}), "numpy.nanquantile": ((V, 0.3), {}),
}

_NO_DERIVATIVE = "boolean, integer or index output: no derivative to check"
_MULTI = "returns a tuple (or namedtuple) of arrays: to_torch's autograd.Function returns one tensor per call here"
# the rules added in session 10 (their families' own tests run the kit at orders 1 and 2,
# and the registry sweep): not yet swept through to_torch
_NOT_YET = ("a rule added on 2026-11-28, checked by the kit in its family's test (tests/rulesets/numpy/"
            "test_more.py, test_linalg_eig.py) and the registry sweep; not yet swept through to_torch")
EXCLUDED = {
    **{f"numpy.{n}": _NOT_YET for n in [
        "bincount", "diagflat", "fft.fftshift", "fft.ifftshift", "gradient", "i0", "linalg.cond", "linalg.eig",
        "linalg.eigvals", "linalg.multi_dot", "linalg.tensorinv", "linalg.tensorsolve", "linspace", "logspace",
        "meshgrid", "select", "trapezoid", "vander"]},
    **{f"numpy.{n}": _NO_DERIVATIVE for n in [
        "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "logical_and", "logical_or",
        "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit", "isposinf", "isneginf", "isreal",
        "linalg.matrix_rank", "isclose", "allclose", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "argmax", "argmin",
        "argsort", "argwhere", "nonzero", "count_nonzero", "any", "all", "searchsorted", "unravel_index",
        "tril_indices", "triu_indices", "broadcast_shapes", "result_type"]},
    **{f"numpy.{n}": "makes an array whose values do not depend on x (derivative zero): nothing to check"
       for n in ["zeros_like", "ones_like", "empty_like"]},
    "numpy.asarray": "a conversion: to_torch(np.asarray) of a tensor is the identity of array_api_compat",
    "numpy.row_stack": "vstack's rules (NumPy 2 deprecates row_stack, every call warns): swept as numpy.vstack",
    **{f"numpy.{n}": _MULTI for n in ["frexp", "split", "hsplit", "vsplit", "dsplit"]},
    **{f"numpy.linalg.{n}": _MULTI for n in ["qr", "svd", "eigh", "slogdet", "lstsq"]},
}

# checks left out for a function, and why
_NO_FLOAT = "torch's own function takes no Python float as its second argument either (TypeError from torch)"
SKIP_CHECKS = {
    **{f"numpy.{n}": {"python float": _NO_FLOAT} for n in ["arctan2", "fmax", "fmin", "logaddexp2"]},
}


def _recipe(key):
    if key in RECIPES:
        return RECIPES[key]
    return _elementwise(key.rsplit(".", 1)[-1]) if key.count(".") == 1 else None


def test_every_candidate_is_swept_or_excluded():
    assert len(CANDIDATES) > 150, len(CANDIDATES)      # the registry was read
    unaccounted = sorted(k for k in CANDIDATES if _recipe(k) is None and k not in EXCLUDED)
    assert not unaccounted, f"functions with a torch counterpart neither swept nor excluded: {unaccounted}"
    stale = sorted(set(EXCLUDED) - set(CANDIDATES))
    assert not stale, f"EXCLUDED lists functions that are not candidates: {stale}"


def _tensor(a, dtype=torch.float64, grad=True):
    if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        t = torch.tensor(a, dtype=dtype if a.dtype.kind == "f" else
                         (torch.complex128 if dtype == torch.float64 else torch.complex64))
        return t.requires_grad_(grad)
    if isinstance(a, np.ndarray):
        return torch.tensor(a)
    if isinstance(a, list):
        return [_tensor(e, dtype, grad) for e in a]
    return a


def _leaves(args):
    out = []
    for a in args:
        for e in (a if isinstance(a, list) else [a]):
            if isinstance(e, torch.Tensor) and (e.is_floating_point() or e.is_complex()):
                out.append(e)
    return out


# functions of a symmetric matrix whose rules return symmetric cotangents (ChainRules'
# and PyTorch's convention): checked as functions of X through (X + Xᵀ)/2
SYMMETRIC = {"numpy.linalg.cholesky", "numpy.linalg.eigvalsh"}


def _as_function(f, args, kwargs, symmetric=False):
    """f of its differentiable tensors only, the other arguments fixed."""
    slots = [(i, j) for i, a in enumerate(args) for j, e in enumerate(a if isinstance(a, list) else [a])
             if isinstance(e, torch.Tensor) and (e.is_floating_point() or e.is_complex())]

    def g(*vs):
        if symmetric:
            vs = ((vs[0] + vs[0].mT) / 2,) + vs[1:]
        new = [list(a) if isinstance(a, list) else a for a in args]
        for (i, j), v in zip(slots, vs):
            if isinstance(new[i], list):
                new[i][j] = v
            else:
                new[i] = v
        return to_torch(f)(*new, **kwargs)
    return g


def _inner(a, b):
    return (a.conj() * b).real.sum() if a.is_complex() or b.is_complex() else (a * b).sum()


@pytest.mark.parametrize("key", sorted(k for k in CANDIDATES if k not in EXCLUDED))
def test_through_to_torch(key):
    f = CANDIDATES[key]
    args, kwargs = _recipe(key)
    skip = SKIP_CHECKS.get(key, {})
    targs = [_tensor(a) for a in args]
    xs = _leaves(targs)
    g = _as_function(f, targs, kwargs, key in SYMMETRIC)
    y = g(*xs)
    want = f(*args, **kwargs)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-10, atol=1e-12, err_msg=f"{key}: primal")

    # backward and double backward against finite differences
    assert torch.autograd.gradcheck(g, tuple(xs)), key
    xd = tuple(x.detach() for x in xs)
    ẋ = tuple(torch.randn_like(x) for x in xd)
    if _lookup(f)[1] and _twin(f, key) is None:
        # its rule runs on the host (no torch function): first order, reverse mode; the
        # second derivative and forward mode raise naming f, unless the derivative is zero
        try:
            torch.autograd.gradgradcheck(g, tuple(xs))
        except TypeError as e:
            assert f"to_torch({key})" in str(e) and "second-order" in str(e), e
        with pytest.raises(TypeError, match=rf"to_torch\({key}\): forward mode is not available"):
            torch.func.jvp(g, xd, ẋ)
        return
    assert torch.autograd.gradgradcheck(g, tuple(xs)), key

    # forward mode against the VJP
    _, ẏ = torch.func.jvp(g, xd, ẋ)
    ȳ = torch.randn_like(ẏ)
    _, vjp = torch.func.vjp(g, *xd)
    x̄ = vjp(ȳ)
    torch.testing.assert_close(_inner(ȳ, ẏ), sum(_inner(a, b) for a, b in zip(x̄, ẋ)), msg=key)

    # vmap against the calls one by one
    if "vmap" not in skip:
        batch = tuple(torch.stack([x, 1.05 * x]) for x in xd)
        got = torch.func.vmap(g)(*batch)
        torch.testing.assert_close(got, torch.stack([g(*xd), g(*(1.05 * x for x in xd))]), msg=key)

    # float32 in, float32 out and float32 gradients
    targs32 = [_tensor(a, torch.float32) for a in args]
    xs32 = _leaves(targs32)
    g32 = _as_function(f, targs32, kwargs, key in SYMMETRIC)
    y32 = g32(*xs32)
    assert y32.dtype in (torch.float32, torch.complex64) or y32.dtype == torch.as_tensor(want).dtype, \
        (key, y32.dtype)
    grads32 = torch.autograd.grad(_inner(y32, torch.ones_like(y32)), xs32, allow_unused=True)
    grads64 = torch.autograd.grad(_inner(y, torch.ones_like(y)), xs, allow_unused=True)
    for a, b, x in zip(grads32, grads64, xs32):
        if a is not None:
            assert a.dtype == x.dtype, (key, a.dtype)
            torch.testing.assert_close(a.double() if not a.is_complex() else a.cdouble(), b,
                                       rtol=1e-3, atol=1e-4, msg=key)

    # NumPy arrays are refused, naming to_torch(f); a Python float beside a tensor is a constant
    if isinstance(args[0], np.ndarray) and args[0].dtype.kind in "fc":
        with pytest.raises(TypeError, match=r"to_torch\(.*\): argument 0 is a NumPy array"):
            to_torch(f)(*args, **kwargs)
    row = row_for_numpy_name(f.__name__) if key.count(".") == 1 else None
    if row is not None and row.arity == 2 and key not in RECIPES and args[1].dtype.kind == "f":
        c = float(args[1][0])
        if "python float" in skip:
            with pytest.raises(TypeError, match="must be Tensor, not float"):
                to_torch(f)(targs[0], c)
            return
        got = to_torch(f)(targs[0], c)
        np.testing.assert_allclose(got.detach().numpy(), f(args[0], c), rtol=1e-12, err_msg=key)
        gx, = torch.autograd.grad(got.sum(), targs[0])
        gt, = torch.autograd.grad(to_torch(f)(targs[0], torch.full_like(targs[0], c)).sum(), targs[0])
        torch.testing.assert_close(gx, gt, msg=key)
