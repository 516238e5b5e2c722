"""Tests of the NumPy rules of issue 24 (rulesets/numpy/convolution.py, gathers.py,
polynomials.py, sequences.py) with chainrules.testing at order 1 and 2 (float64 and
complex), float32 at order 1, awkward inputs, against JAX, and the bad inputs' errors."""

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule
from chainrules.rulesets.numpy.sequences import bessel_i1

from .._order2 import F32, Case

NT = cr.NoTangent()
RNG = np.random.default_rng(24)


def r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def run(cases, orders=(1, 2)):
    """Each case at each order; every failure collected and reported together."""
    failures = []
    for case in cases:
        f, args = case[0], case[1:]
        kw, tol = {}, {}
        if args and isinstance(args[-1], dict):
            opts = dict(args[-1])
            args = args[:-1]
            kw = opts.pop("fkwargs", None) or {}
            tol = opts
        # float32 and lists (whose elements order 2 tracks one by one): order 1
        first_only = any(getattr(a, "dtype", None) in (np.float32, np.complex64) or isinstance(a, list)
                         and all(isinstance(e, float) for e in a) for a in args)
        for order in (1,) if first_only else orders:
            try:
                test_frule(f, *args, fkwargs=kw or None, order=order, **tol)
                test_rrule(f, *args, fkwargs=kw or None, order=order, **tol)
            except Exception as e:  # noqa: BLE001 - collected and reported together
                failures.append(f"{getattr(f, '__name__', f)}{[np.shape(a) for a in args]} {kw} order {order}: "
                                f"{type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


XP = PrimalAndTangent(np.array([-1.0, 0.0, 0.5, 2.0]), NT)      # interp's xp: not differentiated


def test_convolve_correlate():
    cases = []
    for f in (np.convolve, np.correlate):
        for mode in ("full", "same", "valid"):
            for n, k in ((5, 3), (4, 2), (2, 4), (3, 6), (4, 4), (1, 3)):
                cases.append((f, r(n), c(k), {"fkwargs": {"mode": mode}}))
        cases.append((f, r(4, dtype=np.float32), r(3, dtype=np.float32), F32))
        cases.append((f, np.array([0.0, 1.0, 0.0]), np.array([2.0, -1.0])))
        cases.append((f, [1.0, 2.0, -1.0], [0.5, 1.0]))                 # lists
    run(cases)


def test_gathers():
    cases = [
        (np.fft.fftshift, r(5)), (np.fft.ifftshift, c(4, 3), {"fkwargs": {"axes": 0}}),
        (np.fft.fftshift, r(4, dtype=np.float32), F32),
        (np.choose, np.array([0, 1, 2, 1]), [r(4), r(4), c(4)]),
        (np.choose, np.array([[0, 1], [1, 0]]), r(2, 2, 2)),
        (np.choose, np.array([0, 3]), [r(2), r(2)], {"fkwargs": {"mode": "clip"}}),
        (np.select, [np.array([True, False, False]), np.array([True, True, False])], [r(3), r(3)]),
        (np.select, [np.array([True, False, False])], [r(3)], r(3)),
        # a default by keyword is a constant: where it is chosen, no derivative
        (np.select, [np.array([True, False, False]), np.array([False, True, False])], [r(3), c(3)],
         {"fkwargs": {"default": 2.5}}),
        (np.compress, np.array([True, False, True]), r(3, 2), {"fkwargs": {"axis": 0}}),
        (np.compress, np.array([False, False]), r(2)),                 # empty result
        (np.extract, np.array([True, False, True, True]), c(4)),
        (np.insert, r(4), 1, r(1)), (np.insert, r(3, 2), [0, 2], r(2), {"fkwargs": {"axis": 1}}),
        (np.insert, r(4), [1, 1], 2.5),                                 # repeated index, a scalar
        (np.delete, r(5), [0, 3]), (np.delete, c(3, 2), 1, {"fkwargs": {"axis": 0}}),
        (np.block, [[r(2, 2), r(2, 1)], [r(1, 2), r(1, 1)]]), (np.block, [r(2), r(3)]),
        (np.diagflat, r(3)), (np.diagflat, c(2, 2), 1),
        (np.resize, r(3), (2, 4)),
        (np.meshgrid, r(3), r(2)), (np.meshgrid, r(3), c(2), {"fkwargs": {"indexing": "ij", "sparse": True}}),
        (np.bincount, np.array([0, 2, 2, 5]), r(4)), (np.bincount, np.array([0, 2, 2]), r(3), 6),
    ]
    if hasattr(np, "unstack"):
        cases += [(np.unstack, r(3, 2)), (np.unstack, r(3, 2), {"fkwargs": {"axis": 1}})]
    run(cases)


def test_polynomials():
    x = np.linspace(-1, 1, 6)
    cases = [
        (np.vander, r(4)), (np.vander, np.array([0.0, 1.5, -2.0]), 4, True), (np.vander, c(3), 2),
        (np.polyval, r(4), r(3)), (np.polyval, c(3), c(2, 2)), (np.polyval, r(1), r(3)), (np.polyval, r(3), 0.0),
        (np.polyval, r(3, dtype=np.float32), r(2, dtype=np.float32), F32), (np.polyval, [1.0, -2.0, 0.5], 1.5),
        (np.polyadd, r(3), r(5)), (np.polysub, c(4), r(2)), (np.polyadd, r(2), r(2)),
        (np.polymul, r(3), r(2)), (np.polymul, c(2), r(4)),
        (np.polyder, r(5)), (np.polyder, r(5), 2), (np.polyder, c(3), 3),
        (np.polyint, r(3)), (np.polyint, r(3), 2), (np.polyint, r(3), 1, 0.5), (np.polyint, r(3), 2, r(2)),
        (np.polyfit, x, r(6), 2), (np.polyfit, x, r(6, 2), 1),
        (np.poly, r(3)), (np.poly, c(3)), (np.poly, np.array([0.0, -1.0])), (np.poly, r(1)),
        (np.roots, np.poly(np.array([0.5, -1.0, 2.0]))), (np.roots, np.array([1.0, 0.0, 2.0])),
        (np.roots, c(4)), (np.roots, np.array([1.0, -3.0, 2.0, 0.0])),      # a zero root
        (np.polydiv, r(5), r(3)), (np.polydiv, r(4), c(2)), (np.polydiv, r(2), r(4)), (np.polydiv, r(3), r(3)),
    ]
    run(cases)


def test_sequences():
    nan = r(5)
    nan[2] = np.nan
    cases = [
        (np.interp, np.array([-1.5, -0.3, 0.2, 1.1, 2.5]), XP, r(4)),
        (np.interp, np.array([-1.5, 0.2, 2.5]), XP, c(4), {"fkwargs": {"left": 3.0, "right": -1.0}}),
        (np.interp, 0.3, XP, r(4)),
        (np.ediff1d, r(2, 3)), (np.ediff1d, r(4), r(2), r(1)), (np.ediff1d, c(4), {"fkwargs": {"to_end": [1.0]}}),
        (np.unwrap, np.array([0.1, 3.0, 6.0, -2.9])),
        (np.linspace, 0.3, 2.0, 5), (np.linspace, r(2), r(3, 1), 4, False, {"fkwargs": {"axis": 1}}),
        (np.linspace, 1.0 + 1j, 2.0, 3), (np.linspace, -1.0, -1.0, 1),
        (np.logspace, 0.3, 1.2, 4), (np.logspace, 0.3, 1.2, 4, True, 2.0),
        (np.geomspace, 0.5, 3.0, 4), (np.geomspace, r(2) ** 2 + 0.5, 2.0, 3), (np.geomspace, -0.5, -3.0, 3),
        (np.nancumsum, nan), (np.nancumprod, nan), (np.nancumsum, r(2, 3), {"fkwargs": {"axis": 1}}),
        (np.nancumprod, r(2, 3), 0),
        (np.i0, np.array([0.0, 0.5, -1.2, 3.0])), (bessel_i1, np.array([0.0, 0.5, -1.2, 3.0])),
        (np.einsum, r(2, 3), [0, 1], r(3, 4), [1, 2], [0, 2]), (np.einsum, c(3, 3), [0, 0]),
        (np.einsum, r(2, 3), [Ellipsis, 1], r(3), [1]),
        (np.gradient, r(6)), (np.gradient, r(6), 0.5), (np.gradient, r(5), {"fkwargs": {"edge_order": 2}}),
        (np.gradient, r(2)), (np.gradient, r(3, 4)), (np.gradient, c(3, 4), 0.3, {"fkwargs": {"axis": 1}}),
        (np.gradient, r(4, 3), PrimalAndTangent(np.array([0.0, 0.5, 1.5, 1.7]), NT), 2.0,
         {"fkwargs": {"edge_order": 2}}),
    ]
    if hasattr(np, "cumulative_sum"):
        cases += [(np.cumulative_sum, r(4)), (np.cumulative_sum, r(2, 3), {"fkwargs": {"axis": 1, "include_initial": True}}),
                  (np.cumulative_prod, r(4)),
                  (np.cumulative_prod, np.array([1.5, 0.0, 2.0, -1.0]), {"fkwargs": {"include_initial": True}})]
    if hasattr(np, "matvec"):
        cases += [(np.matvec, r(3, 2), r(2)), (np.matvec, c(2, 3, 2), c(2)), (np.vecmat, c(3), c(3, 2)),
                  (np.vecmat, r(2, 3), r(3, 2))]
    run(cases)


def test_against_jax(jax_x64):
    jnp = jax_x64.numpy
    a, v, p, x = r(6), r(3), r(4), r(5)
    xp, fp, xq = np.array([-1.0, 0.0, 0.5, 2.0]), r(4), np.array([-1.5, -0.3, 0.2, 1.1, 2.5])
    checks = [(np.convolve, jnp.convolve, (a, v), {"mode": "same"}),
              (np.correlate, jnp.correlate, (a, v), {"mode": "full"}),
              (np.polyval, jnp.polyval, (p, x), {}),
              (np.interp, jnp.interp, (xq, xp, fp), {}),
              (np.polyder, jnp.polyder, (p, 2), {}),
              (np.vander, jnp.vander, (x, 4), {})]
    for f, jf, args, kw in checks:
        y, pb = cr.rrule(f, *args, **kw)
        ȳ = r(*np.shape(y))
        mine = [cr.unthunk(g) for g in pb(ȳ)[1:]]
        diff = [i for i, v_ in enumerate(args) if isinstance(v_, np.ndarray) and v_.dtype.kind == "f"]
        if f is np.interp:
            diff = [0, 2]
        jy, vjp = jax_x64.vjp(lambda *d: jf(*[d[diff.index(i)] if i in diff else args[i]
                                                for i in range(len(args))], **kw), *[args[i] for i in diff])
        np.testing.assert_allclose(np.asarray(jy), y, rtol=1e-12, atol=1e-12)
        for g, i in zip(vjp(ȳ), diff):
            np.testing.assert_allclose(mine[i], np.asarray(g), rtol=1e-10, atol=1e-12, err_msg=f.__name__)


def test_bad_input():
    bad = [(lambda: cr.rrule(np.convolve, r(3), r(2), mode="sideways"), ValueError, "numpy.convolve"),
           (lambda: cr.rrule(np.correlate, r(3), r(2), "valid", 3), TypeError, "numpy.correlate"),
           (lambda: cr.rrule(np.choose, np.array([0, 1]), [r(2), r(2)], out=np.zeros(2)), TypeError, "out="),
           (lambda: cr.rrule(np.interp, 0.3, np.array([0.0, 1.0]), r(2), period=1.0), TypeError, "period"),
           (lambda: cr.rrule(np.polyfit, r(4), r(4), 1, None, False, r(4)), TypeError, "numpy.polyfit"),
           (lambda: cr.rrule(np.polyval, np.poly1d([1.0, 2.0]), 0.5), TypeError, "np.poly1d"),
           (lambda: cr.rrule(np.poly, r(2, 2)), ValueError, "numpy.poly"),
           (lambda: cr.rrule(np.linspace, 0.0, 1.0, 3, retstep=True), TypeError, "retstep"),
           (lambda: cr.rrule(np.gradient, r(4), 1.0, 2.0), TypeError, "numpy.gradient")]
    for call, error, words in bad:
        with pytest.raises(error, match=words.replace(".", r"\.").replace("(", r"\(")):
            call()
    # what is not implemented says so, naming the argument
    _, ΔΩ = cr.frule((NT, 0.0, np.ones(2), np.zeros(2)), np.interp, 0.3, np.array([0.0, 1.0]), r(2))
    assert isinstance(ΔΩ, cr.NotImplementedTangent) and "xp" in repr(ΔΩ) or "xp" in str(ΔΩ.info)


SWEEP_CASES = [
    Case("np.convolve", np.convolve, r(5), r(3)),
    Case("np.correlate", np.correlate, r(5), r(3), fkwargs={"mode": "same"}),
    Case("np.fftshift", np.fft.fftshift, r(2, 3)), Case("np.ifftshift", np.fft.ifftshift, r(5)),
    Case("np.choose", np.choose, np.array([0, 1, 0]), [r(3), r(3)]),
    Case("np.select", np.select, [np.array([True, False, True])], [r(3)], r(3)),
    Case("np.compress", np.compress, np.array([True, False, True]), r(3)),
    Case("np.extract", np.extract, np.array([True, False, True]), r(3)),
    Case("np.insert", np.insert, r(4), 2, r(2)), Case("np.delete", np.delete, r(4), 1),
    Case("np.block", np.block, [r(2), r(1)]), Case("np.diagflat", np.diagflat, r(2)),
    Case("np.resize", np.resize, r(3), 5), Case("np.meshgrid", np.meshgrid, r(2), r(3)),
    Case("np.bincount", np.bincount, np.array([0, 1, 1]), r(3)),
    Case("np.vander", np.vander, r(3)), Case("np.polyval", np.polyval, r(3), r(2)),
    Case("np.polyadd", np.polyadd, r(3), r(2)), Case("np.polysub", np.polysub, r(2), r(3)),
    Case("np.polymul", np.polymul, r(3), r(2)), Case("np.polyder", np.polyder, r(4)),
    Case("np.polyint", np.polyint, r(3)), Case("np.polyfit", np.polyfit, np.linspace(0, 1, 5), r(5), 2),
    Case("np.poly", np.poly, r(3)), Case("np.polydiv", np.polydiv, r(4), r(2)), Case("np.roots", np.roots, np.array([1.0, -3.0, 2.0])),
    Case("np.ediff1d", np.ediff1d, r(4)), Case("np.unwrap", np.unwrap, np.array([0.1, 3.0, 6.0])),
    Case("np.linspace", np.linspace, 0.5, 2.0, 4), Case("np.logspace", np.logspace, 0.5, 1.0, 3),
    Case("np.geomspace", np.geomspace, 0.5, 2.0, 4),
    Case("np.nancumsum", np.nancumsum, r(4)), Case("np.nancumprod", np.nancumprod, r(4)),
    Case("np.i0", np.i0, np.array([0.3, -1.2])), Case("bessel_i1", bessel_i1, np.array([0.3, -1.2])),
    Case("np.gradient", np.gradient, r(5)),
    Case("np.interp", np.interp, np.array([-0.5, 0.7]), XP, r(4)),
]
if hasattr(np, "unstack"):
    SWEEP_CASES += [Case("np.unstack", np.unstack, r(2, 3)),
                    Case("np.cumulative_sum", np.cumulative_sum, r(4)),
                    Case("np.cumulative_prod", np.cumulative_prod, r(4))]
if hasattr(np, "matvec"):
    SWEEP_CASES += [Case("np.matvec", np.matvec, r(2, 3), r(3)), Case("np.vecmat", np.vecmat, r(3), r(3, 2))]


def test_piecewise():
    from chainrules import ad
    from chainrules.testing import TestConfig
    x = np.array([-1.5, -0.2, 0.3, 1.7, 2.5])
    for conds, funcs in [([x < 0, x > 2], [np.sin, lambda v: v ** 2, lambda v: 3 * v]),
                         ([x < 0], [np.exp, 1.0]),                       # otherwise: a constant
                         ([x < 0, x < 1], [np.cos, np.sinh])]:            # overlapping: the last wins
        test_frule(TestConfig(), np.piecewise, x, conds, funcs)
        test_rrule(TestConfig(), np.piecewise, x, conds, funcs)
    # through chainrules.ad, both modes
    g = ad.gradient(lambda v: np.sum(np.piecewise(v, [v < 0], [np.sin, np.exp])), x)
    np.testing.assert_allclose(g, np.where(x < 0, np.cos(x), np.exp(x)), rtol=1e-14)
    np.testing.assert_allclose(ad.derivative(lambda v: np.piecewise(v, [v < 0], [np.sin, np.exp]), -0.3),
                               np.cos(-0.3), rtol=1e-14)


def test_apply_over_axes():
    from chainrules import ad
    from chainrules.testing import TestConfig
    a = np.arange(1.0, 25.0).reshape(2, 3, 4) / 10
    for f, axes in [(np.sum, [0, 2]), (np.prod, 1), (np.max, [1])]:
        test_frule(TestConfig(), np.apply_over_axes, f, a, axes)
        test_rrule(TestConfig(), np.apply_over_axes, f, a, axes)
    g = ad.gradient(lambda v: np.sum(np.apply_over_axes(np.sum, v, [0, 2]) ** 2), a)
    np.testing.assert_allclose(g, np.broadcast_to(2 * np.sum(a, axis=(0, 2), keepdims=True), a.shape))
