"""frule/rrule dispatch, registration, scalar_rule, configs and bad input."""

import cmath
import gc
import math
import operator
import sys
import threading
import tracemalloc
from collections import namedtuple

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Tangent, ZeroTangent, frule, rrule


# ----- the seed example, verbatim -------------------------------------------

def test_seed_example_runs_verbatim():
    x = 3
    a, a_pb = rrule(math.sin, x)
    b, b_pb = rrule(operator.add, 0.2, a)
    c, c_pb = rrule(math.asin, b)
    _, b̄ = c_pb(1)
    _, _, ā = b_pb(b̄)
    _, x̄ = a_pb(ā)
    assert x̄ == pytest.approx(-1.0531613736418153, rel=1e-15)
    nofields = ZeroTangent()
    a, ȧ = frule((nofields, 1), math.sin, x)
    b, ḃ = frule((nofields, ZeroTangent(), ȧ), operator.add, 0.2, a)
    c, ċ = frule((nofields, ḃ), math.asin, b)
    assert ċ == pytest.approx(-1.0531613736418153, rel=1e-15)
    assert c == math.asin(0.2 + math.sin(3))


def test_missing_rule_is_none_not_an_error():
    def nothing(x):
        return x
    assert rrule(nothing, 1.0) is None
    assert frule((NoTangent(), 1.0), nothing, 1.0) is None


# ----- registration ----------------------------------------------------------

def test_register_rrule_and_frule():
    def square(x):
        return x * x

    @cr.register_rrule(square)
    def square_rrule(x):
        def square_pullback(ȳ):
            return NoTangent(), 2 * x * ȳ
        return square(x), square_pullback

    @cr.register_frule(square)
    def square_frule(tangents, x):
        return square(x), 2 * x * tangents[1]

    y, pb = rrule(square, 3.0)
    assert y == 9.0 and pb(1.0) == (NoTangent(), 6.0)
    assert frule((NoTangent(), 1.0), square, 3.0) == (9.0, 6.0)


def test_most_specific_rule_wins_and_exact_type_lookups_are_cached():
    def f(x, y):
        return x

    @cr.register_rrule(f)
    def any_rule(x, y):
        return "any", None

    @cr.register_rrule(f, float, object)
    def float_rule(x, y):
        return "float", None

    @cr.register_rrule(f, bool, object)
    def bool_rule(x, y):
        return "bool", None

    @cr.register_rrule(f, int, object)
    def int_rule(x, y):
        return "int", None

    assert rrule(f, 1.0, "a")[0] == "float"
    assert rrule(f, True, "a")[0] == "bool"      # bool is more specific than int
    assert rrule(f, 1, "a")[0] == "int"
    assert rrule(f, "s", "a")[0] == "any"
    assert rrule(f, 1, "a")[0] == "int"          # from the cache
    _, rrules = cr._core._rules_of(f)
    assert [r.fn for r in rrules][-1] is any_rule

    # a later registration clears the cache
    @cr.register_rrule(f, int, str)
    def int_str_rule(x, y):
        return "int-str", None
    assert rrule(f, 1, "a")[0] == "int-str"


def test_arity_restrictions_and_varargs():
    def g(*xs):
        return sum(xs)

    @cr.register_rrule(g, float)
    def one(x):
        return "one", None

    @cr.register_rrule(g, float, ...)
    def many(x, *rest):
        return "many", None

    assert rrule(g, 1.0)[0] == "one"
    assert rrule(g, 1.0, 2.0, 3.0)[0] == "many"
    assert rrule(g, "a") is None
    with pytest.raises(TypeError, match="last"):
        cr.register_rrule(g, ..., float)(one)


def test_keyword_arguments_reach_the_rule_and_get_no_tangent():
    def scale(x, *, by=2.0):
        return x * by

    @cr.register_frule(scale)
    def scale_frule(tangents, x, *, by=2.0):
        return scale(x, by=by), tangents[1] * by

    assert frule((NoTangent(), 1.0), scale, 3.0, by=5.0) == (15.0, 5.0)


def test_opt_out_returns_none_for_the_signature():
    def h(x):
        return x

    @cr.register_rrule(h)
    def h_rule(x):
        return x, lambda ȳ: (NoTangent(), ȳ)

    cr.opt_out(h, int)
    assert rrule(h, 1) is None
    assert rrule(h, 1.0) is not None


