"""Every registered NumPy rule with a JAX counterpart (`jax.numpy`,
`jax.numpy.linalg`, `jax.numpy.fft`), through `to_jax`: the primal, the VJP
against the rule's pullback (eager at NumPy arrays, or at a Python float for
unary ufuncs; and under `jit`), `jit(vmap(grad))` at two points, float32
staying float32, a second derivative (reverse over reverse, `H u`) against a
central difference of the first, and forward mode (`jacfwd` against the
frule) where the rule computes with JAX's arrays.  Functions whose rules
compute with NumPy only run on the host (chainrules/interop/jax.py,
`runs_on_host`): JAX refuses forward mode through those that are not
element-wise (`forward_on_host`) with its own error, which is checked.  The traced checks share one `jit` per function (on this
machine the time is in compiling).  The functions left out are in EXCLUDED
and NOT_SWEPT with their reasons; known bugs in KNOWN_BUGS (strict)."""

import numpy as np
import pytest

import chainrules as cr
from chainrules._core import _registered_functions
from chainrules.interop import to_jax
from chainrules.interop.jax import forward_on_host, runs_on_host

# interop: another library; sweep: a registry-wide sweep, run once in CI (README command 2), not in the floor jobs
pytestmark = [pytest.mark.interop, pytest.mark.sweep]
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

RNG = np.random.default_rng(21)
X = np.array([0.3, 0.45, 0.7])
Y = np.array([0.55, 0.35, 0.6])
A = np.array([[1.3, 0.2, 0.1], [0.3, 1.1, 0.2], [0.1, 0.4, 1.4]])

# name -> (args, kwargs) where the defaults (x; x, y; a matrix for numpy.linalg) do not fit
ARGS = {
    "arccosh": ((X + 1.2,), {}), "acosh": ((X + 1.2,), {}),
    "einsum": (("ij,jk->ik", A, A.T.copy()), {}), "pad": ((X, 1), {}), "tile": ((X, 2), {}),
    "quantile": ((X, 0.3), {}), "percentile": ((X, 30.0), {}), "reshape": ((A, (9,)), {}),
    "broadcast_to": ((X, (2, 3)), {}), "expand_dims": ((X, 0), {}), "moveaxis": ((A, 0, 1), {}),
    "swapaxes": ((A, 0, 1), {}), "take": ((X, np.array([2, 0])), {}), "roll": ((X, 1), {}),
    "repeat": ((X, 2), {}), "ldexp": ((X, np.array([1, 2, 3])), {}), "clip": ((X, 0.35, 0.6), {}),
    "where": ((X > 0.4, X, Y), {}), "concatenate": (([X, Y],), {}), "concat": (([X, Y],), {}),
    "stack": (([X, Y],), {}), "vstack": (([X, Y],), {}), "hstack": (([X, Y],), {}),
    "column_stack": (([X, Y],), {}), "dstack": (([X, Y],), {}), "block": (([X, Y],), {}),
    "matrix_power": ((A, 2), {}), "tensordot": ((A, A), {"axes": 1}), "interp": ((X, Y, X * 2), {}),
    "polyval": ((X, Y), {}), "power": ((X, 2.5), {}), "float_power": ((X, 2.5), {}),
    "diagonal": ((A,), {}), "trace": ((A,), {}), "matmul": ((A, X), {}), "kron": ((X, Y), {}),
    "cross": ((X, Y), {}), "solve": ((A, X), {}), "ifft": ((X,), {}), "irfft": ((X,), {}),
    "hfft": ((X,), {}), "take_along_axis": ((X, np.array([2, 0, 1]), 0), {}),
    "matrix_transpose": ((A,), {}), "fliplr": ((A,), {}), "rot90": ((A,), {}),
    "fft2": ((A,), {}), "ifft2": ((A,), {}), "rfft2": ((A,), {}), "irfft2": ((A,), {}),
    "cholesky": ((A @ A.T,), {}), "vecdot": ((X, Y), {}),
    "put_along_axis": None, "select": (([X > 0.4], [X]), {}), "piecewise": None,
    "apply_along_axis": None, "apply_over_axes": None, "vectorize": None,
}

