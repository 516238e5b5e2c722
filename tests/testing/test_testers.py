"""The testers: right rules pass, deliberately wrong rules are caught, and the
project's own rules pass through the kit.

Every wrong rule is registered on a fresh local function so that nothing
leaks into the registry of other tests."""

import cmath
import dataclasses
import math
import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import InplaceableThunk, NoTangent, Tangent, Thunk, ZeroTangent
from chainrules.testing import PrimalAndTangent, TestConfig, test_frule, test_rrule, test_scalar


# ----- the project's own rules through the kit ------------------------------

@pytest.mark.parametrize("x", [0.5, -1.2, 3, np.float64(0.3), np.float32(0.7)])
def test_math_sin(x):
    test_scalar(math.sin, x)
    test_frule(math.sin, x)
    test_rrule(math.sin, x)


@pytest.mark.parametrize("x", [0.5, -0.3, 0, np.float32(0.25)])
def test_math_asin(x):
    test_scalar(math.asin, x)


@pytest.mark.parametrize("a,b", [
    (1.0, 2.0), (0.2, -3.5), (1, 2), (1, 2.5), (1 + 2j, 3.0), (1 + 2j, 3 - 1j), (2.0, -1j),
    (np.float32(1.5), np.float32(2.0)), (np.float64(1.0), 2.0),
])
def test_operator_add(a, b):
    test_frule(operator.add, a, b)
    test_rrule(operator.add, a, b)


@pytest.mark.parametrize("z", [0.5, 1 + 2j, np.float32(2.0), np.complex64(1 - 1j), 3])
def test_operator_add_as_a_scalar_function(z):
    add2 = _bind_add(z)
    test_scalar(add2, z)


def _bind_add(z):
    # A unary function whose rule is operator.add's, through the foundation's dispatch.
    def add_two(x):
        return operator.add(x, 2.0)

    @cr.register_frule(add_two)
    def _(tangents, x):
        return cr.frule((NoTangent(), tangents[1], ZeroTangent()), operator.add, x, 2.0)

    @cr.register_rrule(add_two)
    def _(x):
        y, pb = cr.rrule(operator.add, x, 2.0)

        def add_two_pullback(ybar):
            return NoTangent(), pb(ybar)[1]
        return y, add_two_pullback
    return add_two


def test_seed_chain_through_the_kit():
    def foo(x):
        return math.asin(0.2 + math.sin(x))

    @cr.register_rrule(foo)
    def _(x):
        a, a_pb = cr.rrule(math.sin, x)
        b, b_pb = cr.rrule(operator.add, 0.2, a)
        c, c_pb = cr.rrule(math.asin, b)

        def foo_pullback(cbar):
            _, bbar = c_pb(cbar)
            _, _, abar = b_pb(bbar)
            return NoTangent(), a_pb(abar)[1]
        return c, foo_pullback

    test_rrule(foo, 3)
    test_rrule(foo, PrimalAndTangent(3, 1.0))
    test_rrule(foo, 3.0, output_tangent=1.0)


# ----- right rules of every shape pass --------------------------------------

def test_scalar_rule_holomorphic():
    def cube(z):
        return z * z * z

    cr.scalar_rule(cube, lambda z: 3 * z * z)
    for z in (0.7, -2, 1 + 2j, np.float32(1.5), np.complex64(0.5 - 1j), np.complex128(2j)):
        test_scalar(cube, z)


def test_scalar_rule_with_output():
    def my_exp(x):
        return cmath.exp(x) if isinstance(x, complex) else math.exp(x)

    @cr.scalar_rule(my_exp)
    def _(x, Ω):
        return Ω

    test_scalar(my_exp, 0.3)
    test_scalar(my_exp, 0.3 + 0.4j)


def test_scalar_rule_two_arguments():
    def hyp(x, y):
        return math.hypot(x, y)

    cr.scalar_rule(hyp, lambda x, y, Ω: (x / Ω, y / Ω))
    test_frule(hyp, 3.0, 4.0)
    test_rrule(hyp, 3.0, 4.0)
    test_rrule(hyp, 3.0, PrimalAndTangent(4.0, 0.5))