def test_non_differentiable():
    def ident(x):
        return x
    cr.non_differentiable(ident)
    y, pb = rrule(ident, 3)
    assert y == 3 and pb(1.0) == (NoTangent(), NoTangent())
    assert frule((NoTangent(), 1.0), ident, 3) == (3, NoTangent())
    with pytest.raises(TypeError, match="one cotangent"):
        pb(1.0, 2.0)


def test_rules_for_callable_objects_dispatch_on_the_class():
    class Poly:
        def __init__(self, c):
            self.c = c

        def __call__(self, x):
            return self.c * x * x

        __hash__ = None  # unhashable instances still find their class's rule

    @cr.register_rrule(Poly, instances=True)
    def poly_rrule(p, x):
        def poly_pullback(ȳ):
            return Tangent[Poly](c=x * x * ȳ), 2 * p.c * x * ȳ
        return p(x), poly_pullback

    class SubPoly(Poly):
        pass

    y, pb = rrule(Poly(3.0), 2.0)
    dself, dx = pb(1.0)
    assert y == 12.0 and dx == 12.0 and dself == Tangent[Poly](c=4.0)
    assert rrule(SubPoly(1.0), 2.0)[0] == 4.0
    # the class itself (its constructor) has no rule
    assert rrule(Poly, 1.0) is None


def test_register_errors():
    with pytest.raises(TypeError, match="not callable"):
        cr.register_rrule(3.0)(lambda: None)

    class Unhashable:
        __hash__ = None

        def __call__(self, x):
            return x

    with pytest.raises(TypeError, match="unhashable.*instances=True"):
        cr.register_rrule(Unhashable())(lambda x: None)
    with pytest.raises(TypeError, match="callable"):
        cr.register_rrule(math.cos)(3.0)
    with pytest.raises(TypeError, match="class"):
        cr.register_rrule(math.cos, instances=True)(lambda x: None)
    with pytest.raises(ValueError, match="config"):
        cr.register_rrule(math.cos, config="sideways")(lambda x: None)


# ----- scalar_rule --------------------------------------------------------------

def test_scalar_rule_single_output_with_omega():
    def myexp(x):
        return math.exp(x)

    @cr.scalar_rule(myexp)
    def _(x, Ω):
        return Ω

    y, pb = rrule(myexp, 1.0)
    assert y == math.e and pb(2.0) == (NoTangent(), 2 * math.e)
    assert frule((NoTangent(), 3.0), myexp, 1.0) == (math.e, 3 * math.e)
    assert cr.derivatives_given_output(y, myexp, 1.0) == ((math.e,),)


def test_scalar_rule_multi_input_complex_convention():
    def cmul(x, y):
        return x * y

    cr.scalar_rule(cmul, lambda x, y: (y, x))
    x, y = 1 + 2j, 3 - 1j
    Ω, dΩ = frule((NoTangent(), 1.0, 0.0), cmul, x, y)
    assert Ω == x * y and dΩ == y               # pushforward: ∂·Δ
    _, pb = rrule(cmul, x, y)
    _, dx, dy = pb(1.0)
    assert dx == y.conjugate() and dy == x.conjugate()   # pullback: conj(∂)·Δ
    # a real input given a complex cotangent keeps the real part
    _, pb = rrule(cmul, 2.0, 1j)
    _, dx, dy = pb(1.0)
    assert dx == 0.0 and type(dx) is float and dy == 2.0


def test_scalar_rule_multi_output_uses_tangent_of_tuple():
    def polar2(x, y):
        return (math.hypot(x, y), math.atan2(y, x))

    @cr.scalar_rule(polar2)
    def _(x, y):
        r2 = x * x + y * y
        r = math.sqrt(r2)
        return (x / r, y / r), (-y / r2, x / r2)

    Ω, dΩ = frule((NoTangent(), 1.0, 0.0), polar2, 3.0, 4.0)
    assert isinstance(dΩ, Tangent) and dΩ[0] == pytest.approx(0.6) and dΩ[1] == pytest.approx(-0.16)
    _, pb = rrule(polar2, 3.0, 4.0)
    _, dx, dy = pb(Tangent[tuple](1.0, ZeroTangent()))
    assert dx == pytest.approx(0.6) and dy == pytest.approx(0.8)
    assert len(cr.derivatives_given_output(Ω, polar2, 3.0, 4.0)) == 2


