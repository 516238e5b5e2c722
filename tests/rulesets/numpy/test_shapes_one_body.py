"""NumPy's shape, joining and selection functions served by the ONE array-API
body of each (chainrules/rulesets/numpy/standard_shapes.py): the reshape fast
path computes what the body computes, bit for bit; NumPy's options and
spellings (reshape's order=/newshape=/method, transpose's axes=None and
method, concatenate's axis=None/dtype=, sort's kind=/axis=None, take's
mode=, clip's a_min/a_max/min/max and None bounds, where with numbers,
cumsum's axis=None and method); the compiled getitem rrule against the body
against finite differences at order 1 and 2; `out=` and the options a body
cannot honour are a TypeError naming them; array-likes and subclasses; and
second derivatives through the one body by the reference AD."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, unthunk
from chainrules import ad
from chainrules.finite_differences import central_fdm, jacobian as fd_jacobian
from chainrules.rulesets.array_api import shapes as body
from chainrules.testing import test_approx, test_frule, test_rrule
from .test_linalg_one_body import _r, _same

FDM = central_fdm(5, 1)
NT = NoTangent()


# ----- the fast path is the body -----------------------------------------------------------------------

def test_reshape_fast_path_is_the_body_bit_for_bit():
    frule_b, rrule_b = body.reshape_rules(np.reshape)
    failures, fast = [], 0
    for dtype in (np.float64, np.float32, np.complex128):
        for shape, new in [((2, 3), (3, 2)), ((6,), (2, -1)), ((2, 3, 4), (4, 6)), ((), (1, 1)), ((0, 3), (3, 0))]:
            x = np.asarray(_r(*shape, dtype=dtype))
            for f, args in [(np.reshape, (new,)), (np.ndarray.reshape, (new,))]:
                Ω, pb = cr.rrule(f, x, *args)
                Ωb, pbb = rrule_b(x, new)
                ȳ, Δx = _r(*Ωb.shape, dtype=dtype), _r(*shape, dtype=dtype)
                (Ωf, ΔΩ), (_, ΔΩb) = cr.frule((NT, Δx, NT), f, x, *args), frule_b((NT, Δx, NT), x, new)
                if not (_same(Ω, Ωb) and _same(unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])) and _same(Ωf, Ωb)
                        and _same(ΔΩ, ΔΩb)):
                    failures.append((dtype, shape, new, f.__name__))
                fast += pb.__qualname__ == "reshape_fast_rrule.<locals>.reshape_pullback"
    assert not failures, failures
    assert fast == 30       # the fast path served every case (not vacuous)
    # an integer array: no tangent space, as the body says
    assert isinstance(cr.rrule(np.reshape, np.arange(6), (2, 3))[1](np.ones((2, 3)))[1], NoTangent)


def test_getitem_compiled_rrule_is_the_body():
    from chainrules.rulesets.array_api.getitem import getitem_rules
    import operator
    frule_b, rrule_b = getitem_rules(operator.getitem)
    failures = []
    for dtype in (np.float64, np.float32, np.complex128):
        for shape, idx, exact in [((5,), slice(1, None, 2), True), ((4, 3), (Ellipsis, 0), True),
                                  ((4, 3), (None, slice(None, None, -1), 1), True), ((40, 30), (slice(3, 9), None), True),
                                  ((5,), np.array([4, 0, 2]), True), ((3, 4), np.array([[True, False, True, True]] * 3), True),
                                  ((6,), np.array([1, 1, 3, 1]), False), ((2, 50), (1, np.arange(50) % 7), False)]:
            x = _r(*shape, dtype=dtype)
            for f in (operator.getitem, np.ndarray.__getitem__):
                Ω, pb = cr.rrule(f, x, idx)
                Ωb, pbb = rrule_b(x, idx)
                ȳ = np.asarray(_r(*np.shape(Ωb), dtype=dtype))
                x̄, x̄b = unthunk(pb(ȳ)[1]), unthunk(pbb(ȳ)[1])
                Δx = _r(*shape, dtype=dtype)
                (_, ΔΩ), (_, ΔΩb) = cr.frule((NT, Δx, NT), f, x, idx), frule_b((NT, Δx, NT), x, idx)
                # repeated indices: np.add.at against the body's differences of running sums
                rtol = 1e-4 if dtype == np.float32 else 1e-9
                same = _same(x̄, x̄b) if exact else (x̄.dtype == x̄b.dtype and np.allclose(x̄, x̄b, rtol=rtol, atol=rtol))
                if not (_same(Ω, Ωb) and same and _same(np.asarray(ΔΩ), np.asarray(ΔΩb))):
                    failures.append((dtype, shape, idx))
    assert not failures, failures


# ----- NumPy's options and spellings against finite differences ---------------------------------------

X = _r(2, 3)
SPELLINGS = [
    ("reshape-F", np.reshape, (X, (3, 2), "F"), {}),
    ("reshape-kw", np.reshape, (X, (6,)), {"order": "F"}),
    ("reshape-method", np.ndarray.reshape, (X, 3, 2), {}),
    ("reshape-method-F", np.ndarray.reshape, (X, (1, 6)), {"order": "F"}),
    ("transpose", np.transpose, (_r(2, 3, 4),), {}),
    ("transpose-axes", np.transpose, (_r(2, 3, 4), (1, 2, 0)), {}),
    ("transpose-method", np.ndarray.transpose, (_r(2, 3, 4), 2, 0, 1), {}),
    ("transpose-method0", np.ndarray.transpose, (X,), {}),
    ("expand_dims", np.expand_dims, (X, (0, 3)), {}),
    ("squeeze", np.squeeze, (_r(1, 3, 1),), {}),
    ("squeeze-method", np.ndarray.squeeze, (_r(1, 3, 1),), {"axis": 2}),
    ("flip", np.flip, (X,), {}),
    ("roll", np.roll, (X, np.array([1, -2]), (0, 1)), {}),
    ("roll-flat", np.roll, (X, 4), {}),
    ("broadcast_to", np.broadcast_to, (_r(3, 1), (2, 3, 4)), {}),
    ("matrix_transpose", np.linalg.matrix_transpose, (_r(2, 3, 4),), {}),
    ("sort", np.sort, (np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]]),), {"axis": 0}),
    ("sort-flat", np.sort, (np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]]),), {"axis": None, "kind": "heapsort"}),
    ("sort-c", np.sort, (_r(4, dtype=np.complex128),), {}),
    ("take-wrap", np.take, (X, [0, 7, -1, 7]), {"mode": "wrap"}),
    ("take-clip-axis", np.take, (X, [[0, 5], [-3, 1]]), {"axis": 1, "mode": "clip"}),
    ("take-method", np.ndarray.take, (X, [1, 1, 0]), {"axis": 0}),
    ("clip", np.clip, (X, -0.5, np.full(3, 0.4)), {}),
    ("clip-none", np.clip, (X, None, 0.2), {}),
    ("clip-method", np.ndarray.clip, (X, -0.3), {}),
    ("where", np.where, (X > 0, X, 0.5), {}),
    ("cumsum-flat", np.cumsum, (X,), {}),
    ("cumsum-axis", np.cumsum, (_r(2, 3, dtype=np.complex128),), {"axis": -1}),
    ("cumsum-method", np.ndarray.cumsum, (X, 0), {}),
    ("where-c", np.where, (np.array([True, False, True]), _r(2, 3, dtype=np.complex128), _r(3)), {}),
]


@pytest.mark.parametrize("order", [1, 2])
def test_numpy_spellings_against_finite_differences(order):
    for name, f, args, kw in SPELLINGS:
        test_frule(f, *args, fkwargs=kw, order=order)
        test_rrule(f, *args, fkwargs=kw, order=order)


def test_joining_options_against_finite_differences():
    a, b = _r(2, 3), _r(1, 3)
    for f, seq, kw in [(np.concatenate, (a, b), {"axis": None}), (np.concatenate, [a, b], {"axis": -2}),
                       (np.concatenate, (a, b.astype(np.float32)), {"dtype": np.float32, "casting": "same_kind"}),
                       (np.stack, [a, _r(2, 3)], {"axis": 2}), (np.stack, (b, b), {"axis": -1})]:
        Ω, pb = cr.rrule(f, seq, **kw)
        assert _same(Ω, f(seq, **kw))
        ȳ = _r(*Ω.shape).astype(Ω.dtype)
        parts = unthunk(pb(ȳ)[1])
        # the adjoint: ⟨ȳ, f(Δ)⟩ = Σ ⟨part, Δ⟩ for random Δ
        Δs = [_r(*np.shape(s)).astype(s.dtype) for s in seq]
        lhs = np.vdot(ȳ, f(Δs, **kw))
        rhs = sum(np.vdot(p, d) for p, d in zip(parts, Δs))
        assert np.isclose(lhs, rhs, rtol=1e-5), (f, kw)
        for p, s in zip(parts, seq):
            assert p.dtype == s.dtype and p.shape == s.shape
        _, ΔΩ = cr.frule((NT, cr.Tangent[type(seq)](*Δs)), f, seq, **kw)
        assert np.allclose(ΔΩ, f(Δs, **kw))


def test_array_likes_and_subclasses():
    Ω, pb = cr.rrule(np.reshape, [[1.0, 2.0], [3.0, 4.0]], (4,))
    assert np.allclose(Ω, [1, 2, 3, 4]) and np.allclose(np.asarray(unthunk(pb(np.arange(4.0))[1]), float),
                                                         [[0, 1], [2, 3]])
    Ω, pb = cr.rrule(np.concatenate, ([1.0, 2.0], np.array([3.0])))
    parts = pb(np.array([1.0, 2.0, 3.0]))[1]
    assert np.allclose(np.asarray(unthunk(parts[1])), [3.0])
    assert np.allclose(pb(np.array([1.0, 2.0, 3.0]))[1][0], [1.0, 2.0]) or isinstance(parts[0], cr.Tangent)
    m = np.ma.masked_array(X, mask=X > 1)
    Ω, pb = cr.rrule(np.clip, m, -0.5, 0.5)
    assert isinstance(Ω, np.ma.MaskedArray)
    assert type(pb(np.ones((2, 3)))[1]) is np.ndarray
    Ω, pb = cr.rrule(np.where, [True, False], 2.0, [3.0, 4.0])
    _, _, x̄, ȳ2 = pb(np.array([1.0, 5.0]))
    assert float(x̄) == 1.0 and np.allclose(np.asarray(unthunk(ȳ2), float), [0.0, 5.0])


@pytest.mark.parametrize("call, name", [
    (lambda: cr.rrule(np.concatenate, (X, X), out=np.empty((4, 3))), "out"),
    (lambda: cr.rrule(np.stack, (X, X), out=np.empty((2, 2, 3))), "out"),
    (lambda: cr.rrule(np.clip, X, 0, 1, out=np.empty((2, 3))), "out"),
    (lambda: cr.frule((NT, X, NT, NT), np.clip, X, 0, 1, out=np.empty((2, 3))), "out"),
    (lambda: cr.rrule(np.take, X, [0], out=np.empty(1)), "out"),
    (lambda: cr.rrule(np.ndarray.take, X, [0], 0, np.empty((1, 3))), "out"),
    (lambda: cr.rrule(np.sort, np.zeros(3, dtype=[("a", float)]), order="a"), "order"),
    (lambda: cr.rrule(np.cumsum, X, out=np.empty(6)), "out"),
    (lambda: cr.frule((NT, X, NT, NT, NT), np.ndarray.cumsum, X, 0, None, np.empty((2, 3))), "out"),
])
def test_options_the_body_cannot_honour_are_a_type_error_naming_them(call, name):
    with pytest.raises(TypeError, match=f"{name}="):
        call()


def test_order_k_of_a_strided_array_is_a_type_error():
    x = _r(4, 6)[::2, ::2]          # ravel's order='K' (NumPy's reshape refuses 'K' itself)
    with pytest.raises(TypeError, match="order='K'"):
        cr.rrule(np.ravel, x, "K")
    for f, args in [(np.reshape, ((6,), "A")), (np.ravel, ("A",))]:      # 'A': C order here
        Ω, pb = cr.rrule(f, x, *args)
        assert np.array_equal(pb(np.arange(6.0))[1], np.arange(6.0).reshape(2, 3))


# ----- higher order through the one body ---------------------------------------------------------------

V = np.array([0.7, -1.3, 0.4, 1.1, -0.2, 0.9])


def _fd_jacobian(f, x):
    return fd_jacobian(FDM, f, x)[0].reshape(np.shape(f(x)) + x.shape)


def _shapes_loss(x):
    m = np.reshape(x, (2, 3), order="F")
    j = np.concatenate([m, np.sin(m)], axis=None)
    s = np.sort(j * x[0])
    c = np.clip(np.take(s, [0, 3, 3, 11, -1], mode="wrap"), -1.0, 0.8)
    w = np.where(c > 0, c ** 2, np.cos(c))
    t = np.transpose(np.broadcast_to(np.cumsum(m, axis=1), (2, 2, 3)))
    return np.sum(w * x[1]) + np.sum(np.roll(np.flip(t), 1) * t ** 2) + np.sum(m[1:, ::2] ** 3) \
        + np.sum(np.stack([x, x ** 2]) * np.squeeze(np.expand_dims(x, 0)))


def test_second_derivatives_through_the_shape_bodies():
    want = _fd_jacobian(lambda z: ad.gradient(_shapes_loss, z), V)
    test_approx(ad.hessian(_shapes_loss, V), want, rtol=1e-5, atol=1e-6)
    test_approx(ad.jacobian(lambda z: ad.gradient(_shapes_loss, z), V, mode="reverse"), want, rtol=1e-5, atol=1e-6)