def test_scalar_rule_two_outputs():
    def sincos(x):
        return (math.sin(x), math.cos(x))

    cr.scalar_rule(sincos, lambda x: ((math.cos(x),), (-math.sin(x),)))
    test_frule(sincos, 0.4)
    test_rrule(sincos, 0.4)
    test_rrule(sincos, 0.4, output_tangent=Tangent[tuple](1.0, ZeroTangent()))


def test_real_to_complex_and_complex_to_real():
    def cis(x):
        return complex(math.cos(x), math.sin(x))

    cr.scalar_rule(cis, lambda x: 1j * cis(x))
    test_scalar(cis, 0.3)

    def absval(z):
        return abs(z)

    @cr.register_rrule(absval)
    def _(z):
        y = abs(z)

        def absval_pullback(ybar):
            return NoTangent(), cr.unthunk(ybar).real * z / y
        return y, absval_pullback

    @cr.register_frule(absval)
    def _(tangents, z):
        y = abs(z)
        return y, (z.conjugate() * tangents[1]).real / y

    test_scalar(absval, 3 + 4j)


def _array_scale():
    def scale(a, x):
        return a * x

    @cr.register_rrule(scale, (float, int), np.ndarray)
    def _(a, x):
        project_a, project_x = cr.ProjectTo(a), cr.ProjectTo(x)

        def scale_pullback(ybar):
            ybar = cr.unthunk(ybar)
            if isinstance(ybar, cr.AbstractZero):
                return NoTangent(), ZeroTangent(), ZeroTangent()
            abar = Thunk(lambda: project_a(np.sum(np.conj(x) * ybar)))
            xbar = InplaceableThunk(lambda acc: np.add(acc, project_x(np.conj(a) * ybar), out=acc),
                                    Thunk(lambda: project_x(np.conj(a) * ybar)))
            return NoTangent(), abar, xbar
        return a * x, scale_pullback

    @cr.register_frule(scale, (float, int), np.ndarray)
    def _(tangents, a, x):
        _, da, dx = tangents
        return a * x, da * x + a * dx

    return scale


@pytest.mark.parametrize("x", [
    np.array([1.0, 2.0, 3.0]),
    np.arange(6.0).reshape(2, 3),
    np.array([1 + 1j, 2 - 1j]),
    np.ones(3, dtype=np.float32),
    np.array(2.0),
    np.zeros(0),
])
def test_array_rule_with_thunks_and_inplaceable_thunk(x):
    scale = _array_scale()
    test_rrule(scale, 1.5, x)
    test_frule(scale, 1.5, x)


def test_index_argument_bare_and_marked():
    def pick(xs, i):
        return xs[i]

    @cr.register_rrule(pick)
    def _(xs, i):
        def pick_pullback(ybar):
            dxs = np.zeros_like(xs)
            dxs[i] = cr.unthunk(ybar)
            return NoTangent(), dxs, NoTangent()
        return xs[i], pick_pullback

    @cr.register_frule(pick)
    def _(tangents, xs, i):
        return xs[i], tangents[1][i]

    xs = np.array([1.0, 2.0, 3.0])
    test_rrule(pick, xs, 1)
    test_rrule(pick, xs, PrimalAndTangent(1, NoTangent()))
    test_frule(pick, xs, 1)
    test_rrule(pick, xs, np.int64(2))


def test_non_differentiable_function():
    def sign_of(x):
        return float(np.sign(x))

    cr.non_differentiable(sign_of)
    test_rrule(sign_of, 0.5)
    test_frule(sign_of, 0.5)
    test_rrule(sign_of, -0.5)


def test_non_differentiable_arguments_of_every_kind():
    def mix(x, flag, name, none, idx):
        return x * 2.0 if flag else x

    @cr.register_rrule(mix)
    def _(x, flag, name, none, idx):
        def mix_pullback(ybar):
            return (NoTangent(), cr.unthunk(ybar) * (2.0 if flag else 1.0), NoTangent(), NoTangent(),
                    NoTangent(), NoTangent())
        return mix(x, flag, name, none, idx), mix_pullback

    test_rrule(mix, 1.5, True, "s", None, np.arange(3))


