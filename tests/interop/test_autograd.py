"""to_autograd (chainrules.interop.autograd): autograd's grad, make_vjp and
make_jvp through chainrules' rules, against autograd's own derivatives of
autograd.numpy and finite differences; higher order in reverse mode."""

import functools

import numpy as np
import pytest

import chainrules as cr
from chainrules.interop import AutogradConfig, export, to_autograd
from chainrules.testing import test_adapter

from ._cases import COMPLEX, X, Z, no_rule, params, straight_through

pytestmark = pytest.mark.interop
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")
from autograd.differential_operators import make_jvp  # noqa: E402


@pytest.mark.parametrize("f, args, kw", params())
def test_adapter_on_autograd(f, args, kw):
    test_adapter(f, *args, engine="autograd", **kw)


OWN = [("sin", np.sin, anp.sin), ("log", np.log, anp.log), ("tanh", np.tanh, anp.tanh),
       ("sqrt", np.sqrt, anp.sqrt)]


@pytest.mark.parametrize("f, own", [pytest.param(f, o, id=n) for n, f, o in OWN])
def test_grad_and_jvp_match_autograd_own(f, own):
    w = to_autograd(f)
    np.testing.assert_allclose(autograd.grad(lambda v: anp.sum(w(v)))(X),
                               autograd.grad(lambda v: anp.sum(own(v)))(X), rtol=1e-12)
    np.testing.assert_allclose(autograd.elementwise_grad(lambda v: w(v) * v)(X),
                               autograd.elementwise_grad(lambda v: own(v) * v)(X), rtol=1e-12)
    np.testing.assert_allclose(make_jvp(w)(X)(np.ones(3))[1], make_jvp(own)(X)(np.ones(3))[1], rtol=1e-12)


def test_autograd_numpy_functions_mean_numpy_ones():
    np.testing.assert_allclose(autograd.grad(lambda v: anp.sum(to_autograd(anp.sin)(v)))(X), np.cos(X))
    g = autograd.grad(lambda a: anp.sum(to_autograd(np.sum)(a, axis=0) ** 2))(np.ones((2, 3)))
    np.testing.assert_allclose(g, 4 * np.ones((2, 3)))


def test_float32_stays_float32():
    x = X.astype(np.float32)
    assert to_autograd(np.sin)(x).dtype == np.float32
    assert autograd.grad(lambda v: anp.sum(to_autograd(np.sin)(v)))(x).dtype == np.float32


@pytest.mark.parametrize("f, args", [pytest.param(f, a, id=n) for n, f, a in COMPLEX])
def test_complex_matches_autograd_own(f, args):
    own = getattr(anp, f.__name__)
    loss = lambda g: (lambda v: anp.sum(anp.real(g(v) * anp.conj(g(v)) + g(v))))
    np.testing.assert_allclose(autograd.grad(loss(to_autograd(f)))(args[0]),
                               autograd.grad(loss(own))(args[0]), rtol=1e-12)
    test_adapter(f, *args, engine="autograd")


def test_autograd_uses_our_rule_not_its_own():
    with straight_through() as hard_round:
        # autograd's own np.round has a zero derivative; the registered rule says 1
        with pytest.warns(UserWarning, match="independent of input"):
            np.testing.assert_array_equal(autograd.grad(lambda v: anp.sum(anp.round(v)))(X), np.zeros(3))
        np.testing.assert_array_equal(autograd.grad(lambda v: anp.sum(to_autograd(hard_round)(v)))(X),
                                      np.ones(3))
        np.testing.assert_array_equal(make_jvp(to_autograd(hard_round))(X)(2 * X)[1], 2 * X)
        # at second order too: g(v) = v + round(v) has derivative 2 by the rule
        g = autograd.grad(lambda u: anp.sum(to_autograd(hard_round)(u) * u))
        np.testing.assert_allclose(autograd.jacobian(g)(X), 2 * np.eye(3))