# name -> why the sweep leaves it out (checked elsewhere, or not differentiable here)
EXCLUDED = {
    "put_along_axis": "mutates its argument: no functional JAX counterpart",
    "piecewise": "takes functions: checked by tests/rulesets/numpy",
    "apply_along_axis": "takes a function: checked by tests/rulesets/numpy",
    "apply_over_axes": "takes a function: checked by tests/rulesets/numpy",
    "vectorize": "a class, not a function of arrays",
    "frexp": "returns a tuple with an integer part: test_adapter checks one array output",
    "modf": "returns a tuple: its tuple cotangent is checked in tests/rulesets/numpy/test_ufuncs.py",
    "divmod": "returns a tuple: as modf",
    "eig": "complex eigenvectors of a real matrix: JAX has no derivative of its own to compare on CPU",
    "eigvals": "as eig",
    "lstsq": "returns a tuple with integer rank",
    "eigh": "returns a namedtuple of eigenvalues and vectors (sign-ambiguous vectors)",
    "qr": "returns a namedtuple (sign conventions of Q and R)",
    "svd": "returns a namedtuple (sign-ambiguous vectors)",
    "slogdet": "returns a namedtuple: checked in test_jax.py (test_slogdet_under_grad_and_second_order)",
    "histogram": "piecewise constant, integer counts",
    "unique": "data-dependent output shape",
    "nonzero": "integer output",
    "argsort": "integer output",
    "sort_complex": "complex output of a real input, sort order",
    "einsum_path": "not differentiable (a contraction order and a report): declared non_differentiable",
    "matrix_rank": "integer output: declared non_differentiable",
    "nextafter": "JAX has no derivative of nextafter (its JVP raises NotImplementedError)",
    "empty_like": "uninitialized values: no primal to compare",
    "tril_indices": "integer index arrays of a size", "triu_indices": "as tril_indices",
    "diag_indices": "as tril_indices",
}


def _counterpart(f):
    """JAX's function of f's name, or None (f: NumPy's)."""
    name = getattr(f, "__name__", None)
    module = getattr(f, "__module__", None) or ""
    if not isinstance(name, str) or not (module == "numpy" or module.startswith("numpy.")):
        return None
    for ns_np, ns_j in ((np, jnp), (np.linalg, jnp.linalg), (np.fft, jnp.fft)):
        if getattr(ns_np, name, None) is f:
            return getattr(ns_j, name, None)
    return None


def _functions():
    seen, out = set(), []
    for f in _registered_functions():
        if _counterpart(f) is not None and f.__name__ not in seen and any(cr._core._rules_of(f)):
            seen.add(f.__name__)
            out.append(f)
    return out


def _args(f):
    name = f.__name__
    if name in ARGS:
        return ARGS[name]
    if f.__module__ == "numpy.linalg":
        return (A,), {}
    nin = getattr(f, "nin", None)
    if nin is None:     # not a ufunc: one argument if NumPy takes one, else two
        try:
            f(X)
            nin = 1
        except TypeError:
            nin = 2
    return ((X, Y) if nin == 2 else (X,)), {}