@dataclasses.dataclass
class Affine:
    w: float
    b: float

    def __call__(self, x):
        return self.w * x + self.b


def test_functor_with_fields_gets_a_self_cotangent():
    @cr.register_rrule(Affine, instances=True)
    def _(m, x):
        def affine_pullback(ybar):
            ybar = cr.unthunk(ybar)
            return Tangent[Affine](w=ybar * x, b=ybar), ybar * m.w
        return m(x), affine_pullback

    @cr.register_frule(Affine, instances=True)
    def _(tangents, m, x):
        dm, dx = tangents
        if isinstance(dm, cr.AbstractZero):
            return m(x), m.w * dx
        return m(x), dm.w * x + dm.b + m.w * dx

    test_rrule(Affine(2.0, 0.5), 3.0)
    test_frule(Affine(2.0, 0.5), 3.0)


def test_dataclass_argument_and_fkwargs():
    def predict(m, x, *, power=1):
        return (m.w * x + m.b) ** power

    @cr.register_rrule(predict)
    def _(m, x, *, power=1):
        y = m.w * x + m.b

        def predict_pullback(ybar):
            g = cr.unthunk(ybar) * power * y ** (power - 1)
            return NoTangent(), Tangent[Affine](w=g * x, b=g), g * m.w
        return y ** power, predict_pullback

    test_rrule(predict, Affine(2.0, 0.5), 3.0, fkwargs={"power": 2})


def test_config_rule_via_ad():
    def apply(f, x):
        return f(x)

    @cr.register_rrule(apply, config="reverse")
    def _(config, f, x):
        y, pb = cr.rrule_via_ad(config, f, x)

        def apply_pullback(ybar):
            _, xbar = pb(ybar)
            return NoTangent(), NoTangent(), xbar
        return y, apply_pullback

    @cr.register_frule(apply, config="forward")
    def _(config, tangents, f, x):
        return cr.frule_via_ad(config, (NoTangent(), tangents[2]), f, x)

    def no_rule(x):
        return x ** 3

    test_rrule(TestConfig(), apply, math.sin, 0.5)       # an existing rule
    test_rrule(TestConfig(), apply, no_rule, 0.5)        # finite differences
    test_frule(TestConfig(), apply, no_rule, 0.5)
    test_frule(TestConfig(), apply, math.sin, 0.5)
    with pytest.raises(AssertionError, match="no rrule"):
        test_rrule(apply, math.sin, 0.5)                 # without a config there is no rule


def test_explicit_tangents_and_tolerances():
    test_frule(math.sin, PrimalAndTangent(0.5, 2.0))
    test_rrule(math.sin, 0.5, output_tangent=-3.0, rtol=1e-7, atol=0)


def test_tuple_argument_and_tangent_output():
    def total(t):
        return t[0] + 2 * t[1]

    @cr.register_rrule(total)
    def _(t):
        def total_pullback(ybar):
            ybar = cr.unthunk(ybar)
            return NoTangent(), Tangent[tuple](ybar, 2 * ybar)
        return total(t), total_pullback

    test_rrule(total, (1.0, 2.0))


# ----- deliberately wrong rules are caught -----------------------------------

def test_partial_off_by_a_tenth_of_a_percent():
    def f(x):
        return x * x

    cr.scalar_rule(f, lambda x: 2 * x * 1.001)
    with pytest.raises(AssertionError, match="ΔΩ of the frule"):
        test_frule(f, 2.0)
    with pytest.raises(AssertionError, match="cotangent of argument 1"):
        test_rrule(f, 2.0)
    with pytest.raises(AssertionError):
        test_scalar(f, 2.0)
    with pytest.raises(AssertionError):
        test_rrule(f, np.float32(2.0))   # still caught at float32 tolerance


