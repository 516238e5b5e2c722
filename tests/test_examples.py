"""The examples/ folder runs: examples/ode_fit.py (a Lotka–Volterra fit through solve_ivp)
and examples/implicit_layer.py (a fixed-point layer through scipy.optimize.root), each under
chainrules.ad and under JAX through to_jax(via_ad=True): their gradients against central
differences, and their fits reaching what they print."""

import importlib.util
import os

import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def load(name):
    spec = importlib.util.spec_from_file_location(f"examples_{name}", os.path.join(EXAMPLES, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def central(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.fixture(scope="module")
def ode_fit():
    return load("ode_fit")


@pytest.fixture(scope="module")
def implicit_layer():
    return load("implicit_layer")


def test_ode_fit_with_chainrules(ode_fit):
    from chainrules import ad
    data = ode_fit.observations()
    p = np.array([0.9, 0.55, 0.75])

    def loss(p):
        return np.sum((ode_fit.trajectory(p) - data) ** 2)
    np.testing.assert_allclose(ad.gradient(loss, p), central(loss, p), rtol=1e-4)
    res = ode_fit.fit_with_chainrules(data)
    assert res.success
    np.testing.assert_allclose(res.x, ode_fit.TRUE, atol=0.02)


def test_ode_fit_with_jax(ode_fit, jax_x64):
    res_jax = ode_fit.fit_with_jax(ode_fit.observations())
    assert res_jax.success
    np.testing.assert_allclose(res_jax.x, ode_fit.TRUE, atol=0.02)


def test_implicit_layer_with_chainrules(implicit_layer):
    from chainrules import ad
    q0 = implicit_layer.initial()
    np.testing.assert_allclose(ad.gradient(implicit_layer.loss_chainrules, q0),
                               central(implicit_layer.loss_chainrules, q0), rtol=1e-5, atol=1e-8)
    res = implicit_layer.train_with_chainrules(q0)
    assert res.fun < 1e-3 * implicit_layer.loss_chainrules(q0)


def test_implicit_layer_with_jax(implicit_layer, jax_x64):
    q0 = implicit_layer.initial()
    res = implicit_layer.train_with_jax(q0)
    assert res.fun < 1e-3 * implicit_layer.loss_chainrules(q0)
    # the same optimizer, the same gradients: the same result as under chainrules.ad
    np.testing.assert_allclose(res.x, implicit_layer.train_with_chainrules(q0).x, rtol=1e-6, atol=1e-8)


def test_the_examples_print(ode_fit, implicit_layer, jax_x64, capsys):
    implicit_layer.main()
    out = capsys.readouterr().out
    assert "chainrules.ad: loss" in out and "JAX (to_jax): loss" in out
