"""chainrules.ad.compile: the trace-once compiled derivative agrees with
ad.gradient / ad.derivative to the bit (scalar code, loops, branches, NumPy
arrays, complex, float32, nested functions, kwargs, argnums tuples); guards
re-record on a different branch; closed-over values are read afresh; what
cannot be recorded falls back with one warning."""

import importlib
import math as pymath
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import chainrules as cr
from chainrules import ad
from ._compile_checks import replays_raise, same  # noqa: F401  (replays_raise: an autouse fixture)
from chainrules.ad import math

cm = importlib.import_module("chainrules.ad.compile")      # the module (ad.compile is the function)


def n_programs(g):
    return len(g.slow.order)


def foo(x):
    return math.asin(0.2 + math.sin(x))


# ----- scalar code ------------------------------------------------------------------

def test_the_seed_example_to_the_bit():
    g = ad.compile(foo)
    d = ad.compile(foo, mode="forward")
    for x in (3.0, 0.1, -0.5, 2.5, 3.0):
        assert same(g(x), ad.gradient(foo, x))
        assert same(d(x), ad.derivative(foo, x))
    assert n_programs(g) == 1 and n_programs(d) == 1
    assert g.slow.cache[next(iter(g.slow.cache))][0].scalar is not None     # the C program


@settings(max_examples=200, deadline=None)
@given(st.floats(-1.5, 1.5, allow_nan=False))
def test_scalar_programs_agree_with_the_engines(x):
    def f(v):
        y = v * v - 3.0 * v + math.exp(-v) / (1.0 + v * v)
        return math.tanh(y) ** 2 + math.log1p(y * y) - 2.0 ** v
    assert same(ad.compile(f)(x), ad.gradient(f, x))
    assert same(ad.compile(f, mode="forward")(x), ad.derivative(f, x))


def test_loops_and_branches_are_guarded():
    def f(x):
        acc = x
        for k in range(3):
            acc = math.sin(acc) + k * x
        if acc > 1.0:
            return acc * acc
        return math.cos(acc)
    g = ad.compile(f)
    xs = [0.1, 2.0, 0.2, 2.1, -3.0, 0.1]
    for x in xs:
        assert same(g(x), ad.gradient(f, x))
    assert n_programs(g) == 2              # one per outcome of the comparison


def test_a_while_loop_records_one_program_per_trip_count():
    def f(x):
        y = x
        while y < 10.0:
            y = y * 2.0
        return y
    g = ad.compile(f)
    for x in (1.0, 1.5, 3.0, 6.0, 1.2):       # 4, 3, 2, 1 and 4 trips
        assert same(g(x), ad.gradient(f, x))
    assert n_programs(g) == 4


def test_int_and_bool_of_traced_values_are_guarded():
    def f(x):
        n = int(x)
        return x * n if bool(x - 1.0) else x
    g = ad.compile(f)
    for x in (2.5, 3.5, 1.0, 2.25):
        assert same(g(x), ad.gradient(f, x))


def test_nested_functions_kwargs_and_argnums_tuples():
    def inner(a, b):
        return math.sin(a) * b

    def f(x, y, scale=1.0, power=2):
        return inner(x, y) * scale + y ** power

    g = ad.compile(f, argnums=(0, 1))
    for x, y, s in ((1.0, 2.0, 3.0), (0.5, -1.0, 2.0)):
        assert same(g(x, y, scale=s), ad.gradient(lambda a, b: f(a, b, scale=s), x, y))
    assert same(g(1.0, 2.0, power=3), ad.gradient(lambda a, b: f(a, b, power=3), 1.0, 2.0))
    g1 = ad.compile(f, argnums=1)
    assert same(g1(1.0, 2.0), ad.gradient(lambda b: f(1.0, b), 2.0))
    assert same(ad.compile(f, argnums=(1,))(1.0, 2.0), (ad.gradient(lambda b: f(1.0, b), 2.0),))
    assert same(ad.compile(f, argnums=-1)(1.0, 2.0), ad.gradient(lambda b: f(1.0, b), 2.0))


def test_an_int_input_is_a_float():
    g = ad.compile(lambda x: x * x)
    assert same(g(3), ad.gradient(lambda x: x * x, 3)) and g(3) == 6.0


