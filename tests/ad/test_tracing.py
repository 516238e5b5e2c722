"""chainrules.ad._tracing: wrap, the dispatcher, closures and containers in
arguments, keyword arguments, NumPy's protocols, the ndarray methods."""

import functools
import math as pymath
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.ad import _tracing
from chainrules.finite_differences import central_fdm, grad as fd_grad
from chainrules.testing import test_approx

FDM = central_fdm(5, 1)
ENGINES = {"forward": ad.derivative, "reverse": ad.gradient}


# ----- wrap ------------------------------------------------------------------------

def test_wrap_on_plain_values_is_the_function():
    w = ad.wrap(pymath.sin)
    assert w(1.0) == pymath.sin(1.0)
    assert ad.wrap(max)(1, 2, 3) == 3
    assert ad.wrap(sorted)([3, 1, 2], reverse=True) == [3, 2, 1]
    assert ad.wrap(w) is w
    assert w.__wrapped__ is pymath.sin and w.__name__ == "sin"
    assert repr(w) == "chainrules.ad.wrap(math.sin)"


def test_wrap_rejects_what_is_not_callable():
    with pytest.raises(TypeError, match="must be callable"):
        ad.wrap(3)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_wrap_uses_the_rule_and_does_not_trace_inside(engine):
    calls = []

    def g(x):
        raise AssertionError("traced inside")

    @cr.register_frule(g)
    def g_frule(tangents, x):
        calls.append("frule")
        return 3 * x, 3 * tangents[1]

    @cr.register_rrule(g)
    def g_rrule(x):
        calls.append("rrule")

        def g_pullback(ȳ):
            return cr.NoTangent(), 3 * ȳ
        return 3 * x, g_pullback

    assert ENGINES[engine](lambda x: ad.wrap(g)(x) * x, 2.0) == 12.0
    assert calls == ["frule" if engine == "forward" else "rrule"]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_wrap_traces_a_python_function_without_a_rule(engine):
    @ad.wrap
    def softplus(x):
        return np.log1p(np.exp(x))

    test_approx(ENGINES[engine](lambda x: softplus(x) * 2, 0.3), 2 / (1 + pymath.exp(-0.3)))


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_rule_registered_on_the_wrapper_comes_first(engine):
    def h(x):
        return x * x

    w = ad.wrap(h)

    @cr.register_frule(w)
    def w_frule(tangents, x):
        return h(x), 10 * tangents[1]

    @cr.register_rrule(w)
    def w_rrule(x):
        return h(x), lambda ȳ: (cr.NoTangent(), 10 * ȳ)

    assert ENGINES[engine](w, 3.0) == 10.0
    assert ENGINES[engine](lambda x: w(x) + 0.0, 3.0) == 10.0


def test_a_rule_registered_later_is_used():
    def late(x):
        return x * x

    w = ad.wrap(late)
    assert ad.gradient(lambda x: w(x), 3.0) == 6.0       # traced

    @cr.register_rrule(late)
    def late_rrule(x):
        return x * x, lambda ȳ: (cr.NoTangent(), 100 * ȳ)

    assert ad.gradient(lambda x: w(x), 3.0) == 100.0     # the rule


def test_wrap_as_a_method_decorator_binds():
    class Model:
        scale = 2.0

        @ad.wrap
        def energy(self, x):
            return self.scale * x * x

    m = Model()
    assert m.energy(3.0) == 18.0
    assert ad.gradient(lambda x: m.energy(x), 3.0) == 12.0


# ----- keyword arguments -------------------------------------------------------------

def test_keyword_arguments_are_passed_to_the_rule():
    x = np.arange(6.0).reshape(2, 3)
    test_approx(ad.gradient(lambda x: np.sum(np.sum(x, axis=0) ** 2), x), 2 * np.sum(x, axis=0) * np.ones((2, 3)))


def test_a_tracked_keyword_argument_of_a_rule_is_refused():
    # a NumPy function given a tracked keyword: the rule gets no tangent for it
    with pytest.raises(TypeError, match=r"keyword argument .*= holds a tracked value"):
        ad.gradient(lambda x: np.sum(np.clip(np.ones(3), a_min=x, a_max=None)), 0.5)


def test_a_tracked_keyword_of_a_traced_function_is_traced():
    @ad.wrap
    def scaled(x, *, by):
        return x * by

    assert ad.gradient(lambda s: scaled(2.0, by=s), 3.0) == 2.0


# ----- containers and closures in arguments ---------------------------------------------

