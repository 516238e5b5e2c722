"""NumPy's linear algebra served by the ONE array-API body of each function
(chainrules/rulesets/numpy/linalg/products.py, solve.py, norms.py): the
NumPy fast paths inside those registrations compute what the body computes,
bit for bit; NumPy's spellings that are a body between linear maps (np.dot,
np.inner, np.vdot, np.outer, np.cross's axisa/axisb/axisc, np.trace's
axis1/axis2/dtype) against finite differences at order 1 and 2; options a
body cannot honour are a TypeError naming them; and the higher derivatives
issue 22 names (third through np.dot; second through pinv, lstsq,
matrix_power) by chainrules.ad on NumPy arrays, against finite differences
of the lower ones."""

import operator
import pathlib

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, unthunk
from chainrules import ad
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.rulesets.array_api import linalg as body
from chainrules.testing import test_approx, test_frule, test_rrule

RNG = np.random.default_rng(2207)
FDM = central_fdm(5, 1)
NT = NoTangent()


def _r(*shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _same(x, y):
    return type(x) is type(y) and x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


# ----- the fast path is the body -----------------------------------------------------------------------

def test_matmul_fast_path_is_the_body_bit_for_bit():
    frule_b, rrule_b = body.matmul_rules(np.matmul, "matmul")
    failures, fast = [], 0
    for dtype in (np.float64, np.float32, np.complex128):
        for sa, sb in [((3, 3), (3, 3)), ((2, 5), (5, 4)), ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2)),
                       ((1, 3, 3), (4, 3, 3)), ((40, 40), (40, 40))]:
            a, b = _r(*sa, dtype=dtype), _r(*sb, dtype=dtype)
            Ω, pb = cr.rrule(np.matmul, a, b)
            Ωb, pbb = rrule_b(a, b)
            ȳ = _r(*Ω.shape, dtype=dtype)
            (_, ā, b̄), (_, āb, b̄b) = pb(ȳ), pbb(ȳ)
            Δa, Δb = _r(*sa, dtype=dtype), _r(*sb, dtype=dtype)
            (Ωf, ΔΩ), (_, ΔΩb) = cr.frule((NT, Δa, Δb), np.matmul, a, b), frule_b((NT, Δa, Δb), a, b)
            if not (_same(Ω, Ωb) and _same(unthunk(ā), unthunk(āb)) and _same(unthunk(b̄), unthunk(b̄b))
                    and _same(Ωf, Ωb) and _same(ΔΩ, ΔΩb)):
                failures.append((dtype, sa, sb))
            fast += pb.__qualname__ == "_matmul_rrule_arrays.<locals>.matmul_pullback"
            # the @ operator and the ndarray method: the same rule
            assert _same(cr.rrule(operator.matmul, a, b)[0], Ωb)
    assert not failures, failures
    assert fast == 18       # the fast path served every case (not vacuous)


def test_inv_and_solve_fast_paths_are_the_body_bit_for_bit():
    from chainrules.rulesets.array_api import linalg_ext
    inv_f, inv_r = linalg_ext.inv_rules(np.linalg.inv)
    _, solve_r = linalg_ext.solve_rules(np.linalg.solve)
    failures, fast = [], 0
    for dtype in (np.float64, np.float32, np.complex128):
        for shape in [(3, 3), (2, 4, 4), (30, 30)]:
            a = (_r(*shape, dtype=dtype) + 4 * np.eye(shape[-1])).astype(dtype)
            Ω, pb = cr.rrule(np.linalg.inv, a)
            Ωb, pbb = inv_r(a)
            ȳ, Δa = _r(*shape, dtype=dtype), _r(*shape, dtype=dtype)
            (Ωf, ΔΩ), (_, ΔΩb) = cr.frule((NT, Δa), np.linalg.inv, a), inv_f((NT, Δa), a)
            if not (_same(Ω, Ωb) and _same(unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])) and _same(ΔΩ, ΔΩb)):
                failures.append(("inv", dtype, shape))
            fast += pb.__qualname__ == "_inv_fast_rrule.<locals>.inv_pullback"
            if len(shape) == 2:
                for b in (_r(shape[0], dtype=dtype), _r(shape[0], 2, dtype=dtype)):
                    Ω, pb = cr.rrule(np.linalg.solve, a, b)
                    Ωb, pbb = solve_r(a, b)
                    ȳ = _r(*Ω.shape, dtype=dtype)
                    (_, ā, b̄), (_, āb, b̄b) = pb(ȳ), pbb(ȳ)
                    if not (_same(Ω, Ωb) and _same(unthunk(ā), unthunk(āb)) and _same(unthunk(b̄), unthunk(b̄b))):
                        failures.append(("solve", dtype, shape, b.shape))
                    fast += pb.__qualname__ == "_solve_fast_rrule.<locals>.solve_pullback"
    assert not failures, failures
    assert fast == 9 + 12       # the fast paths served every case (not vacuous)