def test_complex_scalars():
    def f(z):
        return abs(np.exp(z) * z) ** 2
    g = ad.compile(f)
    for z in (1.0 + 2.0j, 0.5 - 0.25j):
        assert same(g(z), ad.gradient(f, z))
    d = ad.compile(lambda z: np.exp(z) * z, mode="forward")
    assert same(d(1.0 + 2.0j), ad.derivative(lambda z: np.exp(z) * z, 1.0 + 2.0j))


def test_numpy_functions_on_floats():
    def f(x):
        return np.arcsin(0.2 + np.sin(x))
    g = ad.compile(f)
    d = ad.compile(f, mode="forward")
    for x in (3.0, 0.3):
        assert same(g(x), ad.gradient(f, x))
        assert same(d(x), ad.derivative(f, x))


def test_a_domain_error_is_the_engines_own():
    g = ad.compile(foo)
    g(3.0)
    with pytest.raises(ValueError, match="math domain error"):
        g(1.0)                      # asin(1.04)
    assert same(g(3.0), ad.gradient(foo, 3.0))


def test_an_output_independent_of_the_input():
    g = ad.compile(lambda x: 2.0)
    assert same(g(1.0), ad.gradient(lambda x: 2.0, 1.0))
    x = np.ones(3)
    assert same(ad.compile(lambda v: 2.0)(x), ad.gradient(lambda v: 2.0, x))


# ----- arrays -----------------------------------------------------------------------

def sum_sin_times_x(x):
    return np.sum(np.sin(x) * x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_sin_times_x(dtype):
    g = ad.compile(sum_sin_times_x)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal(10).astype(dtype)
        assert same(g(x), ad.gradient(sum_sin_times_x, x))
    x = rng.standard_normal((2, 3)).astype(dtype)            # another shape: another program
    assert same(g(x), ad.gradient(sum_sin_times_x, x))
    assert n_programs(g) == 2


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=12))
def test_array_programs_agree_with_the_engines(values):
    x = np.array(values)

    def f(v):
        return np.mean(np.tanh(v) ** 2 - v / (1.0 + v * v)) + np.sum(np.exp(-v))
    assert same(ad.compile(f)(x), ad.gradient(f, x))


def tanh_network():
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((10, 8)), rng.standard_normal((10, 1))
    params = (rng.standard_normal((8, 32)), rng.standard_normal(32), rng.standard_normal((32, 1)),
              rng.standard_normal(1))

    def loss(W1, b1, W2, b2):
        return np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
    return loss, params


def test_the_tanh_network():
    loss, params = tanh_network()
    g = ad.compile(loss, argnums=(0, 1, 2, 3))
    for k in range(3):
        p = tuple(w * (1 + 0.1 * k) for w in params)
        assert same(g(*p), ad.gradient(loss, *p))


def test_complex_arrays():
    def f(z):
        return np.sum(np.abs(np.sin(z) * z) ** 2)
    z = np.array([1.0 + 1.0j, -0.5 + 2.0j, 0.25j])
    assert same(ad.compile(f)(z), ad.gradient(f, z))


def test_array_branches_are_guarded():
    def f(x):
        if np.sum(x) > 0:
            return np.sum(x * x)
        return np.sum(np.sin(x))
    g = ad.compile(f)
    for x in (np.ones(3), -np.ones(3), np.arange(3.0)):
        assert same(g(x), ad.gradient(f, x))
    assert n_programs(g) == 2


def test_a_mask_is_guarded_by_its_elements():
    def f(x):
        return np.sum(np.where(x > 0, x, 0.0) ** 2)
    g = ad.compile(f)
    for x in (np.array([1.0, -1.0]), np.array([-1.0, 2.0]), np.array([3.0, -4.0])):
        assert same(g(x), ad.gradient(f, x))
    assert n_programs(g) == 2


# ----- closed-over values -------------------------------------------------------------

def test_a_mutated_closed_over_array_gives_fresh_results():
    W = np.array([1.0, 2.0, 3.0])

    def f(x):
        return np.sum(np.sin(x) * (W * 2.0))       # W * 2.0 is computed from W on each call
    g = ad.compile(f)
    x = np.array([0.1, 0.2, 0.3])
    first = g(x)
    W[:] = [4.0, 5.0, 6.0]
    assert same(g(x), ad.gradient(f, x)) and not same(g(x), first)


