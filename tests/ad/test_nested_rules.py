"""Second derivatives through prod, cumprod, var, std, linalg.norm, solve,
inv, det, slogdet, the products (matmul, einsum, dot, outer, kron,
cross, inner, vdot) and linear functions (cumsum, diff, trace, diagonal,
diag, repeat, fft) and permutations and gathers (sort, partition,
take_along_axis), and third derivatives, each checked against finite
differences of the gradient: every one by its own rule, differentiated as
it is by chainrules.ad."""

import numpy as np
import pytest

from chainrules import ad
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
RNG = np.random.default_rng(3)
A = np.array([[3.0, 1.0, 0.5], [1.0, 4.0, 1.0], [0.2, 1.0, 5.0]])
B = RNG.normal(size=(3, 2))
X0 = np.array([0.7, -1.3, 2.1])


def fd_hessian(f, x):
    return fd_jacobian(FDM, lambda z: ad.gradient(f, z), x)[0].reshape(np.shape(x) * 2)


LOSSES = {
    "prod": lambda x: np.prod(x),
    "prod_axis": lambda x: np.sum(np.prod(np.outer(x, x[::-1]) + 1.0, axis=0) ** 2),
    "prod_keepdims": lambda x: np.sum(np.prod(np.reshape(x, (1, 3)), axis=-1, keepdims=True) * x),
    "cumprod": lambda x: np.sum(np.cumprod(x)),
    "cumprod_axis": lambda x: np.sum(np.cumprod(np.outer(x, x) + 2.0, axis=1) * A),
    "var": lambda x: np.var(x),
    "var_ddof": lambda x: np.var(np.sin(x), ddof=1) + np.var(np.outer(x, x), axis=0)[1],
    "std": lambda x: np.std(x * x),
    "std_axis_keepdims": lambda x: np.sum(np.std(np.outer(x, x), axis=1, keepdims=True)),
    "norm": lambda x: np.linalg.norm(x),
    "norm_fro_axis": lambda x: np.linalg.norm(np.outer(x, x) + A) + np.sum(np.linalg.norm(np.outer(x, x), axis=0)),
    "solve_b": lambda x: x @ np.linalg.solve(A, x),
    "solve_a": lambda x: np.sum(np.linalg.solve(A + np.diag(x), B) ** 2),
    "solve_both": lambda x: np.sin(x) @ np.linalg.solve(A + np.outer(x, x), x),
    "inv": lambda x: np.sum(np.linalg.inv(A + np.diag(x)) * A),
    "det": lambda x: np.linalg.det(A + np.diag(x)),
    "slogdet": lambda x: np.linalg.slogdet(A + np.diag(x * x))[1],
    "slogdet_neg": lambda x: np.linalg.slogdet(-A + np.diag(x))[1] * x[0],
    "matmul": lambda x: np.sum(np.tanh(A @ x) @ (B @ B.T) * x),
    "einsum": lambda x: np.einsum("i,ij,j->", x, A, np.sin(x)),
    "outer_dot": lambda x: np.sum(np.outer(x, x) * A) + np.dot(x, np.dot(A, x)),
    "einsum_diagonal": lambda x: np.sum(np.einsum("ii->i", np.outer(x, np.sin(x))) ** 2),
    "inner_vdot": lambda x: np.inner(x, np.tanh(x)) * np.vdot(np.cos(x), x),
    "kron": lambda x: np.sum(np.kron(x, np.sin(x)) * np.kron(A[0], x)),
    "cross": lambda x: np.sum(np.cross(x, np.cross(np.exp(x), A[1])) ** 2),
    "cumsum_diff": lambda x: np.sum(np.cumsum(np.outer(x, x), axis=1) * A) + np.sum(np.diff(x ** 3, n=2) ** 2),
    "trace_offset": lambda x: np.trace(np.outer(x, np.sin(x)), offset=1) * np.trace(np.outer(x, x)[None] * A,
                                                                                 axis1=1, axis2=2)[0],
    "diagonal_3d": lambda x: np.sum(np.diagonal(np.einsum("i,j,k->ijk", x, np.sin(x), x), 1, 0, 2) ** 2),
    "diag_repeat": lambda x: np.sum(np.diag(np.repeat(x, [2, 0, 1])) @ np.repeat(np.sin(x), 1)[[0, 0, 1]]),
    "fft": lambda x: np.sum(np.abs(np.fft.fft(np.sin(x) * x)) ** 2) + np.sum(np.fft.irfft(np.fft.rfft(x ** 3), 4) ** 2),
    "take_along_partition": lambda x: np.sum(np.take_along_axis(np.sin(x) * x, np.array([2, 0, 2, 1]), 0) ** 3) +
    np.sum(np.partition(x ** 3, 1) * A[0]) + np.sum(np.sort(np.cos(x)) * A[1]),
    "complex_products": lambda x: np.real(np.vdot(x + 1j * np.sin(x), np.einsum("ij,j->i", A + 1j, x)) *
                                          np.sum(np.kron(1j * x, np.cross(x, A[2] + 0.5j)))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_hessian_forward_over_reverse(name):
    f = LOSSES[name]
    test_approx(ad.hessian(f, X0), fd_hessian(f, X0), msg=name, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_hessian_reverse_over_reverse(name):
    f = LOSSES[name]
    H = ad.jacobian(lambda z: ad.gradient(f, z), X0, mode="reverse")
    test_approx(H, fd_hessian(f, X0), msg=name, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_second_derivative_forward_over_forward(name):
    f = LOSSES[name]
    v = np.array([0.3, -0.5, 0.8])
    line = lambda t: f(X0 + t * v)                      # noqa: E731
    d2 = ad.derivative(lambda t: ad.derivative(line, t), 0.0)
    test_approx(d2, v @ fd_hessian(f, X0) @ v, msg=name, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["prod", "solve_both", "var", "einsum_diagonal", "inner_vdot", "kron", "cross",
                                  "complex_products", "cumsum_diff", "trace_offset", "diagonal_3d", "diag_repeat", "fft", "take_along_partition"])
def test_third_derivative(name):
    """d³/dt³ of f along a line: forward over forward over reverse."""
    v = np.array([0.3, -0.5, 0.8])
    f = LOSSES[name]
    line = lambda t: f(X0 + t * v)                      # noqa: E731
    d3 = ad.derivative(lambda s: ad.hvp(lambda t: line(t), s, 1.0), 0.0)
    fd3 = FDM(lambda s: ad.hvp(lambda t: line(t), s, 1.0), 0.0)
    test_approx(d3, fd3, rtol=1e-5, atol=1e-7)


def test_complex_prod_and_var():
    def f(x):
        z = x[:2] + 1j * x[2:]
        return np.real(np.prod(z) * np.conj(z[0])) + np.var(z)
    x0 = np.array([0.5, -0.3, 0.2, 1.0])
    test_approx(ad.hessian(f, x0), fd_hessian(f, x0), rtol=1e-6, atol=1e-8)


def test_unsupported_arguments_decline_and_report():
    # a tuple of axes: the rule, differentiable itself, gives the answer (∂²(x0·x1·x2)/∂xi∂xj = xk)
    H = ad.hessian(lambda x: np.sum(np.prod(np.reshape(x, (1, 1, 3)), axis=(0, 2))), X0)
    test_approx(H, np.array([[0, X0[2], X0[1]], [X0[2], 0, X0[0]], [X0[1], X0[0], 0]]), atol=1e-12)
    # cumprod through a zero: the rule (differentiable) answers:
    # x0 + x0·x1 + x0·x1·x2 at (1, 0, 2)
    H = ad.hessian(lambda x: np.sum(np.cumprod(x)), np.array([1.0, 0.0, 2.0]))
    test_approx(H, np.array([[0, 3, 0], [3, 0, 1], [0, 1, 0]]), atol=1e-12)


COMPLEX_AND_OTHER_ORDERS = {
    "inv_complex": lambda x: np.real(np.sum(np.linalg.inv(A + 1j * np.diag(x)) * A)),
    "det_complex": lambda x: np.real(np.linalg.det(A + 1j * np.outer(x, x))),
    "slogdet_complex": lambda x: np.linalg.slogdet(A + 1j * np.diag(np.sin(x)))[1],
    "solve_complex": lambda x: np.real(np.vdot(x, np.linalg.solve(A + 1j * np.diag(x), x + 1j))),
    "norm_ord3": lambda x: np.linalg.norm(x, ord=3),
    "norm_complex": lambda x: np.linalg.norm(x + 1j * np.cos(x)),
    "cumprod_complex": lambda x: np.real(np.sum(np.cumprod(x + 0.5j))),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_AND_OTHER_ORDERS))
def test_complex_and_other_orders_through_the_rules(name):
    # what the nested registry declined (complex matrices, other norms) the rules,
    # differentiated as they are, answer
    f = COMPLEX_AND_OTHER_ORDERS[name]
    test_approx(ad.hessian(f, X0), fd_hessian(f, X0), msg=name, rtol=1e-6, atol=1e-8)
    H = ad.jacobian(lambda z: ad.gradient(f, z), X0, mode="reverse")
    test_approx(H, fd_hessian(f, X0), msg=name, rtol=1e-6, atol=1e-8)