def test_wrong_partial_only_in_the_rrule():
    def f(x):
        return math.sin(x)

    @cr.register_frule(f)
    def _(tangents, x):
        return f(x), math.cos(x) * tangents[1]

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), -math.cos(x) * cr.unthunk(ybar))

    test_frule(f, 0.3)
    with pytest.raises(AssertionError):
        test_rrule(f, 0.3)


def test_swapped_arguments():
    def f(x, y):
        return x * y

    @cr.register_rrule(f)
    def _(x, y):
        def f_pullback(ybar):
            return NoTangent(), ybar * x, ybar * y     # swapped: ∂x should be ȳ·y
        return f(x, y), f_pullback

    @cr.register_frule(f)
    def _(tangents, x, y):
        _, dx, dy = tangents
        return f(x, y), dx * x + dy * y                # swapped

    with pytest.raises(AssertionError, match="argument 1") as e:
        test_rrule(f, 2.0, 3.0)
    assert "argument 2" in str(e.value)
    with pytest.raises(AssertionError):
        test_frule(f, 2.0, 3.0)


def test_missing_conj_for_complex():
    def f(z):
        return z * z

    @cr.register_rrule(f)
    def _(z):
        return f(z), lambda ybar: (NoTangent(), 2 * z * cr.unthunk(ybar))   # should be conj(2z)·ȳ

    with pytest.raises(AssertionError, match="cotangent of argument 1"):
        test_rrule(f, 1 + 2j)
    test_rrule(f, 1.5)        # for real z the conj does not matter: right


def test_missing_conj_in_scalar_rule_partials_via_test_scalar():
    def f(z):
        return z.conjugate() if isinstance(z, complex) else z

    cr.scalar_rule(f, lambda z: 1.0)    # conj is not holomorphic: a scalar rule cannot express it
    with pytest.raises(AssertionError):
        test_scalar(f, 1 + 1j)


def test_pullback_with_wrong_arity():
    def f(x, y):
        return x + y

    @cr.register_rrule(f)
    def _(x, y):
        return f(x, y), lambda ybar: (ybar, ybar)      # forgot ∂self

    with pytest.raises(AssertionError, match="returned 2 cotangents.*expected 3"):
        test_rrule(f, 1.0, 2.0)


def test_pullback_returning_a_bare_value():
    def f(x):
        return 2 * x

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: 2 * ybar

    with pytest.raises(AssertionError, match="must return a tuple"):
        test_rrule(f, 1.0)


def test_frule_with_wrong_arity():
    def f(x):
        return 2 * x

    @cr.register_frule(f)
    def _(tangents, x):
        return f(x), 2 * tangents[1], None

    with pytest.raises(AssertionError, match=r"\(Ω, ΔΩ\)"):
        test_frule(f, 1.0)


def test_rrule_not_returning_a_pair():
    def f(x):
        return 2 * x

    @cr.register_rrule(f)
    def _(x):
        return f(x)

    with pytest.raises(AssertionError, match=r"\(Ω, pullback\)"):
        test_rrule(f, 1.0)


def test_zero_tangent_where_no_tangent_is_due():
    def f(xs, i):
        return xs[i]

    @cr.register_rrule(f)
    def _(xs, i):
        def f_pullback(ybar):
            d = np.zeros_like(xs)
            d[i] = cr.unthunk(ybar)
            return NoTangent(), d, ZeroTangent()          # should be NoTangent()
        return f(xs, i), f_pullback

    with pytest.raises(AssertionError, match="NoTangent\\(\\) for it, not ZeroTangent\\(\\)"):
        test_rrule(f, np.ones(3), PrimalAndTangent(1, NoTangent()))
    with pytest.raises(AssertionError, match="not ZeroTangent"):
        test_rrule(f, np.ones(3), np.int64(1))


