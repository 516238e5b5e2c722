"""chainrules.ad.checkpoint: the values and derivatives of the function, to
every order and in every mode, closures over differentiated values included;
the reverse pass really recomputes (the function runs again in the backward
pass, and a chain of checkpointed segments needs a fraction of the memory)."""

import random
import tracemalloc
import warnings

import numpy as np
import pytest

from chainrules import ad
from chainrules.finite_differences import central_fdm, grad as fd_grad
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
X = np.linspace(-0.7, 0.9, 6)
V = np.linspace(1.0, -0.5, 6)


def layer(x):
    return np.tanh(np.sin(x) * 1.5 + x * x)


def twice(g, x):
    return np.sum(g(g(x)) * x)


CP = ad.checkpoint(layer)


@pytest.mark.parametrize("op", ["gradient", "jvp", "hvp", "hessian", "reverse_over_reverse", "jacobian_forward"])
def test_the_derivatives_are_the_functions(op):
    f_plain = lambda x: twice(layer, x)        # noqa: E731
    f_cp = lambda x: twice(CP, x)              # noqa: E731
    run = {
        "gradient": lambda f: ad.gradient(f, X),
        "jvp": lambda f: ad.jvp(f, (X,), (V,)),
        "hvp": lambda f: ad.hvp(f, X, V),
        "hessian": lambda f: ad.hessian(f, X),
        "reverse_over_reverse": lambda f: ad.gradient(lambda z: ad.gradient(f, z) @ V, X),
        "jacobian_forward": lambda f: ad.jacobian(lambda z: CP(z) if f is f_cp else layer(z), X, mode="forward"),
    }[op]
    test_approx(run(f_cp), run(f_plain), rtol=1e-13, atol=1e-13)


def test_against_finite_differences_and_on_floats():
    test_approx(ad.gradient(lambda x: twice(CP, x), X), fd_grad(FDM, lambda x: twice(layer, x), X)[0],
                rtol=1e-8, atol=1e-9)
    s = ad.checkpoint(lambda t: np.sin(t) * t)
    assert ad.gradient(lambda t: s(s(t)), 0.3) == pytest.approx(
        fd_grad(FDM, lambda t: np.sin(np.sin(t) * t) * (np.sin(t) * t), 0.3)[0], rel=1e-9)
    assert ad.derivative(lambda t: s(t), 0.3) == pytest.approx(np.cos(0.3) * 0.3 + np.sin(0.3), rel=1e-14)


def test_closures_over_differentiated_values_get_their_cotangents():
    x = X

    def h(w):
        seg = ad.checkpoint(lambda z: np.sin(z * w) + w)
        return np.sum(seg(x) * w)

    def h_plain(w):
        return np.sum((np.sin(x * w) + w) * w)
    assert ad.gradient(h, 1.3) == pytest.approx(ad.gradient(h_plain, 1.3), rel=1e-14)
    assert ad.hessian(h, 1.3) == pytest.approx(ad.hessian(h_plain, 1.3), rel=1e-13)
    assert ad.gradient(h, 1.3) == pytest.approx(fd_grad(FDM, h_plain, 1.3)[0], rel=1e-9)


def test_several_arguments_keywords_and_tuple_outputs():
    seg = ad.checkpoint(lambda a, b, scale=1.0: (np.sin(a) * b * scale, a - b))

    def f(a, b):
        p, q = seg(a, b, scale=2.0)
        return np.sum(p * q)

    def f_plain(a, b):
        return np.sum(np.sin(a) * b * 2.0 * (a - b))
    b = V[::-1].copy()
    ga, gb = ad.gradient(f, X, b)
    pa, pb = ad.gradient(f_plain, X, b)
    test_approx(ga, pa, rtol=1e-14, atol=1e-15)
    test_approx(gb, pb, rtol=1e-14, atol=1e-15)


def test_the_backward_pass_recomputes():
    calls = []     # (of strings: a closure's numbers are differentiated, its list copied)

    def counted(x):
        calls.append("call")
        return np.sin(x) * x
    seg = ad.checkpoint(counted)
    assert np.array_equal(seg(X), np.sin(X) * X)            # plain values: the function
    calls.clear()
    ad.gradient(lambda x: np.sum(seg(x)), X)
    assert len(calls) == 2                                  # forward, and again in the backward pass
    calls.clear()
    ad.jvp(lambda x: np.sum(seg(x)), (X,), (V,))
    assert len(calls) == 1                                  # forward mode keeps nothing: no recomputation
    calls.clear()
    omega, pullback = ad.vjp(lambda x: seg(x), X)
    assert len(calls) == 1
    pullback(np.ones(6))
    pullback(np.ones(6))
    assert len(calls) == 3                                  # each backward pass recomputes


