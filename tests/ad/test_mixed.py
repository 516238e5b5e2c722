"""chainrules.ad.mixed: jacobian (either mode), hvp and hessian by
forward-over-reverse, checked against finite differences of the gradient."""

import math as pymath

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import math as admath
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
RNG = np.random.default_rng(0)
W1 = RNG.normal(size=(4, 3))
W2 = RNG.normal(size=(2, 4))
A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


def fd_hessian(f, x):
    """The Jacobian of the (reverse-mode) gradient by finite differences."""
    return fd_jacobian(FDM, lambda z: ad.gradient(f, z), x)[0].reshape(np.shape(x) * 2)


ARRAY_FUNCTIONS = {
    "cubic": lambda x: np.sum(x ** 3),
    "sin_x": lambda x: np.sum(np.sin(x) * x),
    "quadratic_form": lambda x: x @ A @ x,
    "dot": lambda x: np.dot(x, np.dot(A, x)) / 2 + np.mean(np.tanh(x)),
    "indexing": lambda x: x[0] * x[2] + np.sum(x[1:] ** 2) + np.exp(x[1]),
    "network": lambda x: np.mean(np.tanh(W2 @ np.tanh(W1 @ x)) ** 2),
    "softplus": lambda x: np.sum(np.log1p(np.exp(x))) + x[0] * x[1],
    "reshape": lambda x: np.sum(np.reshape(np.outer(x, x), (9,)) * np.arange(9.0)),
    "piecewise": lambda x: np.max(x * x) * np.sort(x)[0] + np.sum(np.clip(x, -0.5, 0.5) ** 2)
    + np.sum(np.where(x > 0, x, 0.1 * x) ** 3) + np.median(x) ** 2,
    "fft": lambda x: np.sum(np.abs(np.fft.fft(x * x)) ** 2),
}


@pytest.mark.parametrize("name", sorted(ARRAY_FUNCTIONS))
def test_hessian_against_finite_differences(name):
    f = ARRAY_FUNCTIONS[name]
    x = np.array([0.3, -0.8, 1.1])
    h = ad.hessian(f, x)
    assert h.shape == (3, 3)
    test_approx(h, fd_hessian(f, x), rtol=1e-6, atol=1e-6)
    test_approx(h, h.T, rtol=1e-12, atol=1e-12)


