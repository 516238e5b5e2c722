"""chainrules.testing.test_adapter: it passes on the adapters of correct
rules (tests/interop/test_{jax,torch,autograd}.py use it on many functions)
and fails, naming the check, f and the engine, on deliberately wrong rules."""

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import test_adapter

from ._cases import X, straight_through

pytestmark = pytest.mark.interop

ENGINES = ["jax", "torch", "autograd"]


@pytest.fixture(params=ENGINES)
def engine(request, jax_x64):
    pytest.importorskip(request.param)
    return request.param


def double_sin(x):
    import array_api_compat
    return array_api_compat.array_namespace(x).sin(x)


def _register(frule_factor, rrule_factor, primal_offset=0.0):
    @cr.register_frule(double_sin)
    def _frule(tangents, x):
        import array_api_compat
        xp = array_api_compat.array_namespace(x)
        return double_sin(x) + primal_offset, frule_factor * xp.cos(x) * tangents[1]

    @cr.register_rrule(double_sin)
    def _rrule(x):
        import array_api_compat
        xp = array_api_compat.array_namespace(x)
        return double_sin(x) + primal_offset, lambda ȳ: (cr.NoTangent(), rrule_factor * xp.cos(x) * ȳ)


def test_a_correct_user_rule_passes(engine, registry):
    _register(1.0, 1.0)
    test_adapter(double_sin, X, engine=engine)


def test_a_wrong_pullback_fails(engine, registry):
    _register(1.0, 2.0)
    with pytest.raises(AssertionError, match=rf"test_adapter\(.*double_sin, engine='{engine}'\): the "
                                             r"engine's VJP for leaf 0 differs from (finite differences|the rule's pullback)"):
        test_adapter(double_sin, X, engine=engine)


def test_a_wrong_frule_fails(engine, registry):
    _register(2.0, 1.0)
    # JAX transposes the frule for its VJP, so the VJP is already wrong there
    with pytest.raises(AssertionError, match=rf"engine='{engine}'\): the engine's (JVP|VJP)"):
        test_adapter(double_sin, X, engine=engine)


def test_a_wrong_primal_fails(engine, registry):
    _register(1.0, 1.0, primal_offset=1.0)
    with pytest.raises(AssertionError, match=r"primal differs from f's own value"):
        test_adapter(double_sin, X, engine=engine)


def test_a_wrong_second_derivative_fails(jax_x64, registry):
    # right at first order, but written with a value JAX cannot differentiate through
    import jax

    @cr.register_rrule(double_sin)
    def _rrule(x):
        return double_sin(x), lambda ȳ: (cr.NoTangent(), jax.numpy.cos(x) * ȳ)

    @cr.register_frule(double_sin)
    def _frule(tangents, x):
        return double_sin(x), jax.lax.stop_gradient(jax.numpy.cos(x)) * tangents[1]
    with pytest.raises(AssertionError, match="second derivative"):
        test_adapter(double_sin, X, engine="jax")
    test_adapter(double_sin, X, engine="jax", order=1)


def test_the_straight_through_rule_is_what_the_engines_use(engine):
    with straight_through() as hard_round:
        # the rule is not round's derivative: finite differences disagree with the engine
        with pytest.raises(AssertionError, match="differs from finite differences"):
            test_adapter(hard_round, np.array([0.2, 1.3, 2.6]), engine=engine, order=1)


def test_an_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown engine 'tf'"):
        test_adapter(np.sin, X, engine="tf")


# ----- an argument held fixed: PrimalAndTangent(a, NoTangent()) -------------------

def scaled_sin(x, a):
    import array_api_compat
    return a * array_api_compat.array_namespace(x).sin(x)


def _register_scaled(x_uses_a=True, a_cotangent=None):
    """scaled_sin's rules; `x_uses_a=False`: x̄ = cos(x)·ȳ, wrong unless a = 1;
    `a_cotangent`: a wrong ā (only a check that differentiates a sees it)."""
    @cr.register_frule(scaled_sin)
    def _frule(tangents, x, a):
        import array_api_compat
        xp = array_api_compat.array_namespace(x)
        ẋ, ȧ = tangents[1], tangents[2]
        Δ = (a if x_uses_a else 1.0) * xp.cos(x) * ẋ
        if not isinstance(ȧ, (cr.NoTangent, cr.ZeroTangent)):
            Δ = Δ + xp.sin(x) * ȧ
        return scaled_sin(x, a), Δ

    @cr.register_rrule(scaled_sin)
    def _rrule(x, a):
        import array_api_compat
        xp = array_api_compat.array_namespace(x)

        def scaled_sin_pullback(ȳ):
            ā = (xp.sin(x) * ȳ).sum() if a_cotangent is None else a_cotangent
            return cr.NoTangent(), (a if x_uses_a else 1.0) * xp.cos(x) * ȳ, ā
        return scaled_sin(x, a), scaled_sin_pullback


def test_an_argument_held_fixed(engine, registry):
    from chainrules.testing import PrimalAndTangent
    # a wrong ā: seen when a is differentiated, never when it is held fixed
    _register_scaled(a_cotangent=0.0)
    for a in (1.5, np.array([1.5, 0.5, 2.0])):
        test_adapter(scaled_sin, X, PrimalAndTangent(a, cr.NoTangent()), engine=engine)
    with pytest.raises(AssertionError, match="VJP for leaf 1 differs"):
        test_adapter(scaled_sin, X, 1.5, engine=engine)
    # a tangent given for x is the one of the JVP check
    test_adapter(scaled_sin, PrimalAndTangent(X, np.array([1.0, -2.0, 0.5])),
                 PrimalAndTangent(1.5, cr.NoTangent()), engine=engine)


def test_a_wrong_rule_with_an_argument_held_fixed_fails(engine, registry):
    from chainrules.testing import PrimalAndTangent
    _register_scaled(x_uses_a=False)
    with pytest.raises(AssertionError, match=rf"engine='{engine}'\): the engine's (VJP for leaf 0|JVP) differs"):
        test_adapter(scaled_sin, X, PrimalAndTangent(1.5, cr.NoTangent()), engine=engine)


def test_a_function_run_on_the_host_is_checked_in_the_modes_its_engine_has(engine):
    # np.dot and np.kron have rules for NumPy only: to_jax runs them on the host
    # (reverse mode, every order), to_torch and to_autograd at first order; the
    # checker asks each engine for what it has instead of failing on forward mode
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    test_adapter(np.dot, a, b, engine=engine)
    test_adapter(np.kron, a, b, engine=engine)