def test_a_rebound_closed_over_value_gives_fresh_results():
    c = 2.0
    W = np.ones(2)

    def f(x):
        return np.sum(x * W) * c + math.sqrt(c) * np.sum(x)
    g = ad.compile(f)
    x = np.array([1.0, 2.0])
    g(x)
    c = 3.0
    assert same(g(x), ad.gradient(f, x))
    W = np.ones(3)          # another shape: another signature
    x = np.arange(3.0)
    assert same(g(x), ad.gradient(f, x))


def test_a_closed_over_int_is_part_of_the_signature():
    n = 2

    def f(x):
        return x ** n
    g = ad.compile(f)
    assert g(3.0) == 6.0
    n = 3
    assert g(3.0) == 27.0


# ----- the cache, fallbacks, errors ------------------------------------------------------

def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(cm, "CACHE_SIZE", 4)

    def f(x):
        return x * int(x)
    g = ad.compile(f)
    for k in range(10):
        assert same(g(k + 0.5), ad.gradient(f, k + 0.5))
    assert n_programs(g) == 4
    assert same(g(9.5), ad.gradient(f, 9.5))


def test_what_cannot_be_recorded_falls_back_with_one_warning():
    def f(x):
        a, b = np.linalg.slogdet(np.diag(x))         # a tuple output
        return b * 2.0
    g = ad.compile(f)
    x = np.array([1.0, 2.0])
    with pytest.warns(RuntimeWarning, match="cannot record .*slogdet") as record:
        assert same(g(x), ad.gradient(f, x))
    assert record[0].filename == __file__          # points at the call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert same(g(x * 2), ad.gradient(f, x * 2))


def test_inside_another_differentiation_the_ordinary_engine_nests():
    g = ad.compile(lambda x: x * x * x)
    assert ad.derivative(g, 2.0) == 12.0
    assert ad.gradient(g, 2.0) == 12.0


def test_output_type_errors_are_the_engines():
    g = ad.compile(lambda x: x * np.ones(2))
    with pytest.raises(TypeError, match="array of shape"):
        g(1.0)
    with pytest.raises(TypeError, match="complex"):
        ad.compile(lambda x: x * 1j)(1.0)


def test_a_rule_registered_later_is_used():
    def mysin(x):
        return np.sin(x)

    @cr.register_rrule(mysin)
    def mysin_rrule(x):
        def mysin_pullback(ȳ):
            return cr.NoTangent(), ȳ * np.cos(x)
        return np.sin(x), mysin_pullback

    w = ad.wrap(mysin)

    def f(x):
        return np.sum(w(x))
    g = ad.compile(f)
    x = np.array([0.5, 1.0])
    assert same(g(x), np.cos(x))

    @cr.register_rrule(mysin, np.ndarray)
    def mysin_rrule_2(x):                       # a deliberately different rule
        def mysin_pullback_2(ȳ):
            return cr.NoTangent(), ȳ * 2.0 * np.cos(x)
        return np.sin(x), mysin_pullback_2

    assert same(g(x), ad.gradient(f, x)) and same(g(x), 2.0 * np.cos(x))


def test_the_compiled_function_keeps_fs_name_and_doc():
    g = ad.compile(foo)
    assert g.__name__ == "foo" and g.__wrapped__ is foo and "compile(" in repr(g)


def test_bad_arguments():
    with pytest.raises(TypeError, match="callable"):
        ad.compile(3.0)
    with pytest.raises(ValueError, match="mode"):
        ad.compile(foo, mode="sideways")
    with pytest.raises(TypeError, match="argnums"):
        ad.compile(foo, argnums="0")
    with pytest.raises(TypeError, match="forward mode"):
        ad.compile(foo, mode="forward", argnums=(0, 1))
    with pytest.raises(ValueError, match="repeated"):
        ad.compile(foo, argnums=(0, 0))
    with pytest.raises(TypeError, match="argnums=1 but the call has 1 positional argument"):
        ad.compile(foo, argnums=1)(3.0)
    with pytest.raises(TypeError, match="x must be a real or complex scalar"):
        ad.compile(sum_sin_times_x, mode="forward")(np.ones(3))