def test_value_where_no_tangent_is_due():
    def f(x, flag):
        return x if flag else -x

    @cr.register_rrule(f)
    def _(x, flag):
        return f(x, flag), lambda ybar: (NoTangent(), ybar if flag else -ybar, 0.0)

    with pytest.raises(AssertionError, match="argument 2 \\(flag: bool\\) is non-differentiable"):
        test_rrule(f, 1.0, True)


def test_self_cotangent_of_a_plain_function_must_be_no_tangent():
    def f(x):
        return 2 * x

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (ZeroTangent(), 2 * ybar)

    with pytest.raises(AssertionError, match="∂self must be NoTangent"):
        test_rrule(f, 1.0)


def test_wrong_dtype():
    def f(x):
        return np.sin(x)

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), (np.cos(x) * cr.unthunk(ybar)).astype(np.float64))

    @cr.register_frule(f)
    def _(tangents, x):
        return f(x), (np.cos(x) * tangents[1]).astype(np.float64)

    x = np.array([0.1, 0.2], dtype=np.float32)
    with pytest.raises(AssertionError, match="dtype float64 differs from the primal's dtype float32"):
        test_rrule(f, x)
    with pytest.raises(AssertionError, match="dtype float64"):
        test_frule(f, x)


def test_wrong_precision_of_a_numpy_scalar():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), float(2 * cr.unthunk(ybar)))

    with pytest.raises(AssertionError, match="keep its precision"):
        test_rrule(f, np.float32(1.0))


def test_wrong_shape():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), np.reshape(2 * cr.unthunk(ybar), (-1, 1)))

    with pytest.raises(AssertionError, match="shape \\(3, 1\\) differs from the primal's shape \\(3,\\)"):
        test_rrule(f, np.ones(3))


def test_missing_unbroadcast():
    def f(x, y):
        return x + y

    @cr.register_rrule(f)
    def _(x, y):
        return f(x, y), lambda ybar: (NoTangent(), cr.unthunk(ybar), cr.unthunk(ybar))

    with pytest.raises(AssertionError, match="argument 2.*shape"):
        test_rrule(f, np.ones((2, 3)), np.ones(3))


def test_complex_cotangent_for_a_real_argument():
    def f(x):
        return x * (1 + 1j)

    cr.register_rrule(f)(lambda x: (f(x), lambda ybar: (NoTangent(), (1 - 1j) * cr.unthunk(ybar))))
    with pytest.raises(AssertionError, match="must be real"):
        test_rrule(f, 0.5)


def test_wrong_primal():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        return x * 3, lambda ybar: (NoTangent(), 2 * ybar)

    with pytest.raises(AssertionError, match="the primal Ω returned by the rrule differs"):
        test_rrule(f, 1.0)


def test_pullback_crashing_on_a_zero_seed():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), 2 * cr.unthunk(ybar).reshape(x.shape))

    with pytest.raises(AssertionError, match="seed ZeroTangent"):
        test_rrule(f, np.ones(3))


def test_pullback_nonzero_on_a_zero_seed():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        return f(x), lambda ybar: (NoTangent(), 2 * cr.unthunk(ybar) + (1.0 if ybar is ZeroTangent() else 0))

    with pytest.raises(AssertionError, match="must give a zero"):
        test_rrule(f, 1.0)


def test_thunked_seed_mishandled():
    def f(x):
        return x * 2

    @cr.register_rrule(f)
    def _(x):
        def f_pullback(ybar):
            if isinstance(ybar, Thunk):
                return NoTangent(), 0.5        # does not unthunk: wrong
            return NoTangent(), 2 * ybar
        return f(x), f_pullback

    with pytest.raises(AssertionError, match="thunked seed"):
        test_rrule(f, 1.0)
    test_rrule(f, 1.0, check_thunked_output_tangent=False)


def test_wrong_inplaceable_thunk():
    def f(x):
        return 3 * x

    @cr.register_rrule(f)
    def _(x):
        def f_pullback(ybar):
            ybar = cr.unthunk(ybar)
            return NoTangent(), InplaceableThunk(lambda acc: np.add(acc, 6 * ybar, out=acc),   # adds twice
                                                 Thunk(lambda: 3 * ybar))
        return f(x), f_pullback

    with pytest.raises(AssertionError, match="InplaceableThunk's add_fn"):
        test_rrule(f, np.ones(3))