def test_a_chain_of_checkpointed_segments_needs_a_fraction_of_the_memory():
    def segment(x):
        for _ in range(20):
            x = np.sin(x) * 1.01
        return x
    seg = ad.checkpoint(segment)

    def chain(g):
        def f(x):
            for _ in range(4):
                x = g(x)
            return np.sum(x)
        return f
    x = np.linspace(0.0, 1.0, 50_000)
    peaks = {}
    for name, g in [("plain", segment), ("checkpointed", seg)]:
        f = chain(g)
        ad.gradient(f, x)
        tracemalloc.start()
        try:
            grad = ad.gradient(f, x)
            peaks[name] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        peaks[name + " gradient"] = grad
    assert np.array_equal(peaks["plain gradient"], peaks["checkpointed gradient"])
    # 80 intermediate arrays of 400 kB kept, against 4 outputs plus one segment's 20
    assert peaks["checkpointed"] < 0.4 * peaks["plain"], peaks


def test_compiled_and_through_autograd_s_name():
    from chainrules.ad import autograd as cag
    want = ad.gradient(lambda x: twice(layer, x), X)
    df = ad.compile(lambda x: twice(CP, x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # recorded (no fallback to the engine)
        for _ in range(3):                                  # recorded once, then replayed
            test_approx(df(X), want, rtol=1e-13, atol=1e-13)
    calls = []

    def counted(x):
        calls.append("call")
        return layer(x)
    seg = ad.checkpoint(counted)
    dg = ad.compile(lambda x: np.sum(seg(x)))
    dg(X)
    calls.clear()
    test_approx(dg(X), ad.gradient(lambda x: np.sum(layer(x)), X), rtol=1e-13, atol=1e-13)
    assert len(calls) == 2                                  # a replay recomputes too
    test_approx(cag.grad(lambda x: twice(cag.checkpoint(layer), x))(X), want, rtol=1e-13, atol=1e-13)


def dropout(x):
    """Dropout drawing its mask from NumPy's global generator and from `random`'s."""
    keep = np.random.binomial(1, 0.6, size=np.shape(x)) * np.array([random.random() < 0.8 for _ in X])
    return np.tanh(x) * keep / 0.48


def _seeded(f, x, seed=7):
    np.random.seed(seed)
    random.seed(seed)
    return f(x), np.random.random(), random.random()


@pytest.mark.parametrize("run", ["gradient", "vjp twice", "hvp"])
def test_a_checkpointed_dropout_keeps_its_mask(run):
    def loss(g):
        return lambda x: np.sum(g(x) * x)
    diff = {
        "gradient": lambda f, x: ad.gradient(f, x),
        "vjp twice": lambda f, x: (lambda pb: (pb(1.0)[0], pb(1.0)[0]))(ad.vjp(f, x)[1]),
        "hvp": lambda f, x: ad.hvp(f, x, V),
    }[run]
    # the same seed: the same gradient, and the generators end where they would
    # without checkpointing (the recomputation leaves them as it found them)
    want, np_next, py_next = _seeded(lambda x: diff(loss(dropout), x), X)
    got, np_after, py_after = _seeded(lambda x: diff(loss(ad.checkpoint(dropout)), x), X)
    for g in (got if run == "vjp twice" else (got,)):
        test_approx(g, want[0] if run == "vjp twice" else want, rtol=1e-14, atol=1e-15)
    assert (np_after, py_after) == (np_next, py_next)
    if run == "gradient":
        # without the states the recomputation draws another mask: another gradient
        other, _, _ = _seeded(lambda x: diff(loss(ad.checkpoint(dropout, preserve_rng_state=False)), x), X)
        assert not np.allclose(other, want)


def test_bad_input():
    with pytest.raises(TypeError, match="checkpoint: f must be callable, got int"):
        ad.checkpoint(3)  # type: ignore[arg-type]
    seg = ad.checkpoint(layer)
    assert seg.__name__ == "layer" and seg.__wrapped__ is layer
    with pytest.raises(TypeError, match="checkpoint: preserve_rng_state must be True or False, got int"):
        ad.checkpoint(layer, preserve_rng_state=1)  # type: ignore[arg-type]