def test_unary_fast_paths_are_the_body_bit_for_bit():
    """det, pinv, matrix_power, norm, cholesky, svdvals, eigvalsh: the body's
    adjoint on NumPy, without the generic layers (the body's rules: the
    array-API factories called on NumPy's function)."""
    from chainrules.rulesets.array_api import linalg_ext, linalg_factor
    from chainrules.rulesets.numpy.linalg import norms
    la = np.linalg
    m = _r(3, 3)
    spd = m @ m.T + 3 * np.eye(3)
    cases = [(la.det, linalg_ext.det_rules(la.det), _r(3, 3), ()), (la.det, linalg_ext.det_rules(la.det), _r(6, 6), ()),
             (la.pinv, linalg_ext.pinv_rules(la.pinv), _r(4, 3), ()),
             (la.matrix_power, linalg_ext.matrix_power_rules(la.matrix_power), _r(3, 3), (3,)),
             (la.norm, norms._vector, _r(3, 4), ()),
             (la.cholesky, linalg_ext.cholesky_rules(la.cholesky), spd, ()),
             (la.svdvals, linalg_factor.svdvals_rules(la.svdvals), _r(4, 3), ()),
             (la.eigvalsh, linalg_factor.eigvalsh_rules(la.eigvalsh), spd, ("U",))]
    failures, fast = [], 0
    for f, (_, rrule_b), x, args in cases:
        Ω, pb = cr.rrule(f, x, *args)
        Ωb, pbb = rrule_b(x, *args)
        ȳ = _r(*np.shape(Ω)) if np.ndim(Ω) else 0.7
        if not (np.array_equal(Ω, Ωb) and _same(unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1]))):
            failures.append(f.__name__)
        fast += pb.__name__ == "unary_fast_pullback"
    assert not failures, failures
    assert fast == len(cases)
    Ω, pb = cr.rrule(np.dot, _r(3, 4), _r(4, 2))          # np.dot of matrices: matmul's fast path
    assert pb.__qualname__ == "_matmul_rrule_arrays.<locals>.matmul_pullback"


def _zeroed(x):
    """x with a zero and a negative zero in it (the signs a product keeps)."""
    x = x.copy()
    x.flat[0] = 0.0
    x.flat[-1] = -0.0
    return x


def _cotangents_same(pb, pbb, ȳ):
    cts, ctsb = pb(ȳ), pbb(ȳ)
    return len(cts) == len(ctsb) and all(
        isinstance(c, NoTangent) and isinstance(cb, NoTangent) or _same(unthunk(c), unthunk(cb))
        for c, cb in zip(cts, ctsb))