def test_no_rule_at_all():
    def f(x):
        return x

    with pytest.raises(AssertionError, match="no rrule"):
        test_rrule(f, 1.0)
    with pytest.raises(AssertionError, match="no frule"):
        test_frule(f, 1.0)
    with pytest.raises(AssertionError, match="no frule"):
        test_scalar(f, 1.0)


def test_frule_nonzero_for_zero_tangents():
    def f(x):
        return 2 * x

    @cr.register_frule(f)
    def _(tangents, x):
        dx = tangents[1]
        return f(x), 2.0 if isinstance(dx, ZeroTangent) else 2 * dx

    with pytest.raises(AssertionError, match="ZeroTangent\\(\\) tangents ΔΩ must be zero"):
        test_frule(f, 1.0)


def test_frule_ignoring_the_tangent_of_one_argument():
    def f(x, y):
        return x * y

    @cr.register_frule(f)
    def _(tangents, x, y):
        return f(x, y), y * tangents[1]                 # forgets x·Δy

    with pytest.raises(AssertionError, match="ΔΩ"):
        test_frule(f, 2.0, 3.0)
    test_frule(f, 2.0, PrimalAndTangent(3.0, ZeroTangent()))   # right when Δy is zero


# ----- failure messages ------------------------------------------------------

def test_message_names_function_argument_values_and_difference():
    def my_function(x, y):
        return x * y

    @cr.register_rrule(my_function)
    def _(x, y):
        return my_function(x, y), lambda ybar: (NoTangent(), 1.01 * ybar * y, ybar * x)

    with pytest.raises(AssertionError) as e:
        test_rrule(my_function, 2.0, 3.0, output_tangent=1.0)
    msg = str(e.value)
    assert "my_function(2.0, 3.0)" in msg
    assert "argument 1 (x: float)" in msg and "argument 2" not in msg
    assert "got 3.03" in msg and "expected 3.0" in msg and "difference 0.03" in msg


def test_testers_are_not_collected_by_pytest():
    assert test_rrule.__test__ is False and test_frule.__test__ is False and test_scalar.__test__ is False
    assert TestConfig.__test__ is False


def test_test_scalar_rejects_non_numbers():
    with pytest.raises(TypeError, match="real or complex number"):
        test_scalar(math.sin, np.ones(2))
    with pytest.raises(TypeError, match="real or complex number"):
        test_scalar(math.sin, True)


def test_rule_mutating_its_argument():
    def f(x):
        return np.sum(x)

    @cr.register_rrule(f)
    def _(x):
        y = np.sum(x)
        x *= 0                                      # mutates its input: a bug

        def f_pullback(ybar):
            return NoTangent(), np.full(x.shape, cr.unthunk(ybar) if not isinstance(ybar, cr.AbstractZero)
                                        else 0.0)
        return y, f_pullback

    with pytest.raises(AssertionError, match="mutated argument 1"):
        test_rrule(f, np.ones(3))


def test_primal_of_wrong_dtype():
    def f(x):
        return x * 2

    @cr.register_frule(f)
    def _(tangents, x):
        return (x * 2).astype(np.float64), tangents[1] * 2

    with pytest.raises(AssertionError, match="primal Ω returned by the frule"):
        test_frule(f, np.ones(2, dtype=np.float32))


def test_test_scalar_requires_a_real_cotangent_for_real_z():
    def f(x):
        return math.exp(x) if not isinstance(x, complex) else cmath.exp(x)

    @cr.register_frule(f)
    def _(tangents, x):
        return f(x), f(x) * tangents[1]

    @cr.register_rrule(f)
    def _(x):
        y = f(x)
        return y, lambda ybar: (NoTangent(), complex(y) * cr.unthunk(ybar))   # not projected to real

    with pytest.raises(AssertionError, match="must be real"):
        test_scalar(f, 0.5)


