"""NumPy's functions on values tracked by chainrules.ad run the array-API rule
bodies (their one registration on NumPy's function, which takes tracked
values itself; chainrules/ad/_routing.py routes none of them): a Hessian
through each of them against finite differences of the gradient, in the
three nestings, and the rule found for a tracked argument and for a plain
ndarray is the same body."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
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


# NumPy's sort, clip, take, max/min, matmul (and @) and tensordot are not routed by the AD:
# their one registration is the array-API body (numpy/standard_shapes.py, reductions.py,
# linalg/products.py), which takes tracked values itself; checked at order 2 through it.
ONE_REGISTRATION = {np.sort, np.clip, np.take, np.max, np.amax, np.min, np.amin, np.matmul, operator.matmul,
                    np.tensordot}


def test_every_function_has_a_loss():
    import chainrules.ad._routing as routing
    assert set(LOSSES) == ONE_REGISTRATION
    assert not hasattr(routing, "ARRAY_FUNCTIONS")


@pytest.mark.parametrize("f", list(LOSSES), ids=lambda f: f.__name__)
def test_second_derivatives_through_the_array_api_body(f):
    loss = LOSSES[f]
    want = _fd_hessian(loss, X)
    test_approx(ad.hessian(loss, X), want, rtol=1e-6, atol=1e-7)
    test_approx(ad.jacobian(lambda z: ad.gradient(loss, z), X, mode="reverse"), want, rtol=1e-6, atol=1e-7)
    v = np.linspace(0.3, -0.6, X.size)
    d2 = ad.derivative(lambda t: ad.derivative(lambda s: loss(X + s * v), t), 0.0)
    test_approx(d2, v @ want @ v, rtol=1e-6, atol=1e-7)


def test_tracked_arguments_and_ndarrays_get_the_one_array_api_rule():
    seen = {}

    def inner(y):
        _, pb = cr.rrule(np.sort, y)
        seen["tracked"] = pb.__code__.co_filename
        return np.sum(y)
    ad.derivative(lambda t: ad.gradient(inner, X * t), 1.0)
    _, pb = cr.rrule(np.sort, X)
    assert seen["tracked"].replace("\\", "/").endswith("array_api/shapes.py")
    assert pb.__code__.co_filename.replace("\\", "/").endswith("array_api/shapes.py")
