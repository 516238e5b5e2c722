"""autograd programs run on chainrules.ad by changing imports.

Each program is written once against the modules it imports (`ag` for
`autograd`, `np` for `autograd.numpy`, `sp` for `autograd.scipy`) and run
twice: with autograd's modules and with chainrules.ad's drop-ins
(`chainrules.ad.autograd`, `chainrules.ad.numpy`, `chainrules.ad.scipy`).
The results agree to rtol 1e-10.  The programs are autograd's README
examples and their like (tanh's derivatives, logistic regression, a neural
network, Hessian-vector products, Jacobians, complex derivatives)."""

import types

import numpy as onp
import pytest

autograd = pytest.importorskip("autograd")
import autograd.numpy  # noqa: E402
import autograd.scipy.special  # noqa: E402
import autograd.scipy.stats.norm  # noqa: E402

import chainrules.ad.autograd  # noqa: E402
import chainrules.ad.numpy  # noqa: E402
import chainrules.ad.scipy.special  # noqa: E402
import chainrules.ad.scipy.stats.norm  # noqa: E402
from chainrules.testing import test_approx  # noqa: E402

AUTOGRAD = (autograd, autograd.numpy,
            types.SimpleNamespace(special=autograd.scipy.special, norm=autograd.scipy.stats.norm))
CHAINRULES = (chainrules.ad.autograd, chainrules.ad.numpy,
              types.SimpleNamespace(special=chainrules.ad.scipy.special, norm=chainrules.ad.scipy.stats.norm))


def tanh_derivatives(ag, np, sp):
    """README: tanh and its first four derivatives by elementwise_grad."""
    def tanh(x):
        y = np.exp(-2.0 * x)
        return (1.0 - y) / (1.0 + y)
    x = np.linspace(-7, 7, 41)
    d = tanh
    out = [d(x)]
    for _ in range(4):
        d = ag.elementwise_grad(d)
        out.append(d(x))
    # and the scalar path: grad of grad …
    g = tanh
    for _ in range(3):
        g = ag.grad(g)
    out.append(onp.array([g(t) for t in (-1.0, 0.0, 0.5)]))
    return out


def logistic_regression(ag, np, sp):
    """README: logistic regression trained by gradient descent with grad."""
    def sigmoid(x):
        return 0.5 * (np.tanh(x / 2.0) + 1)

    def logistic_predictions(weights, inputs):
        return sigmoid(np.dot(inputs, weights))

    inputs = onp.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                        [0.74, -2.49, 1.39]])
    targets = onp.array([True, True, False, True])

    def training_loss(weights):
        preds = logistic_predictions(weights, inputs)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -np.sum(np.log(label_probabilities))

    training_gradient_fun = ag.grad(training_loss)
    weights = onp.array([0.0, 0.0, 0.0])
    losses = []
    for _ in range(100):
        weights = weights - training_gradient_fun(weights) * 0.01
        losses.append(training_loss(weights))
    return [weights, onp.array(losses)]


def neural_network(ag, np, sp):
    """A two-layer network on a list of (W, b) tuples, its log-likelihood by
    logsumexp, trained with value_and_grad (gradients are lists of tuples)."""
    rs = onp.random.RandomState(0)
    params = [(0.3 * rs.randn(3, 5), 0.1 * rs.randn(5)), (0.3 * rs.randn(5, 4), 0.1 * rs.randn(4))]
    inputs = rs.randn(6, 3)
    labels = onp.eye(4)[rs.randint(0, 4, 6)]

    def predict(params, x):
        for W, b in params:
            outputs = np.dot(x, W) + b
            x = np.tanh(outputs)
        return outputs - sp.special.logsumexp(outputs, axis=1, keepdims=True)

    def loss(params, l2):
        log_prior = -l2 * sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)
        return -(log_prior + np.sum(predict(params, inputs) * labels))

    value_and_grad = ag.value_and_grad(loss)
    out = []
    for _ in range(20):
        value, g = value_and_grad(params, 0.1)
        assert type(g) is list and type(g[0]) is tuple
        params = [(W - 0.1 * dW, b - 0.1 * db) for (W, b), (dW, db) in zip(params, g)]
        out.append(value)
    return [onp.array(out)] + [p for layer in params for p in layer]