@pytest.mark.parametrize("f, own", [pytest.param(f, o, id=n) for n, f, o in OWN])
def test_higher_order_in_reverse_mode_matches_autograd_own(f, own):
    w = to_autograd(f)
    d2 = lambda fn: autograd.grad(lambda v: anp.sum(autograd.elementwise_grad(fn)(v) * v))(X)
    np.testing.assert_allclose(d2(w), d2(own), rtol=1e-10)
    d3 = lambda fn: autograd.grad(lambda u: anp.sum(autograd.grad(
        lambda v: anp.sum(autograd.elementwise_grad(fn)(v)))(u)))(X)
    np.testing.assert_allclose(d3(w), d3(own), rtol=1e-10)
    H = lambda fn: autograd.hessian(lambda v: anp.sum(fn(v) * v))(X)
    np.testing.assert_allclose(H(w), H(own), rtol=1e-10, atol=1e-14)


def test_forward_over_reverse():
    w = to_autograd(np.sin)
    hvp = make_jvp(autograd.grad(lambda v: anp.sum(w(v))))(X)(np.ones(3))[1]
    np.testing.assert_allclose(hvp, -np.sin(X), rtol=1e-12)


def test_hessians_through_matmul_and_sum_with_axis():
    A = np.array([[0.3, 0.5, 0.9], [0.2, 0.4, 0.8]])
    H = lambda mm: autograd.hessian(lambda a: anp.sum(mm(a, a.T) ** 2))(A)
    np.testing.assert_allclose(H(to_autograd(np.matmul)), H(anp.matmul), rtol=1e-10)
    H = lambda sm: autograd.hessian(lambda a: anp.sum(sm(a * a, axis=0) ** 2))(A)
    np.testing.assert_allclose(H(to_autograd(np.sum)), H(anp.sum), rtol=1e-10)


def test_unsupported_second_orders_raise_naming_the_function():
    w = to_autograd(np.sin)
    with pytest.raises(TypeError, match=r"to_autograd\(numpy.sin\): forward mode over forward"):
        make_jvp(lambda u: make_jvp(w)(u)(np.ones(3))[1])(X)(np.ones(3))
    with pytest.raises(TypeError, match=r"to_autograd\(numpy.sin\): second-order derivatives of complex"):
        autograd.grad(lambda v: anp.sum(anp.real(autograd.grad(lambda u: anp.sum(anp.real(w(u))))(v))))(Z)


def test_higher_order_rule_calls_back_into_autograd():
    f = lambda a, b: a * anp.sin(b)
    red = to_autograd(functools.reduce)
    # reduce's rule calls autograd (AutogradConfig) on f
    y, pb = cr.rrule(AutogradConfig(), functools.reduce, f, [X, X, X])
    np.testing.assert_allclose(y, X * np.sin(X) ** 2)
    np.testing.assert_allclose(pb(np.ones(3))[2][1], X * np.sin(X) * np.cos(X))
    np.testing.assert_allclose(red(f, [X, X, X]), X * np.sin(X) ** 2)
    # the list's elements are differentiated by autograd through the rule
    g = autograd.grad(lambda v: anp.sum(red(f, [v, X, v])))(X)
    # (v·sin X)·sin v: sin X·sin v + v·sin X·cos v
    np.testing.assert_allclose(g, np.sin(X) ** 2 + X * np.sin(X) * np.cos(X))
    _, ẏ = cr.frule_via_ad(AutogradConfig(), (cr.NoTangent(), cr.ZeroTangent(), np.ones(3)), f, X, X)
    np.testing.assert_allclose(ẏ, X * np.cos(X))


def test_no_rule_raises_naming_f_and_the_types():
    with pytest.raises(TypeError, match=r"to_autograd\(.*no_rule\).*no rrule for .*no_rule.*numpy.ndarray"):
        to_autograd(no_rule)(X)


def test_export_many_functions():
    fs = export("autograd", {"s": np.sin, "c": np.cos})
    g = autograd.grad(lambda v: anp.sum(fs["s"](v) * fs["c"](v)))(X)
    np.testing.assert_allclose(g, np.cos(2 * X))
