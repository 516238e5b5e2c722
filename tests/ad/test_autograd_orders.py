"""chainrules.ad.autograd's operators composed to orders 1 to 4, against autograd:
each operator differentiated by jacobian (or by itself) again and again."""

import numpy as onp
import pytest

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402

import chainrules.ad.autograd as cag  # noqa: E402
import chainrules.ad.numpy as cnp  # noqa: E402
from chainrules.testing import test_approx  # noqa: E402

X = onp.array([0.3, -0.7, 1.1])
V = onp.array([1.0, 2.0, -0.5])


def nest(op, g, n):
    for _ in range(n):
        g = op(g)
    return g


def f(np):
    return lambda x: np.sum(np.tanh(x) * np.exp(x / 3)) + np.prod(x) ** 2


def sin_times_first(np):
    return lambda y: np.sin(y) * y[0]


# case(ag, np, n): a derivative of order n built from the operator
CASES = {
    "grad": lambda ag, np, n: nest(ag.grad, lambda x: np.tanh(x) * np.exp(x / 3), n)(0.4),
    "elementwise_grad": lambda ag, np, n: nest(ag.elementwise_grad, lambda x: np.tanh(x) * x, n)(X),
    "deriv": lambda ag, np, n: nest(ag.deriv, lambda x: np.tanh(x) * np.exp(x / 3), n)(0.4),
    "jacobian": lambda ag, np, n: nest(ag.jacobian, sin_times_first(np), n)(X),
    "holomorphic_grad": lambda ag, np, n: nest(ag.holomorphic_grad, lambda z: np.sin(z) * z, n)(0.3 + 0.2j),
    "value_and_grad": lambda ag, np, n: nest(ag.jacobian, lambda x: ag.value_and_grad(f(np))(x)[1], n - 1)(X),
    "make_vjp": lambda ag, np, n: nest(ag.jacobian, lambda x: ag.make_vjp(sin_times_first(np))(x)[0](V), n - 1)(X),
    "make_jvp": lambda ag, np, n: nest(ag.jacobian, lambda x: ag.make_jvp(f(np))(x)(V)[1], n - 1)(X),
    "tensor_jacobian_product": lambda ag, np, n: nest(
        ag.jacobian, lambda x: ag.tensor_jacobian_product(sin_times_first(np))(x, V), n - 1)(X),
    "hessian": lambda ag, np, n: nest(ag.jacobian, ag.hessian(f(np)), n - 2)(X),
    "hessian_vector_product": lambda ag, np, n: nest(
        ag.elementwise_grad, lambda x: ag.hessian_vector_product(f(np))(x, V), n - 2)(X),
    "make_hvp": lambda ag, np, n: nest(ag.jacobian, lambda x: ag.make_hvp(f(np))(x)[0](V), n - 2)(X),
    "make_ggnvp": lambda ag, np, n: nest(
        ag.jacobian, lambda x: ag.make_ggnvp(lambda y: np.sin(y) * y)(x)(V), n - 2)(X),
}
SECOND_ORDER = {"hessian", "hessian_vector_product", "make_hvp", "make_ggnvp"}


@pytest.mark.parametrize("name, order", [(name, order) for name in sorted(CASES) for order in range(1, 5)
                                         if order >= 2 or name not in SECOND_ORDER])
def test_operator_to_order(name, order):
    ours = CASES[name](cag, cnp, order)
    theirs = CASES[name](autograd, anp, order)
    assert onp.shape(ours) == onp.shape(theirs)
    test_approx(onp.asarray(ours), onp.asarray(theirs), rtol=1e-10, atol=1e-12)
