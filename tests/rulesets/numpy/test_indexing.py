"""NumPy's last functions without rules (issue 24; census numpy 221/221):
sort_complex and trim_zeros (rulesets/numpy/indexing.py), asarray_chkfinite
(shapes.py, a copy), row_stack (joining.py, vstack's rules) and einsum_path
(linalg/einsum.py, non-differentiable), with chainrules.testing at order 1
and 2, complex, through chainrules.ad, against JAX, and their bad input."""

import warnings

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from .._order2 import F32, Case

from .test_more import c, r

NT = cr.NoTangent()


def both(f, *args, orders=(1, 2), **kw):
    for order in orders:
        test_frule(f, *args, order=order, **kw)
        test_rrule(f, *args, order=order, **kw)


# ----- sort_complex: a permutation (lexicographic on real, then imaginary parts) -------------------

def test_sort_complex():
    both(np.sort_complex, r(5))                      # real in, complex out
    both(np.sort_complex, c(2, 4))                   # along the last axis
    both(np.sort_complex, np.array([1.0 + 2j, 1.0 - 1j, -3.0 + 0j]) + np.array([0, 0.1, 0]))
    both(np.sort_complex, r(4, dtype=np.float32), orders=(1,), **F32)
    Ω, ΔΩ = cr.frule((NT, np.array([10.0, 20.0, 30.0])), np.sort_complex, np.array([3.0, 1.0, 2.0]))
    assert Ω.dtype == ΔΩ.dtype == np.complex128
    np.testing.assert_array_equal(ΔΩ, [20, 30, 10])
    _, pb = cr.rrule(np.sort_complex, np.array([3.0, 1.0, 2.0]))
    x̄ = pb(np.array([1 + 5j, 2, 3]))[1]
    assert x̄.dtype == np.float64                     # a real input's cotangent is real
    np.testing.assert_array_equal(x̄, [3, 1, 2])
    # second derivative through chainrules.ad
    x = np.array([0.3, -1.2, 2.0])
    h = ad.hessian(lambda v: np.sum(np.real(np.sort_complex(v)) ** 3 * np.arange(1, 4)), x)
    np.testing.assert_allclose(np.diag(h), 6 * np.sort(x)[np.argsort(np.argsort(x))] * (np.argsort(np.argsort(x)) + 1))


def test_sort_complex_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = c(5)
    w = c(5)
    ours = ad.gradient(lambda v: np.sum(np.real(np.sort_complex(v) * w)), x)
    theirs = jax.grad(lambda v: jnp.sum(jnp.real(jnp.sort_complex(v) * w)))(x)
    # JAX's gradient of a real function of z is the conjugate of ChainRules' cotangent
    np.testing.assert_allclose(ours, np.conj(theirs), rtol=1e-13)


# ----- trim_zeros: a slice; the zeros' positions are constants ------------------------------------

# np.trim_zeros takes N-d arrays and axis= from NumPy 2.2 (the floor's 2.0: 1-d only)
_TRIM_ND = "axis" in __import__("inspect").signature(np.trim_zeros).parameters


def test_trim_zeros_slices():
    x = np.array([0.0, 0.0, 1.5, -0.3, 0.0, 2.0, 0.0])
    kept = {"fb": slice(2, 6), "f": slice(2, None), "b": slice(None, 6)}
    for trim, sl in kept.items():
        # finite differences must not move the trimmed zeros (the result would change shape):
        # the tangent is zero there, and the pullback is checked against the frule (⟨J ẋ, ȳ⟩ = ⟨ẋ, Jᵀȳ⟩)
        ẋ = np.zeros_like(x)
        ẋ[sl] = r(len(x[sl]))
        test_frule(np.trim_zeros, PrimalAndTangent(x, ẋ), PrimalAndTangent(trim, NT))
        Ω, pb = cr.rrule(np.trim_zeros, x, trim)
        ȳ = r(len(Ω))
        u = ẋ + (x == 0) * r(len(x))          # any direction, the trimmed zeros' too
        _, ΔΩ = cr.frule((NT, u, NT), np.trim_zeros, x, trim)
        np.testing.assert_allclose(np.dot(ΔΩ, ȳ), np.dot(u, pb(ȳ)[1]), rtol=1e-13)
        assert pb(ȳ)[2] is NT
    # 2-d, by axis (NumPy >= 2.2 takes axis=)
    m = np.array([[0, 0, 0, 0.0], [0, 1.0, 0, 2], [0, 3, 0, 0]])
    for kw, sl in [({}, np.s_[1:, 1:]), ({"axis": 0}, np.s_[1:, :]), ({"axis": -1}, np.s_[:, 1:]),
                   ({"trim": "b", "axis": 1}, np.s_[:, :])] if _TRIM_ND else []:
        Ω, pb = cr.rrule(np.trim_zeros, m, **kw)
        np.testing.assert_array_equal(Ω, np.trim_zeros(m, **kw))
        expected = np.zeros_like(m)
        expected[sl] = 1.0
        np.testing.assert_array_equal(pb(np.ones_like(Ω))[1], expected)
        _, ΔΩ = cr.frule((NT, np.ones_like(m)), np.trim_zeros, m, **kw)
        assert ΔΩ.shape == Ω.shape
    # all zeros: an empty result, a zero cotangent
    Ω, pb = cr.rrule(np.trim_zeros, np.zeros(3))
    assert Ω.shape == (0,)
    np.testing.assert_array_equal(pb(np.ones(0))[1], np.zeros(3))


