"""jvp, vjp, grad and jacobian by finite differences: against analytic
derivatives, on arrays, complex numbers and structures; ⟨Jẋ, ȳ⟩ = ⟨ẋ, Jᵀȳ⟩."""

import dataclasses
import math
import operator
from collections import namedtuple

import numpy as np
import pytest

from chainrules import NoTangent, Tangent, ZeroTangent
from chainrules.finite_differences import central_fdm, forward_fdm, grad, j_vp, jacobian, jvp, to_vec, vjp

FDM = central_fdm(5, 1)
Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Model:
    w: np.ndarray
    b: float


def test_jvp_scalar():
    assert jvp(FDM, math.sin, (1.0, 2.0)) == pytest.approx(2 * math.cos(1.0), abs=1e-11)


def test_jvp_several_arguments():
    d = jvp(FDM, operator.mul, (2.0, 1.0), (3.0, 0.5))
    assert d == pytest.approx(3.0 * 1.0 + 2.0 * 0.5, abs=1e-11)


def test_jvp_array():
    x = np.array([0.1, 0.2, 0.3])
    dx = np.array([1.0, -1.0, 2.0])
    np.testing.assert_allclose(jvp(FDM, np.exp, (x, dx)), np.exp(x) * dx, atol=1e-10)


def test_jvp_holomorphic_complex():
    z, dz = 1 + 2j, 0.5 - 1j
    assert abs(jvp(FDM, lambda z: z * z, (z, dz)) - 2 * z * dz) < 1e-10


def test_jvp_of_structured_output_is_a_tangent():
    d = jvp(FDM, lambda x: (x, Point(2 * x, "label")), (1.0, 1.0))
    assert isinstance(d, Tangent[tuple])
    assert d[0] == pytest.approx(1.0) and isinstance(d[1], Tangent[Point])
    assert d[1].x == pytest.approx(2.0) and d[1].y is NoTangent()


def test_jvp_with_tangent_of_a_structure_and_zero_tangents():
    f = lambda p: p.x * p.y  # noqa: E731
    assert jvp(FDM, f, (Point(2.0, 3.0), Tangent[Point](x=1.0))) == pytest.approx(3.0, abs=1e-11)
    assert jvp(FDM, f, (Point(2.0, 3.0), ZeroTangent())) == 0.0


def test_jvp_holds_integers_fixed():
    assert jvp(FDM, lambda x, n: x ** n, (2.0, 1.0), (3, NoTangent())) == pytest.approx(12.0, abs=1e-9)


def test_vjp_scalar_and_ascii_alias():
    assert vjp(FDM, operator.mul, 1.0, 2.0, 3.0) == pytest.approx((3.0, 2.0), abs=1e-11)
    assert j_vp is vjp


def test_vjp_complex_follows_chainrules_convention():
    # holomorphic f: pullback is conj(f'(z))·ȳ
    z, ybar = 1 + 2j, 0.3 - 0.7j
    (zbar,) = vjp(FDM, lambda z: z * z, ybar, z)
    assert abs(zbar - (2 * z).conjugate() * ybar) < 1e-10


def test_vjp_real_to_complex_and_complex_to_real():
    (xbar,) = vjp(FDM, lambda x: complex(math.cos(x), math.sin(x)), 1j, 0.5)
    assert xbar == pytest.approx(math.cos(0.5), abs=1e-11)   # Re(conj(i e^{ix})·i)
    (zbar,) = vjp(FDM, abs, 1.0, 3 + 4j)
    assert abs(zbar - (3 + 4j) / 5) < 1e-11


def test_vjp_arrays_with_float32_keep_dtype():
    x = np.array([1.0, 2.0], dtype=np.float32)
    (xbar,) = vjp(FDM, lambda x: x * x, np.ones(2, dtype=np.float32), x)
    assert xbar.dtype == np.float32
    np.testing.assert_allclose(xbar, 2 * x, rtol=1e-3)


def test_vjp_structures():
    m = Model(np.array([1.0, 2.0]), 0.5)
    xs = np.array([3.0, 4.0])
    mbar, xbar = vjp(FDM, lambda m, x: float(m.w @ x + m.b), 1.0, m, xs)
    assert isinstance(mbar, Tangent[Model])
    np.testing.assert_allclose(mbar.w, xs, atol=1e-10)
    assert mbar.b == pytest.approx(1.0, abs=1e-10)
    np.testing.assert_allclose(xbar, m.w, atol=1e-10)


