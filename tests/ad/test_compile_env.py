"""chainrules.ad.compile never replays a stale program: the closure cells and
the globals f reads (functions, numbers, objects; not library modules) are
part of its cache key, checked on every call, the fast entries included (the
whole contract: test_compile_contract.py)."""

import functools
import importlib
import sys
import types

import numpy as np
import pytest

from chainrules import ad
from ._compile_checks import replays_raise, same  # noqa: F401  (replays_raise: an autouse fixture)
from chainrules.ad import math

cm = importlib.import_module("chainrules.ad.compile")      # the module (ad.compile is the function)
this = sys.modules[__name__]

ACT = np.tanh
C = 2.0
SCALE = 3
CONFIG = types.SimpleNamespace(scale=2.0)


def n_programs(g):
    return len(g.slow.order)


X = np.array([0.1, 0.2, 0.3])


# ----- globals ---------------------------------------------------------------------------

def loss_global_act(w):
    return np.sum(ACT(w))


def test_a_rebound_global_function_retraces(monkeypatch):
    g = ad.compile(loss_global_act)
    first = g(X)
    assert same(g(X), first)                # the fast entry
    monkeypatch.setattr(this, "ACT", np.sin)
    assert same(g(X), ad.gradient(loss_global_act, X))
    assert not same(g(X), first)
    assert n_programs(g) == 2
    monkeypatch.setattr(this, "ACT", np.tanh)
    assert same(g(X), first)                # the first program again: no new trace
    assert n_programs(g) == 2


def loss_global_float(x):
    return C * x * x


def test_a_rebound_global_float_retraces(monkeypatch):
    g = ad.compile(loss_global_float)               # the C scalar program
    assert g(1.5) == 6.0 and g(1.5) == 6.0
    monkeypatch.setattr(this, "C", 3.0)
    assert same(g(1.5), ad.gradient(loss_global_float, 1.5)) and g(1.5) == 9.0
    assert n_programs(g) == 2


def loss_global_float_array(w):
    return np.sum(C * w * w)


def test_a_rebound_global_float_retraces_for_arrays(monkeypatch):
    g = ad.compile(loss_global_float_array)
    first = g(X)
    assert same(g(X), first)
    monkeypatch.setattr(this, "C", 3.0)
    assert same(g(X), ad.gradient(loss_global_float_array, X)) and not same(g(X), first)


def test_a_rebound_global_in_a_called_function_retraces(monkeypatch):
    # C is a global of loss_global_float, a function the compiled lambda calls
    f = lambda v: np.sum(loss_global_float(v))      # noqa: E731
    g = ad.compile(f)
    monkeypatch.setattr(this, "C", 2.0)
    first = g(X)
    monkeypatch.setattr(this, "C", 3.0)
    assert same(g(X), ad.gradient(f, X)) and not same(g(X), first)


class Model:
    def __init__(self, w):
        self.w = w

    def scaled(self, x):
        return self.w * x

    def loss(self, x):
        return np.sum(self.scaled(x) * x)

    def __call__(self, x):
        return self.loss(x) + CALLEE_SCALE * np.sum(x)


CALLEE_SCALE = 1.0


@pytest.mark.parametrize("bound", [lambda m: m.loss, lambda m: m], ids=["bound method", "callable object"])
def test_a_rebound_attribute_of_the_object_retraces(bound):
    m = Model(np.array([1.0, 2.0]))
    f = bound(m)
    g = ad.compile(f)
    first = g(X[:2])
    assert same(g(X[:2]), first)
    m.w = np.array([3.0, 5.0])          # read by a method loss calls
    assert same(g(X[:2]), ad.gradient(f, X[:2])) and not same(g(X[:2]), first)
    m.w[0] = 7.0                        # in place: the array the program holds
    assert same(g(X[:2]), ad.gradient(f, X[:2]))
    m.w = 2.0                           # a number, then the same number again: one more program
    assert same(g(X[:2]), ad.gradient(f, X[:2]))
    m.w = 4.0 / 2.0
    assert same(g(X[:2]), ad.gradient(f, X[:2]))


def test_a_rebound_global_of_a_method_retraces(monkeypatch):
    m = Model(2.0)
    g = ad.compile(m)
    first = g(X)
    monkeypatch.setattr(this, "CALLEE_SCALE", 5.0)
    assert same(g(X), ad.gradient(m, X)) and not same(g(X), first)


def test_a_partials_keywords_are_part_of_the_key():
    p = functools.partial(loss_with_scale, s=2.0)
    g = ad.compile(p)
    assert g(1.5) == 6.0
    p.keywords["s"] = 3.0               # a partial's keywords can be changed in place
    assert g(1.5) == 9.0 == ad.gradient(p, 1.5)


def loss_with_scale(x, s):
    return s * x * x


def test_a_global_float_rebound_to_an_equal_value_replays(monkeypatch):
    g = ad.compile(loss_global_float)
    assert g(1.5) == 6.0
    monkeypatch.setattr(this, "C", float("2.0"))
    monkeypatch.setattr(this, "C", 4.0 / 2.0)       # another object, the same value
    assert g(1.5) == 6.0 and n_programs(g) == 1


def loss_global_int(x):
    return x ** SCALE