def _is_diff(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _dense(t, like):
    """A chainrules tangent as a NumPy array of like's shape (a zero as zeros)."""
    t = cr.unthunk(t)
    return np.zeros(np.shape(like)) if isinstance(t, cr.AbstractZero) else np.asarray(t)


def _close(got, want, what, f, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol, err_msg=f"{f.__name__}: {what}")


def _check(f):
    """The checks of the module docstring for one function; returns what it
    skipped, "host" for a host function, or None."""
    args, kw = _args(f)
    idx = [i for i, a in enumerate(args) if _is_diff(a)]
    if not idx:
        return "no float argument"
    try:
        y_np = f(*args, **kw)
    except Exception as e:                                   # noqa: BLE001
        return f"NumPy raised at the sweep's point: {e}"
    if not isinstance(y_np, np.ndarray | float | np.floating) or np.asarray(y_np).dtype.kind != "f":
        return "output is not one float array"
    w = to_jax(f)

    def fun(*v):
        full = list(args)
        for i, x in zip(idx, v):
            full[i] = x
        return w(*full, **kw)

    xs = [jnp.asarray(args[i]) for i in idx]
    ȳ = RNG.standard_normal(np.shape(y_np))
    u, v, ẋ = (RNG.standard_normal(xs[0].shape) for _ in range(3))
    x1 = args[idx[0]] * 1.1
    s = lambda x0: (fun(x0, *xs[1:]) * jnp.asarray(ȳ)).sum()
    first = jax.grad(s)
    # forward mode: JAX refuses it, with its own error, exactly on the functions run on the host
    # that are not element-wise (those have a custom_jvp whose partials run on the host)
    forward = not runs_on_host(f) or forward_on_host(f)
    if not forward:
        with pytest.raises(TypeError, match="can't apply forward-mode"):
            jax.eval_shape(jax.jacfwd(lambda x0: fun(x0, *xs[1:])), xs[0])   # traced only
    second = f.__name__ not in NO_SECOND_ORDER

    def traced(x0):
        """jit, vmap and every order in one compilation (the machine's time is in compiling)."""
        out = {"vjp": jax.vjp(fun, x0, *xs[1:])[1](jnp.asarray(ȳ)),
               "vmap(grad)": jax.vmap(first)(jnp.stack([x0, jnp.asarray(x1)])),
               "float32": jax.grad(lambda x: s(x).real.astype(jnp.float32))(x0.astype(jnp.float32))}
        if second:   # ∇⟨∇s, u⟩ = H u, and ∇s at x ± εv for a central difference of vᵀ H u
            out["Hu"] = jax.grad(lambda x: (first(x) * u).sum())(x0)
            out["fd"] = (first(x0 + 1e-5 * v) - first(x0 - 1e-5 * v)) / 2e-5
        if forward:
            out["jacfwd"] = jax.jacfwd(lambda x: fun(x, *xs[1:]))(x0)
        return out

    def rule_vjp(x0):
        """The rule's pullback of ȳ at (x0, the other arguments)."""
        full = list(args)
        full[idx[0]] = x0
        return cr.rrule(f, *full, **kw)[1](ȳ)[1:]

    # eager (each eager differentiation costs as much as a compilation: one per function):
    # the primal, and a Python float's derivative (unary element-wise functions) or else
    # the VJP at NumPy arrays (converted by to_jax), against the rule
    _close(fun(*xs), y_np, "primal", f, 1e-12)
    rule = rule_vjp(args[idx[0]])
    if isinstance(f, np.ufunc) and f.nin == 1:
        _close(jax.grad(w)(0.45), _dense(cr.rrule(f, 0.45)[1](1.0)[1], 0.45), "Python float", f)
    else:
        got = jax.vjp(fun, *[args[i] for i in idx])[1](jnp.asarray(ȳ))
        for k, i in enumerate(idx):
            _close(got[k], _dense(rule[i], args[i]), f"VJP at NumPy arrays, argument {i}", f)
    out = jax.jit(traced)(xs[0])
    for k, i in enumerate(idx):
        _close(out["vjp"][k], _dense(rule[i], args[i]), f"jit(vjp) of argument {i}", f)
    _close(out["vmap(grad)"][0], _dense(rule[idx[0]], x1), "jit(vmap(grad)) at the point", f)
    _close(out["vmap(grad)"][1], _dense(rule_vjp(x1)[idx[0]], x1), "jit(vmap(grad)) at a second point", f)
    assert out["float32"].dtype == jnp.float32, f"{f.__name__}: float32 gradient is {out['float32'].dtype}"
    if second:
        _close((out["Hu"] * v).sum(), (out["fd"] * u).sum(), "second order", f, 1e-5, 1e-6)
    else:
        with pytest.raises(Exception, match=f.__name__):  # noqa: PT011  # JAX wraps the host's error
            jax.grad(lambda x: (first(x) * u).sum())(xs[0]).block_until_ready()
    if forward:
        fres = cr.frule((cr.NoTangent(),) + tuple(ẋ if i == idx[0] else
                                                  (cr.ZeroTangent() if _is_diff(a) else cr.NoTangent())
                                                  for i, a in enumerate(args)), f, *args, **kw)
        if fres is not None:
            ẏ = np.tensordot(np.asarray(out["jacfwd"]), ẋ, axes=xs[0].ndim)
            _close(ẏ, _dense(fres[1], y_np), "jacfwd against the frule", f)
    return None if forward else "host"


SHARDS = 6     # the sweep in parts, so that parallel workers (pytest -n) share it


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_numpy_rule_with_a_jax_counterpart(jax_x64, shard):
    every = sorted((f for f in _functions() if f.__name__ not in EXCLUDED), key=lambda f: f.__name__)
    assert len(every) > 100, len(every)          # the registry was read
    fs = every[shard::SHARDS]
    names = {f.__name__ for f in fs}
    skipped, host, failed = {}, [], {}
    for f in fs:
        try:
            with np.errstate(all="ignore"):
                why = _check(f)
        except Exception as e:                               # noqa: BLE001  # all failures, then one assert
            failed[f.__name__] = f"{type(e).__name__}: {e}"[:300]
            continue
        if why == "host":
            host.append(f.__name__)
        elif why is not None:
            skipped[f.__name__] = why
    # a known bug that is fixed shows up (strict), an unknown one fails
    known = set(KNOWN_BUGS) & names
    assert set(failed) == known, ({k: v for k, v in failed.items() if k not in KNOWN_BUGS},
                                  sorted(known - set(failed)))
    # what the sweep could not check at its points is a table too, so that it cannot grow silently
    not_swept = set(NOT_SWEPT) & names
    assert set(skipped) == not_swept, ({k: skipped[k] for k in sorted(set(skipped) - not_swept)},
                                       sorted(not_swept - set(skipped)))
    assert host, "no function of this part ran on the host"


# functions the sweep's default points do not fit (found by running it): name -> reason
NOT_SWEPT: dict[str, str] = {
    **dict.fromkeys([
        "bincount", "block", "choose", "delete", "insert", "matvec", "meshgrid", "multi_dot", "polydiv",
        "polyfit", "resize", "roots", "select", "tensorinv", "tensorsolve", "unstack", "vecmat"],
        "rules added on 2026-11-28 whose arguments (integers, lists, shapes, 2-D operands) or outputs "
        "(tuples) the sweep's default points do not fit: the kit checks them in tests/rulesets/numpy/"
        "test_more.py and test_linalg_eig.py"),
    **dict.fromkeys([
        "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "logical_and",
        "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit",
        "isposinf", "isneginf", "iscomplex", "isreal", "iscomplexobj", "isrealobj", "isclose",
        "allclose", "array_equal", "array_equiv", "argmax", "argmin", "nanargmax", "nanargmin",
        "argwhere", "flatnonzero", "count_nonzero", "any", "all", "searchsorted", "shape",
        "ndim", "size", "result_type"],
        "a boolean, integer or shape output: nothing to differentiate"),
    **dict.fromkeys([
        "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift",
        "gcd", "lcm"],
        "integers only"),
    **dict.fromkeys([
        "argpartition", "partition", "digitize", "rollaxis", "indices", "unravel_index",
        "ravel_multi_index", "broadcast_shapes", "astype"],
        "integer, index or dtype arguments where the sweep puts floats"),
    **dict.fromkeys([
        "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"],
        "a list of arrays as the argument: test_jax_host.py checks them against jax.numpy's "
        "gradient"),
    **dict.fromkeys([
        "broadcast_arrays", "split", "array_split", "hsplit", "vsplit", "dsplit"],
        "a list of arrays as the output"),
    **dict.fromkeys([
        "fft", "ifft", "fftn", "ifftn", "rfft", "rfftn", "ihfft", "fft2", "ifft2", "rfft2"],
        "a complex output: test_jax_host.py checks fft, rfft, irfft, angle against jax.numpy's "
        "gradient"),
}


# host functions whose second derivative chainrules.ad cannot take on the host: the error names them
NO_SECOND_ORDER: dict[str, str] = {}

# bugs found by the sweep and not fixed: name -> cause (strict: a fix fails the sweep until removed)
KNOWN_BUGS = {
    "interp": "the sweep differentiates every argument, and interp's derivative in xp (the sample points) "
              "is not_implemented (documented, chainrules/rulesets/numpy/sequences.py): x and fp are "
              "checked against JAX in tests/rulesets/numpy/test_more.py",
    "cholesky": "through JAX (jax.numpy's cholesky, its frule transposed) the VJP is the symmetric "
                "cotangent, the rrule's is lower-triangular (NumPy reads the lower triangle): they "
                "agree on symmetric directions only; one convention is to be chosen",
}
