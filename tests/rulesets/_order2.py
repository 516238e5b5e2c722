"""Shared by the order=2 tests of the array rules (issue 12, item 5): a case
is one call of a function, checked with test_frule and test_rrule at order 2
(the rule run on values tracked by chainrules.ad, its pushforward and
pullback differentiated and compared with finite differences and with the
primal's second derivative).  `params` turns cases into pytest parameters,
with a strict xfail for each known failure (its id -> the precise cause),
and the coverage test (test_order2_coverage.py) reads the functions of the
cases from each file's CASES."""

import numpy as np
import pytest

from chainrules.testing import test_frule, test_rrule

# Finite differences in single precision are that noisy (first and second order).
F32 = dict(rtol=5e-2, atol=5e-2)


class Case:
    """f(*args, **fkwargs) at order 2; `tol`: rtol/atol for the testers;
    `frule`/`rrule`: which testers run (both by default); `backend`,
    `backend_f`: passed on to the testers."""

    def __init__(self, id, f, *args, fkwargs=None, tol=None, frule=True, rrule=True, backend=None,
                 backend_f=None):
        self.id = id
        self.f = f
        self.args = args
        self.fkwargs = fkwargs
        self.tol = tol or {}
        self.frule = frule
        self.rrule = rrule
        self.backend = backend
        self.backend_f = backend_f

    def __repr__(self):
        return f"Case({self.id})"

    def run(self, order=2):
        kw = dict(fkwargs=self.fkwargs, order=order, **self.tol)
        if self.backend is not None:
            kw.update(backend=self.backend, backend_f=self.backend_f)
        if self.frule:
            test_frule(self.f, *self.args, **kw)
        if self.rrule:
            test_rrule(self.f, *self.args, **kw)


def params(cases, xfail):
    """pytest parameters of the cases; `xfail` maps a case's id to the cause
    of its known failure (strict: a fixed rule makes the test fail until its
    entry goes).  Every key of `xfail` must be a case's id."""
    ids = {c.id for c in cases}
    stale = sorted(set(xfail) - ids)
    if stale:
        raise KeyError(f"xfail entries for no case: {stale}")
    if len(ids) != len(cases):
        raise KeyError("two cases share an id")
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=xfail[c.id])]
                         if c.id in xfail else []) for c in cases]


def array(rng, shape, dtype=np.float64, lo=0.5, hi=1.5):
    """Random values in (lo, hi) (and i·(lo, hi) for complex), distinct with
    probability one: no ties for max, min, sort."""
    x = rng.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    return np.asarray(x, dtype=dtype)


def spread(shape, lo=-1.5, hi=1.5, dtype=np.float64):
    """Distinct values evenly spread over (lo, hi), negatives included,
    permuted deterministically (well apart: max, sort and clip are smooth
    there; no zero)."""
    n = int(np.prod(shape))
    v = np.linspace(lo, hi, n + 2)[1:-1]
    v = np.where(np.abs(v) < 1e-12, 0.07, v)
    perm = np.random.default_rng(n).permutation(n)
    return np.asarray(v[perm].reshape(shape), dtype=dtype)


NESTED_WAYS = ["hvp", "reverse-over-reverse", "forward-over-forward", "reverse-over-forward"]


def nested_second_derivative(f, x, v, how, rtol, atol):
    """A second derivative of the scalar f at x along v by nested differentiation
    (`how`, one of NESTED_WAYS: the rules run on tracked values), against finite
    differences of its gradient; the derivative must not vanish."""
    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp
    want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda z: ad.gradient(f, z), (x, v))
    if how == "hvp":
        got = ad.hvp(f, x, v)
    elif how == "reverse-over-reverse":
        got = ad.gradient(lambda z: np.sum(ad.gradient(f, z) * v), x)
    elif how == "forward-over-forward":
        got, want = ad.jvp(lambda z: ad.jvp(f, (z,), (v,))[1], (x,), (v,))[1], np.sum(want * v)
    else:
        got = ad.gradient(lambda z: ad.jvp(f, (z,), (v,))[1], x)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    assert np.any(np.abs(want) > 0.1)           # a second derivative worth the name
