"""scipy.linalg.funm's rules (chainrules/rulesets/scipy/linalg_funm.py): the kit
at order 1 and 2, real and complex, disp=False, functions without real Taylor
coefficients, repeated eigenvalues, against the rules of expm, logm, sqrtm
and sinm, against JAX's expm, and the bad input's errors."""

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

import chainrules as cr  # noqa: E402
from chainrules.rulesets.scipy.linalg_funm import divided_differences  # noqa: E402
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule  # noqa: E402

from .._order2 import Case  # noqa: E402

NT = cr.NoTangent()
RNG = np.random.default_rng(2410)


def r(*shape):
    return RNG.standard_normal(shape)


def c(*shape):
    return r(*shape) + 1j * r(*shape)


def const(v):
    return PrimalAndTangent(v, NT)


def exp_i(z):                       # f(z) = exp(iz): complex Taylor coefficients
    return np.exp(1j * z)


def cubic(z):
    return z ** 3 - 2.0 * z


def test_funm_with_the_kit():
    cases = [(r(3, 3) / 2, np.exp), (c(3, 3) / 2, np.exp), (r(4, 4), np.sin), (c(3, 3), exp_i),
             (r(3, 3), exp_i), (r(2, 2), cubic), (np.array([[2.0]]), np.log)]
    for A, func in cases:
        for order in (1, 2):
            test_frule(sl.funm, A, const(func), order=order, rtol=1e-7, atol=1e-9)
            test_rrule(sl.funm, A, const(func), order=order, rtol=1e-7, atol=1e-9)
    # disp=False: (F, err), err without a tangent
    for order in (1, 2):
        test_frule(sl.funm, r(3, 3) / 2, const(np.exp), const(False), order=order, rtol=1e-7, atol=1e-9)
        test_rrule(sl.funm, r(3, 3) / 2, const(np.exp), const(False), order=order, rtol=1e-7, atol=1e-9)
    (F, err), (Ḟ, ėrr) = cr.frule((NT, r(3, 3), NT, NT), sl.funm, r(3, 3) / 2, np.exp, False)
    assert ėrr is NT and Ḟ.shape == (3, 3)


def _frechet_of(f, A, E):
    return cr.frule((NT, E), f, A)[1]


def test_funm_agrees_with_the_matrix_functions_rules():
    # funm(A, np.exp) is expm(A): the derivatives agree (1e-12: the stencil's f′ on the diagonal)
    pairs = [(np.exp, sl.expm), (np.sin, sl.sinm), (np.cos, sl.cosm)]
    S = r(4, 4)
    P = S @ S.T + 4 * np.eye(4)                   # positive definite: log and sqrt principal
    for A in (r(4, 4) / 2, c(3, 3) / 2):
        E, Ȳ = np.zeros_like(A) + r(*A.shape), np.zeros_like(A) + r(*A.shape)
        for func, f in pairs:
            ours = cr.frule((NT, E, NT), sl.funm, A, func)[1]
            np.testing.assert_allclose(ours, _frechet_of(f, A, E), rtol=1e-10, atol=1e-12)
            _, pb = cr.rrule(sl.funm, A, func)
            _, pbf = cr.rrule(f, A)
            np.testing.assert_allclose(pb(Ȳ)[1], pbf(Ȳ)[1], rtol=1e-10, atol=1e-12)
    E = r(4, 4)
    for func, f in ((np.log, sl.logm), (np.sqrt, sl.sqrtm)):
        np.testing.assert_allclose(cr.frule((NT, E, NT), sl.funm, P, func)[1], _frechet_of(f, P, E),
                                   rtol=1e-9, atol=1e-11)


def test_repeated_eigenvalues():
    # a symmetric matrix with a double eigenvalue: D has f′ there (funm's Schur form is diagonal)
    Q, _ = np.linalg.qr(r(3, 3))
    S = Q @ np.diag([0.5, 0.5, 1.2]) @ Q.T
    E = r(3, 3)
    ours = cr.frule((NT, E, NT), sl.funm, S, np.exp)[1]
    np.testing.assert_allclose(ours, sl.expm_frechet(S, E, compute_expm=False), rtol=1e-10, atol=1e-12)
    D = divided_differences(np.exp, np.array([0.5, 0.5 + 1e-12, 1.2]) + 0j)
    np.testing.assert_allclose(D[0, 1], np.exp(0.5), rtol=1e-11)
    np.testing.assert_allclose(D[0, 2], (np.exp(0.5) - np.exp(1.2)) / (0.5 - 1.2), rtol=1e-14)
    np.testing.assert_allclose(np.diag(D), np.exp([0.5, 0.5, 1.2]), rtol=1e-11)
    # a constant func (a scalar for any vector): a zero derivative
    np.testing.assert_array_equal(divided_differences(lambda z: 3.0, np.array([1.0, 2.0]) + 0j), 0)


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    A, W = r(4, 4) / 2, r(4, 4)
    _, pb = cr.rrule(sl.funm, A, np.exp)
    with pytest.raises(NotImplementedError):       # JAX's funm (schur) has no derivative
        jax.grad(lambda a: jnp.sum(jnp.real(jax.scipy.linalg.funm(a, jnp.exp)) * W))(A)
    theirs = jax.grad(lambda a: jnp.sum(jax.scipy.linalg.expm(a) * W))(A)
    np.testing.assert_allclose(pb(W)[1], theirs, rtol=1e-10, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match=r"scipy\.linalg\.funm: the argument A must be a square matrix"):
        cr.rrule(sl.funm, r(2, 3), np.exp)
    with pytest.raises(TypeError, match=r"scipy\.linalg\.funm: the argument func must be callable"):
        cr.frule((NT, r(2, 2), NT), sl.funm, r(2, 2), "exp")
    with pytest.raises(TypeError, match=r"scipy\.linalg\.funm: the argument disp"):
        cr.rrule(sl.funm, r(2, 2), np.exp, "yes")
    with pytest.raises(TypeError, match=r"scipy\.linalg\.funm: .*unexpected keyword"):
        cr.rrule(sl.funm, r(2, 2), np.exp, tol=1.0)
    # a defective matrix (funm itself wrong there, err = 1): NaN tangent and cotangent, no exception
    # beyond funm's own; a nearly defective one (cond(V) ~ 2e3) the Fréchet derivative, to the
    # digits left (the module's docstring)
    J = np.array([[1.0, 1.0], [0.0, 1.0]])
    with np.errstate(all="ignore"):
        _, pb = cr.rrule(sl.funm, J, np.exp)
        Ā = pb(np.ones((2, 2)))[1]
        _, Ḟ = cr.frule((NT, np.ones((2, 2)), NT), sl.funm, J, np.exp)
    assert Ā.shape == Ḟ.shape == (2, 2) and np.all(np.isnan(Ā)) and np.all(np.isnan(Ḟ))
    near = np.array([[1.0, 1.0], [0.0, 1.0 + 1e-3]])
    E = r(2, 2)
    np.testing.assert_allclose(cr.frule((NT, E, NT), sl.funm, near, np.exp)[1],
                               sl.expm_frechet(near, E, compute_expm=False), rtol=1e-6, atol=1e-6)


SWEEP_CASES = [Case("scipy.linalg.funm", sl.funm, r(3, 3) / 2, const(np.exp), tol=dict(rtol=1e-7, atol=1e-9))]
