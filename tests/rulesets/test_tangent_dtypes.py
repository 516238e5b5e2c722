"""Tangents have the primal's dtype, always (issue 11, item 6): the array
rules at float32, complex64 and complex128 inputs, through the testing kit
(whose check_tangent_type compares every tangent's dtype with its primal's),
and the three rules found off by comparing with JAX."""

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

_RNG = np.random.default_rng(6)
_DTYPES = [np.float32, np.complex64, np.complex128]


def _x(shape, dtype):
    x = _RNG.uniform(0.5, 1.5, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 0.3j * _RNG.uniform(0.5, 1.5, shape)
    return x.astype(dtype)


_UNARY = [np.sin, np.exp, np.tanh, np.sqrt, np.square, np.reciprocal, np.log, np.abs, np.negative, np.conjugate,
          np.real, np.imag]
_REDUCTIONS = [(np.sum, {}), (np.sum, {"axis": 0}), (np.mean, {"axis": 1}), (np.prod, {}), (np.var, {}),
               (np.std, {"axis": 0}), (np.cumsum, {"axis": 0}), (np.trace, {}), (np.transpose, {}),
               (np.linalg.inv, {}), (np.linalg.det, {}), (np.linalg.norm, {}), (np.fft.fft, {})]


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("f", _UNARY, ids=lambda f: f.__name__)
def test_unary_rules_keep_the_dtype(f, dtype):
    x = _x((3,), dtype)
    tol = 1e-3 if np.dtype(dtype).itemsize <= 8 else None
    test_frule(f, x, rtol=tol, atol=tol)
    test_rrule(f, x, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("f,kw", _REDUCTIONS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_array_rules_keep_the_dtype(f, kw, dtype):
    x = _x((3, 3), dtype) + 2 * np.eye(3, dtype=dtype)
    tol = 2e-3 if np.dtype(dtype).itemsize <= 8 else None
    test_frule(f, x, fkwargs=kw, rtol=tol, atol=tol)
    test_rrule(f, x, fkwargs=kw, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_binary_rules_keep_the_dtype(dtype):
    x, y = _x((3,), dtype), _x((3,), dtype)
    for f in (np.multiply, np.add, np.divide, np.dot):
        test_frule(f, x, y, rtol=1e-3, atol=1e-3)
        test_rrule(f, x, y, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("ord", ["fro", "f"])
def test_frobenius_norm_without_axis(ord):
    a = np.arange(1.0, 7.0).reshape(2, 3)
    test_frule(np.linalg.norm, a, PrimalAndTangent(ord, cr.NoTangent()))
    test_rrule(np.linalg.norm, a, PrimalAndTangent(ord, cr.NoTangent()))


@pytest.mark.parametrize("f,q", [(np.quantile, 0.3), (np.nanquantile, 0.3), (np.percentile, 30.0),
                                 (np.nanpercentile, 30.0)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_float32_quantiles_with_a_float32_scalar_q_keep_float32(f, q):
    x = np.linspace(0.0, 1.0, 7, dtype=np.float32) ** 2
    q = np.float32(q)
    Ω, ΔΩ = cr.frule((cr.NoTangent(), np.ones(7, np.float32), np.float32(1)), f, x, q)
    assert np.asarray(ΔΩ).dtype == np.float32 and type(ΔΩ) is type(Ω)
    test_frule(f, x, q, rtol=1e-3, atol=1e-3)
    test_rrule(f, x, q, rtol=1e-3, atol=1e-3)


def test_average_of_complex_values_with_real_weights_returned():
    a = np.array([1 + 1j, 2 - 1j, 0.5j])
    w = np.array([1.0, 2.0, 3.0])
    (_, W), ΔΩ = cr.frule((cr.NoTangent(), np.ones(3, complex), cr.NoTangent(), np.ones(3), cr.NoTangent()),
                          np.average, a, None, w, True)
    assert np.asarray(ΔΩ[1]).dtype == np.asarray(W).dtype == np.complex128
    test_frule(np.average, a, PrimalAndTangent(None, cr.NoTangent()), w, PrimalAndTangent(True, cr.NoTangent()))
    test_rrule(np.average, a, PrimalAndTangent(None, cr.NoTangent()), w, PrimalAndTangent(True, cr.NoTangent()))