def test_small_product_fast_paths_are_the_body_bit_for_bit():
    """np.dot (vectors, a matrix and a vector, n-d arrays), np.inner and
    np.tensordot (axes an int or pairs, positional or by keyword): the fast
    paths (the body's adjoints on NumPy) against the body's registered rules,
    arguments and seeds with zeros of both signs, seeds as numbers too;
    another seed dtype takes the body's pullback."""
    from chainrules.rulesets.numpy.linalg import products
    dot_b, inner_b, td_b = products.dot_rrule, products._inner_rules[1], products.tensordot_rrule
    cases = [(np.dot, dot_b, (3,), (3,), ()), (np.dot, dot_b, (3, 4), (4,), ()), (np.dot, dot_b, (4,), (4, 3), ()),
             (np.dot, dot_b, (2, 3, 4), (4,), ()), (np.dot, dot_b, (2, 3, 4), (2, 4, 3), ()),
             (np.inner, inner_b, (3,), (3,), ()), (np.inner, inner_b, (3, 3), (3, 3), ()),
             (np.inner, inner_b, (2, 3), (4, 3), ()), (np.inner, inner_b, (2, 3, 4), (3, 4), ()),
             (np.tensordot, td_b, (3, 3), (3, 3), (1,)), (np.tensordot, td_b, (3, 3), (3, 3), ()),
             (np.tensordot, td_b, (3, 4), (3, 2), (([0], [0]),)), (np.tensordot, td_b, (3, 4), (2, 4), (([1], [1]),)),
             (np.tensordot, td_b, (2, 3, 4), (4, 3, 2), (([1, 2], [1, 0]),)), (np.tensordot, td_b, (2, 3), (3,), (0,))]
    failures, fast = [], 0
    for dtype in (np.float64, np.float32, np.complex128):
        for f, rrule_b, sa, sb, opts in cases:
            a, b = _zeroed(_r(*sa, dtype=dtype)), _zeroed(_r(*sb, dtype=dtype))
            for args, kw in ([(a, b) + opts, {}], [(a, b), {"axes": opts[0]}]) if opts else ([(a, b), {}],):
                Ω, pb = cr.rrule(f, *args, **kw)
                Ωb, pbb = rrule_b(*args, **kw)
                ȳ = _zeroed(np.atleast_1d(_r(*np.shape(Ω), dtype=dtype))).reshape(np.shape(Ω))
                seeds = [ȳ, ȳ.astype(np.complex64)] + ([float(ȳ), ȳ[()]] if ȳ.ndim == 0 and dtype is np.float64 else [])
                if not (type(Ω) is type(Ωb) and np.array_equal(Ω, Ωb)
                        and all(_cotangents_same(pb, pbb, s) for s in seeds)):
                    failures.append((f.__name__, dtype, sa, sb, opts, kw))
                fast += pb.__name__ in ("bilinear_fast_pullback", "vectors_pullback", "matmul_pullback", "tensordot_fast_pullback")
    assert not failures, failures
    assert fast == 3 * 20      # the fast paths served every call (not vacuous)


def test_det_and_norm_fast_paths_are_the_body_bit_for_bit():
    """det's Faddeev–LeVerrier adjoint (2 to 4 rows, singular too) and
    np.linalg.norm's x/Ω (a vector, a matrix; a zero norm takes the body),
    seeds as numbers and arrays."""
    from chainrules.rulesets.array_api import linalg_ext
    from chainrules.rulesets.numpy.linalg import norms
    _, det_b = linalg_ext.det_rules(np.linalg.det)
    failures, fast = [], 0
    for dtype in (np.float64, np.float32, np.complex128):
        for n in (2, 3, 4, 5):
            for a in (_r(n, n, dtype=dtype), _zeroed(np.ones((n, n), dtype))):      # the second singular
                Ω, pb = cr.rrule(np.linalg.det, a)
                Ωb, pbb = det_b(a)
                ok = np.array_equal(Ω, Ωb) and all(_same(unthunk(pb(s)[1]), unthunk(pbb(s)[1]))
                                                   for s in (np.asarray(Ω * 0 + 0.7), 0.7 + 0j * (dtype is np.complex128)))
                fast += pb.__name__ == "unary_fast_pullback"
                if not ok:
                    failures.append(("det", dtype, n))
        for x in (_r(3, dtype=dtype), _zeroed(_r(3, 3, dtype=dtype)), np.zeros(3, dtype), _r(2, 3, 4, dtype=dtype)):
            if x.ndim > 2:
                continue                     # NumPy's norm of a 3-d array needs an axis
            Ω, pb = cr.rrule(np.linalg.norm, x)
            Ωb, pbb = norms._vector[1](x)
            ok = np.array_equal(Ω, Ωb) and all(_same(unthunk(pb(s)[1]), unthunk(pbb(s)[1]))
                                               for s in (np.asarray(Ω * 0 - 0.7), -0.7, np.asarray(0.0, Ω.dtype)))
            fast += pb.__name__ == "unary_fast_pullback"
            if not ok:
                failures.append(("norm", dtype, x.shape))
    assert not failures, failures
    assert fast == 3 * (8 + 3)