@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_tracked_values_inside_list_arguments(engine):
    f = lambda x: np.sum(np.stack([x * np.ones(2), np.ones(2)]) ** 2)   # noqa: E731
    test_approx(ENGINES[engine](f, 1.5), 4 * 1.5)
    g = lambda x: ad.wrap(sum)([x, x * x, 1.0])                         # noqa: E731
    test_approx(ENGINES[engine](g, 1.5), 1 + 2 * 1.5)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_a_closure_passed_to_a_rule_carries_its_captured_values(engine):
    xs = [1.0, 2.0, 3.0]
    f = lambda a: sum(ad.wrap(map)(lambda x: x * a * a, xs))            # noqa: E731
    test_approx(ENGINES[engine](f, 2.0), 2 * 2.0 * sum(xs))
    p = lambda a: sum(ad.wrap(map)(functools.partial(operator.mul, a), xs))  # noqa: E731
    test_approx(ENGINES[engine](p, 2.0), sum(xs))


def test_a_value_hidden_from_the_engine_is_reported_not_lost():
    class Scaler:
        def __init__(self, a):
            self.a = a

        def __call__(self, x):
            return self.a * x

    # no tracked argument: map runs as is, the engine traces through the object
    assert ad.gradient(lambda a: sum(ad.wrap(map)(Scaler(a), [1.0, 2.0])), 2.0) == 3.0
    # with one, map's rule runs, and the value hidden in the object is found out
    with pytest.raises(ad.EscapedTrackedValueError, match="captures a tracked value"):
        ad.gradient(lambda a, xs: sum(ad.wrap(map)(Scaler(a), xs)), 2.0, [1.0, 2.0])
    with pytest.raises(ad.EscapedTrackedValueError, match="captures a tracked value"):
        ad.jvp(lambda a, xs: sum(ad.wrap(map)(Scaler(a), xs)), (2.0, [1.0, 2.0]), (1.0, [0.0, 0.0]))


def test_split_and_structural_tangent_round_trip():
    tag = cr._core._ad_new_tag()
    try:
        d = ad.Dual(2.0, 1.0, tag)
        x = [1.0, (d, "s"), {"k": d}]
        seen = {}
        p, changed = _tracing.split(x, tag, lambda v, path: seen.setdefault(path, v.primal))
        assert changed and p == [1.0, (2.0, "s"), {"k": 2.0}]
        assert sorted(seen) == [(1, 0), (2, "k")]
        t = _tracing.structural_tangent(p, {(1, 0): 5.0, (2, "k"): 6.0})
        assert t[1] == cr.Tangent[tuple](5.0, cr.NoTangent()) and t[2]["k"] == 6.0
        assert t[0] == cr.ZeroTangent()
    finally:
        cr._core._ad_close(tag)


# ----- NumPy: ufuncs, functions, methods ----------------------------------------------------

@pytest.mark.parametrize("engine", ["forward", "reverse"])
def test_ufunc_methods_and_ndarray_methods(engine):
    x = np.array([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]])

    def f(x):
        y = x.T.reshape(3, 2).sum(axis=1) + x.ravel().mean() + x.max() * x.min()
        z = x.flatten()[::2].dot(np.arange(3.0)) + x.transpose().squeeze().std() + x.var()
        w = x.astype(np.complex128).real.sum() + x.astype(float, copy=False).sum()
        return np.sum(y) + z + np.sum(x.cumsum()) + x.prod() + np.real(x.conj()).sum() + w

    plain = fd_grad(FDM, f, x)[0]
    if engine == "reverse":
        got = ad.gradient(f, x)
    else:
        got = ad.jacobian(f, x, mode="forward")
    test_approx(got, plain, rtol=1e-7, atol=1e-7)


def test_a_scalar_ndarray_operand_goes_through_array_ufunc():
    # np.float64 on the left defers to the tracked value (__array_ufunc__)
    assert ad.gradient(lambda x: np.float64(3.0) * x, 2.0) == 3.0
    assert ad.derivative(lambda x: np.ones(2) @ (x * np.ones(2)), 2.0) == 2.0


def test_out_is_refused():
    with pytest.raises(TypeError, match="out= cannot hold tracked values"):
        ad.gradient(lambda x: np.sin(x, out=np.empty(())), 1.0)


def test_structural_numpy_functions_see_the_plain_value():
    def f(x):
        assert np.shape(x) == (2,) and np.ndim(x) == 1 and np.size(x) == 2
        assert x.shape == (2,) and x.dtype == np.float64 and len(x) == 2
        assert not np.iscomplexobj(x)
        return np.sum(x)
    test_approx(ad.gradient(f, np.ones(2)), np.ones(2))


