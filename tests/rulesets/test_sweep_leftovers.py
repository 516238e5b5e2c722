"""Sample cases for the registry sweep (tests/rulesets/test_registry_sweep.py) of
the rules whose family tests list none: NumPy's trace, divmod, frexp, modf, angle,
astype, sinc, spacing, heaviside, nan_to_num, rfft2/irfft2/irfftn, the linalg
norms, ndarray's __getitem__ and astype, math's gamma and lgamma, and
scipy.special's zeta ufunc.  The sweep runs them at order 1 and 2 in float64
(complex128 where given), and float32 by a cast; here each runs once at order 1."""

import math

import numpy as np
import pytest

from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from ._order2 import Case

sp = pytest.importorskip("scipy.special")
NT = __import__("chainrules").NoTangent()

_rng = np.random.default_rng(31)
M = _rng.uniform(0.5, 1.5, (3, 3))
V = _rng.uniform(0.5, 1.5, 4)
Z = V + 1j * _rng.uniform(0.5, 1.5, 4)

SWEEP_CASES = [
    Case("trace", np.trace, M), Case("ndarray.trace", np.ndarray.trace, M),
    Case("linalg.trace", np.linalg.trace, M),
    Case("divmod", np.divmod, V * 3, np.array([0.7, 1.1, 0.9, 1.3])),
    Case("frexp", np.frexp, V * 5), Case("modf", np.modf, V * 3),
    Case("angle", np.angle, Z), Case("astype", np.astype, V, np.float64),
    Case("ndarray.astype", np.ndarray.astype, V, np.float64),
    Case("sinc", np.sinc, np.array([-0.7, 0.3, 1.4])), Case("spacing", np.spacing, V),
    Case("heaviside", np.heaviside, np.array([-0.5, 0.25, 1.5]), np.array([0.3, 0.6, 0.9])),
    Case("nan_to_num", np.nan_to_num, V),
    Case("rfft2", np.fft.rfft2, _rng.uniform(-1, 1, (3, 4))),
    Case("irfft2", np.fft.irfft2, np.fft.rfft2(_rng.uniform(-1, 1, (3, 4))), fkwargs=dict(s=(3, 4))),
    Case("irfftn", np.fft.irfftn, np.fft.rfftn(_rng.uniform(-1, 1, (2, 4))), fkwargs=dict(s=(2, 4))),
    Case("linalg.vector_norm", np.linalg.vector_norm, V - 1.0),
    Case("linalg.matrix_norm", np.linalg.matrix_norm, M),
    Case("ndarray.__getitem__", np.ndarray.__getitem__, M, PrimalAndTangent((slice(0, 2), 1), NT)),
    Case("math.gamma", math.gamma, 1.7), Case("math.lgamma", math.lgamma, 2.3),
    # ζ(s, q) in s and q (against mpmath in scipy/test_special.py), Riemann's ζ and zetac
    Case("special.zeta", sp.zeta, np.array([2.5, 3.5]), np.array([1.5, 2.0])),
    Case("special._zeta", sp._ufuncs._zeta, np.array([2.5, 3.5]), np.array([1.5, 2.0])),
    Case("special._riemann_zeta", sp._ufuncs._riemann_zeta, np.array([-2.5, 0.5, 3.5])),
    Case("special.zetac", sp.zetac, np.array([-2.5, 0.5, 3.5])),
    Case("heaviside.outer", np.heaviside.outer, np.array([-0.5, 1.5]), np.array([0.3, 0.6, 0.9])),
]


def test_the_leftover_cases_at_order_1():
    failures = []
    for c in SWEEP_CASES:
        try:
            kw = dict(fkwargs=c.fkwargs, **c.tol)
            test_frule(c.f, *c.args, **kw)
            test_rrule(c.f, *c.args, **kw)
        except Exception as e:  # noqa: BLE001 - every failure is collected and reported
            failures.append(f"{c.id}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


def test_astype_on_array_api_strict():
    # the array-API astype body on array-api-strict (the registry sweep's entry for xs.astype):
    # the tangent is cast to the new dtype, the cotangent back to the input's
    xs = pytest.importorskip("array_api_strict")
    import chainrules as cr
    x = xs.asarray([0.6, 1.2, 0.9])
    y, pullback = cr.rrule(xs.astype, x, xs.float32)
    assert y.dtype == xs.float32
    _, x̄, dtype_bar = pullback(xs.asarray([1.0, 2.0, 3.0], dtype=xs.float32))
    assert x̄.dtype == xs.float64 and isinstance(dtype_bar, cr.NoTangent)
    np.testing.assert_array_equal(np.asarray(x̄), [1.0, 2.0, 3.0])
    _, ẏ = cr.frule((cr.NoTangent(), xs.asarray([0.5, 0.25, 1.0]), cr.NoTangent()), xs.astype, x, xs.float32)
    assert ẏ.dtype == xs.float32
    np.testing.assert_array_equal(np.asarray(ẏ), [0.5, 0.25, 1.0])
