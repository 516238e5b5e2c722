"""The conversions between chainrules' tangents and each engine's
(chainrules/interop/_common.py): multi-output functions (Tangent[tuple] in
and out, thunks, zeros for unused outputs), symbolic zeros and integer
arguments, NotImplementedTangent, lists of arrays."""

import numpy as np
import pytest

import chainrules as cr
from chainrules.interop import to_autograd, to_jax, to_torch

from ._cases import X

pytestmark = pytest.mark.interop


def _xp(x):
    import array_api_compat
    return array_api_compat.array_namespace(x)


def sincos(x):
    return _xp(x).sin(x), _xp(x).cos(x)


def half_done(x, y):
    return x * y


@pytest.fixture
def rules(registry):
    @cr.register_frule(sincos)
    def _frule(tangents, x):
        s, c = sincos(x)
        ẋ = tangents[1]
        return (s, c), cr.Tangent[tuple](c * ẋ, cr.Thunk(lambda: -s * ẋ))

    @cr.register_rrule(sincos)
    def _rrule(x):
        s, c = sincos(x)

        def pullback(ȳ):
            a, b = cr.unthunk(ȳ[0]), cr.unthunk(ȳ[1])
            return cr.NoTangent(), cr.Thunk(lambda: a * c - b * s)
        return (s, c), pullback

    @cr.register_rrule(half_done)
    def _rrule2(x, y):
        return x * y, lambda ȳ: (cr.NoTangent(), ȳ * y, cr.not_implemented("∂y of half_done"))


def test_jax_multi_output_thunks_and_zeros(rules, jax_x64):
    jax = jax_x64
    jnp = jax.numpy
    x = jnp.asarray(X)
    w = to_jax(sincos)
    np.testing.assert_allclose(jax.grad(lambda v: w(v)[0].sum())(x), np.cos(X))   # cos output unused
    np.testing.assert_allclose(jax.grad(lambda v: (w(v)[0] + 2 * w(v)[1]).sum())(x),
                               np.cos(X) - 2 * np.sin(X))
    (s, c), (ṡ, ċ) = jax.jvp(w, (x,), (jnp.ones(3),))
    np.testing.assert_allclose(ċ, -np.sin(X))


def test_jax_symbolic_zeros_and_integer_arguments(jax_x64):
    jax = jax_x64
    jnp = jax.numpy
    a, b = jnp.asarray(X), jnp.asarray(2 * X)
    # the tangent of b is a symbolic zero: ZeroTangent() for the frule
    np.testing.assert_allclose(jax.grad(lambda u: to_jax(np.multiply)(u, b).sum())(a), 2 * X)
    # an integer array has no tangent (float0): NoTangent() for the frule
    k = jnp.arange(3)
    np.testing.assert_allclose(jax.grad(lambda u: to_jax(np.multiply)(u, k).sum())(a), np.arange(3.0))
    np.testing.assert_allclose(jax.grad(lambda u: to_jax(np.stack)([u, 2 * u]).sum())(a), 3 * np.ones(3))


def test_jax_not_implemented_tangent_raises(rules, jax_x64):
    jax = jax_x64
    x = jax.numpy.asarray(X)
    np.testing.assert_allclose(jax.grad(lambda u: to_jax(half_done)(u, x).sum())(x), X)
    with pytest.raises(cr.NotImplementedTangentError, match=r"to_jax\(.*half_done\).*∂y of half_done"):
        jax.grad(lambda u: to_jax(half_done)(x, u).sum())(x)


def test_torch_multi_output_and_not_implemented(rules):
    torch = pytest.importorskip("torch")
    x = torch.tensor(X, requires_grad=True)
    w = to_torch(sincos)
    g, = torch.autograd.grad(w(x)[0].sum(), x)
    torch.testing.assert_close(g, torch.cos(x.detach()))
    s, c = w(x)
    g, = torch.autograd.grad((s + 2 * c).sum(), x)
    torch.testing.assert_close(g, torch.cos(x.detach()) - 2 * torch.sin(x.detach()))
    _, (ṡ, ċ) = torch.func.jvp(w, (x.detach(),), (torch.ones(3, dtype=torch.float64),))
    torch.testing.assert_close(ċ, -torch.sin(x.detach()))
    with pytest.raises(cr.NotImplementedTangentError, match="∂y of half_done"):
        torch.autograd.grad(to_torch(half_done)(x.detach(), x).sum(), x)
    k = torch.arange(3)
    g, = torch.autograd.grad(to_torch(np.multiply)(x, k).sum(), x)
    torch.testing.assert_close(g, k.double())


def test_autograd_multi_output_and_not_implemented(rules):
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    w = to_autograd(sincos)
    np.testing.assert_allclose(autograd.grad(lambda v: anp.sum(w(v)[0] + 2 * w(v)[1]))(X),
                               np.cos(X) - 2 * np.sin(X))
    with pytest.raises(cr.NotImplementedTangentError, match="∂y of half_done"):
        autograd.grad(lambda u: anp.sum(to_autograd(half_done)(X, u)))(X)


def test_arrays_of_another_library_are_refused_naming_the_argument(jax_x64):
    torch = pytest.importorskip("torch")
    jnp = jax_x64.numpy
    with pytest.raises(TypeError, match=r"to_jax\(numpy.sin\): argument 0 is a PyTorch array"):
        to_jax(np.sin)(torch.ones(3))
    with pytest.raises(TypeError, match=r"to_torch\(numpy.add\): argument 1 is a JAX array"):
        to_torch(np.add)(torch.ones(3), jnp.ones(3))
    with pytest.raises(TypeError, match=r"to_torch\(numpy.stack\): argument 0 is a NumPy array"):
        to_torch(np.stack)([torch.ones(3), np.ones(3)])
    with pytest.raises(TypeError, match=r"to_autograd\(numpy.sin\): argument 0 is a JAX array"):
        to_autograd(np.sin)(jnp.ones(3))