def test_scalar_rule_zero_and_thunk_seeds():
    def twice(x):
        return 2 * x
    cr.scalar_rule(twice, lambda x: 2.0)
    _, pb = rrule(twice, 1.0)
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent())
    assert pb(cr.Thunk(lambda: 1.0)) == (NoTangent(), 2.0)
    assert frule((NoTangent(), ZeroTangent()), twice, 1.0) == (2.0, ZeroTangent())


def test_scalar_rule_wrong_partial_count_is_a_clear_error():
    def bad(x, y):
        return x
    cr.scalar_rule(bad, lambda x, y: (1.0,))
    with pytest.raises(TypeError, match="1 partials for 2 inputs"):
        rrule(bad, 1.0, 2.0)


def test_derivatives_given_output_of_the_c_table_and_missing():
    assert cr.derivatives_given_output(math.sin(1.0), math.sin, 1.0) == ((math.cos(1.0),),)
    assert cr.derivatives_given_output(3.0, operator.add, 1.0, 2.0) == ((1.0, 1.0),)
    assert cr.derivatives_given_output(1.0, lambda x: x, 1.0) is None


# ----- bad input -------------------------------------------------------------

def test_wrong_number_of_tangents_names_the_function():
    with pytest.raises(ValueError, match=r"frule\(math.sin\): expected 2 tangents.*got 1"):
        frule((1.0,), math.sin, 1.0)
    with pytest.raises(ValueError, match="expected 3 tangents"):
        frule((NoTangent(), 1.0), operator.add, 1.0, 2.0)
    with pytest.raises(TypeError, match="tangents must be a tuple"):
        frule(1.0, math.sin, 1.0)
    with pytest.raises(ValueError, match="expected 2 tangents"):
        frule((NoTangent(),), lambda x: x, 1.0)


def test_pullback_called_wrongly_names_the_function():
    _, pb = rrule(math.sin, 1.0)
    with pytest.raises(TypeError, match=r"pullback of math.sin: takes one cotangent"):
        pb()
    with pytest.raises(TypeError, match="pullback of math.sin"):
        pb(1.0, 2.0)
    with pytest.raises(ValueError, match=r"pullback of math.sin: expected a scalar cotangent.*\(3,\)"):
        pb(np.ones(3))
    with pytest.raises(TypeError, match="pullback of math.sin: seed must be a tangent"):
        pb("a")


def test_non_callable_f_is_a_clear_error():
    with pytest.raises(TypeError, match="f must be callable, got list"):
        rrule([1, 2], 1.0)
    with pytest.raises(TypeError, match="f must be callable, got dict"):
        frule((NoTangent(), 1.0), {}, 1.0)
    with pytest.raises(TypeError):
        rrule()


def test_unhashable_callable_without_rule_is_none():
    class U:
        __hash__ = None

        def __call__(self, x):
            return x
    assert rrule(U(), 1.0) is None


def test_domain_errors_are_the_primals_own():
    with pytest.raises(ValueError) as got:
        rrule(math.asin, 2.0)
    with pytest.raises(ValueError) as expected:
        math.asin(2.0)
    assert str(got.value) == str(expected.value)
    with pytest.raises(ValueError):
        frule((NoTangent(), 1.0), math.asin, -2.0)
    with pytest.raises(OverflowError):
        rrule(math.sin, 10 ** 400)


# ----- threads and leaks ---------------------------------------------------------

def test_dispatch_is_safe_while_another_thread_registers_rules():
    errors = []
    stop = threading.Event()

    def register_many():
        try:
            for i in range(300):
                def fi(x, _i=i):
                    return x
                cr.register_rrule(fi)(lambda x: (x, None))
                cr.register_rrule(math.sin, type(f"T{i}", (), {}))(lambda x: (x, None))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            stop.set()

    def dispatch_many():
        try:
            while not stop.is_set():
                y, pb = rrule(math.sin, 0.5)
                assert pb(1.0)[1] == math.cos(0.5)
                assert rrule(operator.add, 1.0, 2.0)[0] == 3.0
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=register_many), threading.Thread(target=dispatch_many)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def _many_calls(n):
    z = ZeroTangent()
    for i in range(n):
        x = 0.1 + i * 1e-6
        y, pb = rrule(math.sin, x)
        pb(1.0)
        pb(z)
        frule((z, 1.0), math.sin, x)
        frule((z, z, 1.0), operator.add, 1.0, x)
        y, pb = rrule(operator.add, x, 2)
        pb(1.0)


