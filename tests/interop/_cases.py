"""The functions every adapter is tested on (tests/interop/test_*.py), and a
user function with a deliberately wrong ("straight-through") rule."""

import contextlib

import numpy as np
import pytest
import scipy.special as sp

import chainrules as cr
from conftest import registry_restored

RNG = np.random.default_rng(15)
X = np.array([0.3, 0.7, 1.2])
A = RNG.uniform(0.2, 1.0, (2, 3))
B = RNG.uniform(-1.0, 1.0, (3, 2))

# id, f, args, kwargs: element-wise (with values near the edge of the domain),
# reductions with an axis, matmul, where, a scipy.special function, shapes
CASES = [
    ("sin", np.sin, (X,), {}),
    ("exp", np.exp, (X,), {}),
    # near the edge, as near as central differences of step ~1e-2 allow
    ("log_near_0", np.log, (np.array([0.05, 0.5, 2.0]),), {}),
    ("sqrt_near_0", np.sqrt, (np.array([0.05, 0.5, 2.0]),), {}),
    ("arcsin_near_1", np.arcsin, (np.array([-0.95, 0.0, 0.95]),), {}),
    # |x|'' at 0 is a Dirac delta: first order only
    ("abs_at_0", np.abs, (np.array([-0.5, 0.0, 0.5]),), {"order": 1}),
    ("tanh_large", np.tanh, (np.array([-20.0, 0.1, 20.0]),), {}),
    ("multiply", np.multiply, (X, X[::-1].copy()), {}),
    ("power", np.power, (X, 2.5), {}),
    ("sum_axis0", np.sum, (A,), {"axis": 0}),
    ("mean_axis1", np.mean, (A,), {"axis": 1}),
    ("prod_axis1", np.prod, (A,), {"axis": 1}),
    ("matmul", np.matmul, (A, B), {}),
    ("where", np.where, (X > 0.5, X, 2 * X), {}),
    ("gamma", sp.gamma, (X,), {}),
    ("reshape", np.reshape, (A, (3, 2)), {}),
    ("concat", np.concatenate, ([X, 2 * X],), {}),
]

# holomorphic and not
Z = np.array([0.3 + 0.4j, 1.0 - 0.5j, -0.7 + 0.2j])
COMPLEX = [("sin", np.sin, (Z,)), ("exp", np.exp, (Z,)), ("abs", np.abs, (Z,))]

HOST_ONLY = {"gamma"}                       # scipy.special: run on the host by to_jax


def params(cases=CASES):
    return [pytest.param(f, args, kw, id=name) for name, f, args, kw in cases]


def hard_round(x):
    """round(x), whose registered rule says its derivative is 1 (straight-through)."""
    import array_api_compat
    return array_api_compat.array_namespace(x).round(x)


@contextlib.contextmanager
def straight_through():
    """hard_round's straight-through rules registered for the block."""
    with registry_restored():
        @cr.register_frule(hard_round)
        def _frule(tangents, x):
            return hard_round(x), tangents[1]

        @cr.register_rrule(hard_round)
        def _rrule(x):
            return hard_round(x), lambda ȳ: (cr.NoTangent(), ȳ)
        yield hard_round


def no_rule(x):
    """A function without a rule."""
    return x * 2
