"""chainrules.ad.compile's contract (issue 21 item 2): a replay gives what
`ad.gradient` gives now.  What the trace read from the user's code -- globals,
closure cells, attributes of the user's objects (slots and properties too),
the code and defaults of the functions it ran, the methods it looked up on
classes, the attributes of the user's modules -- is guarded (numbers by their
bits), so a change records a new program; the contents of lists, dicts and
sets and the libraries' own attributes are constants of the trace (documented;
debug mode catches a stale replay); randomness and clocks make f not
compilable (the ordinary engine runs, with a warning)."""

import dataclasses
import functools
import importlib
import math as pymath
import random
import types
import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import math
from ._compile_checks import replays_raise, same  # noqa: F401  (replays_raise: an autouse fixture)


def define(src, **glob):
    """The functions defined by src in a fresh module namespace (its globals
    are glob): each case rebinds its own globals, never this module's."""
    ns = {"math": math, "pymath": pymath, "np": np, "ad": ad, "functools": functools, **glob}
    exec(src, ns)       # noqa: S102
    return ns


# ----- the cases: (f, change), f of one real argument; change() makes ad.gradient's answer differ

def global_rebound_to_negative_zero():
    ns = define("def f(x):\n    return x * pymath.atan2(Z, -1.0) + x * x", Z=0.0)
    return ns["f"], lambda: ns.__setitem__("Z", -0.0)


def callee_global_through_a_partial():
    lib = define("def h(x, s):\n    return S * s * x", S=2.0)
    ns = define("def f(x):\n    return P(x) * x", P=functools.partial(lib["h"], s=1.0))
    return ns["f"], lambda: lib.__setitem__("S", 3.0)


def callee_global_through_ad_wrap():
    lib = define("def h(x):\n    return S * x", S=2.0)
    ns = define("def f(x):\n    return W(x) * x", W=ad.wrap(lib["h"]))
    return ns["f"], lambda: lib.__setitem__("S", 3.0)


class Slotted:
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return self.w * x * x


def slots_attribute():
    m = Slotted(2.0)
    return m.loss, lambda: setattr(m, "w", 3.0)


@dataclasses.dataclass(slots=True)
class SlottedLayer:
    w: float

    def __call__(self, x):
        return self.w * x * x


def dataclass_slots_callable():
    m = SlottedLayer(2.0)
    return m, lambda: setattr(m, "w", 3.0)


class WithProperty:
    def __init__(self, w):
        self._w = w

    @property
    def w(self):
        return self._w

    def loss(self, x):
        return self.w * x * x


def property_field():
    m = WithProperty(2.0)
    return m.loss, lambda: setattr(m, "_w", 3.0)


def attribute_of_a_global_object():
    cfg = types.SimpleNamespace(scale=2.0)
    ns = define("def f(x):\n    return CFG.scale * x * x", CFG=cfg)
    return ns["f"], lambda: setattr(cfg, "scale", 3.0)


def defaults_replaced():
    ns = define("def h(x, s=2.0):\n    return s * x\ndef f(x):\n    return h(x) * x")
    return ns["f"], lambda: setattr(ns["h"], "__defaults__", (3.0,))


def kwdefaults_replaced():
    ns = define("def h(x, *, s=2.0):\n    return s * x\ndef f(x):\n    return h(x) * x")
    return ns["f"], lambda: setattr(ns["h"], "__kwdefaults__", {"s": 3.0})


def kwdefaults_changed_in_place():
    ns = define("def h(x, *, s=2.0):\n    return s * x\ndef f(x):\n    return h(x) * x")
    return ns["f"], lambda: ns["h"].__kwdefaults__.__setitem__("s", 3.0)


def code_replaced():
    ns = define("def h(x):\n    return 2.0 * x\ndef h3(x):\n    return 3.0 * x\ndef f(x):\n    return h(x) * x")
    return ns["f"], lambda: setattr(ns["h"], "__code__", ns["h3"].__code__)


