"""The rest of autograd's front door: chainrules.ad.autograd.misc (flatten, the
optimizers, fixed_point), chainrules.ad.scipy.signal's convolve (autograd's
generalized convolution) and chainrules.ad.scipy.integrate (odeint and quad with
tracked `args`), each against autograd's own function on the same program and
against finite differences."""

import numpy as onp
import pytest

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402
import autograd.scipy.signal as asignal  # noqa: E402
from autograd.misc import flatten as a_flatten  # noqa: E402
from autograd.misc import optimizers as a_optimizers  # noqa: E402
from autograd.misc.fixed_points import fixed_point as a_fixed_point  # noqa: E402

import chainrules.ad.numpy as cnp  # noqa: E402
from chainrules import ad  # noqa: E402
from chainrules.ad.autograd import grad, hessian  # noqa: E402
from chainrules.ad.autograd.misc import flatten, flatten_func, optimizers  # noqa: E402
from chainrules.ad.autograd.misc.fixed_points import fixed_point  # noqa: E402
from chainrules.ad.scipy import integrate as cintegrate  # noqa: E402
from chainrules.ad.scipy import signal as csignal  # noqa: E402

rng = onp.random.default_rng(7)


def _fd(f, x, h=1e-6):
    x = onp.asarray(x, dtype=float)
    g = onp.zeros_like(x)
    for i in onp.ndindex(x.shape):
        e = onp.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


# ----- flatten ------------------------------------------------------------------------------

def test_flatten_is_autograds_and_unflatten_rebuilds_the_nesting():
    value = {"b": onp.arange(3.0), "a": (1.5, onp.ones((2, 2)), [onp.float64(2.0), onp.zeros(0)]), "c": []}
    flat, unflatten = flatten(value)
    theirs, _ = a_flatten(value)
    onp.testing.assert_array_equal(flat, theirs)
    back = unflatten(flat)
    assert sorted(back) == ["a", "b", "c"] and type(back["a"]) is tuple and type(back["a"][2]) is list
    onp.testing.assert_array_equal(back["b"], value["b"])
    assert onp.ndim(back["a"][0]) == 0 and back["a"][0] == 1.5
    assert back["a"][1].shape == (2, 2) and back["a"][2][1].shape == (0,) and back["c"] == []
    empty, unflatten_empty = flatten(())
    assert empty.shape == (0,) and unflatten_empty(empty) == ()
    with pytest.raises(ValueError, match="unflatten expects a 1-D array of 9 values"):
        unflatten(onp.zeros(3))


def test_flatten_and_unflatten_are_differentiable():
    value = {"w": onp.array([[0.5, -1.0], [2.0, 0.3]]), "b": 0.7}
    flat, unflatten = flatten(value)

    def loss(v):
        p = unflatten(v)
        return cnp.sum(cnp.sin(p["w"]) * p["b"]) + p["b"] ** 3
    onp.testing.assert_allclose(grad(loss)(flat), _fd(loss, flat), rtol=1e-7)
    # flatten inside the differentiated function: the gradient of a structured output's sum of squares
    f, unflatten_f, x0 = flatten_func(lambda p, s: {"u": cnp.tanh(p["w"]) * s, "v": p["b"] * s}, value)
    g = grad(lambda v: cnp.sum(f(v, 2.0) ** 2))(x0)
    onp.testing.assert_allclose(g, _fd(lambda v: onp.sum(f(v, 2.0) ** 2), x0), rtol=1e-7)
    assert set(unflatten_f(x0)) == {"w", "b"}


# ----- the optimizers -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sgd", "rmsprop", "adam"])
def test_the_optimizers_take_autograds_steps_on_nested_parameters(name):
    def objective(p, i):
        return anp.sum((p["w"] - 3.0) ** 2) + (p["b"][0] + 1.0) ** 2 * (1 + 0.01 * i)
    seen = []
    p0 = {"w": onp.zeros(3), "b": [0.5]}
    ours = getattr(optimizers, name)(grad(objective), p0, callback=lambda x, i, g: seen.append((i, g)),
                                     num_iters=40, step_size=0.05)
    theirs = getattr(a_optimizers, name)(autograd.grad(objective), p0, num_iters=40, step_size=0.05)
    onp.testing.assert_allclose(ours["w"], theirs["w"], rtol=1e-12)
    onp.testing.assert_allclose(ours["b"][0], theirs["b"][0], rtol=1e-12)
    assert [i for i, _ in seen] == list(range(40)) and set(seen[0][1]) == {"w", "b"}


