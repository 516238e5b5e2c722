"""Tests of chainrules/rulesets/numpy/linalg/: every rule through
chainrules.testing (frule and rrule against finite differences), on small
square, rectangular, batched and vector shapes, in float64, complex128 and
float32; plus the conventions of the module docstring (degenerate spectra,
singular det, triangle-reading cholesky/eigh, phase-invariant complex
eigenvectors and singular vectors)."""

import operator

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, Tangent, ZeroTangent
from chainrules.finite_differences import central_fdm, grad, jvp
from chainrules.testing import PrimalAndTangent, test_approx, test_frule, test_rrule

NT = NoTangent()
la = np.linalg
DTYPES = [np.float64, np.complex128, np.float32]
FDM = central_fdm(5, 1, max_range=1e-2)


def rand(seed, *shape, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def well(seed, *shape, dtype=np.float64):
    """A well-conditioned (stack of) square matrices."""
    return (rand(seed, *shape, dtype=dtype) + 3 * np.eye(shape[-1])).astype(dtype)


def spd(seed, *shape, dtype=np.float64):
    """A (stack of) Hermitian positive-definite matrices."""
    x = rand(seed, *shape, dtype=dtype)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def check(f, *args, fkwargs=None, rtol=None, atol=None, output_tangent=None):
    test_frule(f, *args, fkwargs=fkwargs, rtol=rtol, atol=atol)
    test_rrule(f, *args, fkwargs=fkwargs, rtol=rtol, atol=atol, output_tangent=output_tangent)


def tol(dtype, loose=1e-7):
    """float64 decompositions: finite differences of eigen/singular vectors
    carry ~1e-8 of error; float32 keeps the kit's default."""
    return None if np.dtype(dtype).itemsize < 8 or np.dtype(dtype) == np.complex64 else loose


# ----- products ---------------------------------------------------------------

MATMUL_SHAPES = [((3, 4), (4, 2)), ((2, 3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)),
                 ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul(sa, sb, dtype):
    check(np.matmul, rand(1, *sa, dtype=dtype), rand(2, *sb, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_operator_matmul(dtype):
    check(operator.matmul, rand(1, 3, 4, dtype=dtype), rand(2, 4, 2, dtype=dtype))
    check(operator.matmul, rand(1, 4, dtype=dtype), rand(2, 2, 4, 3, dtype=dtype))


def test_matmul_mixed_and_nondifferentiable():
    check(np.matmul, rand(1, 3, 4, dtype=np.float32), rand(2, 4, 2))
    check(np.matmul, np.arange(12).reshape(3, 4), rand(2, 4, 2))
    check(np.linalg.matmul, rand(1, 3, 4), rand(2, 4, 2))


def test_matmul_rejects_out():
    a = rand(1, 2, 2)
    with pytest.raises(TypeError, match="out="):
        cr.rrule(np.matmul, a, a, out=np.empty((2, 2)))
    with pytest.raises(TypeError, match="axes="):
        cr.frule((NT, a, a), np.matmul, a, a, axes=[(0, 1), (0, 1), (0, 1)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((2, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,)),
                                   ((), (4,)), ((3,), ()), ((4,), (4,))])
def test_dot(sa, sb, dtype):
    check(np.dot, rand(1, *sa, dtype=dtype), rand(2, *sb, dtype=dtype))


def test_dot_of_python_scalar():
    check(np.dot, 2.5, rand(2, 3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_vdot_inner_outer(dtype):
    check(np.vdot, rand(1, 3, 2, dtype=dtype), rand(2, 6, dtype=dtype))
    check(np.inner, rand(1, 3, 4, dtype=dtype), rand(2, 2, 5, 4, dtype=dtype))
    check(np.inner, rand(1, 4, dtype=dtype), rand(2, 4, dtype=dtype))
    check(np.inner, rand(1, dtype=dtype), rand(2, 2, 3, dtype=dtype))
    check(np.outer, rand(1, 3, 2, dtype=dtype), rand(2, 4, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot(dtype):
    a, b = rand(1, 3, 4, 5, dtype=dtype), rand(2, 5, 4, 2, dtype=dtype)
    check(np.tensordot, a, b, PrimalAndTangent(([1, 2], [1, 0]), NT))
    check(np.tensordot, a, rand(3, 4, 5, 2, dtype=dtype))               # axes=2
    check(np.tensordot, a, rand(3, 5, 2, dtype=dtype), fkwargs={"axes": 1})
    check(np.tensordot, rand(1, 3, 2, dtype=dtype), rand(2, 2, dtype=dtype), fkwargs={"axes": 0})
    check(np.tensordot, a, rand(3, 2, 3, dtype=dtype), fkwargs={"axes": ([0], [1])})


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 2)]),
    ("ij,jk", [(3, 4), (4, 2)]),               # implicit output
    ("ba,ac", [(2, 3), (3, 4)]),               # implicit output, sorted letters
    ("ii->i", [(3, 3)]),                       # diagonal
    ("ii", [(3, 3)]),                          # trace
    ("iji->j", [(3, 2, 3)]),                   # generalized diagonal
    ("ij->i", [(3, 4)]),                       # an index only one operand carries
    ("ij->ji", [(3, 4)]),
    ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ij,j->", [(3, 2), (1,)]),                # a broadcast (size-1) dimension
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...i,i", [(2, 3), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,ij,i->j", [(3, 2), (3, 2), (3,)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES)
def test_einsum(subscripts, shapes, dtype):
    ops = [rand(i, *s, dtype=dtype) for i, s in enumerate(shapes)]
    check(np.einsum, PrimalAndTangent(subscripts, NT), *ops)


def test_einsum_optimize_and_interleaved_form():
    ops = [rand(i, *s) for i, s in enumerate([(2, 3), (3, 4), (4, 2)])]
    check(np.einsum, PrimalAndTangent("ij,jk,kl->il", NT), *ops, fkwargs={"optimize": "greedy"})
    # the (operand, sublist) form: the same rule body (tests/rulesets/numpy/test_more.py checks it)
    y, _ = cr.rrule(np.einsum, ops[0], [0, 1], ops[1], [1, 2])
    np.testing.assert_allclose(y, ops[0] @ ops[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_kron(dtype):
    check(np.kron, rand(1, 2, 3, dtype=dtype), rand(2, 3, 2, dtype=dtype))
    check(np.kron, rand(1, 3, dtype=dtype), rand(2, 2, 2, dtype=dtype))
    check(np.kron, rand(1, 2, 1, 2, dtype=dtype), rand(2, 3, 2, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_trace(dtype):
    check(np.trace, rand(1, 3, 4, dtype=dtype))
    check(np.trace, rand(1, 4, 3, dtype=dtype), fkwargs={"offset": -1})
    check(np.trace, rand(1, 3, 4, dtype=dtype), fkwargs={"offset": 2})
    check(np.trace, rand(1, 3, 4, 2, dtype=dtype),
          PrimalAndTangent(1, NT), PrimalAndTangent(0, NT), PrimalAndTangent(2, NT))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross(dtype):
    check(np.cross, rand(1, 4, 3, dtype=dtype), rand(2, 3, dtype=dtype))
    check(np.cross, rand(1, 3, 2, dtype=dtype), rand(2, 2, 3, dtype=dtype),
          fkwargs={"axisa": 0, "axisb": 1, "axisc": 0})
    check(np.cross, rand(1, 3, 2, dtype=dtype), rand(2, 3, 2, dtype=dtype), fkwargs={"axis": 0})


def test_cross_of_2_vectors_has_no_rule():
    assert cr.rrule(np.cross, rand(1, 2), rand(2, 2)) is None


# ----- inverse, determinants, solve ---------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_inv_det_slogdet(shape, dtype):
    a = well(1, *shape, dtype=dtype)
    check(la.inv, a)
    check(la.det, a)
    check(la.slogdet, a)


def test_slogdet_with_one_output_cotangent():
    a = well(1, 3, 3, dtype=np.complex128)
    y = la.slogdet(a)
    test_rrule(la.slogdet, a, output_tangent=Tangent[type(y)](logabsdet=0.7))
    test_rrule(la.slogdet, a, output_tangent=Tangent[type(y)](sign=0.3 - 0.2j))


def test_det_at_singular_matrices_uses_the_adjugate():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    check(la.det, a)
    _, pb = cr.rrule(la.det, a)
    test_approx(cr.unthunk(pb(1.0)[1]), np.array([[4.0, -2.0], [-2.0, 1.0]]))
    b = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]) + 0j
    check(la.det, np.stack([b, b.conj().T * 1j]))


@pytest.mark.parametrize("a, expect", [
    (np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[0, 0, 0, 1], [0, 0, -1, 0], [0, -1, 0, 0], [1, 0, 0, 0]])),
    (np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0]), None),
], ids=["2x2-rank-1", "3x3-rank-1"])
def test_second_derivative_of_det_at_singular_matrices(a, expect):
    """issue 12: the nested rule took the inverse (LinAlgError at a singular
    matrix); the adjugate's polynomial is exact there, and so is its derivative."""
    from chainrules import ad
    from chainrules.finite_differences import central_fdm
    h = ad.hessian(la.det, a)
    assert np.all(np.isfinite(h))
    n = a.size
    fd = np.empty((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        fd[:, j] = np.ravel(central_fdm(5, 1)(lambda t: ad.gradient(la.det, a + t * e.reshape(a.shape)), 0.0))
    test_approx(np.reshape(h, (n, n)), fd, rtol=1e-6, atol=1e-8)
    if expect is not None:
        test_approx(np.reshape(h, (n, n)), expect.astype(float))
    test_approx(ad.gradient(la.det, a), cr.unthunk(cr.rrule(la.det, a)[1](1.0)[1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve(dtype):
    check(la.solve, well(1, 3, 3, dtype=dtype), rand(2, 3, 2, dtype=dtype))
    check(la.solve, well(1, 3, 3, dtype=dtype), rand(2, 3, dtype=dtype))
    check(la.solve, well(1, 2, 3, 3, dtype=dtype), rand(2, 3, dtype=dtype))
    check(la.solve, well(1, 2, 3, 3, dtype=dtype), rand(2, 2, 3, 2, dtype=dtype))
    check(la.solve, well(1, 3, 3, dtype=dtype), rand(2, 2, 3, 2, dtype=dtype))   # broadcast a


# ----- factorisations ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(shape, dtype, upper):
    check(la.cholesky, spd(1, *shape, dtype=dtype), fkwargs={"upper": upper}, rtol=tol(dtype), atol=tol(dtype))


def test_cholesky_reads_one_triangle():
    a = spd(1, 3, 3)
    _, pb = cr.rrule(la.cholesky, a)
    ā = cr.unthunk(pb(rand(2, 3, 3))[1])
    assert np.all(np.triu(ā, 1) == 0)
    _, pb = cr.rrule(la.cholesky, a, upper=True)
    ā = cr.unthunk(pb(rand(2, 3, 3))[1])
    assert np.all(np.tril(ā, -1) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_qr(shape, dtype):
    a = rand(1, *shape, dtype=dtype)
    check(la.qr, a, rtol=tol(dtype), atol=tol(dtype))
    check(la.qr, a, fkwargs={"mode": "r"}, rtol=tol(dtype), atol=tol(dtype))


def test_qr_modes():
    check(la.qr, rand(1, 3, 4), PrimalAndTangent("complete", NT))      # complete == reduced when wide
    with pytest.raises(ValueError, match="mode"):
        cr.rrule(la.qr, rand(1, 4, 3), mode="complete")
    with pytest.raises(ValueError, match="mode"):
        cr.rrule(la.qr, rand(1, 4, 3), mode="raw")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_svd(shape, dtype):
    a = rand(1, *shape, dtype=dtype)
    check(la.svd, a, fkwargs={"full_matrices": False}, rtol=tol(dtype), atol=tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_svd_values_only(shape, dtype):
    check(la.svd, rand(1, *shape, dtype=dtype), fkwargs={"compute_uv": False})
    check(la.svd, rand(1, *shape, dtype=dtype), PrimalAndTangent(True, NT), PrimalAndTangent(False, NT))


def test_svd_options():
    check(la.svd, rand(1, 3, 3))                      # square: full_matrices=True is the thin SVD
    with pytest.raises(ValueError, match="full_matrices"):
        cr.rrule(la.svd, rand(1, 4, 3))
    with pytest.raises(TypeError, match="hermitian="):       # an option the body cannot honour
        cr.frule((NT, rand(2, 3, 3)), la.svd, rand(1, 3, 3), hermitian=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, dtype, uplo):
    check(la.eigh, rand(1, *shape, dtype=dtype), fkwargs={"UPLO": uplo}, rtol=tol(dtype), atol=tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eigvalsh(shape, dtype):
    check(la.eigvalsh, rand(1, *shape, dtype=dtype))
    check(la.eigvalsh, rand(1, *shape, dtype=dtype), PrimalAndTangent("U", NT))


# Complex eigenvectors and singular vectors are defined up to a phase per
# column, so only phase-invariant functions of them have a derivative: check
# the rules through such functions against finite differences of the whole.

def _svd_invariant(a, B, c):
    """Σ c_i s_i + Re Σ u_iᴴ B v_i: invariant under u_i, v_i → e^{iφ}u_i, e^{iφ}v_i."""
    U, s, Vh = la.svd(a, full_matrices=False)
    return float(np.sum(c * s) + np.real(np.trace(U.conj().T @ B @ Vh.conj().T)))


def _svd_invariant_cotangent(y, B, c):
    U, s, Vh = y
    V = Vh.conj().T
    return Tangent[type(y)](U=B @ V, S=c, Vh=(B.conj().T @ U).conj().T)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5)])
def test_svd_complex_through_phase_invariant_functions(shape):
    a = rand(1, *shape, dtype=np.complex128)
    B = rand(2, *shape, dtype=np.complex128)
    c = rand(3, min(shape))
    y, pb = cr.rrule(la.svd, a, full_matrices=False)
    ā = cr.unthunk(pb(_svd_invariant_cotangent(y, B, c))[1])
    (expected,) = grad(FDM, lambda x: _svd_invariant(x, B, c), a)
    test_approx(ā, expected, rtol=1e-7, atol=1e-7)
    ȧ = rand(4, *shape, dtype=np.complex128)
    _, ẏ = cr.frule((NT, ȧ), la.svd, a, full_matrices=False)
    ȳ = _svd_invariant_cotangent(y, B, c)
    ġ = sum(np.real(np.vdot(t, d)) for t, d in zip(ȳ, ẏ))
    fd = jvp(FDM, lambda x: _svd_invariant(x, B, c), (a, ȧ))
    test_approx(ġ, float(fd), rtol=1e-7, atol=1e-7)


def _eigh_invariant(a, M, d, c):
    """Σ c_i w_i + Σ d_i v_iᴴ M v_i (phase-invariant)."""
    w, V = la.eigh(a)
    return float(np.sum(c * w) + np.sum(d * np.real(np.einsum("ji,jk,ki->i", V.conj(), M, V))))


def _eigh_invariant_cotangent(y, M, d, c):
    return Tangent[type(y)](eigenvalues=c, eigenvectors=2 * M @ y.eigenvectors * d)


def _hermitian(seed, n, dtype):
    x = rand(seed, n, n, dtype=dtype)
    return x + x.conj().T


@pytest.mark.parametrize("dtype", [np.complex128, np.float64])
def test_eigh_through_invariant_functions(dtype):
    a = rand(1, 4, 4, dtype=dtype)
    M, d, c = _hermitian(2, 4, dtype), rand(3, 4), rand(4, 4)
    y, pb = cr.rrule(la.eigh, a)
    ā = cr.unthunk(pb(_eigh_invariant_cotangent(y, M, d, c))[1])
    (expected,) = grad(FDM, lambda x: _eigh_invariant(x, M, d, c), a)
    test_approx(ā, expected, rtol=1e-7, atol=1e-7)
    ȧ = rand(5, 4, 4, dtype=dtype)
    _, ẏ = cr.frule((NT, ȧ), la.eigh, a)
    ȳ = _eigh_invariant_cotangent(y, M, d, c)
    ġ = sum(np.real(np.vdot(t, s)) for t, s in zip(ȳ, ẏ))
    test_approx(ġ, float(jvp(FDM, lambda x: _eigh_invariant(x, M, d, c), (a, ȧ))), rtol=1e-7, atol=1e-7)


# ----- degenerate spectra (the convention of the module docstring) -------------

def _with_spectrum(seed, values, m=None):
    """Q diag(values) Pᵀ with random orthogonal Q, P (P = Q for square m=None)."""
    n = len(values)
    Q, _ = la.qr(rand(seed, m or n, n))
    P = Q if m is None else la.qr(rand(seed + 1, n, n))[0]
    return Q @ np.diag(values) @ P.T


def test_eigh_degenerate_spectrum_gives_finite_invariant_gradients():
    a = _with_spectrum(1, [1.0, 1.0, 3.0, -2.0])
    y, pb = cr.rrule(la.eigh, a)
    assert np.isclose(y.eigenvalues[1], y.eigenvalues[2])
    # any cotangent: finite, never NaN
    ā = cr.unthunk(pb(Tangent[type(y)](eigenvalues=rand(2, 4), eigenvectors=rand(3, 4, 4)))[1])
    assert np.all(np.isfinite(ā))
    # functions that weigh the degenerate pair equally are smooth: exact gradient
    M = _hermitian(4, 4, np.float64)
    d = np.array([0.5, -1.0, -1.0, 2.0])     # equal weights on the pair (w[1] == w[2])
    c = np.array([0.3, 0.7, 0.7, -0.2])
    ā = cr.unthunk(pb(_eigh_invariant_cotangent(y, M, d, c))[1])
    (expected,) = grad(FDM, lambda x: _eigh_invariant(x, M, d, c), a)
    test_approx(ā, expected, rtol=1e-6, atol=1e-6)
    # the frule too
    _, ẏ = cr.frule((NT, rand(5, 4, 4)), la.eigh, a)
    assert np.all(np.isfinite(ẏ.eigenvectors))


def test_eigvalsh_degenerate_spectrum():
    a = _with_spectrum(1, [2.0, 2.0, 2.0, 5.0])
    test_rrule(la.eigvalsh, a, output_tangent=np.array([1.5, 1.5, 1.5, -0.5]), rtol=1e-6, atol=1e-6)


def test_svd_degenerate_spectrum_gives_finite_invariant_gradients():
    a = _with_spectrum(1, [2.0, 2.0, 0.5], m=4)
    y, pb = cr.rrule(la.svd, a, full_matrices=False)
    assert np.isclose(y.S[0], y.S[1])
    ā = cr.unthunk(pb(Tangent[type(y)](U=rand(2, 4, 3), S=rand(3, 3), Vh=rand(4, 3, 3)))[1])
    assert np.all(np.isfinite(ā))
    _, ẏ = cr.frule((NT, rand(5, 4, 3)), la.svd, a, full_matrices=False)
    assert all(np.all(np.isfinite(t)) for t in ẏ)
    # s1 + s2 and the projector onto their left subspace are smooth
    M, N = _hermitian(6, 4, np.float64), _hermitian(7, 3, np.float64)
    c, d, e = np.array([1.0, 1.0, -0.5]), np.array([0.3, 0.3, 1.0]), np.array([-0.4, -0.4, 0.2])

    def g(x):
        U, s, Vh = la.svd(x, full_matrices=False)
        return float(np.sum(c * s) + np.sum(d * np.einsum("ji,jk,ki->i", U, M, U))
                     + np.sum(e * np.einsum("ij,jk,ik->i", Vh, N, Vh)))

    ȳ = Tangent[type(y)](U=2 * M @ y.U * d, S=c, Vh=(2 * N @ y.Vh.T * e).T)
    ā = cr.unthunk(pb(ȳ)[1])
    (expected,) = grad(FDM, g, a)
    test_approx(ā, expected, rtol=1e-6, atol=1e-6)


def test_svd_of_rank_deficient_matrix_is_finite():
    a = _with_spectrum(1, [2.0, 1.0, 0.0], m=4)
    y, pb = cr.rrule(la.svd, a, full_matrices=False)
    ā = cr.unthunk(pb(Tangent[type(y)](U=rand(2, 4, 3), S=rand(3, 3), Vh=rand(4, 3, 3)))[1])
    assert np.all(np.isfinite(ā))


# ----- norm -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_norm_flat_and_frobenius(dtype):
    check(la.norm, rand(1, 5, dtype=dtype))
    check(la.norm, rand(1, 3, 4, dtype=dtype))
    check(la.norm, rand(1, 3, 4, 2, dtype=dtype), fkwargs={"keepdims": True})
    check(la.norm, rand(1, 3, 4, 2, dtype=dtype), fkwargs={"ord": "fro", "axis": (0, 2)})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 3, 0.5, -1.5])
def test_norm_vector(ord, dtype):
    x = rand(1, 3, 4, dtype=dtype)
    x = (x + 0.3 * x / np.abs(x)).astype(dtype)     # away from the kink at 0, no ties
    check(la.norm, x, fkwargs={"ord": ord, "axis": 1})
    check(la.norm, x[0], fkwargs={"ord": ord, "keepdims": True})


def test_norm_positional_options_and_ord_0():
    x = rand(1, 3, 4)
    check(la.norm, x, PrimalAndTangent(3, NT), PrimalAndTangent(0, NT), PrimalAndTangent(True, NT))
    _, pb = cr.rrule(la.norm, x, 0, 1)
    assert pb(np.ones(3)) == (NT, NT, NT, NT)
    assert cr.frule((NT, x), la.norm, x, ord=0, axis=1)[1] is NT


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord", ["nuc", 2, -2, 1, -1, np.inf, -np.inf])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_norm_matrix(ord, shape, dtype):
    check(la.norm, rand(1, *shape, dtype=dtype), fkwargs={"ord": ord, "axis": (-2, -1)})


def test_norm_matrix_axes_and_keepdims():
    check(la.norm, rand(1, 3, 2, 4), fkwargs={"ord": "nuc", "axis": (2, 0), "keepdims": True})
    check(la.norm, rand(1, 3, 4), fkwargs={"ord": 2})


# ----- pinv, lstsq, matrix_power ------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_pinv(shape, dtype):
    # full rank and well conditioned, so that float32 meets the kit's default tolerance
    x = (rand(1, *shape, dtype=dtype) + 3 * np.eye(shape[-2], shape[-1])).astype(dtype)
    check(la.pinv, x, rtol=tol(dtype), atol=tol(dtype))


def test_pinv_options():
    check(la.pinv, rand(1, 4, 2), PrimalAndTangent(1e-12, NT))
    with pytest.raises(TypeError, match="hermitian="):       # an option the body cannot honour
        cr.rrule(la.pinv, rand(1, 3, 3), hermitian=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3, 2)), ((3, 3), (3,))])
def test_lstsq(sa, sb, dtype):
    check(la.lstsq, rand(1, *sa, dtype=dtype), rand(2, *sb, dtype=dtype), rtol=tol(dtype), atol=tol(dtype))


def test_lstsq_with_rcond():
    check(la.lstsq, rand(1, 5, 3), rand(2, 5), PrimalAndTangent(None, NT), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 3, -2])
def test_matrix_power(n, dtype):
    a = (well(1, 3, 3, dtype=dtype) / 3).astype(dtype)
    check(la.matrix_power, a, PrimalAndTangent(n, NT))
    check(la.matrix_power, (well(2, 2, 3, 3, dtype=dtype) / 3).astype(dtype), PrimalAndTangent(n, NT))


# ----- zeros and integers ---------------------------------------------------------

def test_integer_arrays_get_no_tangent():
    i = np.arange(6).reshape(2, 3)
    _, pb = cr.rrule(np.dot, i, rand(1, 3, 2))
    out = pb(np.ones((2, 2)))
    assert out[1] is NT and cr.unthunk(out[2]).shape == (3, 2)
    _, pb = cr.rrule(np.einsum, "ij,jk->ik", i, rand(1, 3, 2))
    assert pb(np.ones((2, 2)))[2] is NT


@pytest.mark.parametrize("f,args", [
    (np.matmul, (rand(1, 2, 2), rand(2, 2, 2))),
    (la.inv, (well(1, 2, 2),)),
    (la.svd, (rand(1, 2, 2),)),
    (la.eigh, (rand(1, 2, 2),)),
    (np.einsum, ("ij,jk", rand(1, 2, 2), rand(2, 2, 2))),
])
def test_zero_cotangents_short_circuit(f, args):
    _, pb = cr.rrule(f, *args)
    assert all(isinstance(t, cr.AbstractZero) for t in pb(ZeroTangent()))


# ----- NumPy 2 spellings and ndarray methods ---------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_vecdot(dtype):
    for f in (np.linalg.vecdot, np.vecdot):
        check(f, rand(1, 3, 4, dtype=dtype), rand(2, 4, dtype=dtype))
        check(f, rand(1, 4, 3, dtype=dtype), rand(2, 2, 1, 3, dtype=dtype))
        check(f, rand(1, 4, 3, dtype=dtype), rand(2, 4, 3, dtype=dtype), fkwargs={"axis": 0})


@pytest.mark.parametrize("dtype", DTYPES)
def test_linalg_spellings(dtype):
    check(la.svdvals, rand(1, 2, 4, 3, dtype=dtype))
    check(la.matrix_norm, rand(1, 2, 4, 3, dtype=dtype))
    check(la.matrix_norm, rand(1, 4, 3, dtype=dtype), fkwargs={"ord": "nuc", "keepdims": True})
    check(la.tensordot, rand(1, 3, 4, dtype=dtype), rand(2, 4, 2, dtype=dtype), fkwargs={"axes": 1})
    check(la.cross, rand(1, 2, 3, dtype=dtype), rand(2, 3, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ord,axis", [(2, None), (1, None), (np.inf, (0, 2)), (-np.inf, 1), (3, (1, 2)),
                                      (0.5, None), (2, (0, 2))])
def test_vector_norm(ord, axis, dtype):
    x = rand(1, 3, 4, 2, dtype=dtype)
    x = (x + 0.3 * x / np.abs(x)).astype(dtype)
    check(la.vector_norm, x, fkwargs={"ord": ord, "axis": axis})
    check(la.vector_norm, x, fkwargs={"ord": ord, "axis": axis, "keepdims": True})


def test_vector_norm_ord_0_is_nondifferentiable():
    _, pb = cr.rrule(la.vector_norm, rand(1, 3), ord=0)
    assert pb(1.0) == (NT, NT)


def test_ndarray_methods():
    check(np.ndarray.dot, rand(1, 3, 4), rand(2, 4, 2))
    check(np.ndarray.trace, rand(1, 3, 4, 2), PrimalAndTangent(1, NT))


@pytest.mark.parametrize("f,args", [
    (np.matmul, (np.ones((0, 3)), np.ones((3, 2)))),
    (np.matmul, (np.ones((2, 0)), np.ones((0, 2)))),
    (np.dot, (np.ones(0), np.ones(0))),
    (np.dot, (np.array(2.0), np.array(3.0))),
    (np.einsum, (PrimalAndTangent("ij,jk", NT), np.ones((2, 0)), np.ones((0, 3)))),
    (np.tensordot, (np.ones((2, 0)), np.ones((0, 3)), PrimalAndTangent(1, NT))),
    (np.kron, (np.ones((0, 2)), np.ones((2, 2)))),
    (np.outer, (np.ones(0), np.ones(3))),
    (np.trace, (np.ones((0, 0)),)),
    (la.norm, (np.ones(0),)),
    (la.inv, (np.ones((0, 0)),)),
    (la.det, (np.ones((0, 0)),)),
    (la.solve, (np.ones((0, 0)), np.ones((0, 2)))),
    (la.cholesky, (np.ones((0, 0)),)),
    (la.qr, (np.ones((0, 0)),)),
    (la.eigh, (np.ones((0, 0)),)),
    (la.svd, (np.ones((0, 3)), PrimalAndTangent(False, NT))),
])
def test_empty_and_0d(f, args):
    check(f, *args)


# ----- NumPy 2 spellings: linalg.outer, linalg.trace, linalg.diagonal; x @ y methods ----

@pytest.mark.parametrize("offset", [0, 1, -1])
@pytest.mark.parametrize("shape,dtype", [((3, 3), float), ((2, 3, 4), float), ((3, 4), complex),
                                         ((0, 2, 2), float), ((3, 3), np.float32)])
def test_linalg_trace_diagonal(shape, dtype, offset):
    rng = np.random.default_rng(3)
    x = rng.normal(size=shape) + (1j * rng.normal(size=shape) if dtype is complex else 0)
    x = x.astype(dtype)
    tol = dict(rtol=1e-2, atol=1e-2) if dtype is np.float32 else {}
    for f in (np.linalg.trace, np.linalg.diagonal):
        test_frule(f, x, fkwargs=dict(offset=offset), **tol)
        test_rrule(f, x, fkwargs=dict(offset=offset), **tol)


def test_linalg_outer_and_matmul_methods():
    rng = np.random.default_rng(4)
    for a, b in [(rng.normal(size=3), rng.normal(size=4)), (rng.normal(size=3) + 1j, rng.normal(size=2)),
                 (np.zeros(0), rng.normal(size=2))]:
        test_frule(np.linalg.outer, a, b)
        test_rrule(np.linalg.outer, a, b)
    A, B = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    for f, x, y in [(np.ndarray.__matmul__, A, B), (np.ndarray.__matmul__, A, B[:, 0]),
                    (np.ndarray.__rmatmul__, B, A), (np.ndarray.__rmatmul__, A, rng.normal(size=3))]:
        test_frule(f, x, y)
        test_rrule(f, x, y)