# ----- NumPy's spellings of the bodies -------------------------------------------------------------------

SPELLINGS = [
    ("dot-mm", np.dot, (_r(3, 4), _r(4, 2)), {}),
    ("dot-vv", np.dot, (_r(3), _r(3)), {}),
    ("dot-nd", np.dot, (_r(2, 3, 4), _r(2, 4, 3)), {}),
    ("dot-nd-v", np.dot, (_r(2, 3, 4), _r(4)), {}),
    ("dot-0d", np.dot, (np.float64(1.5), _r(3)), {}),
    ("dot-c", np.dot, (_r(3, 3, dtype=np.complex128), _r(3, dtype=np.complex128)), {}),
    ("inner", np.inner, (_r(2, 3), _r(4, 3)), {}),
    ("inner-0d", np.inner, (_r(2, 3), np.float64(0.7)), {}),
    ("vdot-c", np.vdot, (_r(2, 3, dtype=np.complex128), _r(3, 2, dtype=np.complex128)), {}),
    ("outer", np.outer, (_r(2, 2), _r(3)), {}),
    ("linalg.outer", np.linalg.outer, (_r(2), _r(3)), {}),
    ("cross-axes", np.cross, (_r(3, 2), _r(2, 3)), {"axisa": 0, "axisc": 0}),
    ("cross-axis", np.cross, (_r(3, 2), _r(3, 2)), {"axis": 0}),
    ("cross-c", np.cross, (_r(3, dtype=np.complex128), _r(2, 3, dtype=np.complex128)), {}),
    ("trace", np.trace, (_r(3, 4, 5),), {"offset": 1, "axis1": 2, "axis2": 0}),
    ("trace-neg", np.trace, (_r(4, 3),), {"offset": -1}),
    ("tensordot", np.tensordot, (_r(2, 3, 4), _r(4, 3, 2)), {"axes": ([1, 2], [1, 0])}),
    ("vecdot", np.linalg.vecdot, (_r(2, 3, dtype=np.complex128), _r(3, dtype=np.complex128)), {}),
    ("matmul-vec", np.matmul, (_r(3), _r(2, 3, 4)), {}),
    ("kron", np.kron, (_r(2, 2), _r(3)), {}),
]


@pytest.mark.parametrize("order", [1, 2])
def test_numpy_spellings_against_finite_differences(order):
    for name, f, args, kw in SPELLINGS:
        test_frule(f, *args, fkwargs=kw, order=order)
        test_rrule(f, *args, fkwargs=kw, order=order)


def test_array_likes_get_their_cotangent_projected():
    a = [[1.0, 2.0], [3.0, 4.0]]
    b = np.array([0.5, -1.0])
    Ω, pb = cr.rrule(np.dot, a, b)
    assert np.allclose(Ω, np.dot(a, b))
    _, ā, b̄ = pb(np.array([1.0, 2.0]))
    assert np.allclose(np.asarray(unthunk(ā), dtype=float), np.outer([1.0, 2.0], b))
    assert np.allclose(unthunk(b̄), np.asarray(a).T @ [1.0, 2.0])


def test_matrix_rank_is_not_differentiable():
    Ω, pb = cr.rrule(np.linalg.matrix_rank, _r(3, 3))
    assert Ω == 3 and all(isinstance(c, NoTangent) for c in pb(1.0))
    assert isinstance(cr.frule((NT, _r(3, 3)), np.linalg.matrix_rank, _r(3, 3))[1], NoTangent)