def test_vjp_of_dict_and_tuple_arguments():
    d, t = vjp(FDM, lambda d, t: d["a"] * t[0] + t[1], 2.0, {"a": 3.0, "n": 1}, (4.0, 5.0, "s"))
    assert isinstance(d, Tangent[dict]) and d["a"] == pytest.approx(8.0) and d["n"] is NoTangent()
    assert isinstance(t, Tangent[tuple]) and t[0] == pytest.approx(6.0) and t[1] == pytest.approx(2.0)
    assert t[2] is NoTangent()


def test_vjp_non_differentiable_argument_is_no_tangent():
    assert vjp(FDM, lambda x, i: x[i], 1.0, np.ones(3), 1)[1] is NoTangent()


def test_vjp_zero_seed_skips_evaluations():
    calls = []

    def f(x):
        calls.append(x)
        return x

    assert vjp(FDM, f, ZeroTangent(), 1.0) == (0.0,)
    assert len(calls) == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jvp_and_vjp_are_adjoint(seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))

    def f(x, z):
        return (np.tanh(A @ x) * z, float(np.sum(x ** 2)))

    x, z = rng.standard_normal(4), complex(*rng.standard_normal(2))
    dx, dz = rng.standard_normal(4), complex(*rng.standard_normal(2))
    ybar = (rng.standard_normal(3) + 1j * rng.standard_normal(3), float(rng.standard_normal()))
    dy = jvp(FDM, f, (x, dx), (z, dz))
    xbar, zbar = vjp(FDM, f, ybar, x, z)
    lhs = float(np.real(np.vdot(ybar[0], dy[0]))) + ybar[1] * dy[1]
    rhs = float(np.dot(xbar, dx)) + (zbar.conjugate() * dz).real
    assert lhs == pytest.approx(rhs, rel=1e-8)


def test_jacobian_matches_analytic():
    x = np.array([0.5, -1.0])
    (J,) = jacobian(FDM, lambda x: np.array([x[0] * x[1], np.sin(x[0]), 3.0]), x)
    np.testing.assert_allclose(J, [[x[1], x[0]], [np.cos(x[0]), 0.0], [0.0, 0.0]], atol=1e-10)


def test_jacobian_of_several_arguments_and_complex():
    J1, J2 = jacobian(FDM, lambda z, s: z * s, 1 + 2j, 3.0)
    # z*s as R^2: [[s, 0], [0, s]] wrt (re z, im z); wrt s: [re z, im z]
    np.testing.assert_allclose(J1, [[3.0, 0.0], [0.0, 3.0]], atol=1e-10)
    np.testing.assert_allclose(J2, [[1.0], [2.0]], atol=1e-10)


def test_jacobian_shape_for_scalar_output_and_empty_input():
    J1, J2 = jacobian(FDM, lambda x, n: float(np.sum(x)) * n, np.ones(3), 2)
    assert J1.shape == (1, 3) and J2.shape == (1, 0)
    np.testing.assert_allclose(J1, [[2.0, 2.0, 2.0]], atol=1e-10)


def test_grad():
    (g,) = grad(FDM, lambda x: float(np.sum(x ** 2)), np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [2.0, 4.0], atol=1e-10)
    gx, gy = grad(FDM, math.atan2, 1.0, 2.0)
    assert gx == pytest.approx(2 / 5, abs=1e-11) and gy == pytest.approx(-1 / 5, abs=1e-11)


def test_grad_of_complex_argument():
    (g,) = grad(FDM, lambda z: abs(z) ** 2, 1 + 2j)
    assert abs(g - 2 * (1 + 2j)) < 1e-9


def test_grad_needs_a_real_scalar():
    with pytest.raises(TypeError, match="real scalar"):
        grad(FDM, lambda x: x * 1j, 1.0)
    with pytest.raises(TypeError, match="real scalar"):
        grad(FDM, lambda x: x, np.ones(2))


def test_other_methods_work_too():
    assert jvp(forward_fdm(5, 1), math.exp, (0.0, 1.0)) == pytest.approx(1.0, abs=1e-9)


def test_bad_input():
    with pytest.raises(TypeError, match="pair"):
        jvp(FDM, math.sin, 1.0)
    with pytest.raises(TypeError, match="finite difference method"):
        vjp(math.sin, math.sin, 1.0, 1.0)
    with pytest.raises(ValueError, match="q = 1"):
        jvp(central_fdm(5, 2), math.sin, (1.0, 1.0))


def test_round_trip_of_vjp_output_through_to_vec():
    (xbar,) = vjp(FDM, lambda p: p.x * p.y, 1.0, Point(2.0, 3.0))
    v, _ = to_vec(xbar)
    np.testing.assert_allclose(v, [3.0, 2.0], atol=1e-10)
