"""NumPy's functions on values tracked by chainrules.ad run the array-API rule
bodies (chainrules/ad/_routing.py): a Hessian through each
of them against finite differences of the gradient, in the three nestings,
and the rule found for a tracked argument is the array-API one while plain
ndarrays keep the NumPy rule."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.ad._routing import ARRAY_FUNCTIONS as NUMPY_FUNCTIONS
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
X = np.array([0.7, -1.3, 2.1, 0.4, -0.2, 1.1])
M = np.array([[3.0, 1.0, 0.5], [1.0, 4.0, 1.0], [0.2, 1.0, 5.0]])

LOSSES = {
    np.sort: lambda x: np.sum(np.sort(x * x[0]) * x),
    np.clip: lambda x: np.sum(np.clip(x * x[1], -0.5, 1.0) * x),
    np.take: lambda x: np.sum(np.take(x, [0, 2, 2, 5]) * x[:4] ** 2),
    np.max: lambda x: np.max(x * x[1]) ** 2 + np.sum(np.max(np.reshape(x, (2, 3)) * x[0], axis=0) * x[3:]),
    np.amax: lambda x: np.amax(x * x) * x[0],
    np.min: lambda x: np.min(np.reshape(x, (3, 2)) * x[2], axis=1) @ x[:3],
    np.amin: lambda x: np.amin(x) * np.sum(x * x),
    np.matmul: lambda x: np.sum(np.sin(np.matmul(np.reshape(x, (2, 3)), M)) * x[:3]),
    operator.matmul: lambda x: (x[:3] @ M @ x[3:]) ** 2,
    np.tensordot: lambda x: np.sum(np.tensordot(np.reshape(x, (2, 3)), M, axes=1) ** 2),
}


def _fd_hessian(f, x):
    return fd_jacobian(FDM, lambda z: ad.gradient(f, z), x)[0].reshape(x.shape * 2)


# NumPy's max/min, matmul (and @) and tensordot are no longer routed here: their one
# registration is the array-API body (numpy/reductions.py, numpy/linalg/products.py), which
# takes tracked values itself; their losses stay, checked at order 2 through that registration.
ONE_REGISTRATION = {np.max, np.amax, np.min, np.amin, np.matmul, operator.matmul, np.tensordot}


def test_every_function_has_a_loss():
    assert set(LOSSES) == set(NUMPY_FUNCTIONS) | ONE_REGISTRATION
    assert not ONE_REGISTRATION & set(NUMPY_FUNCTIONS)


@pytest.mark.parametrize("f", list(LOSSES), ids=lambda f: f.__name__)
def test_second_derivatives_through_the_array_api_body(f):
    loss = LOSSES[f]
    want = _fd_hessian(loss, X)
    test_approx(ad.hessian(loss, X), want, rtol=1e-6, atol=1e-7)
    test_approx(ad.jacobian(lambda z: ad.gradient(loss, z), X, mode="reverse"), want, rtol=1e-6, atol=1e-7)
    v = np.linspace(0.3, -0.6, X.size)
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: loss(X + s * v), t), 0.0)
    test_approx(d2, v @ want @ v, rtol=1e-6, atol=1e-7)


def test_tracked_arguments_get_the_array_api_rule_and_ndarrays_the_numpy_rule():
    seen = {}

    def inner(y):
        _, pb = cr.rrule(np.sort, y)
        seen["tracked"] = pb.__code__.co_filename
        return np.sum(y)
    ad.derivative(lambda t: ad.gradient(inner, X * t), 1.0)
    _, pb = cr.rrule(np.sort, X)
    assert seen["tracked"].replace("\\", "/").endswith("array_api/shapes.py")
    assert not pb.__code__.co_filename.replace("\\", "/").endswith("array_api/shapes.py")
