"""Bad input to the array-API rules and the engines (issue 12, "Bad input"):
arrays of two libraries meeting through a tangent or a cotangent are a
TypeError naming the function, the argument and both libraries; a namespace
lacking a function a rule needs is a TypeError naming it; NumPy scalars (not
arrays) stand beside another library's arrays as Python scalars do."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent, ad, unthunk
from chainrules._xp import namespace

xs = pytest.importorskip("array_api_strict")


def _x():
    return xs.asarray([0.1, 0.2, 0.3])


def _generic_sin(x):
    return x.__array_namespace__().sin(x)


def _generic_sum(x):
    xp = x.__array_namespace__()
    return xp.sum(xp.sin(x) * x)


def _names_both(excinfo, *words):
    text = str(excinfo.value)
    for w in ("numpy", "array_api_strict", *words):
        assert w in text, text


# ----- mixed libraries ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, words", [
    (lambda x: cr.frule((NoTangent(), np.ones(3)), xs.sin, x), ("sin", "tangent of x")),
    (lambda x: cr.rrule(xs.sin, x)[1](np.ones(3)), ("pullback of", "sin", "cotangent")),
    (lambda x: cr.frule((NoTangent(), np.ones(3)), xs.sum, x), ("sum", "tangent of argument 1")),
    (lambda x: cr.rrule(xs.sum, x)[1](np.asarray(1.0)), ("pullback of sum", "cotangent")),
    (lambda x: cr.frule((NoTangent(), np.ones(3), ZeroTangent()), xs.multiply, x, x), ("multiply", "tangent of x")),
    (lambda x: cr.rrule(xs.multiply, x, x)[1](np.ones(3)), ("pullback of", "multiply")),
    (lambda x: cr.frule((NoTangent(), np.ones(3)), xs.flip, x), ("flip", "argument 1")),
], ids=["frule-sin", "pullback-sin", "frule-sum", "pullback-sum", "frule-multiply", "pullback-multiply",
        "frule-flip"])
def test_a_rule_given_a_tangent_of_another_library(call, words):
    with pytest.raises(TypeError) as e:
        call(_x())
    _names_both(e, *words)


@pytest.mark.parametrize("call, words", [
    (lambda x: ad.jvp(_generic_sin, (x,), (np.ones(3),)), ("jvp", "argument 1")),
    (lambda x: ad.vjp(_generic_sin, x)[1](np.ones(3)), ("vjp", "cotangent")),
    (lambda x: ad.vjp(xs.sin, x)[1](np.ones(3)), ("vjp", "cotangent")),   # f's own rule
    (lambda x: ad.hvp(_generic_sum, x, np.ones(3)), ("hvp", "direction v")),
], ids=["jvp", "vjp", "vjp-by-rule", "hvp"])
def test_an_engine_given_a_tangent_of_another_library(call, words):
    with pytest.raises(TypeError) as e:
        call(_x())
    _names_both(e, *words)


def test_tangents_of_the_same_library_numbers_and_zeros_stay_fine():
    x = _x()
    expect = np.cos([0.1, 0.2, 0.3])
    for t in (xs.ones(3), 1.0, 1):
        Ω, ΔΩ = cr.frule((NoTangent(), t), xs.sin, x)
        assert np.allclose(np.asarray(ΔΩ), expect)
    assert cr.frule((NoTangent(), ZeroTangent()), xs.sin, x)[1] is ZeroTangent()
    _, pb = cr.rrule(xs.sin, x)
    assert np.allclose(np.asarray(unthunk(pb(xs.ones(3))[1])), expect)
    assert np.allclose(np.asarray(unthunk(pb(1.0)[1])), expect)
    assert np.allclose(np.asarray(ad.jvp(_generic_sin, (x,), (xs.ones(3),))[1]), expect)
    assert np.allclose(np.asarray(ad.vjp(_generic_sin, x)[1](xs.ones(3))[0]), expect)
    assert np.allclose(np.asarray(ad.hvp(_generic_sum, x, xs.ones(3))),
                       2 * np.cos([0.1, 0.2, 0.3]) - np.array([0.1, 0.2, 0.3]) * np.sin([0.1, 0.2, 0.3]))


# ----- a namespace lacking a function -------------------------------------------------------------

def test_a_namespace_lacking_a_function_the_rule_needs(monkeypatch):
    x = xs.asarray([0.1, 2.0])
    monkeypatch.delattr(xs, "where")
    with pytest.raises(TypeError, match=r"clip: the array namespace 'array_api_strict' has no function 'where'"):
        cr.frule((NoTangent(), xs.ones(2), ZeroTangent(), ZeroTangent()), xs.clip, x, 0.5, 1.0)
    _, pb = cr.rrule(xs.clip, x, 0.5, 1.0)
    with pytest.raises(TypeError, match=r"pullback of clip: .*'array_api_strict' has no function 'where'"):
        pb(xs.ones(2))


def test_an_elementwise_rule_on_a_namespace_lacking_a_function(monkeypatch):
    x = xs.asarray([0.1, 0.2])
    monkeypatch.delattr(xs, "cos")                  # sin's derivative
    with pytest.raises(TypeError, match=r"sin: the array namespace 'array_api_strict' has no function 'cos'"):
        cr.frule((NoTangent(), xs.ones(2)), xs.sin, x)


# ----- NumPy scalars are not a library --------------------------------------------------------------

def test_numpy_scalars_take_the_namespace_of_the_arrays_they_meet():
    x = _x()
    assert namespace(x, np.float64(0.5)) is xs
    assert namespace(np.float32(0.5), x) is xs
    assert namespace(x, [np.float64(1.0), 2.0]) is xs
    assert namespace(np.float64(0.5)) is np
    with pytest.raises(TypeError, match="numpy and array_api_strict"):
        namespace(np.zeros(()), x)                  # a 0-d array is an array

