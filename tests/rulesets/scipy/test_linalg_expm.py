"""expm's fast path (chainrules/rulesets/scipy/linalg_expm.py): on a plain
float64/complex128 matrix it computes what the generic body (the 2n×2n block
exponential, linalg.py) computes, at every Padé degree and with scaling, and
it passes the kit at order 1 and 2; other arguments take the generic body."""

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

import chainrules as cr  # noqa: E402
from chainrules.rulesets.scipy import linalg as crl  # noqa: E402
from chainrules.rulesets.scipy.linalg_expm import ExpmPade  # noqa: E402
from chainrules.testing import test_frule, test_rrule  # noqa: E402

NT = cr.NoTangent()
RNG = np.random.default_rng(2409)
GENERIC_FRULE, GENERIC_RRULE = crl.EXPM_RULES


def _matrix(n, norm, complex_=False):
    A = RNG.standard_normal((n, n))
    if complex_:
        A = A + 1j * RNG.standard_normal((n, n))
    return A * (norm / np.abs(A).sum(axis=0).max())


# the 1-norms reaching each Padé degree (3, 5, 7, 9, 13 unscaled, 13 scaled once and 4 times)
NORMS = [1e-3, 0.1, 0.5, 1.5, 4.0, 9.0, 80.0]


def test_the_fast_path_computes_what_the_generic_body_computes():
    degrees = set()
    for n in (1, 3, 6):
        for norm in NORMS:
            for complex_ in (False, True):
                A, E, Ȳ = _matrix(n, norm, complex_), _matrix(n, 1.0, complex_), _matrix(n, 1.0, complex_)
                pade = ExpmPade(A)
                degrees.add((pade.m, pade.s > 0))
                Ω, ΔΩ = cr.frule((NT, E), sl.expm, A)
                Ωg, ΔΩg = GENERIC_FRULE((NT, E), A)
                scale = np.abs(Ωg).max()
                np.testing.assert_allclose(Ω, Ωg, rtol=0, atol=1e-12 * scale)      # 2^s squarings amplify rounding
                np.testing.assert_allclose(Ω, sl.expm(A), rtol=0, atol=1e-12 * scale)
                np.testing.assert_allclose(ΔΩ, ΔΩg, rtol=0, atol=1e-12 * np.abs(ΔΩg).max())
                _, pb = cr.rrule(sl.expm, A)
                _, pbg = GENERIC_RRULE(A)
                Ā, Āg = cr.unthunk(pb(Ȳ)[1]), cr.unthunk(pbg(Ȳ)[1])
                assert pb.__qualname__.endswith("expm_pullback") and Ā.dtype == A.dtype
                np.testing.assert_allclose(Ā, Āg, rtol=0, atol=1e-12 * np.abs(Āg).max())
                # the pullback is the frule's adjoint: ⟨Ȳ, L(A, E)⟩ = ⟨L*(A, Ȳ), E⟩
                lhs = np.vdot(Ȳ, ΔΩ).real
                np.testing.assert_allclose(lhs, np.vdot(Ā, E).real, rtol=1e-12, atol=1e-14)
    assert {m for m, _ in degrees} == {3, 5, 7, 9, 13} and (13, True) in degrees


def test_expm_with_the_kit_on_ndarrays():
    # order 2 runs the rule on tracked values: the generic body, differentiated
    for norm, complex_ in ((0.05, False), (7.0, False), (1.0, True)):      # degrees 3 and 13 (scaled)
        A = _matrix(3, norm, complex_)
        for order in (1, 2):
            test_frule(sl.expm, A, order=order, rtol=1e-7, atol=1e-9)
            test_rrule(sl.expm, A, order=order, rtol=1e-7, atol=1e-9)


def test_other_arguments_take_the_generic_body():
    A = _matrix(3, 1.0)
    for other in (A.astype(np.float32), np.stack([A, 2 * A]), A.tolist()):
        Ω, pb = cr.rrule(sl.expm, other)
        np.testing.assert_allclose(Ω, sl.expm(other), rtol=1e-6)
        Ā = cr.unthunk(pb(np.ones(np.shape(other)))[1])
        assert np.shape(Ā) == np.shape(other)
    # a real matrix, a complex seed: the cotangent stays real
    _, pb = cr.rrule(sl.expm, A)
    assert cr.unthunk(pb(np.ones((3, 3)) * (1 + 1j))[1]).dtype == np.float64
    # a non-finite matrix: SciPy's primal, the generic body's cotangent (NaN, no exception)
    B = A.copy()
    B[0, 0] = np.nan
    Ω, pb = cr.rrule(sl.expm, B)
    assert np.isnan(cr.unthunk(pb(np.ones((3, 3)))[1])).all()


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    for norm, complex_ in ((12.0, False),):       # scaled and squared (test_linalg.py has the small ones)
        A, W = _matrix(5, norm, complex_), _matrix(5, 1.0, complex_)
        _, pb = cr.rrule(sl.expm, A)
        ours = cr.unthunk(pb(W)[1])
        f = (lambda a: jax.numpy.sum(jax.numpy.real(jax.scipy.linalg.expm(a) * np.conj(W)))) if complex_ else \
            (lambda a: jax.numpy.sum(jax.scipy.linalg.expm(a) * W))
        theirs = np.asarray(jax.grad(f)(A))
        # JAX's gradient of a real function of a complex matrix is the conjugate of the cotangent
        np.testing.assert_allclose(ours, np.conj(theirs) if complex_ else theirs, rtol=1e-10,
                                   atol=1e-12 * np.abs(ours).max())