def test_an_optimization_is_differentiable_in_its_step_size():
    def final_loss(step):
        x = optimizers.sgd(lambda p, i: 2 * (p - 1.0), onp.zeros(2), num_iters=5, step_size=step)
        return cnp.sum((x - 1.0) ** 2)
    onp.testing.assert_allclose(grad(final_loss)(0.1), _fd(final_loss, 0.1), rtol=1e-6)


# ----- fixed_point --------------------------------------------------------------------------

def _newton_sqrt(np_):
    return lambda a: lambda x: 0.5 * (x + a / x)


def _distance(x, y):
    return onp.max(onp.abs(onp.asarray(x) - onp.asarray(y)))


def test_fixed_point_gradients_at_every_order():
    a = 2.0
    ours = fixed_point(_newton_sqrt(cnp), a, 1.0, _distance, 1e-12)
    assert abs(ours - onp.sqrt(a)) < 1e-14
    theirs = autograd.grad(lambda a: a_fixed_point(_newton_sqrt(anp), a, 1.0, _distance, 1e-12))(a)
    f = lambda a: fixed_point(_newton_sqrt(cnp), a, 1.0, _distance, 1e-12)  # noqa: E731
    for got in (grad(f)(a), ad.derivative(f, a), ad.gradient(f, a)):
        onp.testing.assert_allclose(got, theirs, rtol=1e-12)
        onp.testing.assert_allclose(got, 0.5 / onp.sqrt(a), rtol=1e-12)
    # second and third derivatives of √a: -a^(-3/2)/4, 3a^(-5/2)/8
    onp.testing.assert_allclose(ad.derivative(lambda b: ad.derivative(f, b), a), -0.25 * a ** -1.5, rtol=1e-9)
    onp.testing.assert_allclose(grad(grad(f))(a), -0.25 * a ** -1.5, rtol=1e-9)
    onp.testing.assert_allclose(grad(grad(grad(f)))(a), 0.375 * a ** -2.5, rtol=1e-7)


def test_fixed_point_of_a_vector_in_a_matrix_parameter():
    # x = A x + c with ‖A‖ < 1: x* = (I - A)⁻¹ c; a = (A, c) as a tuple of arrays
    A = 0.3 * rng.uniform(-1, 1, (3, 3))
    c = rng.uniform(-1, 1, 3)

    def solve(A, c):
        return fixed_point(lambda p: lambda x: cnp.dot(p[0], x) + p[1], (A, c), onp.zeros(3), _distance, 1e-14)
    onp.testing.assert_allclose(solve(A, c), onp.linalg.solve(onp.eye(3) - A, c), rtol=1e-12)
    w = rng.uniform(-1, 1, 3)
    for argnum, x in ((0, A), (1, c)):
        loss = (lambda M: cnp.dot(w, solve(M, c))) if argnum == 0 else (lambda v: cnp.dot(w, solve(A, v)))
        exact = (lambda M: onp.dot(w, onp.linalg.solve(onp.eye(3) - M, c))) if argnum == 0 else \
            (lambda v: onp.dot(w, onp.linalg.solve(onp.eye(3) - A, v)))
        onp.testing.assert_allclose(grad(loss)(x), _fd(exact, x), rtol=1e-7, atol=1e-10)
        onp.testing.assert_allclose(ad.jvp(loss, (x,), (onp.ones_like(x),))[1], onp.sum(_fd(exact, x)),
                                    rtol=1e-7)


def test_fixed_point_that_does_not_converge_is_an_error():
    with pytest.raises(RuntimeError, match="fixed_point: the fixed-point iteration did not reach"):
        fixed_point(lambda a: lambda x: x + a, 1.0, 0.0, _distance, 1e-3)


# ----- convolve (autograd.scipy.signal's) ----------------------------------------------------

CONV = [  # (A's shape, B's shape, axes, dot_axes)
    ((5,), (3,), None, ((), ())), ((3,), (5,), None, ((), ())), ((4, 5), (2, 3), None, ((), ())),
    ((2, 6), (3, 2), None, ((), ())),
    ((3, 4, 5), (5, 2, 3, 6), ([1], [3]), ([2], [0])), ((3, 4, 5), (5, 2, 3, 6), ([0, 1], [2, 3]), ([], [])),
    ((2, 7), (3, 2), ([1], [0]), ([0], [1])),
]


