"""Order 2 for the NumPy rules that chainrules.ad's nested registry
(`ad/_nested.py`) used to stand in for, now differentiated as they are
(issue 12, item 2): the products of numpy/linalg/products.py and einsum.py
not covered by test_shapes_order2 (inner, vdot, outer, kron, cross, einsum, trace)
linalg.inv, det (at singular matrices too), slogdet, solve and norm (solve.py, norms.py), cholesky,
eigh, eigvalsh, qr, svd and svdvals (factorizations.py: complex eigenvectors
and singular vectors through phase-invariant functions of them, and nested
differentiation, which tracks their tangents and cotangents too), and the fft
functions (numpy/fft.py).
test_frule/test_rrule with order=2 run each rule on values tracked by
chainrules.ad and compare its differentiated pushforward and pullback with
finite differences; complex where the function takes complex, and einsum
with a repeated index (its cotangent written onto a diagonal)."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import AbstractZero, NoTangent, Tangent
from chainrules.rulesets._arrays import output_parts

from .._order2 import F32, NESTED_WAYS, Case, array, nested_second_derivative, params, spread

RNG = np.random.default_rng(1207)
X = spread((2, 3))
Y = spread((2, 3), lo=-2.0, hi=2.0)
XC = array(RNG, (2, 3), np.complex128)
YC = array(RNG, (2, 3), np.complex128)
SQ = spread((3, 3))
SQC = array(RNG, (3, 3), np.complex128)
V = spread((3,))
V3 = spread((2, 3), lo=-1.0, hi=2.0)
X3 = spread((3, 2, 4))
A = np.array([[3.0, 1.0, 0.5], [1.0, 4.0, 1.0], [0.2, 1.0, 5.0]])      # well conditioned
AC = A + 1j * spread((3, 3), lo=-0.5, hi=0.5)
AN = -A                                                                 # negative determinant
AB = np.stack([A, A.T + np.eye(3)])                                     # a batch
SING = np.array([[1.0, 2.0], [2.0, 4.0]])                               # singular: rank 1
SING3 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])   # rank 2
RANK1 = np.outer([1.0, 2.0, -1.0], [0.5, 1.0, 3.0])                     # rank 1: adj(a) = 0, not its derivative
SPD = A + A.T                                                           # symmetric positive definite
HPD = SPD + 1j * np.array([[0.0, 0.4, -0.3], [-0.4, 0.0, 0.2], [0.3, -0.2, 0.0]])   # Hermitian positive definite
SPDB = np.stack([SPD, np.diag([2.0, 3.0, 4.0]) + 0.5])                  # a batch
# eigh: eigenvalues well apart (degenerate pairs have no derivative); the upper
# triangle differs from the lower one, so UPLO matters
SYM = np.diag([1.0, 3.0, 6.0]) + 0.3 * spread((3, 3), lo=-1.0, hi=1.0)
HERM = np.diag([1.0, 3.0, 6.0]) + 0.3 * (spread((3, 3), lo=-1.0, hi=1.0) + 1j * spread((3, 3), lo=-0.8, hi=0.9))
SYMB = np.stack([SYM, SYM.T + np.diag([0.0, 2.0, 5.0])])
TALL = np.array([[2.0, 0.3, -0.4], [0.5, 1.5, 0.2], [-0.3, 0.8, 1.1], [0.6, -0.2, 0.9]])   # distinct singular values
TALLC = TALL + 1j * spread((4, 3), lo=-0.5, hi=0.5)


def _H(x):
    return np.conj(np.swapaxes(x, -1, -2))


# The eigenvectors of a complex Hermitian matrix have an arbitrary phase each: only
# phase-invariant functions of them have derivatives to compare with finite
# differences.  eigh_invariant is one of both outputs, (w, V diag(D) Vᴴ), whose
# rules are made of eigh's (and are differentiated through them at order 2).
D = np.array([0.7, -1.3, 2.1])


def eigh_invariant(a, UPLO="L"):
    w, V = np.linalg.eigh(a, UPLO)
    return w, (V * D) @ _H(V)


@cr.register_frule(eigh_invariant, object, ...)
def _eigh_invariant_frule(tangents, a, *rest):
    y, ẏ = cr.frule((NoTangent(),) + tuple(tangents[1:]), np.linalg.eigh, a, *rest)
    V = y.eigenvectors
    if isinstance(ẏ, AbstractZero):
        return (y.eigenvalues, (V * D) @ _H(V)), ẏ
    Ṗ = (ẏ.eigenvectors * D) @ _H(V)
    return (y.eigenvalues, (V * D) @ _H(V)), Tangent[tuple](ẏ.eigenvalues, Ṗ + _H(Ṗ))


@cr.register_rrule(eigh_invariant, object, ...)
def _eigh_invariant_rrule(a, *rest):
    y, pullback = cr.rrule(np.linalg.eigh, a, *rest)
    V = y.eigenvectors

    def eigh_invariant_pullback(ȳ):
        w̄, P̄ = output_parts(ȳ, 2, "eigh_invariant")
        V̄ = P̄ if isinstance(P̄, AbstractZero) else ((P̄ + _H(P̄)) @ V) * D
        return (NoTangent(), pullback(Tangent[type(y)](eigenvalues=w̄, eigenvectors=V̄))[1]) + \
            (NoTangent(),) * len(rest)
    return (y.eigenvalues, (V * D) @ _H(V)), eigh_invariant_pullback


# Likewise the singular vectors: (s, U diag(D) Vh) is phase-invariant (u_i, v_i → e^{iφ}u_i, e^{iφ}v_i).
def svd_invariant(a):
    U, s, Vh = np.linalg.svd(a, full_matrices=False)
    return s, (U * D) @ Vh


@cr.register_frule(svd_invariant, object)
def _svd_invariant_frule(tangents, a):
    y, ẏ = cr.frule((NoTangent(), tangents[1]), np.linalg.svd, a, full_matrices=False)
    if isinstance(ẏ, AbstractZero):
        return (y.S, (y.U * D) @ y.Vh), ẏ
    return (y.S, (y.U * D) @ y.Vh), Tangent[tuple](ẏ.S, (ẏ.U * D) @ y.Vh + (y.U * D) @ ẏ.Vh)


@cr.register_rrule(svd_invariant, object)
def _svd_invariant_rrule(a):
    y, pullback = cr.rrule(np.linalg.svd, a, full_matrices=False)
    U, Vh = y.U, y.Vh

    def svd_invariant_pullback(ȳ):
        s̄, P̄ = output_parts(ȳ, 2, "svd_invariant")
        if isinstance(P̄, AbstractZero):
            Ū = V̄h = P̄
        else:
            Ū, V̄h = (P̄ @ _H(Vh)) * D, D[:, None] * (_H(U) @ P̄)
        return NoTangent(), pullback(Tangent[type(y)](U=Ū, S=s̄, Vh=V̄h))[1]
    return (y.S, (U * D) @ Vh), svd_invariant_pullback


CASES = [
    # ----- products (numpy/linalg/products.py): bilinear -----
    Case("inner", np.inner, X, Y),
    Case("inner-vector", np.inner, V, V + 1),
    Case("inner-complex", np.inner, XC, YC),
    Case("vdot", np.vdot, X, Y),
    Case("vdot-complex", np.vdot, XC, YC),
    Case("outer", np.outer, V, X),
    Case("outer-complex", np.outer, XC[0], YC[1]),
    Case("linalg.outer", np.linalg.outer, V, V + 1),
    Case("kron", np.kron, X, SQ),
    Case("kron-complex", np.kron, XC, YC[:, :2]),
    Case("cross", np.cross, V3, Y),
    Case("cross-axis0", np.cross, V3.T, V, fkwargs={"axisa": 0}),
    Case("cross-complex", np.cross, XC, YC),
    Case("linalg.cross", np.linalg.cross, V3, Y),
    # ----- einsum (numpy/linalg/einsum.py): multilinear -----
    Case("einsum-matmul", np.einsum, "ij,jk->ik", X, SQ),
    Case("einsum-three", np.einsum, "ij,jk,k->i", X, SQ, V),
    Case("einsum-implicit-ellipsis", np.einsum, "...j,j", X, V),
    Case("einsum-diagonal", np.einsum, "ii->i", SQ),
    Case("einsum-diagonal-product", np.einsum, "ii,ij->j", SQ, X.T),
    Case("einsum-broadcast-missing", np.einsum, "i,j->ij", V, V[:2]),
    Case("einsum-complex", np.einsum, "ij,kj->ik", XC, YC),
    Case("einsum-complex-diagonal", np.einsum, "ii,i->i", SQC, V),
    Case("trace", np.trace, SQ),
    Case("trace-offset-axes", np.trace, X3, 1, 0, 2),
    Case("trace-complex", np.trace, SQC, -1),
    Case("linalg.trace", np.linalg.trace, AB),
    # ----- inverses and solvers (numpy/linalg/solve.py) -----
    Case("inv", np.linalg.inv, A),
    Case("inv-complex", np.linalg.inv, AC),
    Case("inv-batch", np.linalg.inv, AB),
    Case("det", np.linalg.det, A),
    Case("det-negative", np.linalg.det, AN),
    Case("det-complex", np.linalg.det, AC),
    Case("det-batch", np.linalg.det, AB),
    # singular (issue 12): the nested rule takes the adjugate's polynomial, not the inverse
    Case("det-singular", np.linalg.det, SING),
    Case("det-rank-one", np.linalg.det, RANK1),
    Case("det-singular-batch", np.linalg.det, np.stack([SING3, A])),
    Case("det-singular-complex", np.linalg.det, SING3 * (1 + 0.5j)),
    Case("slogdet", np.linalg.slogdet, AN),
    Case("slogdet-complex", np.linalg.slogdet, AC),
    Case("solve-vector", np.linalg.solve, A, V),
    Case("solve-matrix", np.linalg.solve, A, X.T),
    Case("solve-complex", np.linalg.solve, AC, XC.T),
    Case("solve-mixed", np.linalg.solve, A, XC.T),
    # pinv, lstsq, matrix_power: their bodies used to convert tracked values (np.asarray)
    Case("pinv-tall", np.linalg.pinv, TALL),
    Case("pinv-wide-complex", np.linalg.pinv, TALLC.T),
    Case("lstsq-vector", np.linalg.lstsq, TALL, spread((4,))),
    Case("lstsq-matrix", np.linalg.lstsq, TALL, spread((4, 2), lo=-2.0, hi=1.0)),
    Case("lstsq-complex", np.linalg.lstsq, TALLC, TALL[:, 0] + 0.5j),
    Case("matrix_power", np.linalg.matrix_power, A, 3),
    Case("matrix_power-negative", np.linalg.matrix_power, A, -2),
    Case("matrix_power-complex", np.linalg.matrix_power, AC, 2),
    # ----- factorizations (numpy/linalg/factorizations.py) -----
    Case("cholesky", np.linalg.cholesky, SPD),
    Case("cholesky-upper", np.linalg.cholesky, SPD, fkwargs={"upper": True}),
    Case("cholesky-batch", np.linalg.cholesky, SPDB),
    Case("cholesky-complex", np.linalg.cholesky, HPD),
    Case("cholesky-complex-upper", np.linalg.cholesky, HPD, fkwargs={"upper": True}),
    Case("cholesky-float32", np.linalg.cholesky, SPD.astype(np.float32), tol=F32),
    Case("eigh", np.linalg.eigh, SYM),
    Case("eigh-upper", np.linalg.eigh, SYM, "U"),
    Case("eigh-batch", np.linalg.eigh, SYMB, fkwargs={"UPLO": "U"}),
    Case("eigh-float32", np.linalg.eigh, SYM.astype(np.float32), tol=F32),
    Case("eigh-complex-invariant", eigh_invariant, HERM),
    Case("eigh-complex-invariant-upper", eigh_invariant, HERM, "U"),
    Case("eigh-real-invariant", eigh_invariant, SYM),
    Case("eigvalsh", np.linalg.eigvalsh, SYM),
    Case("eigvalsh-upper-batch", np.linalg.eigvalsh, SYMB, "U"),
    Case("eigvalsh-complex", np.linalg.eigvalsh, HERM),
    Case("eigvalsh-complex-upper", np.linalg.eigvalsh, HERM, fkwargs={"UPLO": "U"}),
    Case("qr", np.linalg.qr, TALL),
    Case("qr-square", np.linalg.qr, A),
    Case("qr-wide", np.linalg.qr, TALL.T),
    Case("qr-complex", np.linalg.qr, TALLC),
    Case("qr-r", np.linalg.qr, TALL, "r"),
    Case("qr-batch", np.linalg.qr, AB),
    Case("svd", np.linalg.svd, TALL, fkwargs={"full_matrices": False}),
    Case("svd-wide", np.linalg.svd, TALL.T, fkwargs={"full_matrices": False}),
    Case("svd-square-batch", np.linalg.svd, AB),
    Case("svd-values-complex", np.linalg.svd, TALLC, fkwargs={"compute_uv": False}),
    Case("svd-complex-invariant", svd_invariant, TALLC),
    Case("svd-complex-invariant-wide", svd_invariant, TALLC.T),
    # ----- norms (numpy/linalg/norms.py) -----
    Case("norm", np.linalg.norm, X),
    Case("norm-vector-axis", np.linalg.norm, X, fkwargs={"axis": 1, "keepdims": True}),
    Case("norm-fro", np.linalg.norm, X, "fro"),
    Case("norm-ord3", np.linalg.norm, V, 3),
    Case("norm-ord1", np.linalg.norm, V, 1),
    Case("norm-complex", np.linalg.norm, XC, fkwargs={"axis": 0}),
    # ----- fft (numpy/fft.py): linear -----
    Case("fft", np.fft.fft, X),
    Case("fft-complex-n-ortho", np.fft.fft, XC, 4, 0, "ortho"),
    Case("ifft-complex", np.fft.ifft, XC),
    Case("fft2-complex", np.fft.fft2, XC),
    Case("ifft2", np.fft.ifft2, X),
    Case("fftn-axes", np.fft.fftn, X3, None, (0, 2)),
    Case("ifftn-pad", np.fft.ifftn, XC, (3, 4), (0, 1)),
    Case("rfft", np.fft.rfft, X),
    Case("rfft-n", np.fft.rfft, V, 5),
    Case("rfftn", np.fft.rfftn, X3),
    Case("irfft", np.fft.irfft, XC),
    Case("irfft-n-forward", np.fft.irfft, XC, 5, 0, "forward"),
    Case("hfft", np.fft.hfft, XC),
    Case("ihfft", np.fft.ihfft, X),
    # ----- mixed real and complex arguments -----
    Case("einsum-mixed", np.einsum, "ij,j->i", SQC, V),
    Case("inner-mixed", np.inner, XC, Y),
    Case("vdot-mixed", np.vdot, X, YC),
    Case("outer-mixed", np.outer, V, XC),
    Case("kron-mixed", np.kron, XC, SQ),
    Case("cross-mixed", np.cross, V3, YC),
]


if hasattr(np.linalg, "svdvals"):
    CASES.append(Case("svdvals", np.linalg.svdvals, TALL))


@pytest.mark.parametrize("case", params(CASES, {}))
def test_order_two(case):
    case.run()


# The checks above run the rules on tracked primals with fixed seeds; nested
# differentiation also gives them tracked tangents (forward over forward) and
# cotangents (reverse over reverse).  Hessian-vector products of smooth functions
# of the factors, by each pairing of the engines, against finite differences of
# the gradient (first order, tested in test_linalg).
RNG2 = np.random.default_rng(12)
W43, W33 = RNG2.normal(size=(4, 3)), RNG2.normal(size=(3, 3))


def _spd(z):
    return z.T @ z + np.eye(3)


NESTED = {
    "cholesky": lambda z: np.sum(np.sin(np.linalg.cholesky(_spd(z))) * W33),
    "cholesky-upper": lambda z: np.sum(np.linalg.cholesky(_spd(z), upper=True) ** 3 * W33),
    "eigh": lambda z: np.sum(np.sin(np.linalg.eigh(_spd(z) + np.diag([0.0, 3.0, 7.0])).eigenvalues))
    + np.sum(np.linalg.eigh(_spd(z) + np.diag([0.0, 3.0, 7.0]), "U").eigenvectors ** 2 * W33),
    "eigvalsh": lambda z: np.sum(np.sin(np.linalg.eigvalsh(_spd(z), "U"))),
    "qr": lambda z: np.sum(np.sin(np.linalg.qr(z).Q) * W43) + np.sum(np.linalg.qr(z).R ** 3 * W33),
    "qr-wide": lambda z: np.sum(np.sin(np.linalg.qr(z.T).R) * W43.T),
    "svd": lambda z: np.sum(np.sin(np.linalg.svd(z, full_matrices=False).U) * W43)
    + np.sum(np.linalg.svd(z, full_matrices=False).S ** 3)
    + np.sum(np.linalg.svd(z.T, full_matrices=False).U ** 3 * W33),
    "svd-values": lambda z: np.sum(np.sin(np.linalg.svd(z, compute_uv=False))),
}


@pytest.mark.parametrize("how", NESTED_WAYS)
@pytest.mark.parametrize("name", sorted(NESTED))
def test_second_derivatives_by_nested_differentiation(name, how):
    nested_second_derivative(NESTED[name], TALL, RNG2.normal(size=(4, 3)), how, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["cholesky", "eigh", "qr", "svd"])
def test_third_derivatives_by_nested_differentiation(name):
    # the rules run on values tracked by two enclosing differentiations
    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp
    f = NESTED[name]
    x, v = TALL, RNG2.normal(size=(4, 3))
    want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda z: ad.hvp(f, z, v), (x, v))
    np.testing.assert_allclose(ad.jvp(lambda z: ad.hvp(f, z, v), (x,), (v,))[1], want, rtol=1e-5, atol=1e-6)


def test_third_derivative_through_dot():
    # forward over hvp: np.dot's rules run on values tracked by two enclosing differentiations
    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp

    def f(z):
        return np.sum(np.sin(np.dot(z, W33))) + np.sum(np.dot(z.T, z) ** 2 * W33)
    x, v = TALL, RNG2.normal(size=(4, 3))
    want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda z: ad.hvp(f, z, v), (x, v))
    np.testing.assert_allclose(ad.jvp(lambda z: ad.hvp(f, z, v), (x,), (v,))[1], want, rtol=1e-6, atol=1e-7)
    assert np.max(np.abs(want)) > 0.1


def test_second_derivatives_of_complex_cholesky_by_reverse_over_reverse():
    z = TALLC
    w = np.cos(np.arange(12.0)).reshape(4, 3) + 1j * np.sin(np.arange(12.0)).reshape(4, 3)

    def f(u):
        return np.sum(np.real(np.sin(np.linalg.cholesky(_H(u) @ u + np.eye(3))) * W33))

    from chainrules import ad
    from chainrules.finite_differences import central_fdm, jvp as fd_jvp
    got = ad.gradient(lambda u: np.sum(np.real(np.conj(ad.gradient(f, u)) * w)), z)
    want = fd_jvp(central_fdm(5, 1, max_range=1e-3), lambda u: ad.gradient(f, u), (z, w))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