def test_iteration_over_a_tracked_array():
    test_approx(ad.gradient(lambda x: sum(v * v for v in x), np.array([1.0, 2.0])), np.array([2.0, 4.0]))


def test_operators_on_arrays_fall_back_to_the_ufunc_rule():
    # operator.floordiv has no array rule: np.floor_divide's is used
    test_approx(ad.gradient(lambda x: np.sum(x // 2.0 + x), np.array([1.5, 3.0])), np.ones(2))


# ----- conversions and what has no derivative ----------------------------------------------

@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_conversions_that_would_lose_the_derivative_raise(engine):
    D = ENGINES[engine]
    with pytest.raises(TypeError, match=r"float\(\) of a tracked .* would lose its derivative"):
        D(lambda x: float(x), 1.0)
    with pytest.raises(TypeError, match=r"would lose its derivative.*chainrules\.ad\.math"):
        D(lambda x: pymath.sin(x), 1.0)
    with pytest.raises(TypeError, match=r"complex\(\) of a tracked"):
        D(lambda x: complex(x), 1.0)
    with pytest.raises(TypeError, match="NumPy array would lose its derivative"):
        D(lambda x: np.asarray(x), 1.0)
    with pytest.raises(TypeError, match="NumPy array would lose its derivative"):
        D(lambda x: np.asarray(x, dtype=np.float32), 1.0)
    with pytest.raises(TypeError, match="cannot be used as an index"):
        D(lambda x: [1.0, 2.0][x], 1.0)
    with pytest.raises(TypeError, match=r"\.item\(\)"):
        D(lambda x: x.item(), 1.0)
    with pytest.raises(TypeError, match="immutable"):
        D(_setitem, 1.0)
    with pytest.raises(AttributeError, match="tracking a float.*has no attribute 'weights'"):
        D(lambda x: x.weights, 1.0)


def _setitem(x):
    y = x * np.ones(2)
    y[0] = 1.0
    return y[1]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_what_has_no_derivative_sees_the_primal(engine):
    D = ENGINES[engine]

    def f(x):
        assert x > 1 and x >= 1.5 and x < 2 and x <= 1.5 and x == 1.5 and x != 2
        assert int(x) == 1 and round(x) == 2 and round(x, 1) == 1.5 and bool(x)
        assert pymath.floor(x) == 1 and pymath.ceil(x) == 2 and pymath.trunc(x) == 1
        assert f"{x:.2f}" == "1.50"
        return x * pymath.floor(x)
    assert D(f, 1.5) == 1.0


def test_tracked_values_are_not_hashable_but_copyable():
    import copy

    def f(x):
        with pytest.raises(TypeError):
            hash(x)
        assert copy.copy(x) is x and copy.deepcopy(x) is x
        return x
    ad.gradient(f, 1.0)
    ad.derivative(f, 1.0)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_tangent_types_on_the_right_follow_the_ladder(engine):
    D = ENGINES[engine]
    assert D(lambda x: (x + cr.ZeroTangent()) * x, 2.0) == 4.0
    assert D(lambda x: x * cr.ZeroTangent() + x, 2.0) == 1.0
    assert D(lambda x: x + cr.Thunk(lambda: 1.0), 2.0) == 1.0


# ----- bools in arithmetic: constants --------------------------------------------------

_BOOL_OPS = ["x + b", "b + x", "x - b", "b - x", "x * b", "b * x", "x / b", "b / x", "x ** b", "b ** x"]


@pytest.mark.parametrize("expr", _BOOL_OPS)
def test_a_bool_operand_is_a_constant(expr):
    # x * True raised NoRuleError (the scalar table declines bools): a bool has no tangent
    # space and computes as its int, so the derivative is that of x * 1
    for b in (True, False) if expr != "x / b" else (True,):
        f = eval(f"lambda x: {expr}", {"b": b})
        g = eval(f"lambda x: {expr.replace('b', str(int(b)))}")
        for x in (2.0, 0.7):
            want = FDM(g, x)
            for engine in ENGINES.values():
                test_approx(engine(f, x), want, rtol=1e-7, atol=1e-9)
            test_approx(ad.compile(f)(x), want, rtol=1e-7, atol=1e-9)
            test_approx(ad.hessian(f, x), FDM(lambda y: FDM(g, y), x), rtol=1e-4, atol=1e-6)
            assert f(x) == g(x)
        xs = np.array([2.0, 0.7])
        test_approx(ad.gradient(lambda v: np.sum(f(v)), xs), fd_grad(FDM, lambda v: np.sum(g(v)), xs)[0],
                    rtol=1e-7, atol=1e-9)
