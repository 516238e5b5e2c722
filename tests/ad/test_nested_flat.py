"""The reverse engine's flat path under forward over reverse (`ad.hvp`,
`ad.hessian`): Vars whose primals are Duals of the enclosing forward
differentiation holding real values are recorded by the compiled flat path
(`_core/ad_reverse.pxi`, `_real_dual`); complex values, Vars of an enclosing
tape and rules that fail on Duals go to the generic engine."""

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import _tracing
from chainrules._core import Var


@pytest.fixture
def generic_calls(monkeypatch):
    """The operations the generic reverse engine applied (the flat path does
    not call it)."""
    calls = []
    apply = _tracing.ENGINES[Var]

    def counting(top, kind, f, args, kwargs):
        calls.append(f)
        return apply(top, kind, f, args, kwargs)
    monkeypatch.setitem(_tracing.ENGINES, Var, counting)
    return calls


def _fd_hvp(f, x, v, h=1e-6):
    return (ad.gradient(f, x + h * v) - ad.gradient(f, x - h * v)) / (2 * h)


def f_sin(x):
    return np.sum(np.sin(x) * x)


def f_mixed(x):
    y = np.tanh(x) / (1.0 + x * x) - np.exp(-x) * 0.5
    return np.sum(y * y) + np.mean(np.log1p(x * x)) * 3.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hvp_of_float_arrays_takes_the_flat_path(dtype, generic_calls):
    x = np.linspace(0.1, 1.0, 10).astype(dtype)
    v = np.linspace(1.0, -0.5, 10).astype(dtype)
    got = ad.hvp(f_sin, x, v)
    want = (2 * np.cos(x.astype(np.float64)) - x * np.sin(x.astype(np.float64))) * v
    assert generic_calls == []
    assert got.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_hvp_of_longer_code_against_finite_differences(generic_calls):
    x = np.linspace(-0.8, 1.3, 7)
    v = np.cos(np.arange(7.0))
    got = ad.hvp(f_mixed, x, v)
    assert generic_calls == []
    np.testing.assert_allclose(got, _fd_hvp(f_mixed, x, v), rtol=1e-6, atol=1e-7)
    h = ad.hessian(f_mixed, x)
    np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h @ v, got, rtol=1e-12, atol=1e-12)


def test_hessian_of_a_python_float_takes_the_flat_path(generic_calls):
    got = ad.hessian(lambda x: np.sin(x) * x, 0.5)
    assert generic_calls == []
    assert got == pytest.approx(2 * np.cos(0.5) - 0.5 * np.sin(0.5), rel=1e-13)


def test_complex_values_fall_back_to_the_generic_engine(generic_calls):
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j, 0.5 - 0.7j])
    w = np.array([1.0 - 0.5j, 0.2 + 0.1j, -0.3 + 1.0j])

    def f(z):
        return np.sum(np.real(np.sin(z) * np.conj(z)))
    got = ad.hvp(f, z, w)
    assert generic_calls                            # complex: the generic engine
    want = (ad.gradient(f, z + 1e-6 * w) - ad.gradient(f, z - 1e-6 * w)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_real_inputs_with_a_complex_intermediate_fall_back(generic_calls):
    x = np.linspace(0.2, 0.9, 4)
    v = np.ones(4)

    def f(x):
        return np.sum(np.abs(np.exp(1j * x) * x) ** 2)     # = sum(x²)
    got = ad.hvp(f, x, v)
    assert generic_calls
    np.testing.assert_allclose(got, 2 * v, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reverse_over_reverse_takes_the_flat_path(dtype, generic_calls):
    x = np.linspace(-0.8, 1.3, 7).astype(dtype)
    v = np.cos(np.arange(7.0)).astype(dtype)
    got = ad.gradient(lambda z: np.sum(ad.gradient(f_mixed, z) * v), x)
    assert generic_calls == []
    assert got.dtype == dtype
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(got, ad.hvp(f_mixed, x.astype(np.float64), v.astype(np.float64)),
                               rtol=tol, atol=tol)


def test_reverse_over_reverse_of_complex_values_falls_back(generic_calls):
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j])
    w = np.array([1.0 - 0.5j, 0.2 + 0.1j])

    def f(z):
        return np.sum(np.real(np.sin(z) * np.conj(z)))
    got = ad.gradient(lambda u: np.sum(np.real(np.conj(ad.gradient(f, u)) * w)), z)
    assert generic_calls
    np.testing.assert_allclose(got, ad.hvp(f, z, w), rtol=1e-10, atol=1e-12)


def test_reverse_over_reverse_and_forward_over_forward_unchanged():
    x = np.linspace(0.1, 1.0, 10)
    v = np.linspace(1.0, -0.5, 10)
    want = (2 * np.cos(x) - x * np.sin(x)) * v
    rr = ad.gradient(lambda z: ad.gradient(f_sin, z) @ v, x)
    np.testing.assert_allclose(rr, want, rtol=1e-12)
    ff = ad.derivative(lambda s: ad.derivative(lambda t: f_sin(x + (s + t) * v), 0.0), 0.0)
    assert ff == pytest.approx(want @ v, rel=1e-12)


def test_a_rule_that_fails_on_duals_still_reports_through_the_generic_engine(opaque):
    with pytest.raises(ad.NoRuleError, match=r"nested differentiation.*opaque"):
        ad.hvp(lambda a: np.sum(opaque(a.reshape(2, 2) @ a.reshape(2, 2).T) ** 2),
               np.array([2.0, 0.5, 0.1, 3.0]), np.ones(4))


def f_cholesky(a):
    m = a.reshape(2, 2)
    return np.sum(np.linalg.cholesky(m @ m.T + np.eye(2)) ** 3)


def test_hvp_through_cholesky_takes_its_rule():
    x, v = np.array([2.0, 0.5, 0.1, 3.0]), np.array([1.0, -0.5, 0.3, 0.7])
    got = ad.hvp(f_cholesky, x, v)
    np.testing.assert_allclose(got, _fd_hvp(f_cholesky, x, v), rtol=1e-7, atol=1e-7)
    rr = ad.gradient(lambda z: np.sum(ad.gradient(f_cholesky, z) * v), x)
    np.testing.assert_allclose(got, rr, rtol=1e-10, atol=1e-12)