def hessian_vector_products(ag, np, sp):
    """Hessian-vector products: hessian_vector_product, make_hvp, against the full hessian."""
    def f(x):
        return np.sum(np.sin(x) * x ** 2) + np.prod(x) + np.dot(x, x) ** 2

    x = onp.array([0.3, -0.7, 1.1])
    v = onp.array([1.0, 2.0, -0.5])
    hvp = ag.hessian_vector_product(f)(x, v)
    hvp2, g = ag.make_hvp(f)(x)
    H = ag.hessian(f)(x)
    return [hvp, hvp2(v), g, H, H @ v]


def jacobians(ag, np, sp):
    """Jacobians of a vector function (built with np.array of its parts),
    Jacobians of Jacobians, tensor_jacobian_product and make_jvp/make_vjp."""
    def f(x):
        return np.array([x[0] * np.sin(x[1]), np.exp(x[0]) - x[2], x[1] * x[2] ** 2, 2.0])

    x = onp.array([0.4, 1.3, -0.6])
    J = ag.jacobian(f)(x)
    H = ag.jacobian(ag.jacobian(f))(x)
    u = onp.array([1.0, -1.0, 2.0, 0.5])
    tjp = ag.tensor_jacobian_product(f)(x, u)
    jvp = ag.make_jvp(f)(x)(onp.array([0.0, 1.0, 0.0]))
    vjp, ans = ag.make_vjp(f)(x)
    return [J, H, tjp, jvp[0], jvp[1], ans, vjp(u), ag.hessian(f)(x)]


def complex_derivatives(ag, np, sp):
    """Complex numbers: holomorphic_grad of holomorphic functions, grad of real
    functions of a complex argument (autograd's convention), elementwise on arrays."""
    z = 0.7 - 1.3j
    out = [ag.holomorphic_grad(lambda z: np.sin(z) * np.exp(z))(z),
           ag.holomorphic_grad(ag.holomorphic_grad(lambda z: z ** 3 / (1 + z)))(z),
           ag.grad(lambda z: np.abs(z) ** 2)(z),
           ag.grad(lambda z: np.real(np.log(z) * np.conj(z)))(z),
           ag.grad(lambda zs: np.sum(np.abs(np.exp(zs)) ** 2))(onp.array([z, 1j, 0.5 + 0j]))]
    vjp, ans = ag.make_vjp(np.tanh)(z)
    return out + [ans, vjp(1.0 + 0j), vjp(1j)]


def gaussian_fit(ag, np, sp):
    """A rotated anisotropic Gaussian fitted by maximum likelihood: a rotation
    matrix built with np.array from tracked scalars, norm.logpdf, parameters in
    a dict, argnum tuples."""
    rs = onp.random.RandomState(1)
    data = rs.randn(30, 2) * onp.array([2.0, 0.5])

    def nll(params, data):
        t = params["angle"]
        R = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        z = np.dot(data - params["mean"], R)
        return -np.sum(sp.norm.logpdf(z[:, 0], 0.0, np.exp(params["log_scale"][0]))
                       + sp.norm.logpdf(z[:, 1], 0.0, np.exp(params["log_scale"][1])))

    params = {"angle": 0.2, "mean": onp.zeros(2), "log_scale": onp.zeros(2)}
    g = ag.grad(nll)
    for _ in range(30):
        d = g(params, data)
        assert type(d) is dict
        params = {k: params[k] - 0.005 * d[k] for k in params}
    both = ag.grad(nll, (0, 1))(params, data)
    return [params["angle"], params["mean"], params["log_scale"], nll(params, data), both[1]]


PROGRAMS = [tanh_derivatives, logistic_regression, neural_network, hessian_vector_products,
            jacobians, complex_derivatives, gaussian_fit]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_program_runs_by_changing_imports(program):
    ours = program(*CHAINRULES)
    theirs = program(*AUTOGRAD)
    assert len(ours) == len(theirs)
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert onp.shape(a) == onp.shape(b), (program.__name__, k)
        test_approx(onp.asarray(a), onp.asarray(b), rtol=1e-10, atol=1e-12)