def test_a_rebound_global_int_retraces(monkeypatch):
    g = ad.compile(loss_global_int)
    assert g(2.0) == 12.0
    monkeypatch.setattr(this, "SCALE", 2)
    assert g(2.0) == 4.0


def test_a_global_in_a_nested_function_or_lambda_is_checked(monkeypatch):
    def loss(w):
        inner = lambda v: C * v            # noqa: E731
        return np.sum(inner(w))
    g = ad.compile(loss)
    monkeypatch.setattr(this, "C", 2.0)
    assert same(g(X), np.full(3, 2.0))
    monkeypatch.setattr(this, "C", 5.0)
    assert same(g(X), np.full(3, 5.0))


def loss_config(x):
    return CONFIG.scale * x


def test_a_rebound_global_object_and_its_attributes_retrace(monkeypatch):
    g = ad.compile(loss_config)
    assert g(1.0) == 2.0
    monkeypatch.setattr(this, "CONFIG", types.SimpleNamespace(scale=4.0))
    assert g(1.0) == 4.0                    # another object: retraced
    CONFIG.scale = 7.0                      # an attribute set in place: guarded too (issue 21)
    assert g(1.0) == 7.0


def loss_builtin(x):
    return abs(x) * x


def test_a_global_shadowing_a_builtin_later_retraces(monkeypatch):
    g = ad.compile(loss_builtin)
    assert g(-2.0) == 4.0
    monkeypatch.setattr(this, "abs", lambda v: 10.0 * v, raising=False)
    assert g(-2.0) == ad.gradient(loss_builtin, -2.0) == -40.0


def only_its_code_is_checked(g, f):
    """The environment of g's programs is f's code and defaults alone: no
    global, cell or attribute to look up."""
    groups, cells, _, funcs, slots = g.env
    return groups == () and cells == () and slots == () and \
        funcs == (f, f.__code__, f.__defaults__, f.__kwdefaults__)


def test_library_modules_and_their_attributes_are_not_checked(monkeypatch):
    # a documented limit: the checks cost one look at f's code for a function
    # whose globals are library modules only (the seed's foo)
    def f(x):
        return np.sum(np.tanh(x))
    g = ad.compile(f)
    first = g(X)
    monkeypatch.setattr(np, "tanh", np.sin)
    assert same(g(X), first)
    assert only_its_code_is_checked(g, f)


# ----- closure cells --------------------------------------------------------------------

def test_a_rebound_closed_over_function_retraces():
    act = np.tanh

    def loss(w):
        return np.sum(act(w))
    g = ad.compile(loss)
    first = g(X)
    assert same(g(X), first)
    act = np.sin
    assert same(g(X), ad.gradient(loss, X)) and not same(g(X), first)
    act = np.tanh
    assert same(g(X), first) and n_programs(g) == 2


def test_a_rebound_closed_over_function_with_nonlocal():
    def make():
        act = math.tanh

        def loss(x):
            return act(x) * x

        def rebind(f):
            nonlocal act
            act = f
        return loss, rebind
    loss, rebind = make()
    g = ad.compile(loss)
    d = ad.compile(loss, mode="forward")
    assert same(g(0.5), ad.gradient(loss, 0.5)) and same(d(0.5), ad.derivative(loss, 0.5))
    assert same(g(0.5), ad.gradient(loss, 0.5)) and same(d(0.5), ad.derivative(loss, 0.5))
    first = g(0.5)
    rebind(math.sin)
    assert same(g(0.5), ad.gradient(loss, 0.5)) and same(d(0.5), ad.derivative(loss, 0.5))
    assert not same(g(0.5), first)


def test_a_rebound_closed_over_float():
    c = 2.0

    def f(x):
        return c * x
    g = ad.compile(f)
    assert g(1.0) == 2.0
    c = 3.0
    assert g(1.0) == 3.0
    assert n_programs(g) == 1               # a closed-over float is an input: no new trace


def test_several_arguments_and_a_closed_over_function():
    act = np.tanh

    def loss(w, b):
        return np.sum(act(w) * b)
    g = ad.compile(loss, argnums=(0, 1))
    b = np.ones(3)
    g(X, b)
    g(X, b)
    act = np.sin
    assert same(g(X, b), ad.gradient(loss, X, b))


def test_unchanged_cells_and_globals_do_not_retrace():
    act = np.tanh
    calls = []

    def loss(w):
        calls.append(1)
        return np.sum(act(w) * C)
    g = ad.compile(loss)
    for _ in range(5):
        g(X)
    assert len(calls) == 1 and n_programs(g) == 1


def test_a_changed_environment_counts_against_the_bounded_cache(monkeypatch):
    monkeypatch.setattr(cm, "CACHE_SIZE", 2)
    g = ad.compile(loss_global_float)
    for c in (1.0, 2.0, 3.0, 4.0):
        monkeypatch.setattr(this, "C", c)
        assert g(1.5) == 3.0 * c
    assert n_programs(g) == 2
    monkeypatch.setattr(this, "C", 1.0)     # dropped: recorded again
    assert g(1.5) == 3.0 and n_programs(g) == 2


def test_a_closed_over_library_module_is_not_checked():
    m = np

    def f(x):
        return m.sin(x)
    g = ad.compile(f)
    g(0.5)
    assert only_its_code_is_checked(g, f)
