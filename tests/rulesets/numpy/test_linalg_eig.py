"""The rules of numpy.linalg's eig, eigvals, cond, multi_dot, tensorinv and
tensorsolve (chainrules/rulesets/numpy/linalg/spectral.py, tensor.py): the
kit at order 1 and 2, real and complex, float32 at order 1, awkward inputs,
bad input, and against JAX (jax.numpy.linalg)."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing import test_frule, test_rrule

from .._order2 import F32, Case

_rng = np.random.default_rng(241)


def _m(*shape, c=False):
    a = _rng.uniform(-1, 1, shape)
    return a + 1j * _rng.uniform(-1, 1, shape) if c else a


REALSPEC = np.diag([1.0, 2.0, 3.5]) + 0.2 * _m(3, 3)      # a real spectrum: real, locally sign-fixed vectors
A, Ac = _m(3, 3) + 3 * np.eye(3), _m(3, 3, c=True) + 3 * np.eye(3)

CASES = [
    Case("eig", np.linalg.eig, REALSPEC),
    Case("eig-stacked", np.linalg.eig, np.stack([REALSPEC, REALSPEC.T])),
    Case("eigvals", np.linalg.eigvals, _m(3, 3)),                  # complex pair from a real matrix
    Case("eigvals-c", np.linalg.eigvals, Ac),
    Case("cond", np.linalg.cond, A), Case("cond-c", np.linalg.cond, Ac),
    Case("cond-minus2", np.linalg.cond, A, -2), Case("cond-fro", np.linalg.cond, A, "fro"),
    Case("cond-1-c", np.linalg.cond, Ac, 1), Case("cond-inf", np.linalg.cond, A, np.inf),
    Case("cond-tall", np.linalg.cond, _m(4, 3)),
    Case("multi_dot", np.linalg.multi_dot, [_m(3), A, _m(3, 2), _m(2)]),
    Case("multi_dot-c", np.linalg.multi_dot, [Ac, _m(3, 4, c=True), _m(4, 2, c=True)]),
    Case("tensorinv", np.linalg.tensorinv, np.reshape(A @ A.T + np.eye(3), (3, 3)), fkwargs=dict(ind=1)),
    Case("tensorinv-4d", np.linalg.tensorinv, np.reshape(_m(6, 6) + 4 * np.eye(6), (2, 3, 6))),
    Case("tensorinv-c", np.linalg.tensorinv, np.reshape(_m(4, 4, c=True) + 3 * np.eye(4), (4, 2, 2)), fkwargs=dict(ind=1)),
    Case("tensorsolve", np.linalg.tensorsolve, np.reshape(_m(6, 6) + 4 * np.eye(6), (2, 3, 6)), _m(2, 3)),
    Case("tensorsolve-axes-c", np.linalg.tensorsolve, np.reshape(_m(6, 6, c=True) + 4 * np.eye(6), (6, 2, 3)),
         _m(2, 3, c=True), fkwargs=dict(axes=(0,))),
]

SWEEP_CASES = [c for c in CASES if c.id in ("eig", "eigvals-c", "cond", "multi_dot", "tensorinv", "tensorsolve")]
SWEEP_CASES += [Case("linalg.matrix_transpose", np.linalg.matrix_transpose, _m(2, 3, 4))]


def _failures(cases, orders, tol):
    out = []
    for c in cases:
        for order in orders:
            try:
                test_frule(c.f, *c.args, fkwargs=c.fkwargs, order=order, **tol)
                test_rrule(c.f, *c.args, fkwargs=c.fkwargs, order=order, **tol)
            except Exception as e:  # noqa: BLE001 - collected and reported together
                out.append(f"{c.id} order {order}: {type(e).__name__}: {str(e)[:600]}")
    return out


def test_the_kit_at_orders_1_and_2():
    failures = _failures(CASES, (1, 2), dict(rtol=1e-6, atol=1e-7))
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def test_float32_at_order_1():
    def f32(a):
        if isinstance(a, list):
            return [f32(v) for v in a]
        return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
    cases = [Case(c.id, c.f, *[f32(a) for a in c.args], fkwargs=c.fkwargs) for c in CASES
             if c.id in ("eig", "eigvals", "cond", "cond-fro", "multi_dot", "tensorinv", "tensorsolve")]
    failures = _failures(cases, (1,), F32)
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


def test_eig_at_repeated_and_defective_matrices():
    # degenerate pairs drop out (eigh's tolerance): basis-independent functions keep exact gradients
    for a in (np.diag([2.0, 2.0, 5.0]), np.array([[1.0, 1.0], [0.0, 1.0]])):     # repeated; defective
        g = ad.gradient(lambda x: np.real(np.sum(np.linalg.eigvals(x))), a)
        np.testing.assert_allclose(g, np.eye(len(a)), atol=1e-12)
        w, pb = cr.rrule(np.linalg.eigvals, a)
        assert np.all(np.isfinite(cr.unthunk(pb(np.ones_like(w))[1])))
    # the determinant as the product of the eigenvalues: its gradient is the cofactor matrix
    g = ad.gradient(lambda x: np.real(np.prod(np.linalg.eigvals(x))), A)
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-10)


def test_bad_input_names_the_function_and_the_argument():
    with pytest.raises(ValueError, match="numpy.linalg.eig.*a"):
        cr.rrule(np.linalg.eig, _m(2, 3))
    with pytest.raises(ValueError, match="numpy.linalg.multi_dot.*arrays"):
        cr.rrule(np.linalg.multi_dot, [A])
    with pytest.raises(TypeError, match="numpy.linalg.multi_dot.*out"):
        cr.rrule(np.linalg.multi_dot, [A, A], out=np.empty((3, 3)))
    with pytest.raises(ValueError, match="numpy.linalg.tensorinv.*ind"):
        cr.rrule(np.linalg.tensorinv, A, ind=0)
    with pytest.raises(TypeError, match="numpy.linalg.cond"):
        cr.rrule(np.linalg.cond, A, 2, 3)


def test_against_jax(jax_x64):
    jnp = jax_x64.numpy
    W = _m(3, 3)
    cases = [
        ("eigvals", np.linalg.eigvals, jnp.linalg.eigvals, REALSPEC, _m(3, c=True)),
        ("eigvals-c", np.linalg.eigvals, jnp.linalg.eigvals, Ac, _m(3, c=True)),
        ("eig-w", lambda a: np.linalg.eig(a)[0], jnp.linalg.eigvals, Ac, _m(3, c=True)),
        ("cond", np.linalg.cond, jnp.linalg.cond, A, np.float64(0.7)),
        ("cond-fro", lambda a: np.linalg.cond(a, "fro"), lambda a: jnp.linalg.cond(a, "fro"), A, np.float64(0.7)),
        ("tensorinv", lambda a: np.linalg.tensorinv(a, ind=1), lambda a: jnp.linalg.tensorinv(a, ind=1), A, W),
        ("multi_dot", lambda a: np.linalg.multi_dot([a, W, a]), lambda a: jnp.linalg.multi_dot([a, W, a]), Ac,
         W + 1j * W.T),
    ]
    for name, f, jf, x, ȳ in cases:
        _, vjp = jax_x64.vjp(jf, jnp.asarray(x))
        theirs = np.conj(np.asarray(vjp(jnp.conj(jnp.asarray(ȳ)))[0]))        # ChainRules' convention
        _, pb = ad.vjp(f, x)
        np.testing.assert_allclose(np.asarray(cr.unthunk(pb(ȳ)[0])), theirs, rtol=1e-8, atol=1e-10, err_msg=name)
    # eigenvectors: JAX's forward mode, opted in (its docs: valid for phase-invariant functions)
    ẋ = _m(3, 3, c=True)

    def jax_vectors(a):
        return jax_x64.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]
    _, theirs = jax_x64.jvp(lambda a: jnp.abs(jax_vectors(a)) ** 2, (jnp.asarray(Ac),), (jnp.asarray(ẋ),))
    ours = ad.jvp(lambda a: np.abs(np.linalg.eig(a)[1]) ** 2, (Ac,), (ẋ,))[1]
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-8, atol=1e-10)