def own_code_replaced():
    ns = define("def f(x):\n    return 2.0 * x * x\ndef f3(x):\n    return 3.0 * x * x")
    return ns["f"], lambda: setattr(ns["f"], "__code__", ns["f3"].__code__)


def class_method_monkeypatched():
    cls = type("Scaled", (), {"scale": lambda self: 2.0, "loss": lambda self, x: self.scale() * x * x})
    return cls().loss, lambda: setattr(cls, "scale", lambda self: 3.0)


def instance_attribute_shadows_a_method():
    cls = type("Scaled", (), {"scale": lambda self: 2.0, "loss": lambda self, x: self.scale() * x * x})
    m = cls()
    return m.loss, lambda: setattr(m, "scale", lambda: 3.0)


def module_attribute():
    mod = types.ModuleType("user_config")
    mod.scale = 2.0
    ns = define("def f(x):\n    return cfg.scale * x * x", cfg=mod)
    return ns["f"], lambda: setattr(mod, "scale", 3.0)


def callee_closure_cell():
    def make():
        s = 2.0

        def h(x):
            return s * x

        def set_s(v):
            nonlocal s
            s = v
        return h, set_s
    h, set_s = make()
    ns = define("def f(x):\n    return H(x) * x", H=h)
    return ns["f"], lambda: set_s(3.0)


def nested_object_attribute():
    inner = types.SimpleNamespace(w=2.0)
    outer = types.SimpleNamespace(layer=inner)
    ns = define("def f(x):\n    return M.layer.w * x * x", M=outer)
    return ns["f"], lambda: setattr(inner, "w", 3.0)


RETRACED = [global_rebound_to_negative_zero, callee_global_through_a_partial, callee_global_through_ad_wrap,
            slots_attribute, dataclass_slots_callable, property_field, attribute_of_a_global_object,
            defaults_replaced, kwdefaults_replaced, kwdefaults_changed_in_place, code_replaced,
            own_code_replaced, class_method_monkeypatched, instance_attribute_shadows_a_method,
            module_attribute, callee_closure_cell, nested_object_attribute]
KINDS = ["float", "float forward", "array"]


def compiled_and_truth(f, kind):
    """(compiled, uncompiled, input) for one kind of call."""
    if kind == "float":
        return ad.compile(f), lambda x: ad.gradient(f, x), 0.75
    if kind == "float forward":
        return ad.compile(f, mode="forward"), lambda x: ad.derivative(f, x), 0.75

    def on_array(w):
        return np.sum(f(w))
    return ad.compile(on_array), lambda x: ad.gradient(on_array, x), np.array([0.25, 0.75, -1.5])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", RETRACED, ids=lambda c: c.__name__)
def test_what_the_trace_read_is_guarded(case, kind):
    f, change = case()
    g, truth, x = compiled_and_truth(f, kind)
    before = truth(x)
    assert same(g(x), before) and same(g(x), before)        # recorded, then the fast entry
    change()
    after = truth(x)
    assert not same(after, before, signs=True)              # the case changes the answer
    assert same(g(x), after, signs=True) and same(g(x), after, signs=True)


def test_floats_are_compared_by_their_bits():
    # NaN: the same bits replay (no trace on every call)
    ns = define("def f(x):\n    return x * x + (0.0 * x if Z != Z else x)", Z=float("nan"))
    g = ad.compile(ns["f"])
    assert g(1.0) == 2.0
    ns["Z"] = float("nan")
    assert g(1.0) == 2.0 and len(g.slow.order) == 1
    ns["Z"] = -0.0
    g(1.0)
    ns["Z"] = 0.0
    g(1.0)
    assert len(g.slow.order) == 3


def test_unrelated_attributes_do_not_retrace():
    m = WithProperty(2.0)
    g = ad.compile(m.loss)
    g(1.0)
    m.calls = 1                     # a name no code of f reads
    m.calls = 2
    assert g(1.0) == 4.0 and len(g.slow.order) == 1


# ----- constants of the trace: the contents of containers ----------------------------

def list_item():
    items = [2.0]
    ns = define("def f(x):\n    return L[0] * x * x", L=items)
    return ns["f"], lambda: items.__setitem__(0, 3.0)


