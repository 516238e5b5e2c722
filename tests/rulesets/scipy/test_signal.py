"""Tests of chainrules/rulesets/scipy/signal.py: the convolutions in every mode (1-d, 2-d,
the larger array first or second), lfilter in b, a, x and zi (y and zf), sosfilt, filtfilt; with
chainrules.testing at order 1 and 2, complex, float32, against JAX, and bad input."""

import numpy as np
import pytest
import scipy.signal as signal

import chainrules as cr
from chainrules.finite_differences import central_fdm, jvp
from chainrules.testing import TestConfig, test_frule, test_rrule

from .._order2 import F32, Case

NT = cr.NoTangent()
RNG = np.random.default_rng(243)


def r(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def c(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def run(cases):
    failures = []
    for f, args, kw, orders, tol in cases:
        for order in orders:
            try:
                test_frule(f, *args, fkwargs=kw, order=order, **tol)
                test_rrule(f, *args, fkwargs=kw, order=order, **tol)
            except Exception as e:  # noqa: BLE001 - collected and reported together
                failures.append(f"{f.__name__}{[np.shape(a) for a in args]} {kw} order {order}: "
                                f"{type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


CONVOLUTIONS = [signal.convolve, signal.correlate, signal.fftconvolve, signal.oaconvolve,
                signal.convolve2d, signal.correlate2d]


def test_convolutions():
    cases = []
    for f in CONVOLUTIONS:
        for mode in ("full", "same", "valid"):
            for i, (s1, s2) in enumerate((((4, 3), (2, 2)), ((2, 3), (4, 3)), ((3, 2), (3, 2)))):
                orders = (1, 2) if i != 2 else (1,)     # order 2 on the larger array first and second
                cases.append((f, (r(*s1), c(*s2) if f is not signal.oaconvolve else r(*s2)),
                              {"mode": mode}, orders, {}))
        cases.append((f, (r(3, 3, dtype=np.float32), r(2, 2, dtype=np.float32)), None, (1,), F32))
    for method in ("direct", "fft"):
        cases.append((signal.convolve, (r(6), r(3)), {"mode": "same", "method": method}, (1, 2), {}))
        cases.append((signal.correlate, (r(2, 3, 2), c(2, 2, 2)), {"method": method}, (1, 2), {}))
    run(cases)


def test_lfilter():
    b, a = np.array([0.5, 0.3, 0.2]), np.array([1.5, -0.4, 0.1, 0.05])
    cases = [
        (signal.lfilter, (b, a, r(6)), None, (1, 2), {}),
        (signal.lfilter, (b, a, r(6), -1, r(3)), None, (1, 2), {}),
        (signal.lfilter, (b, a, r(2), -1, r(3)), None, (1, 2), {}),       # shorter than the state
        (signal.lfilter, (a, b, r(2, 5)), None, (1, 2), {}),               # b longer than a
        (signal.lfilter, (b, a, r(5, 2)), {"axis": 0}, (1, 2), {}),
        (signal.lfilter, (b, a, c(5, 2), 0, r(3, 2)), None, (1, 2), {}),
        (signal.lfilter, (b + 1j * b[::-1], a, r(4)), None, (1, 2), {}),
        (signal.lfilter, (np.array([1.0]), np.array([1.0]), r(3)), None, (1, 2), {}),   # the identity
        (signal.lfilter, ([0.5, 0.5], [1.0, -0.2], [1.0, 2.0, 3.0]), None, (1,), {}),    # lists
        (signal.lfilter, (b, a, r(6), -1), {"zi": r(3)}, (1,), {}),       # zi by keyword: no tangent
        (signal.lfilter, (b.astype(np.float32), a.astype(np.float32), r(5, dtype=np.float32)), None, (1,), F32),
    ]
    run(cases)


def test_sosfilt():
    # sos[:, 3] must be 1: the kit perturbs every argument, so sos is checked with
    # finite differences along directions that keep it, and as an integer (no tangent)
    sos = signal.butter(4, 0.3, output="sos")
    keep = np.ones(sos.shape)
    keep[:, 3] = 0
    for x, zi in ((r(7), None), (r(2, 6), r(2, 2, 2))):
        ṡ, ẋ = r(*sos.shape) * keep, r(*x.shape)
        args = (sos, x) if zi is None else (sos, x, -1, zi)

        def f(S, X):
            y = signal.sosfilt(S, X) if zi is None else signal.sosfilt(S, X, -1, zi)[0]
            return y
        tangents = (NT, ṡ, ẋ) + ((NT, cr.ZeroTangent()) if zi is not None else ())
        _, d = cr.frule(tangents, signal.sosfilt, *args)
        d = d if zi is None else d[0]
        expected = jvp(central_fdm(5, 1), f, (sos, ṡ), (x, ẋ))
        np.testing.assert_allclose(d, expected, rtol=1e-8, atol=1e-9)
        ȳ = r(*x.shape)
        _, pb = cr.rrule(signal.sosfilt, *args)
        g = pb(ȳ if zi is None else cr.Tangent[tuple](ȳ, cr.ZeroTangent()))
        lhs = np.sum(cr.unthunk(g[1]) * ṡ) + np.sum(cr.unthunk(g[2]) * ẋ)
        np.testing.assert_allclose(lhs, np.sum(ȳ * expected), rtol=1e-8)
    fir = np.array([[1, 2, 1, 1, 0, 0], [1, -1, 0, 1, 0, 0]])
    run([(signal.sosfilt, (fir, r(6)), None, (1, 2), {}),
         (signal.sosfilt, (fir, c(2, 5), -1, r(2, 2, 2)), None, (1, 2), {}),
         (signal.sosfilt, (fir, r(5, 2), 0, r(2, 2, 2)), None, (1, 2), {})])


def test_filtfilt():
    from chainrules import ad
    from chainrules.testing import TestConfig
    b, a = signal.butter(3, 0.3)
    x, X = r(30), r(20, 2)
    for args, kw in (((b, a, x), None), ((b, a, X, 0), None), ((b, a, x), {"padtype": None}),
                     ((b, a, x), {"padlen": 5}), ((np.array([0.5, 0.5]), np.array([1.0]), x), None)):
        test_frule(TestConfig(), signal.filtfilt, *args, fkwargs=kw)
        test_rrule(TestConfig(), signal.filtfilt, *args, fkwargs=kw)
    filtfilt = ad.wrap(signal.filtfilt)

    def energy(b):
        return np.sum(filtfilt(b, a, x) ** 2)

    def plain(b):
        return np.sum(signal.filtfilt(b, a, x) ** 2)
    fd = [(plain(b + 1e-6 * e) - plain(b - 1e-6 * e)) / 2e-6 for e in np.eye(len(b))]
    np.testing.assert_allclose(ad.gradient(energy, b), fd, rtol=1e-6)
    # order 2 (the rule's value on traced inputs is the composed function's): the Hessian in b
    # by forward over reverse and reverse over reverse, against differences of the gradient;
    # mixed in a and x by forward over reverse
    h = 1e-5
    fd2 = np.array([(ad.gradient(energy, b + h * e) - ad.gradient(energy, b - h * e)) / (2 * h) for e in np.eye(len(b))])
    np.testing.assert_allclose(ad.hessian(energy, b), fd2, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ad.jacobian(lambda u: ad.gradient(energy, u), b), fd2, rtol=1e-6, atol=1e-8)

    def mixed(v):
        return np.sum(filtfilt(b, v[:4], x + v[4]) ** 2)
    v = np.concatenate([a, [0.3]])
    fdm = np.array([(ad.gradient(mixed, v + h * e) - ad.gradient(mixed, v - h * e)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(ad.hessian(mixed, v), fdm, rtol=1e-5, atol=1e-7)


def test_against_jax(jax_x64):
    jsig = pytest.importorskip("jax.scipy.signal")
    for f, jf in ((signal.convolve, jsig.convolve), (signal.correlate, jsig.correlate),
                  (signal.fftconvolve, jsig.fftconvolve), (signal.convolve2d, jsig.convolve2d),
                  (signal.correlate2d, jsig.correlate2d)):
        for mode in ("full", "same", "valid"):
            a, v = r(5, 4), r(3, 2)
            y, pb = cr.rrule(f, a, v, mode=mode)
            ȳ = r(*np.shape(y))
            jy, vjp = jax_x64.vjp(lambda p, q: jf(p, q, mode=mode), a, v)
            np.testing.assert_allclose(np.asarray(jy), y, rtol=1e-10, atol=1e-12)
            for mine, theirs in zip(pb(ȳ)[1:], vjp(ȳ)):
                np.testing.assert_allclose(cr.unthunk(mine), np.asarray(theirs), rtol=1e-10, atol=1e-12,
                                           err_msg=f"{f.__name__} {mode}")


def test_bad_input():
    bad = [(lambda: cr.rrule(signal.convolve, r(3), r(2), mode="circular"), ValueError, "scipy.signal.convolve"),
           (lambda: cr.rrule(signal.convolve2d, r(3, 3), r(2, 2), boundary="wrap"), ValueError, "boundary"),
           (lambda: cr.rrule(signal.correlate2d, r(3, 3), r(2, 2), fillvalue=1.0), ValueError, "fillvalue"),
           (lambda: cr.rrule(signal.fftconvolve, r(2, 3), r(2, 2), axes=1), TypeError, "axes"),
           (lambda: cr.rrule(signal.lfilter, r(2, 2), r(2), r(4)), ValueError, "1-d b"),
           (lambda: cr.rrule(signal.lfilter, r(2), np.array([1.0, 0.2]), r(4), -1, r(3)), ValueError, "zi"),
           (lambda: cr.rrule(signal.lfilter, r(2), np.array([1.0, 0.2]), r(4), bogus=1), TypeError, "bogus"),
           (lambda: cr.rrule(signal.sosfilt, r(2, 5), r(4)), ValueError, "n_sections, 6"),
           (lambda: cr.rrule(signal.convolve, r(3), r(2), out=np.zeros(4)), TypeError, "out="),
           (lambda: cr.rrule(TestConfig(), signal.filtfilt, r(2), np.array([1.0, 0.2]), r(20), method="gust"),
            ValueError, "method"),
           (lambda: cr.rrule(TestConfig(), signal.filtfilt, r(2), np.array([1.0, 0.2]), r(20), padtype="even"),
            ValueError, "padtype")]
    for call, error, words in bad:
        with pytest.raises(error, match=words):
            call()


SWEEP_CASES = [
    Case("signal.convolve", signal.convolve, r(4), r(2), fkwargs={"mode": "same"}),
    Case("signal.correlate", signal.correlate, r(3, 2), r(2, 2)),
    Case("signal.fftconvolve", signal.fftconvolve, r(5), r(3), fkwargs={"mode": "valid"}),
    Case("signal.oaconvolve", signal.oaconvolve, r(5), r(3)),
    Case("signal.convolve2d", signal.convolve2d, r(3, 3), r(2, 2)),
    Case("signal.correlate2d", signal.correlate2d, r(3, 3), r(2, 2), fkwargs={"mode": "same"}),
    Case("signal.lfilter", signal.lfilter, np.array([0.5, 0.2]), np.array([1.2, -0.3]), r(5)),
    Case("signal.sosfilt", signal.sosfilt, np.array([[1, 2, 1, 1, 0, 0]]), r(5)),
]