def test_no_reference_leaks_over_many_rule_calls():
    _many_calls(1000)
    gc.collect()
    tracemalloc.start()
    before_blocks = sys.getallocatedblocks()
    snap0 = tracemalloc.take_snapshot()
    _many_calls(100_000)
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    after_blocks = sys.getallocatedblocks()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    assert grown < 64 * 1024, f"traced memory grew by {grown} bytes over 10^5 rule calls"
    assert after_blocks - before_blocks < 1000, f"{after_blocks - before_blocks} blocks leaked"
    # refcounts of the objects every call touches stay put
    for obj in (math.sin, ZeroTangent(), NoTangent()):
        before = sys.getrefcount(obj)
        _many_calls(10_000)
        assert sys.getrefcount(obj) == before


# ----- issue 11: the registry is keyed by identity; user rules beat the C rows -------

def test_a_transient_bound_method_never_takes_another_functions_rules():
    # item 1: np.add.reduce is a new bound method per access; its address used
    # to be cached after an equality hit, and the next object there got its rules
    for _ in range(200):
        y, pb = rrule(np.add.reduce, np.array([1.0, 2.0, 4.0]))
        assert y == 7.0
        y, pb = rrule(np.maximum.reduce, np.array([1.0, 2.0, 4.0]))
        assert y == 4.0
        np.testing.assert_array_equal(cr.unthunk(pb(1.0)[1]), [0.0, 0.0, 1.0])
        assert rrule([1.0].count, 1.0) is None
        assert frule((NoTangent(), 1.0), [1.0].count, 1.0) is None


def test_a_rule_on_one_objects_bound_method_is_not_applied_to_anothers():
    class C:
        def m(self, x):
            return 2.0 * x

    a, b = C(), C()

    @cr.register_rrule(a.m)
    def _(x):
        return a.m(x), lambda ȳ: (NoTangent(), 2.0 * ȳ)

    for _ in range(200):
        assert rrule(a.m, 1.0) is not None
        assert rrule(b.m, 1.0) is None


@pytest.mark.parametrize("f, x", [(math.sin, 1.0), (math.exp, 0.5), (np.sin, 0.3),
                                  (operator.mul, (2.0, 3.0)), (abs, -2.0)])
def test_a_user_rule_beats_the_c_row(f, x, registry):
    # item 2: the C scalar row used to be tried before any registration
    xs = x if isinstance(x, tuple) else (x,)
    y0, pb0 = rrule(f, *xs)
    marker = []

    def user_rrule(*args):
        marker.append("r")
        return f(*args), lambda ȳ: (NoTangent(),) + (42.0,) * len(args)

    def user_frule(tangents, *args):
        marker.append("f")
        return f(*args), 42.0

    types = tuple(type(v) for v in xs)
    with _no_warning():
        cr.register_rrule(f, *types)(user_rrule)
        cr.register_frule(f, *types)(user_frule)
    try:
        y, pb = rrule(f, *xs)
        assert y == y0 and pb(1.0)[1] == 42.0
        assert frule((NoTangent(),) + (1.0,) * len(xs), f, *xs)[1] == 42.0
        # the generic path (a keyword-free call through a RuleConfig) agrees
        assert rrule(cr.RuleConfig(), f, *xs)[1](1.0)[1] == 42.0
        assert marker.count("r") == 2 and marker.count("f") == 1
        # other argument types keep the built-in row
        if types == (float,) and f is not abs:
            assert rrule(f, 1)[1](1.0)[1] == frule((NoTangent(), 1.0), f, 1)[1] != 42.0
    finally:
        with pytest.warns(cr.RuleOverwriteWarning, match="the new opt_out replaces it"):
            cr.opt_out(f, *types)
    # opt_out now wins for these types: "no rule here"
    assert rrule(f, *xs) is None
    assert frule((NoTangent(),) + (1.0,) * len(xs), f, *xs) is None


class _no_warning:
    def __enter__(self):
        import warnings
        self.cm = warnings.catch_warnings()
        self.cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc)