def test_trim_zeros_with_the_kit_and_ad():
    both(np.trim_zeros, np.array([1.0, 0.0, 2.0]))                  # inner zeros stay
    both(np.trim_zeros, np.array([1 + 2j, 0, 0.5j]))
    if _TRIM_ND:
        both(np.trim_zeros, r(2, 3))
    x = np.array([0.0, 1.5, -0.3, 0.0])
    g = ad.gradient(lambda v: np.sum(np.trim_zeros(v) ** 3), x)
    np.testing.assert_allclose(g, 3 * x ** 2)
    h = ad.hessian(lambda v: np.sum(np.trim_zeros(v) ** 3), x)
    np.testing.assert_allclose(h, np.diag(6 * x))
    np.testing.assert_allclose(ad.jvp(np.trim_zeros, (x,), (np.ones(4),))[1], [1.0, 1.0])


def test_trim_zeros_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    x = np.array([0.0, 0.0, 1.5, -0.3, 0.0, 2.0, 0.0])
    w = r(4)
    ours = ad.gradient(lambda v: np.sum(np.trim_zeros(v) * w), x)
    # jnp.trim_zeros needs concrete values: the gradient of the slice it returns
    kept = jax.numpy.trim_zeros(jax.numpy.asarray(x))
    start = int(np.flatnonzero(x)[0])
    theirs = jax.grad(lambda v: jax.numpy.sum(v[start:start + len(kept)] * w))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-15)


# ----- asarray_chkfinite, row_stack, einsum_path ---------------------------------------------------

def test_asarray_chkfinite():
    import chainrules.ad.numpy as anp
    both(np.asarray_chkfinite, r(2, 3))
    both(np.asarray_chkfinite, c(3))
    both(np.asarray_chkfinite, r(3, dtype=np.float32), orders=(1,), **F32)
    for bad in (np.array([1.0, np.nan]), np.array([np.inf, 0.0])):
        with pytest.raises(ValueError, match="infs or NaNs"):
            cr.rrule(np.asarray_chkfinite, bad)
        with pytest.raises(ValueError, match="infs or NaNs"):      # on tracked values too (order 2)
            ad.hessian(lambda v: np.sum(anp.asarray_chkfinite(v)), bad)
    # NumPy does not dispatch asarray_chkfinite on tracked values: chainrules.ad.numpy's is wrapped
    np.testing.assert_allclose(ad.gradient(lambda v: np.sum(anp.asarray_chkfinite(v) ** 2), np.ones(2)), 2.0)
    np.testing.assert_allclose(ad.hessian(lambda v: np.sum(anp.asarray_chkfinite(v) ** 3), np.ones(2)), 6 * np.eye(2))
    assert ad.derivative(lambda v: anp.asarray_chkfinite(v) ** 2, 3.0) == 6.0


@pytest.mark.skipif(not hasattr(np, "row_stack"), reason="row_stack: removed from NumPy")
def test_row_stack_is_vstack():
    with warnings.catch_warnings():                 # NumPy 2 deprecates row_stack (the kit calls it)
        warnings.simplefilter("ignore", DeprecationWarning)
        both(np.row_stack, [r(3), r(2, 3)])
        both(np.row_stack, [c(2), c(2)])
        both(np.row_stack, (r(3),))
    with warnings.catch_warnings():                 # the rules compute with vstack: no warning
        warnings.simplefilter("error", DeprecationWarning)
        Ω, pb = cr.rrule(np.row_stack, [np.ones(2), np.zeros(2)])
        cr.frule((NT, [np.ones(2), np.ones(2)]), np.row_stack, [np.ones(2), np.zeros(2)])
    np.testing.assert_array_equal(Ω, [[1, 1], [0, 0]])
    assert cr.rrule(np.vstack, [np.ones(2)])[1].__name__ == pb.__name__


def test_einsum_path_is_not_differentiable():
    a, b = r(2, 3), r(3, 4)
    path, pb = cr.rrule(np.einsum_path, "ij,jk->ik", a, b, optimize="greedy")
    assert path == np.einsum_path("ij,jk->ik", a, b, optimize="greedy")
    assert pb(1.0) == (NT, NT, NT, NT)
    assert cr.frule((NT, NT, np.ones((2, 3)), np.ones((3, 4))), np.einsum_path, "ij,jk->ik", a, b)[1] is NT
    from chainrules import coverage
    assert coverage.declared_non_differentiable(np.einsum_path)


def test_bad_input():
    with pytest.raises(ValueError, match=r"numpy\.trim_zeros: unexpected character"):
        cr.rrule(np.trim_zeros, r(3), "x")
    with pytest.raises(TypeError, match=r"trim_zeros: unexpected arguments \['sideways'\]"):
        cr.frule((NT, r(3)), np.trim_zeros, r(3), sideways=1)
    with pytest.raises(TypeError, match="sort_complex"):
        cr.rrule(np.sort_complex, r(3), axis=0)


SWEEP_CASES = [
    Case("np.sort_complex", np.sort_complex, r(4)),
    Case("np.trim_zeros", np.trim_zeros, np.array([1.5, 0.0, -0.3])),
    Case("np.asarray_chkfinite", np.asarray_chkfinite, r(2, 2)),
]
