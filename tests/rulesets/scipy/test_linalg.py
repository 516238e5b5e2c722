"""The rules of scipy.linalg (chainrules/rulesets/scipy/linalg.py,
_linalg_factor.py): the kit at order 1 and 2, real and complex, float32 at
order 1, awkward matrices, bad input, and gradients against JAX's
(jax.scipy.linalg)."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing import test_frule, test_rrule

from .._order2 import F32, Case

sl = pytest.importorskip("scipy.linalg")
from chainrules.ad.scipy import linalg as asl  # noqa: E402  (scipy.linalg for code run by chainrules.ad)

_rng = np.random.default_rng(24)


def _m(n, c=False, spd=False, shift=0.0, m=None):
    a = _rng.uniform(-1, 1, (n, m or n))
    if c:
        a = a + 1j * _rng.uniform(-1, 1, (n, m or n))
    if spd:
        a = a @ a.conj().T + n * np.eye(n)
    return a + shift * np.eye(n, m or n)


A, Ac = _m(3, shift=3), _m(3, True, shift=3)
S, Sc = _m(3, spd=True), _m(3, True, spd=True)
B, Bv, Bc = _rng.uniform(-1, 1, (3, 2)), _rng.uniform(-1, 1, 3), _m(3, True, m=2)
TALL = _rng.uniform(-1, 1, (4, 3))
SMALL, SMALLc = 0.5 * _m(3), 0.5 * _m(3, True)
REALSPEC = np.diag([1.0, 2.0, 3.5]) + 0.2 * _m(3)           # distinct real eigenvalues
B2 = _m(2, shift=3)

CASES = [
    Case("inv", sl.inv, A), Case("inv-c", sl.inv, Ac),
    Case("inv-pos-lower", sl.inv, S, fkwargs=dict(assume_a="pos", lower=True)),
    Case("inv-her-c", sl.inv, Sc, fkwargs=dict(assume_a="her")),
    Case("det", sl.det, A), Case("det-c", sl.det, Ac),
    Case("pinv", sl.pinv, TALL), Case("pinv-c", sl.pinv, _m(4, True, m=3)),
    Case("cholesky", sl.cholesky, S), Case("cholesky-lower-c", sl.cholesky, Sc, fkwargs=dict(lower=True)),
    Case("solve", sl.solve, A, B), Case("solve-vec-c", sl.solve, Ac, Bv + 0j),
    Case("solve-sym", sl.solve, S, B, fkwargs=dict(assume_a="sym")),
    Case("solve-pos-lower-c", sl.solve, Sc, Bc, fkwargs=dict(assume_a="pos", lower=True)),
    Case("solve-transposed", sl.solve, A, B, fkwargs=dict(transposed=True)),
    Case("solve-lower-triangular", sl.solve, A, B, fkwargs=dict(assume_a="lower triangular")),
    Case("solve-diagonal", sl.solve, A, B, fkwargs=dict(assume_a="diagonal")),
    Case("qr", sl.qr, A), Case("qr-economic-c", sl.qr, _m(4, True, m=3), fkwargs=dict(mode="economic")),
    Case("qr-r", sl.qr, A, fkwargs=dict(mode="r")),
    Case("svd", sl.svd, A), Case("svd-values-c", sl.svd, Ac, fkwargs=dict(compute_uv=False)),
    Case("svd-thin", sl.svd, TALL, fkwargs=dict(full_matrices=False)),
    # SciPy's default eigh driver ('evr') flips eigenvector signs under small perturbations
    # (finite differences see jumps): the vectors are checked with driver='evd'
    Case("eigh", sl.eigh, S, fkwargs=dict(driver="evd")), Case("eigh-values", sl.eigh, S, fkwargs=dict(eigvals_only=True)),
    Case("eigh-generalized", sl.eigh, S, _m(3, spd=True), fkwargs=dict(driver="gvd")),
    # complex vectors: LAPACK's phase is not the rule's gauge; the values and phase-invariant losses are checked
    Case("eigvalsh-generalized-upper-c", sl.eigvalsh, Sc, _m(3, True, spd=True), fkwargs=dict(lower=False)),
    Case("eigvalsh-generalized", sl.eigvalsh, S, _m(3, spd=True)),
    Case("eigvalsh-c", sl.eigvalsh, Sc), Case("eigvalsh-upper", sl.eigvalsh, S, fkwargs=dict(lower=False)),
    Case("schur", sl.schur, REALSPEC), Case("schur-complex-output", sl.schur, REALSPEC, fkwargs=dict(output="complex")),
    Case("hessenberg", sl.hessenberg, _m(4)), Case("hessenberg-q", sl.hessenberg, _m(4), fkwargs=dict(calc_q=True)),
    Case("eig", sl.eig, REALSPEC), Case("eigvals-c", sl.eigvals, Ac), Case("eigvals", sl.eigvals, A),
    Case("norm", sl.norm, A), Case("norm-2-c", sl.norm, Ac, 2),
    Case("lstsq", sl.lstsq, TALL, _rng.uniform(-1, 1, 4)),
    Case("expm", sl.expm, SMALL), Case("expm-c", sl.expm, SMALLc),
    Case("logm", sl.logm, S), Case("logm-c", sl.logm, Sc),
    Case("sqrtm", sl.sqrtm, S), Case("sqrtm-c", sl.sqrtm, Sc), Case("sqrtm-nonsymmetric", sl.sqrtm, A),
    Case("fractional_matrix_power", sl.fractional_matrix_power, np.array([[2.0, 0.3], [0.3, 1.5]]), 0.7),
    Case("expm_frechet", sl.expm_frechet, SMALL, _m(3)),
    Case("expm_frechet-only", sl.expm_frechet, SMALL, _m(3), fkwargs=dict(compute_expm=False)),
    Case("polar", sl.polar, A), Case("polar-left-c", sl.polar, Ac, fkwargs=dict(side="left")),
    Case("polar-tall", sl.polar, TALL),
    Case("solve_sylvester", sl.solve_sylvester, A, B2, B),
    Case("solve_sylvester-c", sl.solve_sylvester, Ac, B2 + 0j, Bc),
    Case("solve_continuous_lyapunov", sl.solve_continuous_lyapunov, A, S),
    Case("solve_continuous_lyapunov-c", sl.solve_continuous_lyapunov, Ac, Sc),
    Case("solve_discrete_lyapunov", sl.solve_discrete_lyapunov, SMALL, S),
    Case("solve_discrete_lyapunov-bilinear-c", sl.solve_discrete_lyapunov, SMALLc, Sc, "bilinear"),
    Case("solve_triangular", sl.solve_triangular, A, B),
    Case("solve_triangular-lower-T", sl.solve_triangular, A, Bv, 1, True),
    Case("solve_triangular-unit-C-c", sl.solve_triangular, Ac, Bc, fkwargs=dict(trans="C", unit_diagonal=True)),
    Case("solve_triangular-T-c", sl.solve_triangular, Ac, Bc, fkwargs=dict(trans=1, lower=True)),
    Case("cho_factor", sl.cho_factor, S), Case("cho_factor-lower-c", sl.cho_factor, Sc, fkwargs=dict(lower=True)),
    Case("cho_solve", sl.cho_solve, sl.cho_factor(S), B),
    Case("cho_solve-lower-c", sl.cho_solve, sl.cho_factor(Sc, lower=True), Bv + 0j),
    Case("lu_factor", sl.lu_factor, A), Case("lu_factor-c", sl.lu_factor, Ac),
    Case("lu_solve", sl.lu_solve, sl.lu_factor(A), B),
    Case("lu_solve-T-c", sl.lu_solve, sl.lu_factor(Ac), Bv + 0j, 1),
    Case("lu_solve-C-c", sl.lu_solve, sl.lu_factor(Ac), Bc, 2),
    Case("lu", sl.lu, A), Case("lu-permute_l-c", sl.lu, Ac, fkwargs=dict(permute_l=True)),
    Case("solve_banded", sl.solve_banded, (1, 1), _rng.uniform(1, 2, (3, 4)), _rng.uniform(-1, 1, 4)),
    Case("solve_banded-c", sl.solve_banded, (2, 0), _rng.uniform(1, 2, (3, 4)) + 0.3j, _rng.uniform(-1, 1, (4, 2)) + 0j),
    Case("solveh_banded", sl.solveh_banded, np.array([[0, 0.1, 0.2, 0.3], [3.0, 3, 3, 3]]), _rng.uniform(-1, 1, 4)),
    Case("solveh_banded-lower-c", sl.solveh_banded, np.array([[3.0, 3, 3, 3], [0.1 + 0.2j, 0.2, 0.3j, 0]]),
         _rng.uniform(-1, 1, 4) + 0j, fkwargs=dict(lower=True)),
    Case("block_diag", sl.block_diag, A, _rng.uniform(-1, 1, 2), np.array(1.5)),
    Case("block_diag-c", sl.block_diag, Ac, B),
    Case("toeplitz", sl.toeplitz, _rng.uniform(-1, 1, 3), _rng.uniform(-1, 1, 4)),
    Case("toeplitz-c-hermitian", sl.toeplitz, _rng.uniform(-1, 1, 3) + 1j * _rng.uniform(-1, 1, 3)),
    Case("hankel", sl.hankel, _rng.uniform(-1, 1, 3), _rng.uniform(-1, 1, 4)),
    Case("hankel-c", sl.hankel, _rng.uniform(-1, 1, 3) + 1j * _rng.uniform(-1, 1, 3)),
    Case("cosm", sl.cosm, SMALL), Case("sinm-c", sl.sinm, SMALLc), Case("tanm", sl.tanm, SMALL),
    Case("coshm-c", sl.coshm, SMALLc), Case("sinhm", sl.sinhm, SMALL), Case("tanhm", sl.tanhm, SMALL),
    Case("pinvh", sl.pinvh, S), Case("pinvh-upper-c", sl.pinvh, Sc, fkwargs=dict(lower=False)),
    Case("circulant", sl.circulant, _rng.uniform(-1, 1, 4)), Case("circulant-c", sl.circulant, Bv + 1j * Bv[::-1]),
]

# The registry sweep runs these at order 1 and 2 (float64 or complex128) and, cast, at order 1 in float32.
SWEEP_CASES = [c for c in CASES if c.id in {
    "inv", "det", "pinv", "cholesky", "solve", "qr", "svd", "eigh", "eigvalsh-c", "eig", "eigvals-c", "norm",
    "lstsq", "expm", "logm", "sqrtm-c", "fractional_matrix_power", "expm_frechet", "polar", "solve_sylvester",
    "solve_continuous_lyapunov", "solve_discrete_lyapunov", "solve_triangular", "cho_factor", "cho_solve",
    "lu_factor", "lu_solve", "lu", "solve_banded", "solveh_banded", "block_diag", "toeplitz", "circulant",
    "hankel", "eigh-generalized", "schur", "hessenberg-q", "cosm", "sinm-c", "tanm", "coshm-c", "sinhm", "tanhm", "pinvh"}]
# at this file's own tolerance (the kit's default 1e-9 is below the finite differences' error
# on the eigen-decompositions: eig's cotangent is off by 1.6e-9 there, with random seeds)
for _c in SWEEP_CASES:
    _c.tol = _c.tol or dict(rtol=1e-6, atol=1e-7)


def _failures(cases, orders, tol=None):
    out = []
    for c in cases:
        for order in orders:
            try:
                kw = dict(fkwargs=c.fkwargs, order=order, **(tol or dict(rtol=1e-6, atol=1e-7)))
                test_frule(c.f, *c.args, **kw)
                test_rrule(c.f, *c.args, **kw)
            except Exception as e:  # noqa: BLE001 - collected and reported together
                out.append(f"{c.id} order {order}: {type(e).__name__}: {str(e)[:600]}")
    return out


# order 2 on every family in the quick run; every case at order 2 in the sweep (runs once in CI)
ORDER2_QUICK = {"inv-c", "solve", "cholesky-lower-c", "expm-c", "sqrtm", "polar", "solve_sylvester-c",
                "solve_discrete_lyapunov", "solve_triangular-lower-T", "cho_solve", "lu_solve-T-c", "lu",
                "solveh_banded-lower-c", "toeplitz-c-hermitian", "eig"}


# variants left to the sweep run (marked `sweep`: once in CI) to keep the quick run short
VARIANTS = {"logm-c", "expm_frechet-only", "solve_triangular-unit-C-c", "lu_solve-C-c", "solve-diagonal",
            "solve-lower-triangular", "svd-thin", "eigvalsh-upper", "norm-2-c", "qr-r", "det-c", "pinv-c",
            "polar-tall", "solve_discrete_lyapunov-bilinear-c", "circulant-c", "block_diag-c",
            "cho_factor-lower-c", "lu_factor-c", "solve_banded-c", "inv-her-c", "sqrtm-nonsymmetric",
            "fractional_matrix_power", "hankel-c", "tanm", "coshm-c", "sinhm", "tanhm", "pinvh-upper-c"}


def test_the_kit_at_order_1_and_2():
    failures = _failures([c for c in CASES if c.id not in VARIANTS], (1,))
    failures += _failures([c for c in CASES if c.id in ORDER2_QUICK], (2,))
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


@pytest.mark.sweep
def test_the_kit_at_order_1_and_2_every_case():
    failures = _failures([c for c in CASES if c.id in VARIANTS], (1,))
    failures += _failures([c for c in CASES if c.id not in ORDER2_QUICK], (2,))
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def _f32(a):
    if isinstance(a, tuple):
        return tuple(_f32(v) for v in a)
    return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a


def test_float32_at_order_1():
    # (the registry sweep runs every SWEEP_CASES case in float32 too)
    cases = [Case(c.id, c.f, *[_f32(a) for a in c.args], fkwargs=c.fkwargs) for c in CASES
             if c.id in ("inv", "solve-sym", "expm", "sqrtm", "logm", "solve_triangular-lower-T", "lu_factor",
                         "cho_solve", "solve_continuous_lyapunov", "block_diag", "solve_banded", "polar")]
    failures = _failures(cases, (1,), F32)
    for c in cases[:4]:                              # the cotangent stays in single precision
        Ω, pb = cr.rrule(c.f, *c.args, **(c.fkwargs or {}))
        assert cr.unthunk(pb(np.ones_like(Ω))[1]).dtype == np.float32, c.id
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def _fd_gradient(loss, x, h=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = h
        g[idx] = (loss(x + e) - loss(x - e)) / (2 * h)
        if np.iscomplexobj(x):
            g[idx] += 1j * (loss(x + 1j * e) - loss(x - 1j * e)) / (2 * h)
    return g


def test_awkward_matrices():
    # expm of a defective (Jordan) matrix: the block formula has no division
    J = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]])
    # sqrtm at the identity (every eigenvalue repeated): X·Ẋ + Ẋ·X = Ȧ has the solution Ȧ/2
    eye = np.eye(3)
    # a triangular, nearly singular system (condition ~1e3)
    T = np.triu(_m(3, shift=2))
    T[2, 2] = 1e-3
    cases = [Case("expm-jordan", sl.expm, J), Case("expm-zero", sl.expm, np.zeros((3, 3))),
             Case("sqrtm-identity", sl.sqrtm, eye), Case("logm-identity", sl.logm, eye),
             Case("solve_triangular-near-singular", sl.solve_triangular, T, Bv),
             Case("sqrtm-upper-triangular", sl.sqrtm, np.triu(S)),
             Case("expm-symmetric", sl.expm, S / 4)]
    failures = _failures(cases, (1,), dict(rtol=1e-5, atol=1e-6))
    Ω, ΔΩ = cr.frule((cr.NoTangent(), A), sl.sqrtm, eye)
    np.testing.assert_allclose(ΔΩ, A / 2, atol=1e-12)
    # repeated eigenvalues: the degenerate pairs' terms are dropped, so a basis-independent
    # loss (the sum of the eigenvalues: the trace) still has its exact gradient, the identity
    for f in (asl.eigvalsh, asl.eigvals, np.linalg.eigvals):
        g = ad.gradient(lambda a: np.real(np.sum(f(a))), np.diag([2.0, 2.0, 5.0]) + 0.0)
        np.testing.assert_allclose(g, np.eye(3), atol=1e-12, err_msg=str(f))
    assert not failures, "\n".join(failures)


def test_eig_vectors_of_a_complex_matrix_through_phase_invariant_losses():
    # the pullback is well-defined for cotangents invariant to each vector's phase (as JAX says):
    # |V|² and w-weighted projectors are; finite differences of the loss agree
    def loss(a, eig):
        w, V = eig(a)
        return np.real(np.sum(np.abs(V) ** 2 * np.arange(1, 4)) + np.sum(w * np.conj(w)) * 0.1
                       + np.abs(V[0, 0] * np.conj(V[1, 0])) ** 2)
    for eig in (asl.eig, np.linalg.eig):
        for a in (Ac, A):
            g = ad.gradient(lambda x: loss(x, eig), a)
            np.testing.assert_allclose(g, _fd_gradient(lambda x: loss(x, eig), a), rtol=1e-5, atol=1e-6)
    # the generalized Hermitian problem's complex vectors likewise, in a and in b
    Bh = _m(3, True, spd=True)
    for which in (0, 1):
        def gloss(x, which=which):
            a, b = (x, Bh) if which == 0 else (Sc, x)
            w, V = asl.eigh(a, b)
            return np.real(np.sum(np.abs(V) ** 2 * w) + np.abs(V[0, 1] * np.conj(V[2, 1])) ** 2)
        x0 = Sc if which == 0 else Bh
        g = ad.gradient(gloss, x0)
        fd = _fd_gradient(gloss, x0)
        # SciPy reads the lower triangle: compare there (the diagonal's imaginary part is not read)
        low = np.tril(np.ones((3, 3)), -1).astype(bool)
        np.testing.assert_allclose(g[low], fd[low], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.diag(g).real, np.diag(fd).real, rtol=1e-5, atol=1e-6)


def test_bad_input_names_the_function_and_the_argument():
    wide = _m(2, m=3)
    expect = [
        (ValueError, "scipy.linalg.expm.*A", lambda: cr.rrule(sl.expm, wide)),
        (ValueError, "scipy.linalg.sqrtm.*A", lambda: cr.frule((cr.NoTangent(), wide), sl.sqrtm, wide)),
        (ValueError, "scipy.linalg.solve_sylvester.*a", lambda: cr.rrule(sl.solve_sylvester, wide, B2, B)),
        (ValueError, "scipy.linalg.solve_triangular.*trans", lambda: cr.rrule(sl.solve_triangular, A, B, trans=5)),
        (TypeError, "scipy.linalg.solve.*assume_a", lambda: cr.rrule(sl.solve, A, B, assume_a="banded")),
        (TypeError, "scipy.linalg.qr.*pivoting", lambda: cr.rrule(sl.qr, A, pivoting=True)),
        (TypeError, "scipy.linalg.qr.*mode", lambda: cr.rrule(sl.qr, TALL)),
        (TypeError, "scipy.linalg.svd.*full_matrices", lambda: cr.rrule(sl.svd, TALL)),
        (TypeError, "scipy.linalg.eigh.*type", lambda: cr.rrule(sl.eigh, S, S, type=2)),
        (TypeError, "scipy.linalg.eigh.*subset_by_index", lambda: cr.rrule(sl.eigh, S, subset_by_index=[0, 1])),
        (TypeError, "scipy.linalg.eig.*left", lambda: cr.rrule(sl.eig, A, left=True)),
        (TypeError, "scipy.linalg.pinv.*return_rank", lambda: cr.rrule(sl.pinv, A, return_rank=True)),
        (TypeError, "scipy.linalg.schur.*sort", lambda: cr.rrule(sl.schur, A, sort="lhp")),
        (TypeError, "scipy.linalg.lu.*p_indices", lambda: cr.rrule(sl.lu, A, p_indices=True)),
        (ValueError, "scipy.linalg.lu.*a", lambda: cr.rrule(sl.lu, TALL)),
        (ValueError, "scipy.linalg.toeplitz.*c", lambda: cr.rrule(sl.toeplitz, A)),
        (TypeError, "scipy.linalg.inv", lambda: cr.rrule(sl.inv, A, bogus=1)),
    ]
    for exc, pattern, call in expect:
        with pytest.raises(exc, match=pattern):
            call()


def test_overwrite_is_honoured_by_not_overwriting():
    # overwrite_a=True only allows SciPy to destroy a: the rule keeps a (its pullback needs it)
    a, b = np.asfortranarray(A.copy()), np.asfortranarray(B.copy())
    x, pb = cr.rrule(sl.solve, a, b, overwrite_a=True, overwrite_b=True)
    np.testing.assert_array_equal(a, A)
    np.testing.assert_array_equal(b, B)
    ā = cr.unthunk(pb(np.ones_like(x))[1])
    np.testing.assert_allclose(ā, cr.unthunk(cr.rrule(sl.solve, A, B)[1](np.ones_like(x))[1]))


def test_schur_complex_through_phase_invariant_losses_and_its_limits():
    # complex Schur vectors have a phase each (LAPACK picks it): |T|² and |Z|² do not depend on it
    def loss(a):
        T, Z = asl.schur(a, output="complex")
        return np.sum(np.abs(T) ** 2 * np.arange(1, 10).reshape(3, 3)) + np.sum(np.abs(Z[0]) ** 2 * np.arange(3))
    for a in (Ac, _m(3)):
        np.testing.assert_allclose(ad.gradient(loss, a), _fd_gradient(loss, a), rtol=1e-5, atol=1e-6)
    # a real Schur form with a 2×2 block (complex eigenvalues): not implemented, said so
    rot = np.array([[0.0, -1.0, 0.3], [1.0, 0.0, 0.2], [0.0, 0.0, 2.0]])
    T, pb = cr.rrule(sl.schur, rot)
    assert isinstance(pb((np.ones((3, 3)), np.ones((3, 3))))[1], cr.NotImplementedTangent)
    # hessenberg of a complex matrix: not implemented, said so
    H, pb = cr.rrule(sl.hessenberg, Ac)
    assert isinstance(pb(np.ones((3, 3)))[1], cr.NotImplementedTangent)


# ----- against JAX -------------------------------------------------------------------------------

def _jax_eigenvectors(a):
    import jax          # its eigenvectors' derivatives, opted in (valid for phase-invariant functions)
    return jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]


def _jax_cases(jnp, jsl, sl=asl):
    W = _rng.uniform(-1, 1, (3, 3))
    Wv = _rng.uniform(-1, 1, (3,))
    return [
        # (name, our function of the inputs, JAX's, inputs, seed)
        ("expm", sl.expm, jsl.expm, (SMALL,), W),
        ("expm-c", sl.expm, jsl.expm, (SMALLc,), W + 1j * W.T),
        ("sqrtm", sl.sqrtm, jsl.sqrtm, (S,), W),
        ("solve_triangular", lambda a, b: sl.solve_triangular(a, b, lower=True),
         lambda a, b: jsl.solve_triangular(a, b, lower=True), (A, B), B),
        ("solve_triangular-T", lambda a, b: sl.solve_triangular(a, b, trans=1),
         lambda a, b: jsl.solve_triangular(a, b, trans=1), (A, Bv), Wv),
        ("cho_solve", lambda c, b: sl.cho_solve((c, True), b), lambda c, b: jsl.cho_solve((c, True), b),
         (np.linalg.cholesky(S), B), B),
        ("cho_factor", lambda a: sl.cho_factor(a, lower=True)[0], lambda a: jsl.cho_factor(a, lower=True)[0],
         (S,), np.tril(W)),
        ("lu_solve", lambda lu, b: sl.lu_solve((lu, sl.lu_factor(A)[1]), b),
         lambda lu, b: jsl.lu_solve((lu, jnp.asarray(sl.lu_factor(A)[1])), b), (sl.lu_factor(A)[0], B), B),
        ("lu_factor", lambda a: sl.lu_factor(a)[0], lambda a: jsl.lu_factor(a)[0], (A,), W),
        ("lu", lambda a: sl.lu(a)[2], lambda a: jsl.lu(a)[2], (A,), np.triu(W)),
        ("eigh-values", lambda a: sl.eigh(a)[0], lambda a: jsl.eigh(a)[0], (S,), Wv),
        ("block_diag", lambda a, b: sl.block_diag(a, b), lambda a, b: jsl.block_diag(a, b), (A, B),
         _rng.uniform(-1, 1, (6, 5))),
        ("toeplitz", sl.toeplitz, jsl.toeplitz, (Bv, Wv), W),
        ("circulant", sl.circulant, getattr(jsl, "circulant", None), (Bv,), W),
        ("hankel", sl.hankel, jsl.hankel, (Bv, Wv), W),
        ("schur", lambda a: sl.schur(a)[0], lambda a: jsl.schur(a)[0], (REALSPEC,), np.triu(W)),
        ("hessenberg", lambda a: sl.hessenberg(a), lambda a: jsl.hessenberg(a), (A,), np.triu(W, -1)),
        ("solve_sylvester", sl.solve_sylvester, getattr(jsl, "solve_sylvester", None), (A, B2, B), B),
        ("polar-U", lambda a: sl.polar(a)[0], lambda a: jsl.polar(a)[0], (A,), W),
        ("expm_frechet", lambda a, e: sl.expm_frechet(a, e, compute_expm=False),
         lambda a, e: jsl.expm_frechet(a, e, compute_expm=False), (SMALL, W), W.T),
        ("inv", sl.inv, jsl.inv, (A,), W), ("det", sl.det, jsl.det, (A,), np.float64(1.3)),
        ("solve", sl.solve, jsl.solve, (A, B), B),
        ("eigvals", lambda a: np.linalg.eigvals(a), lambda a: jnp.linalg.eigvals(a), (REALSPEC,), Wv + 0j),
        ("eig-|V|", lambda a: np.abs(sl.eig(a)[1]) ** 2, lambda a: jnp.abs(_jax_eigenvectors(a)) ** 2, (Ac,), W),
        ("cond", np.linalg.cond, jnp.linalg.cond, (A,), np.float64(0.7)),
        ("multi_dot", lambda a, b: np.linalg.multi_dot([a, b, a.T]), lambda a, b: jnp.linalg.multi_dot([a, b, a.T]),
         (A, A.T), W),
        ("tensorinv", lambda a: np.linalg.tensorinv(a, ind=1), lambda a: jnp.linalg.tensorinv(a, ind=1),
         (np.reshape(A, (3, 3)),), W),
        ("tensorsolve", np.linalg.tensorsolve, jnp.linalg.tensorsolve, (A, Bv), Wv),
    ]


# functions of one triangle of a (SciPy) that JAX differentiates as functions of (a + aᴴ)/2
_READS_A_TRIANGLE = ("cho_factor", "eigh-values")


_JAX_QUICK = ("expm-c", "solve_triangular-T", "cho_solve", "lu_solve", "eigh-values", "toeplitz", "eig-|V|",
              "sqrtm", "solve_sylvester")


def test_gradients_agree_with_jax(jax_x64):
    _against_jax(jax_x64, _JAX_QUICK)


@pytest.mark.sweep
def test_gradients_agree_with_jax_every_case(jax_x64):
    _against_jax(jax_x64, None)


def _against_jax(jax, only):
    jnp = jax.numpy
    jsl = pytest.importorskip("jax.scipy.linalg")
    failures, compared, jax_cannot = [], [], []
    for name, f, jf, xs, ȳ in _jax_cases(jnp, jsl):
        if jf is None or (only is not None and name not in only):
            continue
        # ChainRules' pullback is the conjugate of JAX's VJP at the conjugate seed (complex as R²)
        try:
            _, vjp = jax.vjp(jf, *[jnp.asarray(x) for x in xs])
            theirs = [np.conj(np.asarray(t)) for t in vjp(jnp.conj(jnp.asarray(ȳ)))]
        except (NotImplementedError, ValueError):
            # no reverse mode in JAX (eig's vectors, polar's loop, solve_sylvester): its forward mode
            ẋs = [_rng.uniform(-1, 1, np.shape(x)) + (1j * _rng.uniform(-1, 1, np.shape(x)) if np.iscomplexobj(x)
                                                       else 0) for x in xs]
            try:
                _, theirs_jvp = jax.jvp(jf, tuple(jnp.asarray(x) for x in xs), tuple(jnp.asarray(t) for t in ẋs))
            except (NotImplementedError, ValueError):   # sqrtm: no rule for its schur
                jax_cannot.append(name)
                np.testing.assert_allclose(f(*xs), jf(*xs), rtol=1e-8, atol=1e-10)
                continue
            ours_jvp = ad.jvp(f, tuple(xs), tuple(ẋs))[1]
            if not np.allclose(ours_jvp, np.asarray(theirs_jvp), rtol=1e-7, atol=1e-9):
                failures.append(f"{name} (jvp): ours {ours_jvp!r} JAX {theirs_jvp!r}")
            compared.append(name + " (jvp)")
            continue
        except Exception as e:
            raise AssertionError(name) from e
        ours = _our_vjp(f, xs, ȳ)
        if name in _READS_A_TRIANGLE:       # JAX reads the Hermitian part: compare on Hermitian directions
            ours, theirs = [(g + g.conj().T) / 2 for g in ours], [(g + g.conj().T) / 2 for g in theirs]
        for i, (o, t) in enumerate(zip(ours, theirs)):
            if not np.allclose(o, t, rtol=1e-7, atol=1e-9):
                failures.append(f"{name} argument {i}: ours {o!r} JAX {t!r}")
        compared.append(name)
    assert len(compared) >= (7 if only else 20), compared
    # JAX 0.10 cannot differentiate these (no rule for its schur): values compared
    assert sorted(jax_cannot) == sorted(n for n in ["sqrtm", "solve_sylvester", "schur", "hessenberg"] if only is None or n in only), \
        jax_cannot
    print("compared with JAX:", compared, "JAX cannot differentiate:", jax_cannot)
    assert not failures, "\n".join(failures)


def _our_vjp(f, xs, ȳ):
    """The cotangents of xs for f(*xs) seeded with ȳ, through chainrules.ad."""
    _, pullback = ad.vjp(f, *xs)
    return [np.asarray(cr.unthunk(g)) for g in pullback(ȳ)]
