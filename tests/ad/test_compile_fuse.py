"""chainrules.ad.compile's lowering pass (chainrules/ad/_compile_fuse.py): a
reverse-mode program of array operations is replayed as one straight-line
function of NumPy calls; its values are ad.gradient's to the bit (float64 and
float32, broadcasting of several shapes, x ** p with zeros in x), and what it
does not take (a vector matmul, complex programs, a rule registered after the
recording) is the generic replay's."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import chainrules as cr
from chainrules import ad
from ._compile_checks import replays_raise  # noqa: F401  (an autouse fixture)
from ._compile_checks import same as _same


def same(a, b):
    """Equal to the bit, signs of zeros included."""
    return _same(a, b, signs=True)


def programs(g):
    return [prog for _, prog in g.slow.order]


def network(dtype, batch=10, seed=1):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((batch, 8)).astype(dtype), rng.standard_normal((batch, 1)).astype(dtype)
    params = tuple(a.astype(dtype) for a in (rng.standard_normal((8, 32)), rng.standard_normal(32),
                                             rng.standard_normal((32, 1)), rng.standard_normal(1)))

    def loss(W1, b1, W2, b2):
        return np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
    return loss, params, X


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_tanh_network_is_lowered_and_agrees_to_the_bit(dtype):
    loss, params, X = network(dtype)
    g = ad.compile(loss, argnums=(0, 1, 2, 3))
    for k in range(4):
        p = tuple(w * dtype(1 + 0.25 * k) for w in params)
        assert same(g(*p), ad.gradient(loss, *p))
    X *= 2.0                                  # a closed-over array changed in place: fresh values
    assert same(g(*params), ad.gradient(loss, *params))
    (prog,) = programs(g)
    assert prog.fused is not None and "@" in prog.fused.source
    assert "_add_reduce(" in prog.fused.source      # the biases' unbroadcast, axes fixed


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3, 4), (1, 4), (3, 1), (1, 1), (4,), (1,)]),
       st.sampled_from([np.float64, np.float32]), st.integers(0, 2 ** 16))
def test_broadcasting_of_several_shapes(bshape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 4)).astype(dtype)
    b = rng.standard_normal(bshape).astype(dtype)

    def f(x, b):
        u = np.tanh(x + b) * x - b / (2.0 + x * x)
        return np.mean(np.sin(u) - np.exp(b * 0.5) * u + u ** 2)

    def f2(x, b):                   # a sum of two reductions: a rule on NumPy scalars, called
        return f(x, b) + np.sum(x * b)
    for fn in (f, f2):
        g = ad.compile(fn, argnums=(0, 1))
        for k in range(2):
            xs, bs = x * dtype(1 + k), b - dtype(k)
            assert same(g(xs, bs), ad.gradient(fn, xs, bs))
        # (float32: the scalar rule's cotangents are float64, which the lowering does not take)
        assert programs(g)[0].fused is not None or (fn is f2 and dtype is np.float32)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 0.5, -2.0, 3.25, np.inf, -np.inf, np.nan, 1e-300]),
                min_size=4, max_size=4),
       st.sampled_from([2, 3, 0.5, 2.0, -1, 1.5]), st.sampled_from([np.float64, np.float32]),
       st.sampled_from(["sum", "mean", "times"]))
def test_powers_and_tanh_with_zeros_infinities_and_nans(values, p, dtype, reduce):
    # tanh(0) = 0: zeros in the base of the power (its own function there); the
    # mean's cotangent is a broadcast scalar, the product's an array: the C
    # loops of tanh's and the power's pullbacks on float64, NumPy's on float32
    x = np.array(values, dtype=dtype)
    w = np.linspace(0.5, 2.0, 4).astype(dtype)

    def f(v):
        t = np.tanh(v) ** p
        return np.sum(t) if reduce == "sum" else np.mean(t) if reduce == "mean" else np.sum(t * w)
    g = ad.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = ad.gradient(f, x)
        got = [g(x), g(x.copy())]
    assert same(got[0], want) and same(got[1], want)
    assert programs(g)[0].fused is not None


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2 ** 16))
def test_the_c_loops_agree_with_numpy_on_random_values(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * np.exp(rng.uniform(-30, 5, n))

    def f(v):
        return np.mean(np.tanh(v * 3.0) ** 2)
    g = ad.compile(f)
    assert same(g(x), ad.gradient(f, x))
    assert same(g(x[::-1].copy()), ad.gradient(f, x[::-1].copy()))
    assert "_k_tanh(" in programs(g)[0].fused.source and "_k_power(" in programs(g)[0].fused.source


def test_a_vector_matmul_is_not_lowered_and_replays_generically():
    rng = np.random.default_rng(3)
    A, v = rng.standard_normal((4, 3)), rng.standard_normal(3)

    def f(v):
        return np.sum(np.tanh(A @ v) ** 2)
    g = ad.compile(f)
    for k in range(3):
        assert same(g(v + k), ad.gradient(f, v + k))
    (prog,) = programs(g)
    assert prog.fused is None


def test_mixed_dtypes_agree():
    rng = np.random.default_rng(4)
    W = rng.standard_normal((3, 2)).astype(np.float32)

    def f(x):
        return np.sum(np.tanh(x @ W) * 2.0)
    g = ad.compile(f)
    x = rng.standard_normal((5, 3))             # float64 @ float32: float64, projected to x's dtype
    for k in range(2):
        assert same(g(x * (k + 1)), ad.gradient(f, x * (k + 1)))


def test_complex_programs_agree():
    rng = np.random.default_rng(5)
    W, V = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)) for _ in range(2))

    def f(z):           # complex matmul, tanh, add; |.| (not lowered) makes the output real
        return np.sum(np.abs(np.tanh(z @ W) + (z @ V) * 0.5) ** 2)
    g = ad.compile(f)
    z = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    for k in range(2):
        assert same(g(z * (k + 1)), ad.gradient(f, z * (k + 1)))


class _Sub(np.ndarray):
    """A class only the rule registered below is for."""


def test_a_registration_after_the_recording_sends_the_replay_to_dispatch():
    def f(x):
        return np.sum(np.tanh(x) * x)
    g = ad.compile(f)
    x = np.linspace(-1.0, 1.0, 5)
    assert same(g(x), ad.gradient(f, x))
    (prog,) = programs(g)
    assert prog.fused is not None and prog.fused((x,)) is not cm_miss()

    @cr.register_rrule(np.tanh, _Sub)
    def tanh_of_sub_rrule(x):                   # changes np.tanh's rule table
        return np.tanh(np.asarray(x)), lambda ȳ: (cr.NoTangent(), ȳ)

    assert prog.fused((x,)) is cm_miss()        # the lowered function declines ...
    assert same(g(x), ad.gradient(f, x))        # ... and the generic replay dispatches


def cm_miss():
    from chainrules._core import _compile_miss
    return _compile_miss()


def test_the_fast_entry_of_several_arrays_rechecks_arguments_and_closure():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((4, 3))

    def loss(W, b):
        return np.mean(np.tanh(X @ W + b) ** 2)
    g = ad.compile(loss, argnums=(0, 1))
    W, b = rng.standard_normal((3, 2)), rng.standard_normal(2)
    for _ in range(2):
        assert same(g(W, b), ad.gradient(loss, W, b))
    assert g.last_multi is not None
    X = rng.standard_normal((6, 3))             # rebound to another shape: another program
    assert same(g(W, b), ad.gradient(loss, W, b))
    X = X[:, ::-1] * 1.0                        # same shape, another array: read afresh
    assert same(g(W, b), ad.gradient(loss, W, b))
    W32 = W.astype(np.float32)                  # another dtype: another program
    assert same(g(W32, b), ad.gradient(loss, W32, b))
    assert same(g(W, b[:1]), ad.gradient(loss, W, b[:1]))
    assert same(g(W, b, *()), g(W, b))
    assert len(programs(g)) == 4
    with pytest.raises(TypeError):
        g(W)                                    # argnums=(0, 1) and one argument


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_mean_of_an_input_and_of_a_step(dtype):
    x = np.linspace(-1.0, 2.0, 6).astype(dtype).reshape(2, 3)
    for f in (lambda v: np.mean(v), lambda v: np.mean(np.tanh(v)), lambda v: np.sum(v * v)):
        g = ad.compile(f)
        got = [g(x), g(x * dtype(2))]
        assert same(got[0], ad.gradient(f, x)) and same(got[1], ad.gradient(f, x * dtype(2)))
        assert programs(g)[0].fused is not None


def test_guards_are_checked_in_the_lowered_function():
    def f(x):
        if np.sum(x) > 0:
            return np.sum(x * x)
        return np.sum(np.sin(x))
    g = ad.compile(f)
    for x in (np.ones(3), -np.ones(3), np.arange(3.0), -np.arange(3.0) - 1.0):
        assert same(g(x), ad.gradient(f, x))
    progs = programs(g)
    assert len(progs) == 2 and all(p.fused is not None and "_guard_same(" in p.fused.source for p in progs)
    assert progs[0].fused((-np.ones(3),)) is cm_miss()       # the other branch: not this program


@settings(max_examples=30, deadline=None)
@given(st.floats(-2.0, 2.0, allow_nan=False), st.sampled_from([0.0, -0.0, 0.1, 3.0]), st.integers(0, 2 ** 16))
def test_a_regularised_loss_with_steps_on_numpy_scalars(scale, lam, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 3))

    def loss(W):
        return np.mean(np.tanh(X @ W) ** 2) + lam * np.sum(W * W) - np.sum(W) * np.mean(W)
    g = ad.compile(loss)
    W = rng.standard_normal((3, 2)) * scale
    for k in range(2):
        assert same(g(W * (k + 1)), ad.gradient(loss, W * (k + 1)))
    assert programs(g)[0].fused is not None