def test_object_array_argument():
    def total(xs):
        return xs[0] + xs[1]

    @cr.register_rrule(total)
    def _(xs):
        def total_pullback(ybar):
            out = np.empty(2, dtype=object)
            out[0] = out[1] = cr.unthunk(ybar)
            return NoTangent(), out
        return total(xs), total_pullback

    xs = np.empty(2, dtype=object)
    xs[0], xs[1] = 1.0, 2.0
    test_rrule(total, xs)


def test_message_names_parameters_of_builtins_and_varargs():
    def total(*xs):
        return sum(xs)

    @cr.register_rrule(total)
    def _(*xs):
        return total(*xs), lambda ybar: (NoTangent(),) + (cr.unthunk(ybar),) * (len(xs) - 1) + (0.0,)

    with pytest.raises(AssertionError, match=r"argument 2 \(xs\[1\]: float\)"):
        test_rrule(total, 1.0, 2.0)


def test_testers_work_in_parametrisations_and_raise_assertion_error_only():
    # A plain function (no fixtures): the testers are ordinary calls that raise AssertionError.
    def twice(x):
        return 2 * x

    cr.scalar_rule(twice, lambda x: 3.0)
    for x in (1.0, 2 + 1j, np.float32(3.0)):
        with pytest.raises(AssertionError):
            test_scalar(twice, x)


def test_functions_returning_iterators_are_compared_as_lists():
    def squares(xs):
        return (x * x for x in xs)

    @cr.register_rrule(squares)
    def _(xs):
        def squares_pullback(ybar):
            ybar = cr.unthunk(ybar)
            if isinstance(ybar, cr.AbstractZero):
                return NoTangent(), ZeroTangent()
            return NoTangent(), [2 * x * y for x, y in zip(xs, ybar)]
        return [x * x for x in xs], squares_pullback

    def cubes(xs):
        return iter([x ** 3 for x in xs])

    @cr.register_rrule(cubes)
    def _(xs):
        def cubes_pullback(ybar):
            ybar = cr.unthunk(ybar)
            if isinstance(ybar, cr.AbstractZero):
                return NoTangent(), ZeroTangent()
            return NoTangent(), [2 * x * y for x, y in zip(xs, ybar)]   # wrong: 3x²
        return [x ** 3 for x in xs], cubes_pullback

    test_rrule(squares, [1.0, -2.0])
    with pytest.raises(AssertionError, match="pullback"):
        test_rrule(cubes, [1.0, -2.0])


def test_an_int_marked_non_differentiable_reaches_the_function_as_an_int():
    import chainrules as cr
    from chainrules.testing import PrimalAndTangent, test_rrule

    def pick(x, i):
        return x[i] * 2.0   # a float index would raise

    @cr.register_rrule(pick)
    def pick_rrule(x, i):
        def pick_pullback(ȳ):
            dx = np.zeros_like(x)
            dx[i] = 2.0 * ȳ
            return cr.NoTangent(), dx, cr.NoTangent()
        return pick(x, i), pick_pullback

    test_rrule(pick, np.array([1.0, 2.0, 3.0]), PrimalAndTangent(1, cr.NoTangent()))




def test_a_not_implemented_cotangent_passes_for_an_argument_held_fixed(registry):
    # ChainRulesTestUtils lets @not_implemented through for an argument without a tangent
    # (a rule need not know which arguments its caller holds fixed); ∂self stays NoTangent()
    def with_rule(self_ct):
        def g(s, x):
            return s * x

        @cr.register_rrule(g)
        def g_rrule(s, x):
            return g(s, x), lambda ȳ: (self_ct, cr.not_implemented("g: ∂s"), s * ȳ)
        return g
    test_rrule(with_rule(NoTangent()), PrimalAndTangent(2.0, NoTangent()), 3.0)
    with pytest.raises(AssertionError, match="∂self must be NoTangent"):
        test_rrule(with_rule(cr.not_implemented("g: ∂self")), PrimalAndTangent(2.0, NoTangent()), 3.0)