def test_trace_dtype_is_the_result_dtype():
    x = _r(3, 3)
    Ω, ΔΩ = cr.frule((NT, np.ones((3, 3))), np.trace, x, dtype=np.float32)
    assert Ω.dtype == np.float32 and ΔΩ.dtype == np.float32 and ΔΩ == 3


@pytest.mark.parametrize("call, name", [
    (lambda: cr.rrule(np.matmul, _r(2, 2), _r(2, 2), out=np.empty((2, 2))), "out"),
    (lambda: cr.rrule(np.matmul, _r(2, 2), _r(2, 2), axes=[(0, 1), (0, 1), (0, 1)]), "axes"),
    (lambda: cr.rrule(np.dot, _r(2, 2), _r(2, 2), out=np.empty((2, 2))), "out"),
    (lambda: cr.frule((NT, NT, NT), np.outer, _r(2), _r(2), out=np.empty((2, 2))), "out"),
    (lambda: cr.rrule(np.trace, _r(2, 2), out=np.empty(())), "out"),
    (lambda: cr.rrule(np.vecdot, _r(2), _r(2), out=np.empty(())), "out"),
])
def test_options_the_body_cannot_honour_are_a_type_error_naming_them(call, name):
    with pytest.raises(TypeError, match=f"{name}="):
        call()


# ----- higher order through the one body (issue 22) ----------------------------------------------------

X = np.array([0.7, -1.3, 0.4, 1.1])
M = np.array([[3.0, 1.0], [1.0, 4.0], [0.2, 1.0]])


def _fd_jacobian(f, x):
    return fd_jacobian(FDM, f, x)[0].reshape(np.shape(f(x)) + x.shape)


def test_third_derivative_through_np_dot():
    def f(x):
        return np.dot(x, x) * np.dot(np.sin(x), x) + np.dot(np.reshape(x, (2, 2)), x[:2]) @ x[2:]
    want = _fd_jacobian(lambda z: ad.hessian(f, z), X)
    test_approx(ad.jacobian(lambda z: ad.hessian(f, z), X), want, rtol=1e-6, atol=1e-6)


def _pinv_loss(x):
    a = np.reshape(x, (2, 2)) @ np.array([[1.0, 0.5, -0.3], [0.2, 1.0, 0.7]])
    return np.sum(np.linalg.pinv(a) ** 2)


def _lstsq_loss(x):
    a = np.stack([x, x ** 2, np.ones(4)], axis=1)
    sol, res, rank, s = np.linalg.lstsq(a, np.array([1.0, 2.0, 0.5, -1.0]), rcond=None)
    return np.sum(sol ** 2) + np.sum(s)


def _matrix_power_loss(x):
    return np.sum(np.linalg.matrix_power(np.reshape(x, (2, 2)), 3) * np.array([[1.0, -2.0], [0.5, 1.0]])) \
        + np.sum(np.linalg.matrix_power(np.reshape(x, (2, 2)) + 2 * np.eye(2), -2))


@pytest.mark.parametrize("loss", [_pinv_loss, _lstsq_loss, _matrix_power_loss], ids=lambda f: f.__name__[1:])
def test_second_derivatives_through_pinv_lstsq_matrix_power(loss):
    want = _fd_jacobian(lambda z: ad.gradient(loss, z), X)
    test_approx(ad.hessian(loss, X), want, rtol=1e-5, atol=1e-6)
    test_approx(ad.jacobian(lambda z: ad.gradient(loss, z), X, mode="reverse"), want, rtol=1e-5, atol=1e-6)


def test_the_linear_algebra_rules_name_no_ad_type():
    root = pathlib.Path(cr.__file__).parent / "rulesets"
    files = list((root / "numpy" / "linalg").glob("*.py")) + list((root / "array_api").glob("*linalg*.py"))
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert "Tracked" not in text and "chainrules.ad" not in text, p.name
