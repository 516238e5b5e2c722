"""A user's script: checked by `mypy --strict` (tests/test_typing.py, `.ci/run`) and run by
the suite.  `assert_type` says what type each call gives (a no-op at run time); the lines
marked `# type: ignore[code]` in `misuses` must be errors of that code (mypy's
warn_unused_ignores, part of --strict, fails if one is not)."""

import math
from dataclasses import dataclass
from typing import Any, Callable, assert_type

import numpy as np

import chainrules as cr
from chainrules import ad
from chainrules.ad import math as admath
import chainrules.ad.numpy as adnp
from chainrules.ad.autograd import grad, make_vjp
from chainrules.finite_differences import FiniteDifferenceMethod, central_fdm, to_vec
from chainrules.testing import PrimalAndTangent, TestConfig, rand_tangent, test_approx
from chainrules.testing import test_frule, test_rrule, test_scalar


@dataclass
class Point:
    x: float
    y: float


# ----- frule / rrule, with and without a config -------------------------------------------

def rrule_without_config() -> float:
    res = cr.rrule(math.sin, 0.5)
    assert_type(res, tuple[float, cr.Pullback] | None)
    assert res is not None              # None: no rule
    y, pullback = res
    assert_type(y, float)
    cotangents = pullback(1.0)
    assert_type(cotangents, tuple[Any, ...])
    dself, dx = cotangents
    assert dself is cr.NoTangent()
    return float(dx)


def rrule_with_config() -> float:
    res = cr.rrule(ad.ReverseConfig(), math.sin, 0.5)
    assert_type(res, tuple[float, cr.Pullback] | None)
    assert res is not None
    return float(res[1](1.0)[1])


def frule_without_config() -> float:
    res = cr.frule((cr.NoTangent(), 1.0), math.sin, 0.5)
    assert_type(res, tuple[float, Any] | None)
    assert res is not None
    y, dy = res
    assert_type(y, float)
    return float(dy)


def frule_with_config() -> float:
    res = cr.frule(ad.ForwardConfig(), (cr.NoTangent(), 1.0), math.sin, 0.5)
    assert_type(res, tuple[float, Any] | None)
    assert res is not None
    return float(res[1])


# ----- defining rules: a named pullback, the decorators keep the rule's own type ------------

def scale(x: float) -> float:
    return 3.0 * x


@cr.register_rrule(scale)
def scale_rrule(x: float) -> tuple[float, cr.Pullback]:
    def scale_pullback(ȳ: float) -> tuple[cr.NoTangent, float]:
        return cr.NoTangent(), 3.0 * ȳ
    return scale(x), scale_pullback


@cr.register_frule(scale)
def scale_frule(tangents: tuple[Any, float], x: float) -> tuple[float, float]:
    return scale(x), 3.0 * tangents[1]


def cube(x: float) -> float:
    return x ** 3


@cr.scalar_rule(cube)
def cube_partials(x: float) -> float:
    return 3.0 * x ** 2


def square(x: float) -> float:
    return x * x


assert_type(scale_rrule(2.0), tuple[float, cr.Pullback])
assert_type(cr.scalar_rule(square, lambda x: 2 * x)(3.0), float)   # returns square itself


# ----- tangent types ----------------------------------------------------------------------

def tangents() -> Point:
    t = cr.Tangent[Point](x=1.0)
    assert_type(t, cr.Tangent[Point])
    assert_type(t.primal_type, type[Point])
    moved = Point(1.0, 2.0) + t         # P + Tangent[P] rebuilds a P
    assert_type(moved, Point)
    assert_type(cr.ZeroTangent() + t, Any)
    pair = cr.Tangent[tuple[float, float]](1.0, 2.0)   # the primal type, parameterised
    assert_type(pair, cr.Tangent[tuple[float, float]])
    assert_type((1.0, 2.0) + pair, tuple[float, float])
    assert_type(cr.unthunk(cr.Thunk(lambda: 2.0)), Any)
    assert_type(cr.NO_FIELDS, cr.NoTangent)
    assert_type(cr.ProjectTo(1.0), cr.ProjectTo)
    assert_type(cr.debug_mode(), bool)
    with cr.debug_mode(False):
        pass
    return moved