def test_opt_out_and_non_differentiable_beat_the_c_row(registry):
    cr.opt_out(cmath.sqrt, complex)
    assert rrule(cmath.sqrt, 1j) is None
    assert rrule(cmath.sqrt, 4.0)[1](1.0)[1] == 0.25      # floats keep the row
    cr.non_differentiable(cmath.phase, float)
    y, pb = rrule(cmath.phase, -1.0)
    assert y == math.pi and pb(1.0) == (NoTangent(), NoTangent())
    assert frule((NoTangent(), 1.0), cmath.phase, -1.0) == (math.pi, NoTangent())
    assert rrule(cmath.phase, 1j)[1](1.0)[1] != NoTangent()


def test_the_registry_fixture_restores_the_built_in_rules():
    # runs after the tests above changed math.sin, np.sin, abs, …
    assert rrule(math.sin, 1.0)[1](1.0)[1] == math.cos(1.0)
    assert rrule(abs, -2.0)[1](1.0)[1] == -1.0
    assert rrule(cmath.sqrt, 1j) is not None
    assert cr._core._scalar_row(math.sin).overridden is False


def test_a_user_rule_beats_the_c_row_inside_chainrules_ad(registry):
    import chainrules.ad as ad
    import chainrules.ad.math as admath
    f = math.log1p
    cr.register_rrule(f, float)(lambda x: (f(x), lambda ȳ: (NoTangent(), 7.0 * ȳ)))
    cr.register_frule(f, float)(lambda t, x: (f(x), 7.0 * t[1]))
    assert ad.gradient(admath.log1p, 0.5) == 7.0
    assert ad.derivative(admath.log1p, 0.5) == 7.0


# ----- issue 11 item 11: bounded caches ------------------------------------------------

def test_the_dispatch_caches_stay_bounded_under_new_classes():
    def one_call(i):
        Sub = type(f"Sub{i}", (np.ndarray,), {})
        x = np.ones(3).view(Sub)
        rrule(np.sum, x, axis=0)
        rrule(cr.RuleConfig(), np.sin, x)
        rrule(operator.add, x, x)
        frule((NoTangent(), x), np.negative, x)

    for i in range(300):                      # warm up past the bound once
        one_call(i)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(300, 1300):
        one_call(i)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 600 * 1024, f"{grown} bytes for 1000 classes"


# ----- issue 11 item 17: registration mistakes are errors ------------------------------

def test_a_bare_register_decorator_is_an_error():
    with pytest.raises(TypeError, match=r"@register_rrule needs the function"):
        @cr.register_rrule
        def my_rule(x):
            return x, None
    with pytest.raises(TypeError, match=r"@register_frule needs the function"):
        @cr.register_frule
        def my_frule(t, x):
            return x, t
    with pytest.raises(TypeError, match=r"@scalar_rule needs the function"):
        @cr.scalar_rule
        def my_partials(x):
            return 1.0


def test_scalar_rule_with_swapped_arguments_is_an_error():
    def g(x):
        return x ** 3
    with pytest.raises(TypeError, match="swapped"):
        cr.scalar_rule(lambda x, Ω: 3 * x ** 2, g)
    with pytest.raises(TypeError, match="swapped"):
        def g_partials(x):
            return 3 * x ** 2
        cr.scalar_rule(lambda x: 3 * x ** 2, g_partials)
    with pytest.raises(TypeError, match=r"scalar_rule\(f, partials\): f must be the function .* swapped"):
        cr.scalar_rule((lambda x: 3 * x ** 2,), g)     # a tuple of partials first, as in Julia
    assert rrule(g, 2.0) is None                # nothing was registered


def test_a_second_rule_for_the_same_signature_replaces_the_first_with_a_warning():
    def h(x):
        return 2 * x
    cr.register_rrule(h, float)(lambda x: (h(x), lambda ȳ: (NoTangent(), 1.0)))
    with pytest.warns(cr.RuleOverwriteWarning, match=r"rrule of .*h: a rule for the signature \(float\)"):
        cr.register_rrule(h, float)(lambda x: (h(x), lambda ȳ: (NoTangent(), 2.0)))
    assert rrule(h, 1.0)[1](1.0)[1] == 2.0
    assert len(cr._core._rules_of(h)[1]) == 1
    # a different signature is no overwrite
    with _no_warning():
        cr.register_rrule(h, int)(lambda x: (h(x), lambda ȳ: (NoTangent(), 3.0)))
    assert rrule(h, 1)[1](1.0)[1] == 3.0