def test_hessian_of_a_quadratic_form_is_exact():
    x = np.array([1.0, 2.0, 3.0])
    test_approx(ad.hessian(lambda x: x @ A @ x, x), 2 * A, rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("f, h", [
    (lambda x: admath.sin(x), lambda x: -pymath.sin(x)),
    (lambda x: admath.asin(0.2 + admath.sin(x)), None),
    (lambda x: x ** 4 + 3 * x ** 2, lambda x: 12 * x ** 2 + 6),
    (lambda x: admath.exp(x) / x, lambda x: pymath.exp(x) * (1 / x - 2 / x ** 2 + 2 / x ** 3)),
    (lambda x: np.sin(x) * x, lambda x: 2 * pymath.cos(x) - x * pymath.sin(x)),
])
def test_hessian_of_scalar_functions(f, h):
    x = 0.7
    expected = h(x) if h is not None else FDM(lambda z: ad.derivative(f, z), x)
    test_approx(ad.hessian(f, x), expected, rtol=1e-8, atol=1e-8)


def test_hvp_is_the_hessian_times_v():
    f = ARRAY_FUNCTIONS["network"]
    x, v = np.array([0.3, -0.8, 1.1]), np.array([1.0, 2.0, -1.0])
    test_approx(ad.hvp(f, x, v), ad.hessian(f, x) @ v, rtol=1e-12, atol=1e-12)


def test_hvp_of_structured_inputs():
    def f(p):
        return p[0] ** 2 * p[1] + admath.sin(p[1])
    hv = ad.hvp(f, (1.0, 2.0), (1.0, 0.0))
    test_approx(hv, (2 * 2.0, 2 * 1.0))


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_modes_against_finite_differences(mode):
    x = np.array([0.3, -0.8, 1.1])

    def f(x):
        return np.tanh(W1 @ x) * np.sum(x)

    jac = ad.jacobian(f, x, mode=mode)
    assert jac.shape == (4, 3)
    test_approx(jac, fd_jacobian(FDM, f, x)[0], rtol=1e-8, atol=1e-8)


def test_jacobian_of_a_matrix_input():
    x = np.arange(6.0).reshape(2, 3) / 10
    jf = ad.jacobian(lambda x: np.sin(x).T, x, mode="forward")
    jr = ad.jacobian(lambda x: np.sin(x).T, x, mode="reverse")
    assert jf.shape == jr.shape == (3, 2, 2, 3)
    test_approx(jf, jr, rtol=1e-15, atol=1e-15)


def test_jacobian_bad_input():
    with pytest.raises(ValueError, match="mode must be 'forward' or 'reverse'"):
        ad.jacobian(lambda x: x, 1.0, mode="sideways")
    with pytest.raises(TypeError, match="number or an array"):
        ad.jacobian(lambda x: (x, x), 1.0, mode="reverse")
    with pytest.raises(TypeError, match="number or an array"):
        ad.jacobian(lambda x: (x, x), 1.0, mode="forward")
    with pytest.raises(TypeError, match="x must be a number or a float/complex array"):
        ad.jacobian(lambda x: x, "a")


ARRAY_ZOO = {
    "mean": lambda x: np.sum(np.mean(x, axis=1) ** 2),
    "var_std": lambda x: np.var(x) + np.std(x, axis=0).sum(),
    "max": lambda x: np.max(x, axis=0).sum() + x.min(),
    "cumprod": lambda x: np.cumprod(x[0] + 2).sum(),
    "transpose": lambda x: np.sum(x.T @ x),
    "where": lambda x: np.sum(np.where(x > 0, x, 0.1 * x) ** 2),
    "concatenate": lambda x: np.sum(np.concatenate([x, x ** 2], axis=1)),
    "fancy_index": lambda x: np.sum(x[[0, 2], 1:3] ** 3),
    "einsum": lambda x: np.einsum("ij,j->", x, np.arange(4.0)),
    "solve": lambda x: np.sum(np.linalg.solve(A, x[:, :3])),
    "norm": lambda x: np.linalg.norm(x),
    "sort": lambda x: np.sort(x, axis=1)[:, -1].sum(),
    "prod": lambda x: np.prod(x[0]),
    "iterate": lambda x: sum(np.sum(r ** 2) for r in x),
}


@pytest.mark.parametrize("name", sorted(ARRAY_ZOO))
def test_array_code_in_both_modes_against_finite_differences(name):
    from chainrules.finite_differences import grad as fd_grad
    f = ARRAY_ZOO[name]
    x = np.random.default_rng(1).normal(size=(3, 4))
    expected = fd_grad(FDM, f, x)[0]
    test_approx(ad.gradient(f, x), expected, rtol=1e-7, atol=1e-7)
    test_approx(ad.jacobian(f, x, mode="forward"), expected, rtol=1e-7, atol=1e-7)


def test_hessian_through_a_rule_that_cannot_take_tracked_values_says_so(opaque):
    x = np.array([2.0, 0.5, 0.1, 3.0])
    test_approx(ad.gradient(lambda a: np.sum(opaque(a) ** 2), x), 8.0 * x)     # first order: fine
    with pytest.raises(ad.NoRuleError, match=r"nested differentiation.*opaque"):
        ad.hessian(lambda a: np.sum(opaque(a) ** 2), x)


def _gram_cholesky(upper):
    def f(a):
        m = a.reshape(3, 3)
        return np.sum(np.sin(np.linalg.cholesky(m @ m.T + np.eye(3), upper=upper)) * A)
    return f


@pytest.mark.parametrize("upper", [False, True])
def test_hessian_through_cholesky(upper):
    f = _gram_cholesky(upper)
    x = np.array([2.0, 0.5, 0.1, -0.3, 1.5, 0.2, 0.4, -0.6, 1.2])
    H = ad.hessian(f, x)
    test_approx(H, fd_hessian(f, x), rtol=1e-7, atol=1e-8)
    test_approx(H, H.T, rtol=1e-10, atol=1e-12)
    v = np.cos(np.arange(9.0))
    test_approx(ad.hvp(f, x, v), H @ v, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("idx", [slice(0, 2), (slice(None, None, -2),), [0, 0, 2], np.array([True, False, True, True])],
                         ids=["slice", "reversed", "repeated", "mask"])
def test_mixed_partials_through_indexing_a_plain_array(idx):
    """∂²/∂w∂x of sum(x[idx] · w²): the inner gradient indexes an array it tracks
    whose cotangent the outer differentiation tracks (the compiled getitem
    pullback hands such a cotangent to the differentiable scatter)."""
    from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
    x0 = np.linspace(0.1, 1.0, 4)
    n = len(x0[idx])
    w0 = np.linspace(1.5, 2.5, n)

    def grad_x(w):
        return ad.gradient(lambda x: np.sum(x[idx] * w ** 2), x0)

    want = fd_jacobian(central_fdm(5, 1), grad_x, w0)[0]
    np.testing.assert_allclose(ad.jacobian(grad_x, w0, mode="forward"), want, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ad.jacobian(grad_x, w0, mode="reverse"), want, rtol=1e-8, atol=1e-9)
