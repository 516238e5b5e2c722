"""test_frule / test_rrule with backend=: rules registered here on
array-api-strict, PyTorch, JAX and Dask functions (written with the namespace
of their argument) pass, and wrong ones fail with a message that says what is
wrong: the derivative, the output library, the dtype, a Dask array computed
or returned computed, a missing rule or function."""

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules import AbstractZero, NoTangent, unthunk
from chainrules._xp import namespace
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

pytestmark = pytest.mark.interop

X0 = np.array([0.3, -0.7, 1.1])
LIBRARIES = ["array_api_strict", "torch", "jax.numpy", "dask.array"]


def _library(name, request):
    """(namespace, array type) of a library; JAX in 64-bit mode for the test."""
    if name == "jax.numpy":
        request.getfixturevalue("jax_x64")
        jnp = pytest.importorskip("jax.numpy")
        return jnp, pytest.importorskip("jax").Array
    xp = pytest.importorskip(name)
    if name == "torch":
        pytest.importorskip("array_api_compat")
        return xp, xp.Tensor
    if name == "dask.array":
        pytest.importorskip("array_api_compat")
        return xp, xp.Array
    return xp, type(xp.asarray(0.0))


def _register(fn, array_type, deriv, out=lambda v: v, frule_out=None):
    """rrule and frule of the sine-like `fn` on arrays of `array_type` (None: any): Ω = sin(x),
    ∂Ω/∂x = deriv(xp, x), each tangent passed through `out` (to make it wrong)."""
    frule_out = out if frule_out is None else frule_out

    def sin_rrule(x):
        xp = namespace(x)

        def sin_pullback(ȳ):
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ȳ
            d = deriv(xp, x)
            if xp.isdtype(d.dtype, "complex floating"):
                d = xp.conj(d)                       # holomorphic: x̄ = conj(f'(x))·ȳ
            return NoTangent(), out(ȳ * d)
        return xp.sin(x), sin_pullback

    def sin_frule(dargs, x):
        xp = namespace(x)
        dx = unthunk(dargs[1])
        if isinstance(dx, AbstractZero):
            return xp.sin(x), dx
        return xp.sin(x), frule_out(dx * deriv(xp, x))

    with warnings.catch_warnings():
        # the library's own rule for fn (when one is registered) is replaced for this test only
        warnings.simplefilter("ignore", cr.RuleOverwriteWarning)
        types = () if array_type is None else (array_type,)
        cr.register_rrule(fn, *types)(sin_rrule)
        cr.register_frule(fn, *types)(sin_frule)


def _cos(xp, x):
    return xp.cos(x)


# ----- right rules pass ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", LIBRARIES)
def test_right_rule_passes(name, dtype, registry, request):
    xp, array_type = _library(name, request)
    _register(xp.sin, array_type, _cos)
    for x in (X0, X0.reshape(3, 1) * np.ones((3, 2)), np.array(0.4)):
        x = np.asarray(x * (1 + 0.5j) if np.dtype(dtype).kind == "c" else x, dtype=dtype)
        test_rrule(np.sin, x, backend=xp)
        test_frule(np.sin, x, backend=xp)


def test_backend_by_name_and_explicit_backend_f(registry, request):
    xp, array_type = _library("torch", request)

    def my_torch_sin(x):
        return xp.sin(x)

    _register(my_torch_sin, array_type, _cos)
    test_rrule(np.sin, X0, backend="torch", backend_f=my_torch_sin)
    test_frule(np.sin, X0, backend="torch", backend_f=my_torch_sin)


def test_numpy_names_find_their_array_api_spelling(registry, request):
    xps, array_type = _library("array_api_strict", request)

    def asin_rrule(x):
        xp = namespace(x)
        return xp.asin(x), lambda ȳ: (NoTangent(), unthunk(ȳ) / xp.sqrt(1 - x * x))

    cr.register_rrule(xps.asin, array_type)(asin_rrule)
    test_rrule(np.arcsin, X0 / 2, backend=xps)        # np.arcsin -> array_api_strict.asin


def test_reduction_to_a_0d_array(registry, request):
    xp, array_type = _library("torch", request)

    def sum_rrule(x):
        ns = namespace(x)

        def sum_pullback(ȳ):
            ȳ = unthunk(ȳ)
            if isinstance(ȳ, AbstractZero):
                return NoTangent(), ȳ
            return NoTangent(), ȳ * ns.ones_like(x)
        return ns.sum(x), sum_pullback

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cr.RuleOverwriteWarning)
        cr.register_rrule(xp.sum, array_type)(sum_rrule)
    test_rrule(np.sum, X0, backend=xp)                # Ω: np.float64 on NumPy, a 0-d tensor on torch


def test_non_differentiable_argument_needs_no_tangent(registry, request):
    xps, array_type = _library("array_api_strict", request)

    def mul_rrule(x, y):
        def mul_pullback(ȳ):
            ȳ = unthunk(ȳ)
            return NoTangent(), ȳ * y, ȳ * x          # a cotangent for y although y is marked fixed
        return x * y, mul_pullback

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cr.RuleOverwriteWarning)
        cr.register_rrule(xps.multiply, array_type, array_type)(mul_rrule)
    test_rrule(np.multiply, X0, X0 + 1, backend=xps)
    with pytest.raises(AssertionError, match=r"argument 2 .* is non-differentiable: the pullback must "
                                             r"return NoTangent\(\) for it, got array_api_strict.Array"):
        test_rrule(np.multiply, X0, PrimalAndTangent(X0 + 1, NoTangent()), backend=xps)