def dict_item():
    items = {"s": 2.0}
    ns = define("def f(x):\n    return D['s'] * x * x", D=items)
    return ns["f"], lambda: items.__setitem__("s", 3.0)


def library_module_attribute(monkeypatch):
    ns = define("def f(x):\n    return np.sum(np.tanh(x))")
    return ns["f"], lambda: monkeypatch.setattr(np, "tanh", np.sin)


@pytest.mark.parametrize("case", [list_item, dict_item, library_module_attribute], ids=lambda c: c.__name__)
def test_container_contents_and_libraries_are_constants_debug_mode_says_so(case, monkeypatch):
    f, change = case(monkeypatch) if case is library_module_attribute else case()
    x = np.array([0.25, 0.5])
    g = ad.compile(lambda w: np.sum(f(w)))
    before = g(x)
    change()
    assert same(g(x), before)           # the documented constant: the recorded value
    with cr.debug_mode(True), pytest.raises(cr.CompiledReplayError, match=r"compile\(.*<lambda>\).*differ"):
        g(x)


# ----- the outside world: not compilable ----------------------------------------------

def noisy_numpy(x):
    return x * x * np.random.normal()


def noisy_random(x):
    return x * x * random.random()


def noisy_generator(x):
    return x * x * RNG.normal()


def noisy_clock(x):
    import time
    return x * x * (1.0 + 0.0 * time.time())


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("f", [noisy_numpy, noisy_random, noisy_generator, noisy_clock], ids=lambda f: f.__name__)
def test_randomness_and_clocks_make_f_not_compilable(f):
    g = ad.compile(f)
    with pytest.warns(RuntimeWarning, match=r"cannot record a call to .*(random|normal|time)"):
        g(1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        for seed in (1, 2):
            np.random.seed(seed)
            random.seed(seed)
            got = g(1.5)
            np.random.seed(seed)
            random.seed(seed)
            if f is not noisy_generator:
                assert same(got, ad.gradient(f, 1.5))
    assert len(g.slow.order) == 0       # never recorded


NOISE = False


def maybe_noisy(x):
    return x * x * (np.random.normal() if NOISE else 1.0)


def test_randomness_reached_but_not_called_compiles():
    g = ad.compile(maybe_noisy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g(1.5) == 3.0 and g(1.5) == 3.0
    assert len(g.slow.order) == 1


# ----- item 12: the signatures left to the ordinary engine are bounded ---------------

def test_the_signatures_that_cannot_be_recorded_are_bounded():
    cm = importlib.import_module("chainrules.ad.compile")     # the module (ad.compile is the function)

    def f(x, k):
        return x * x * random.random() * k
    g = ad.compile(f)
    with pytest.warns(RuntimeWarning):
        for k in range(3 * cm.CACHE_SIZE):
            g(1.5, k)
    assert len(g.slow.ordinary_keys) <= cm.CACHE_SIZE
    assert len(g.slow.order) == 0


# ----- debug mode: each replay checked against the uncompiled engine -------------------

def test_debug_mode_checks_each_replay_and_passes_when_nothing_changed():
    f = lambda x: np.sum(np.sin(x) * x)         # noqa: E731
    x = np.linspace(0.1, 1.0, 5)
    g = ad.compile(f)
    g(x)
    with cr.debug_mode(True):
        assert same(g(x), ad.gradient(f, x))
        assert same(ad.compile(math.sin)(0.5), pymath.cos(0.5))


def test_debug_mode_names_the_function_and_what_differed():
    items = [2.0]

    def scaled(x):
        return items[0] * x * x
    g = ad.compile(scaled)
    g(1.5)
    g(1.5)                               # the fast entry's program
    items[0] = 3.0
    assert g(1.5) == 6.0                 # stale, as documented
    with cr.debug_mode(True):
        with pytest.raises(cr.CompiledReplayError) as e:
            g(1.5)
    msg = str(e.value)
    assert "compile(" in msg and "scaled" in msg and "6.0" in msg and "9.0" in msg