# ----- the reference AD -------------------------------------------------------------------

def foo(x: float) -> float:
    return admath.asin(0.2 + admath.sin(x))


@ad.wrap
def softplus(x: float) -> float:
    return admath.log1p(admath.exp(x))


def reference_ad() -> list[Any]:
    value, grad = ad.value_and_gradient(foo, 3.0)
    assert_type(value, float)
    y, pullback = ad.vjp(foo, 3.0)
    assert_type(y, float)
    assert_type(pullback, cr.Pullback)
    omega, domega = ad.jvp(foo, (3.0,), (1.0,))
    assert_type(omega, float)
    assert_type(softplus(1.0), float)   # wrap keeps the function's type
    return [ad.gradient(foo, 3.0), ad.derivative(foo, 3.0), grad, pullback(1.0), domega,
            ad.hessian(foo, 3.0), ad.hvp(foo, 3.0, 1.0), ad.derivative(softplus, 0.0),
            ad.jacobian(np.sin, np.zeros(2), mode="forward")]


# ----- the testing kit and finite differences ---------------------------------------------

def testing_kit() -> None:
    test_scalar(math.sin, 0.5)
    test_rrule(scale, 2.0)
    test_frule(math.sin, PrimalAndTangent(0.5, -1.0), rtol=1e-8)
    test_rrule(TestConfig(), math.sin, 0.5)
    test_approx(cr.Tangent[Point](x=1.0), cr.Tangent[Point](x=1.0, y=0.0))
    assert_type(rand_tangent(1.0), Any)
    m = central_fdm(5, 1)
    assert_type(m, FiniteDifferenceMethod)
    test_approx(m(math.sin, 1.0), math.cos(1.0), rtol=1e-9)
    v, back = to_vec((1.0, np.ones(2)))
    assert_type(v, np.ndarray[Any, np.dtype[np.float64]])
    back(v)


# ----- misuses that mypy rejects (never run) -----------------------------------------------

def misuses() -> None:
    y, pullback = cr.rrule(math.sin, 0.5)  # type: ignore[misc]  # may be None
    cr.frule(math.sin, 0.5)  # type: ignore[call-overload]  # the tangents come first
    Point(1.0, 2.0) + cr.Tangent[tuple[float]](1.0)  # type: ignore[operator]  # wrong P
    central_fdm("5", 1)  # type: ignore[arg-type]
    test_rrule(math.sin, 0.5, rtol="tight")  # type: ignore[arg-type]
    ad.jacobian(np.sin, np.zeros(2), mode="sideways")  # type: ignore[arg-type]
    cr.register_rrule(scale, config="sometimes")  # type: ignore[arg-type]

    @cr.register_rrule(cube)  # type: ignore[type-var]  # a rule returns (Ω, pullback) or None
    def cube_rrule(x: float) -> float:
        return x


# ----- an autograd program on chainrules.ad ----------------------------------------------

def autograd_program() -> float:
    def loss(w: Any) -> Any:
        return adnp.sum(adnp.tanh(adnp.array([w[0], 2.0 * w[1]])) ** 2)
    loss_grad = grad(loss)
    assert_type(loss_grad, Callable[..., Any])
    vjp, value = make_vjp(loss)(adnp.array([0.5, 1.0]))
    return float(loss_grad(np.array([0.5, 1.0]))[0] - vjp(1.0)[0]) + float(value) * 0.0


def main() -> None:
    assert rrule_without_config() == rrule_with_config() == math.cos(0.5)
    assert frule_without_config() == frule_with_config() == math.cos(0.5)
    assert tangents() == Point(2.0, 2.0)
    results = reference_ad()
    assert results[0] == results[1] == -1.0531613736418153
    testing_kit()
    assert autograd_program() == 0.0


if __name__ == "__main__":
    main()