# ----- wrong rules fail, saying what is wrong ----------------------------------------

@pytest.mark.parametrize("name", LIBRARIES)
def test_wrong_derivative_fails(name, registry, request):
    xp, array_type = _library(name, request)
    _register(xp.sin, array_type, lambda ns, x: ns.sin(x))
    with pytest.raises(AssertionError, match=rf"test_rrule on {name}: .*sin at numpy.sin.*\n- cotangent of "
                                             r"argument 1 .*\(vs finite differences Jᵀȳ\): the value on "
                                             rf"{name} \(got\) differs from the expected value"):
        test_rrule(np.sin, X0, backend=xp)
    with pytest.raises(AssertionError, match=r"ΔΩ of the frule \(vs the finite-difference jvp\): the value "
                                             r"on .* \(got\) differs"):
        test_frule(np.sin, X0, backend=xp)


def test_numpy_array_back_for_a_torch_input_fails(registry, request):
    xp, array_type = _library("torch", request)
    _register(xp.sin, array_type, _cos, out=lambda v: v.numpy())
    with pytest.raises(AssertionError, match=r"cotangent of argument 1 .*: expected a torch array, as the "
                                             r"arguments are \(output type = input type\), got "
                                             r"numpy.ndarray\[float64, shape=\(3,\)\] \(nothing may be "
                                             r"converted to NumPy"):
        test_rrule(np.sin, X0, backend=xp)
    with pytest.raises(AssertionError, match=r"ΔΩ of the frule .*: expected a torch array"):
        test_frule(np.sin, X0, backend=xp)


def test_wrong_output_library_fails(registry, request):
    xps, array_type = _library("array_api_strict", request)
    torch = pytest.importorskip("torch")
    _register(xps.sin, array_type, _cos, out=lambda v: torch.asarray(np.asarray(v)))
    with pytest.raises(AssertionError, match=r"expected a array_api_strict array, .* got torch.Tensor"):
        test_rrule(np.sin, X0, backend=xps)


def test_wrong_dtype_fails(registry, request):
    xp, array_type = _library("torch", request)
    _register(xp.sin, array_type, _cos, out=lambda v: v.to(xp.float32))
    with pytest.raises(AssertionError, match=r"cotangent of argument 1 .*: dtype float32 differs from the "
                                             r"primal's dtype float64"):
        test_rrule(np.sin, X0, backend=xp)


def test_computed_dask_result_fails(registry, request):
    da, array_type = _library("dask.array", request)
    _register(da.sin, array_type, _cos, out=lambda v: v.compute())
    with pytest.raises(AssertionError, match=r"(?s)expected a dask array, .* got numpy.ndarray.*a Dask input "
                                             r"must give a lazy Dask result.*a Dask array was computed inside "
                                             r"the pullback"):
        test_rrule(np.sin, X0, backend=da)
    with pytest.raises(AssertionError, match=r"a Dask array was computed inside the frule"):
        test_frule(np.sin, X0, backend=da)


def test_dask_rule_computing_inside_fails_even_when_it_returns_dask(registry, request):
    da, array_type = _library("dask.array", request)
    _register(da.sin, array_type, lambda ns, x: da.from_array(np.cos(np.asarray(x))))
    with pytest.raises(AssertionError, match=r"a Dask array was computed inside the pullback: a rule must "
                                             r"keep Dask arrays lazy"):
        test_rrule(np.sin, X0, backend=da)


def test_missing_rule_and_missing_function(registry, request):
    xps, _ = _library("array_api_strict", request)

    def no_rule_sin(x):
        return xps.sin(x)

    with pytest.raises(AssertionError, match=r"there is no rrule: cr.rrule returned None for argument types "
                                             r"\(array_api_strict.Array\[.*float64, shape=\(3,\)\]\)"):
        test_rrule(np.sin, X0, backend=xps, backend_f=no_rule_sin)
    with pytest.raises(AssertionError, match="there is no frule"):
        test_frule(np.sin, X0, backend=xps, backend_f=no_rule_sin)

    def not_in_any_namespace(x):
        return x

    with pytest.raises(TypeError, match=r"the namespace array_api_strict has no function "
                                        r"'not_in_any_namespace'.*pass backend_f="):
        test_rrule(not_in_any_namespace, X0, backend=xps)


# ----- order=2 through the backend machinery --------------------------------------------

def test_order_two_on_the_numpy_backend(registry):
    test_rrule(np.sin, X0, backend="numpy", order=2)
    test_frule(np.sin, X0, backend="numpy", order=2)

    def mysin(x):
        return np.sin(x)

    cos_x0 = np.cos(X0)
    _register(mysin, None, lambda ns, x: cos_x0)      # right at X0 only
    test_rrule(np.sin, X0, backend="numpy", backend_f=mysin)
    with pytest.raises(AssertionError, match=r"(?s)test_rrule on numpy: .*differs from the mixed second derivative"):
        test_rrule(np.sin, X0, backend="numpy", backend_f=mysin, order=2)
