"""Rules of chainrules/rulesets/numpy/ufuncs.py and ufuncs_binary.py, checked
with chainrules.testing against finite differences on 0-d, empty, 1-d and 2-d arrays, broadcast pairs,
float32 and complex inputs."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent, unthunk
from chainrules.rulesets.numpy import ufuncs as U
from chainrules.rulesets.numpy import ufuncs_binary as UB
from chainrules.testing import PrimalAndTangent, test_approx, test_frule, test_rrule

RNG = np.random.default_rng(5)
# Finite differences in single precision are that noisy; the float32 tests
# also compare with the double-precision rule, tightly (_matches_float64).
F32 = dict(rtol=3e-2, atol=3e-2)


def _matches_float64(f, *args):
    """The float32 rule agrees with the float64 rule to single precision and
    keeps float32."""
    ȳ = RNG.standard_normal(np.shape(f(*args)))
    wide = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a for a in args]
    ct32 = cr.rrule(f, *args)[1](ȳ.astype(np.float32))[1:]
    ct64 = cr.rrule(f, *wide)[1](ȳ)[1:]
    for a, c32, c64 in zip(args, ct32, ct64):
        c32, c64 = unthunk(c32), unthunk(c64)
        if isinstance(a, np.ndarray) and a.dtype == np.float32 and not isinstance(c32, ZeroTangent):
            assert c32.dtype == np.float32
            assert np.allclose(c32, c64, rtol=1e-5, atol=1e-5)
SHAPES = [(), (0,), (3,), (2, 3)]


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


def _array(shape, dtype=np.float64, lo=0.2, hi=0.8):
    x = RNG.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(lo, hi, shape)
    return np.asarray(x, dtype=dtype)


# ----- unary table -------------------------------------------------------------

UNARY = list(U.UNARY_DERIVS)    # the unary rows of the element-wise table
REAL_ONLY = {np.cbrt, np.fabs}


def _domain(f, x):
    # arccosh needs x > 1; everything else is smooth on (0.2, 0.8) (+ 0.2..0.8i)
    return x + 1.5 if f is np.arccosh else x


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("f", UNARY, ids=lambda f: f.__name__)
def test_unary_float64(f, shape):
    _both(f, _domain(f, _array(shape)))


@pytest.mark.parametrize("f", UNARY, ids=lambda f: f.__name__)
def test_unary_float32_keeps_dtype(f):
    x = _domain(f, _array((2, 3), np.float32)).astype(np.float32)
    _both(f, x, **F32)
    _matches_float64(f, x)


@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("f", [f for f in UNARY if f not in REAL_ONLY], ids=lambda f: f.__name__)
def test_unary_complex(f, shape):
    _both(f, _domain(f, _array(shape, np.complex128)))


def test_unary_real_input_complex_seed_gives_real_cotangent():
    x = _array((3,))
    _, pb = cr.rrule(np.exp, x)
    dx = pb(np.ones(3) * (1 + 2j))[1]
    assert dx.dtype == np.float64 and np.allclose(dx, np.exp(x))


def test_unary_integer_input_has_no_tangent():
    test_rrule(np.sin, np.arange(3))
    _, pb = cr.rrule(np.sqrt, np.arange(1, 4))
    assert pb(np.ones(3)) == (NoTangent(), NoTangent())


def test_sqrt_at_zero_is_infinite_as_chainrules():
    _, pb = cr.rrule(np.sqrt, np.array([0.0, 4.0]))
    with np.errstate(divide="ignore"):
        assert np.array_equal(pb(np.ones(2))[1], [np.inf, 0.25])


def test_sinc_at_zero():
    x = np.array([0.0, 0.3, -1.2])
    _both(np.sinc, x)


def test_unary_rules_refuse_out_and_where():
    x = _array((3,))
    with pytest.raises(TypeError, match="out="):
        cr.rrule(np.sin, x, out=np.empty(3))
    with pytest.raises(TypeError, match="where="):
        cr.frule((NoTangent(), x), np.exp, x, where=x > 0.5)


def test_unary_rules_accept_dtype_keyword():
    test_rrule(np.sin, _array((3,)), fkwargs={"dtype": np.float64})


# ----- linear, non-holomorphic and multi-output unary functions -------------------

LINEAR = [np.negative, np.positive, np.conjugate, np.deg2rad, np.radians, np.rad2deg, np.degrees]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("f", LINEAR, ids=lambda f: f.__name__)
def test_linear_unary(f, shape):
    _both(f, _array(shape, lo=-1, hi=1))
    _both(f, _array(shape, np.float32, lo=-1, hi=1), **F32)
    _matches_float64(f, _array(shape, np.float32, lo=-1, hi=1))
    if f in (np.negative, np.positive, np.conjugate):
        _both(f, _array(shape, np.complex128, lo=-1, hi=1))


@pytest.mark.parametrize("f", [np.abs, np.fabs], ids=["abs", "fabs"])
def test_abs_real_including_zero(f):
    _both(f, np.array([-1.5, 0.0, 0.7]))
    _both(f, _array((2, 3), lo=-1, hi=1))
    _both(f, np.float32(-0.5) * np.ones((2,), np.float32), **F32)
    _, pb = cr.rrule(f, np.array([0.0]))
    assert pb(np.ones(1))[1][0] == 0.0   # abs'(0) = 0, as ChainRules


@pytest.mark.parametrize("shape", [(), (4,), (2, 2)])
def test_abs_complex(shape):
    _both(np.abs, _array(shape, np.complex128, lo=-1, hi=1))
    # zero stays finite
    _, pb = cr.rrule(np.abs, np.array([0j, 1 + 1j]))
    assert np.all(np.isfinite(pb(np.ones(2))[1]))


def test_sign_real_has_zero_derivative_and_complex_is_the_unit_direction():
    _both(np.sign, _array((3,), lo=-1, hi=1))
    _both(np.sign, _array((2, 2), np.complex128, lo=-1, hi=1))
    _both(np.sign, np.complex64(0.3 - 0.4j) * np.ones(2, np.complex64), **F32)


@pytest.mark.parametrize("f", [np.real, np.imag, np.angle], ids=["real", "imag", "angle"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.complex64])
def test_real_imag_angle(f, dtype):
    tol = F32 if dtype is np.complex64 else {}
    _both(f, _array((3,), dtype, lo=-1, hi=1), **tol)
    _both(f, _array((), dtype, lo=-1, hi=1), **tol)


def test_angle_in_degrees():
    z = _array((3,), np.complex128, lo=-1, hi=1)
    _both(np.angle, z, fkwargs={"deg": True})
    test_rrule(np.angle, z, PrimalAndTangent(True, NoTangent()))


def test_nan_to_num_passes_finite_entries_only():
    x = np.array([1.0, np.nan, np.inf, -2.0])
    _, pb = cr.rrule(np.nan_to_num, x)
    assert np.array_equal(pb(np.ones(4))[1], [1, 0, 0, 1])
    _both(np.nan_to_num, _array((2, 3)))


def test_modf_frexp_divmod_tuple_outputs():
    _both(np.modf, np.array([-2.3, 0.4, 1.7]))
    _both(np.frexp, np.array([-2.3, 0.4, 17.0]))
    _both(np.divmod, np.array([5.3, -2.2, 7.0]), np.array([2.0, 0.7, -1.5]))
    _both(np.divmod, np.array([[5.3], [-2.2]]), np.array([2.0, 0.7, -1.5]))


# ----- binary table ----------------------------------------------------------------

PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((2, 3), (2, 3)), ((3, 1), (4,)), ((4,), (2, 1, 4)),
         ((0,), (0,)), ((1, 3), (2, 1))]
BINARY = [f for f, _, _ in UB._BINARY] + [np.add, np.subtract]


def _binary_args(f, sx, sy, dtype=np.float64):
    x, y = _array(sx, dtype, 0.2, 0.8), _array(sy, dtype, 1.2, 1.8)
    if f is np.ldexp:
        y = RNG.integers(-3, 4, sy)
    return x, y


@pytest.mark.parametrize("sx,sy", PAIRS, ids=str)
@pytest.mark.parametrize("f", BINARY, ids=lambda f: f.__name__)
def test_binary_broadcasting(f, sx, sy):
    _both(f, *_binary_args(f, sx, sy))
    if f is not np.ldexp:
        y, x = _binary_args(f, sy, sx)
        _both(f, x, y)


@pytest.mark.parametrize("f", BINARY, ids=lambda f: f.__name__)
def test_binary_float32(f):
    x, y = _binary_args(f, (3, 1), (4,), np.float32)
    _both(f, x, y, **F32)
    _matches_float64(f, x, y)


@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power])
def test_binary_complex(f):
    x, y = _binary_args(f, (3, 1), (4,), np.complex128)
    _both(f, x, y)
    _both(f, x, _array((4,), lo=1.2, hi=1.8))       # complex with real: the real one gets a real cotangent


@pytest.mark.parametrize("f", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_max_and_min_of_complex_python_numbers(f):
    # NumPy orders complex numbers (real part first); the rule compared them
    # with Python's >, which raises for complex numbers (found by
    # tests/core/test_properties_scalar.py)
    for x, y in ((1 + 1j, 2 + 1j), (2 + 1j, 1 + 5j), (1 + 2j, 1 + 1j)):
        picked_x = f(x, y) == x
        Ω, pb = cr.rrule(f, x, y)
        assert Ω == f(x, y)
        x̄, ȳ = (unthunk(t) for t in pb(0.5 - 1j)[1:])
        assert (x̄, ȳ) == ((0.5 - 1j, 0) if picked_x else (0, 0.5 - 1j))
        Ω, ΔΩ = cr.frule((NoTangent(), 1j, 2.0 + 0j), f, x, y)
        assert ΔΩ == (1j if picked_x else 2.0)
        if x.real != y.real:          # off the kink (equal real parts: the imaginary ones decide)
            _both(f, np.array([x]), np.array([y]))


def test_binary_with_python_and_numpy_scalars():
    x = _array((2, 3))
    _both(np.multiply, x, 2.5)
    _both(np.power, x, 3)                          # a Python int exponent is a real number
    _both(np.subtract, 1.5, x)
    _both(np.divide, np.float64(2.0), x)


def test_binary_integer_arrays_get_no_tangent():
    x = _array((3,))
    test_rrule(np.multiply, x, np.arange(3))
    test_rrule(np.add, np.arange(3), x)
    _, pb = cr.rrule(np.subtract, np.arange(3), np.ones(3, int))
    assert pb(np.ones(3)) == (NoTangent(), NoTangent(), NoTangent())


def test_power_at_zero_follows_chainrules_table():
    x = np.zeros(5)
    p = np.array([1.0, 0.0, 2.0, 0.5, 3.0])
    _, pb = cr.rrule(np.power, x, p)
    _, dx, dp = pb(np.ones(5))
    assert np.array_equal(unthunk(dx), [1.0, 0.0, 0.0, np.inf, 0.0])
    assert np.array_equal(unthunk(dp), np.zeros(5))
    _both(np.power, np.array([0.5, 1.5, 2.0]), PrimalAndTangent(2.0, 0.3))
    # negative base, integer exponent: ∂x by finite differences, ∂p is the
    # real part of the complex derivative, Ω·log|x|
    x = np.array([-1.5, -0.5])
    test_frule(np.power, x, PrimalAndTangent(3.0, NoTangent()))
    _, pb = cr.rrule(np.power, x, 3.0)
    assert np.isclose(unthunk(pb(np.ones(2))[2]), np.sum(x ** 3 * np.log(np.abs(x))))


def test_maximum_minimum_ties_go_to_one_argument():
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([1.0, 0.0, 5.0])
    for f, expect_x in ((np.maximum, [0, 1, 0]), (np.minimum, [0, 0, 1]),
                        (np.fmax, [0, 1, 0]), (np.fmin, [0, 0, 1])):
        _, pb = cr.rrule(f, x, y)
        _, dx, dy = pb(np.ones(3))
        assert np.array_equal(unthunk(dx), expect_x), f
        assert np.array_equal(unthunk(dx) + unthunk(dy), [1, 1, 1]), f


def test_fmax_ignores_nan():
    _, pb = cr.rrule(np.fmax, np.array([1.0, np.nan]), np.array([np.nan, 2.0]))
    _, dx, dy = pb(np.ones(2))
    assert np.array_equal(unthunk(dx), [1, 0]) and np.array_equal(unthunk(dy), [0, 1])


def test_copysign_fmod_remainder_heaviside_points():
    _both(np.copysign, np.array([-1.0, 2.0, 3.0]), np.array([1.0, -1.0, 2.0]))
    _both(np.fmod, np.array([5.3, -5.3, 0.7]), np.array([2.0, 2.0, -0.3]))
    _both(np.remainder, np.array([5.3, -5.3, 0.7]), np.array([2.0, 2.0, -0.3]))
    x = np.array([-1.0, 0.0, 2.0])
    _, pb = cr.rrule(np.heaviside, x, np.array([0.5, 0.5, 0.5]))
    _, dx, dh = pb(np.ones(3))
    assert isinstance(dx, ZeroTangent) and np.array_equal(unthunk(dh), [0, 1, 0])


def test_binary_cotangents_are_thunked_and_zero_seed_computes_nothing():
    x, y = _array((3, 1)), _array((4,))
    _, pb = cr.rrule(np.power, x, y)
    _, dx, dy = pb(np.ones((3, 4)))
    assert isinstance(dx, cr.Thunk) and isinstance(dy, cr.Thunk)
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent())


@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide], ids=lambda f: f.__name__)
def test_arithmetic_thunks_only_what_is_expensive(f):
    # the compiled rules of the four: a small output's cotangents are computed
    # in the pullback (a thunk would cost more); a large one's are thunked,
    # except a cotangent that is the seed itself (add, and x of subtract)
    small = f(_array((3, 1)), _array((4,)))
    _, pb = cr.rrule(f, _array((3, 1)), _array((4,)))
    _, dx, dy = pb(np.ones(small.shape))
    assert type(dx) is np.ndarray and type(dy) is np.ndarray
    x, y, ȳ = _array((40, 40)), _array((40,)), RNG.standard_normal((40, 40))
    _, pb = cr.rrule(f, x, y)
    _, dx, dy = pb(ȳ)
    assert isinstance(dy, cr.Thunk)                    # summed over the broadcast axis
    if f in (np.add, np.subtract):
        assert dx is ȳ
    else:
        assert isinstance(dx, cr.Thunk)
    _, pb0 = cr.rrule(f, x, y, dtype=np.float64)       # the Python rule, for reference
    for a, b in zip(pb(ȳ)[1:], pb0(ȳ)[1:]):
        np.testing.assert_allclose(unthunk(a), unthunk(b), rtol=1e-13)
    assert pb(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent())


def test_binary_rules_refuse_out():
    x = _array((3,))
    with pytest.raises(TypeError, match="multiply.*out="):
        cr.rrule(np.multiply, x, x, out=np.empty(3))
    with pytest.raises(TypeError, match="add.*out="):
        cr.frule((NoTangent(), x, x), np.add, x, x, out=np.empty(3))


# ----- the operator module on arrays -------------------------------------------------

@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv,
                                operator.pow, operator.mod], ids=lambda f: f.__name__)
def test_operators_on_arrays(op):
    x, y = _array((3, 1)), _array((4,), lo=1.2, hi=1.8)
    _both(op, x, y)
    _both(op, x, 1.5)
    _both(op, 1.5, y)


@pytest.mark.parametrize("op", [operator.neg, operator.pos, operator.abs], ids=lambda f: f.__name__)
def test_unary_operators_on_arrays(op):
    _both(op, _array((2, 3), lo=-1, hi=1))


# ----- zero derivative and non-differentiable ---------------------------------------------

# NumPy 2.5 deprecates np.fix (for np.trunc): the tests that call it themselves silence that
FIX_DEPRECATED = pytest.mark.filterwarnings(r"ignore:.*numpy\.fix.*:DeprecationWarning")


@pytest.mark.parametrize("f", [np.floor, np.ceil, np.rint, np.trunc, pytest.param(np.fix, marks=FIX_DEPRECATED),
                               np.round, np.around, np.spacing], ids=lambda f: f.__name__)
def test_zero_derivative(f):
    x = np.array([0.3, 1.6, -2.2])
    _both(f, x)
    Ω, pb = cr.rrule(f, x)
    assert pb(np.ones(3)) == (NoTangent(), ZeroTangent())
    assert cr.frule((NoTangent(), np.ones(3)), f, x)[1] is ZeroTangent()


@pytest.mark.filterwarnings("error::DeprecationWarning")
def test_fix_rule_calls_no_deprecated_numpy_function():
    """The rule of np.fix computes with np.trunc (the same values): the engines,
    which call the rule in place of the user's np.fix, add no DeprecationWarning
    of NumPy 2.5 from our own code."""
    from chainrules import ad
    x = np.array([0.3, 1.6, -2.2])
    assert np.array_equal(cr.rrule(np.fix, x)[0], [0.0, 1.0, -2.0])
    assert np.array_equal(cr.frule((NoTangent(), x), np.fix, x)[0], [0.0, 1.0, -2.0])
    assert np.array_equal(ad.gradient(lambda v: np.sum(np.fix(v) * v), x), [0.0, 1.0, -2.0])
    assert cr.rrule(np.fix, 2.5)[0] == 2.0 and cr.rrule(np.fix, -2.5)[0] == -2.0


# ----- ufunc.outer ------------------------------------------------------------------------------

@pytest.mark.parametrize("f", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shapes", [((3,), (2,)), ((2, 3), (4,)), ((3,), ()), ((), (2, 2)), ((0,), (2,))],
                         ids=str)
def test_ufunc_outer(f, shapes):
    _both(f.outer, *_binary_args(f, *shapes))


@pytest.mark.parametrize("outer", [f.outer for f in BINARY], ids=lambda m: m.__self__.__name__)
def test_ufunc_outer_order_two(outer):
    _both(outer, *_binary_args(outer.__self__, (3,), (2, 2)), order=2)


def test_ufunc_outer_on_tracked_values_and_complex():
    from chainrules import ad
    a, b = np.array([1.0, 2.0, 3.0]), np.array([[0.5, 1.5], [2.0, 3.0]])
    test_approx(ad.gradient(lambda a: np.sum(np.multiply.outer(a, b)), a), np.full(3, b.sum()))
    h = ad.hessian(lambda a: np.sum(np.multiply.outer(a, a) ** 2), a)    # (Σ aᵢ²)²
    test_approx(h, 8 * np.outer(a, a) + 4 * np.sum(a ** 2) * np.eye(3))
    _both(np.multiply.outer, _array((3,), np.complex128), _array((2,), np.complex128))
    _both(np.subtract.outer, 1.5, _array((2,)))         # a Python number
    for x in (np.float32(0.7), np.float64(0.7)):        # a NumPy scalar: its cotangent is one
        _both(np.add.outer, x, _array((3,), x.dtype))


def test_round_decimals_is_an_index():
    _both(np.round, np.array([0.333, 1.666]), fkwargs={"decimals": 1})
    _, pb = cr.rrule(np.round, np.array([0.333, 1.666]), 1)
    assert pb(np.ones(2)) == (NoTangent(), ZeroTangent(), NoTangent())
    _both(np.floor_divide, np.array([5.3, 7.1]), np.array([2.0, 3.0]))


@pytest.mark.parametrize("f", [np.greater, np.less_equal, np.equal, np.logical_and, np.isclose])
def test_comparisons_are_non_differentiable(f):
    x, y = _array((3,)), _array((3,))
    Ω, pb = cr.rrule(f, x, y)
    assert np.array_equal(Ω, f(x, y))
    assert pb(np.ones(3)) == (NoTangent(), NoTangent(), NoTangent())
    assert cr.frule((NoTangent(), x, y), f, x, y)[1] is NoTangent()


@pytest.mark.parametrize("f", [np.isnan, np.isfinite, np.signbit, np.iscomplexobj])
def test_predicates_are_non_differentiable(f):
    _, pb = cr.rrule(f, _array((3,)))
    assert pb(1.0) == (NoTangent(), NoTangent())


def test_pullbacks_are_named_after_their_function():
    assert cr.rrule(np.sin, np.ones(2))[1].__name__ == "sin_pullback"
    assert cr.rrule(np.hypot, np.ones(2), np.ones(2))[1].__name__ == "hypot_pullback"


def test_array_likes_get_structural_tangents():
    _both(np.sin, [0.3, 0.5])
    _both(np.multiply, [[0.3, 0.5], [1.0, 2.0]], np.array([2.0, 3.0]))
    _both(np.abs, (-0.3, 0.5))
    _, pb = cr.rrule(np.exp, [0.0, 1.0])
    dx = pb(np.ones(2))[1]
    assert type(dx) is cr.Tangent[list] and np.allclose(list(dx), [1.0, np.e])


def test_nextafter_is_the_identity_in_x():
    _both(np.nextafter, _array((3,)), _array((3,)) + 1)


@pytest.mark.parametrize("method", [np.ndarray.conj, np.ndarray.conjugate])
def test_conj_methods(method):
    _both(method, _array((2, 3), np.complex128))
    _both(method, _array((2,)))


def test_round_method_has_zero_derivative():
    _both(np.ndarray.round, np.array([0.33, 1.66]), fkwargs={"decimals": 1})


def test_power_real_base_complex_exponent():
    _both(np.power, np.array([0.5, -1.5, 2.0]), np.array([1.5 + 0.5j]))


def test_a_seed_of_the_wrong_shape_is_a_clear_error():
    _, pb = cr.rrule(np.sin, _array((3,)))
    with pytest.raises(ValueError, match=r"sin.*\(4,\).*\(3,\)"):
        pb(np.ones(4))
    _, pb = cr.rrule(np.multiply, _array((3,)), _array((3,)))
    with pytest.raises(ValueError, match=r"multiply.*\(2, 4\).*\(3,\)"):
        pb(np.ones((2, 4)))
    _, pb = cr.rrule(np.exp, _array((2, 3)))
    with pytest.raises(ValueError, match=r"exp.*\(3, 2\).*\(2, 3\)"):
        pb(np.ones((3, 2)))
    # trivial dimensions are fine
    _, pb = cr.rrule(np.sin, _array((3,)))
    assert pb(np.ones((1, 3)))[1].shape == (3,)


# ----- the ndarray operator methods -------------------------------------------------

_RNG_D = np.random.default_rng(5)
_X = _RNG_D.uniform(0.5, 1.5, (3, 4))
_DUNDER_PAIRS = [(_X, _RNG_D.uniform(0.5, 1.5, 4)), (_X, 2.0), (np.array(1.5), _RNG_D.uniform(0.5, 1.5, 3)),
                 (_X + 0.5j, _X), (np.zeros((0, 2)), np.ones(2))]


@pytest.mark.parametrize("name", ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                                  "__truediv__", "__rtruediv__", "__pow__", "__rpow__"])
def test_ndarray_binary_methods(name):
    f = getattr(np.ndarray, name)
    for a, b in _DUNDER_PAIRS:
        test_frule(f, a, b)
        test_rrule(f, a, b)
    a32, b32 = _X.astype(np.float32), _X[0].astype(np.float32)
    test_frule(f, a32, b32, rtol=1e-2, atol=1e-2)
    test_rrule(f, a32, b32, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", ["__neg__", "__pos__", "__abs__"])
def test_ndarray_unary_methods(name):
    f = getattr(np.ndarray, name)
    for a in (_X - 1, _X + 1j, np.array(-1.5), np.zeros((0, 2)), _X.astype(np.float32)):
        test_frule(f, a)
        test_rrule(f, a)


# ----- order 2: the rules are differentiable (chainrules.ad through the rule) ----------------
# A failure here is a rule whose body chainrules.ad cannot run on tracked values,
# or whose derivative in x is not the primal's second derivative.



def _order_two_cases(fs):
    return [pytest.param(f, id=f.__name__) for f in fs]


@pytest.mark.parametrize("f", _order_two_cases(UNARY))
def test_unary_order_two(f):
    _both(f, _domain(f, _array((2, 3))), order=2)
    if f not in REAL_ONLY:
        _both(f, _domain(f, _array((3,), np.complex128)), order=2)


@pytest.mark.parametrize("f", _order_two_cases([np.sin, np.exp, np.sqrt, np.sinc]))
def test_unary_order_two_float32(f):
    _both(f, _domain(f, _array((3,), np.float32)).astype(np.float32), order=2, **F32)


@pytest.mark.parametrize("f", LINEAR + [np.abs, np.fabs, np.sign, np.real, np.imag, np.angle, np.nan_to_num,
                                        np.floor, np.spacing], ids=lambda f: f.__name__)
def test_linear_nonholomorphic_and_flat_order_two(f):
    _both(f, _array((2, 3), lo=-1, hi=1), order=2)
    if f not in (np.fabs, np.deg2rad, np.radians, np.rad2deg, np.degrees, np.nan_to_num, np.floor, np.spacing):
        _both(f, _array((3,), np.complex128, lo=-1, hi=1), order=2)


def test_sinc_order_two_through_zero():
    # sinc'(0) = 0 and sinc''(0) = -π²/3: the rule's zero branch is differentiable
    _both(np.sinc, np.array([0.0, 0.5, -1e-3]), order=2)
    _, pb = cr.rrule(np.sinc, np.array([0.0]))
    assert pb(np.ones(1))[1] == 0


def test_tuple_outputs_order_two():
    _both(np.modf, np.array([-2.3, 0.4, 1.7]), order=2)
    _both(np.frexp, np.array([-2.3, 0.4, 17.0]), order=2)      # away from the powers of 2
    _both(np.divmod, np.array([5.3, -2.2, 7.0]), np.array([2.0, 0.7, -1.5]), order=2)


@pytest.mark.parametrize("f", BINARY, ids=lambda f: f.__name__)
def test_binary_order_two(f):
    _both(f, *_binary_args(f, (3, 1), (4,)), order=2)
    _both(f, *_binary_args(f, (), (3,)), order=2)


@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power])
def test_binary_complex_order_two(f):
    _both(f, *_binary_args(f, (3, 1), (4,), np.complex128), order=2)


# (the real argument's cotangent under differentiation: since chainrules.ad runs the
# element-wise table's generic bodies on tracked values, it is projected to the reals)
@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power],
                         ids=lambda f: f.__name__)
def test_binary_complex_with_real_order_two(f):
    _both(f, _array((3,), np.complex128), _array((3,), lo=1.2, hi=1.8), order=2)


def test_binary_float32_order_two():
    _both(np.multiply, *_binary_args(np.multiply, (3, 1), (4,), np.float32), order=2, **F32)
    _both(np.power, *_binary_args(np.power, (3,), (3,), np.float32), order=2, **F32)


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.truediv, operator.pow], ids=lambda f: f.__name__)
def test_operators_on_arrays_order_two(op):
    _both(op, _array((3, 1)), _array((4,), lo=1.2, hi=1.8), order=2)


@pytest.mark.parametrize("op", [operator.neg, operator.abs], ids=lambda f: f.__name__)
def test_unary_operators_on_arrays_order_two(op):
    _both(op, _array((2, 3), lo=-1, hi=1), order=2)


# ----- on a branch cut: the side the primal takes ------------------------------------------

def _on_the_cut(re, im):
    """A complex array with exactly these parts (signed zeros kept)."""
    z = np.empty(len(re), complex)
    z.real, z.imag = re, im
    return z


@pytest.mark.parametrize("f, z, d", [
    (np.arcsin, _on_the_cut([2, 2, -2, -2, 1.5], [0.0, -0.0, 0.0, -0.0, 0.0]), 1.0),
    (np.arccos, _on_the_cut([2, 2, -2, -2, 1.5], [0.0, -0.0, 0.0, -0.0, 0.0]), 1.0),
    (np.arccosh, _on_the_cut([0.5, 0.5, -2, -2], [0.0, -0.0, 0.0, -0.0]), 1.0),
    (np.arcsinh, _on_the_cut([0.0, -0.0, 0.0, -0.0], [2, 2, -2, -2]), 1j),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_the_derivative_on_a_branch_cut_is_the_primals_side(f, z, d):
    # f' by central differences along the cut, on z's side (the sign of its zero part)
    h = 1e-6
    at = lambda t: f(_on_the_cut(z.real + t, z.imag) if d == 1.0 else _on_the_cut(z.real, z.imag + t))  # noqa: E731
    want = (at(h) - at(-h)) / (2 * h * d)
    Ω, dΩ = cr.frule((NoTangent(), np.ones_like(z)), f, z)
    np.testing.assert_array_equal(Ω, f(z))
    np.testing.assert_allclose(dΩ, want, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(unthunk(cr.rrule(f, z)[1](np.ones_like(z))[1]), want.conj(), rtol=1e-8, atol=1e-8)