def test_a_traced_value_that_escapes_is_reported():
    kept = []

    def f(x):
        kept.append(x)
        return x * 2.0
    ad.compile(f)(1.0)
    with pytest.raises(cr.ad.EscapedTrackedValueError):
        kept[0] * 2.0


def test_forward_mode_with_an_array_output():
    def f(x):
        return np.sin(x * np.arange(3.0)) + x ** 2
    d = ad.compile(f, mode="forward")
    for x in (0.5, -1.25, 0.5):
        assert same(d(x), ad.derivative(f, x))


def test_a_compiled_function_inside_a_compiled_function():
    inner = ad.compile(foo)

    def f(x):
        return inner(x) * x
    outer = ad.compile(f)
    for x in (0.5, 0.25, -0.3):
        assert same(outer(x), ad.gradient(lambda v: ad.gradient(foo, v) * v, x))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 3), st.floats(-30, 30))
def test_sums_and_means_done_in_c_are_numpys_to_the_bit(n, rows, scale):
    x = np.random.default_rng(n).standard_normal((rows, n)) * np.exp(scale)

    def f(v):
        return np.sin(np.sum(v * v)) * np.mean(v) + np.sum(v) ** 2
    assert same(ad.compile(f)(x), ad.gradient(f, x))
    assert same(ad.compile(f)(x[0]), ad.gradient(f, x[0]))


# ----- a zero cotangent on a scalar step of a mixed program ---------------------------
# The tape skips a scalar node (a C-table row on Python floats) whose cotangent
# is 0.0, so an infinite partial there gives 0, not 0·inf = NaN; the replay of a
# program with arrays skips it too.  NumPy functions on floats are recorded as
# the generic engine's rules, which do run on a zero cotangent (NaN): the replay
# agrees with ad.gradient both ways.

_INF_PARTIAL = [                     # (function, a point where its partial is infinite)
    (math.sqrt, 0.0), (math.asin, 1.0), (math.acos, -1.0), (math.atanh, 1.0 - 2.0 ** -53),
    (lambda t: t ** 0.5, 0.0), (np.sqrt, 0.0), (np.arcsin, 1.0),
]
_ZEROED = [                          # the scalar s reaches the output with a zero cotangent
    lambda v, s: np.sum(v * v) + s * 0.0,
    lambda v, s: np.sum(v * v) + 0.0 * s + 1.0,
    lambda v, s: np.sum(v * (s * 0.0)),
    lambda v, s: np.sum(v * 0.0 * s) + np.sum(v),
    lambda v, s: np.sum(np.zeros(3) * s) + np.sum(np.sin(v)),
    lambda v, s: np.sum(v) + (s - s),
    lambda v, s: (np.sum(v), s)[0],          # s does not reach the output at all
]


def _mixed(k, j):
    fn, at = _INF_PARTIAL[k]
    body = _ZEROED[j]
    return (lambda v, t: body(v, fn(t + at))), 0.0


@settings(max_examples=80, deadline=None)
@given(st.integers(0, len(_INF_PARTIAL) - 1), st.integers(0, len(_ZEROED) - 1),
       st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3))
def test_a_zero_cotangent_on_a_scalar_step_replays_as_the_tape(k, j, xs):
    f, t = _mixed(k, j)
    x = np.array(xs)
    g = ad.compile(f, argnums=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = ad.gradient(f, x, t)
        got = [g(x, t), g(x, t)]            # the recording's run, then a replay
    assert same(got[0], want) and same(got[1], want)
    assert n_programs(g) == 1


def test_zero_cotangents_zero_for_math_nan_for_numpy_functions():
    def f(use_np):
        root = np.sqrt if use_np else math.sqrt
        return lambda v, t: np.sum(v * v) + root(t) * 0.0 + t
    x = np.array([0.5, 1.0])
    for use_np, dt in ((False, 1.0), (True, float("nan"))):
        g = ad.compile(f(use_np), argnums=(0, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for _ in range(2):
                gx, gt = g(x, 0.0)
                assert np.array_equal(gx, [1.0, 2.0]) and same(gt, dt)
        assert next(iter(g.slow.cache.values()))[0].scalar is None     # the replay, not the C program