def test_convolve_is_autograds_in_every_mode_and_its_gradients_too():
    failures = []
    for mode in ("full", "same", "valid"):
        for sa, sb, axes, dot in CONV:
            A, B = rng.normal(size=sa), rng.normal(size=sb)
            kw = dict(axes=axes, dot_axes=dot, mode=mode)
            try:
                theirs = asignal.convolve(A, B, **kw)
            except Exception:  # noqa: BLE001 - autograd refuses ('valid' with mixed lengths): so must we
                with pytest.raises(ValueError):
                    csignal.convolve(A, B, **kw)
                continue
            ours = csignal.convolve(A, B, **kw)
            if ours.shape != theirs.shape or not onp.allclose(ours, theirs, rtol=1e-12, atol=1e-12):
                failures.append(f"{mode} {sa} {sb} {axes}: values")
                continue
            for argnum in (0, 1):
                g1 = autograd.grad(lambda a, b: anp.sum(anp.sin(asignal.convolve(a, b, **kw))), argnum)(A, B)
                g2 = grad(lambda a, b: cnp.sum(cnp.sin(csignal.convolve(a, b, **kw))), argnum)(A, B)
                if not onp.allclose(g1, g2, rtol=1e-10, atol=1e-12):
                    failures.append(f"{mode} {sa} {sb} {axes}: gradient in argument {argnum}")
    assert not failures, failures


def test_convolve_second_order_and_scipy_defaults():
    a, b = rng.normal(size=5), rng.normal(size=3)
    for mode in ("full", "same", "valid"):
        onp.testing.assert_allclose(csignal.convolve(a, b, mode=mode),
                                    csignal.scipy_convolve(a, b, mode=mode), rtol=1e-12, atol=1e-14)
        h1 = autograd.hessian(lambda x: anp.sum(anp.sin(asignal.convolve(x, b, mode=mode))))(a)
        h2 = hessian(lambda x: cnp.sum(cnp.sin(csignal.convolve(x, b, mode=mode))))(a)
        onp.testing.assert_allclose(h2, h1, rtol=1e-10, atol=1e-12)
    # SciPy's own functions with rules are there too, and differentiable
    g = ad.gradient(lambda x: cnp.sum(csignal.lfilter([1.0, 0.5], [1.0, -0.2], x) ** 2), a)
    assert g.shape == a.shape and onp.all(onp.isfinite(g))


def test_convolve_refuses_bad_axes_by_name():
    A, B = onp.ones((2, 3)), onp.ones(3)
    cases = [(dict(), "same number of dimensions"), (dict(axes=([0], [0, 1])), "axes pairs 1 axes of A with 2"),
             (dict(axes=([5], [0])), "axes names axis 5 of A"), (dict(axes=3), "axes must be a pair"),
             (dict(axes=([1], [0]), dot_axes=([0], [0])), "an axis is named twice"),
             (dict(axes=([1], [0]), mode="middle"), "mode must be")]
    for kw, message in cases:
        with pytest.raises((ValueError, TypeError), match=message):
            csignal.convolve(A, B, **kw)


# ----- integrate: tracked values in args= ---------------------------------------------------

def test_odeint_and_quad_with_tracked_args_by_keyword():
    t = onp.linspace(0.0, 1.0, 5)
    y0 = onp.array([1.0, 0.5])

    def loss(p):
        ys = cintegrate.odeint(lambda y, t, a, b: -a * y + cnp.sin(b * t), y0, t, args=(p[0], p[1]),
                               rtol=1e-12, atol=1e-12)
        return cnp.sum(ys ** 2)
    p = onp.array([0.7, 1.3])
    onp.testing.assert_allclose(grad(loss)(p), _fd(loss, p), rtol=1e-6)

    def area(c):
        return cintegrate.quad(lambda x, c: cnp.exp(-c * x * x), 0.0, 1.0, args=(c,))[0]
    onp.testing.assert_allclose(grad(area)(0.5), _fd(area, 0.5), rtol=1e-7)
    # and every other function of scipy.integrate is SciPy's, wrapped
    assert "trapezoid" in cintegrate.__all__ and "solve_ivp" in cintegrate.__all__


def test_const_graph_gives_autograds_values_and_differentiates():
    from autograd.misc import const_graph as ag_const_graph
    from chainrules.ad.autograd.misc import const_graph

    def f(scale, x):
        return scale * anp.sum(anp.sin(x) ** 2)

    x = onp.array([0.3, -1.2, 2.0])
    ours, theirs = const_graph(f, 2.5), ag_const_graph(f, 2.5)
    for v in (x, 2 * x, x[::-1].copy()):          # later calls: autograd's replays its cached trace
        assert ours(v) == pytest.approx(theirs(v), rel=1e-15)
    assert const_graph(f).__name__ == "f"
    ours = const_graph(lambda s, v: s * cnp.sum(cnp.sin(v) ** 2), 2.5)
    onp.testing.assert_allclose(grad(ours)(x), 2.5 * 2 * onp.sin(x) * onp.cos(x), rtol=1e-14)
