"""Rules of chainrules/rulesets/numpy/shapes.py, padding.py, joining.py and
indexing.py, checked with chainrules.testing against finite differences: reshapes, axes, joins and splits, copies,
selections and indexing (basic, advanced with repeated indices, boolean),
on 0-d, empty, 1-d, 2-d and 3-d arrays, float32 and complex."""

import operator
import re

import numpy as np
import pytest

import chainrules as cr
from chainrules import InplaceableThunk, NoTangent, Tangent, ZeroTangent, unthunk
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

RNG = np.random.default_rng(7)
F32 = dict(rtol=3e-2, atol=3e-2)


def _both(f, *args, **kw):
    test_frule(f, *args, **kw)
    test_rrule(f, *args, **kw)


def _array(shape, dtype=np.float64):
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return np.asarray(x, dtype=dtype)


def I(v):  # noqa: E743 - an index argument (NumPy integers: the kit moves bare Python ints as floats)
    if isinstance(v, int) and not isinstance(v, bool):
        v = np.intp(v)
    return PrimalAndTangent(v, NoTangent())


# ----- reshape, ravel -------------------------------------------------------------------

@pytest.mark.parametrize("shape,new", [((2, 3), (3, 2)), ((2, 3), (6,)), ((2, 3), (-1, 1)), ((), (1,)),
                                       ((0, 3), (3, 0)), ((4,), (2, 2))], ids=str)
def test_reshape(shape, new):
    _both(np.reshape, _array(shape), new)
    _both(np.reshape, _array(shape, np.complex128), new, fkwargs={"order": "F"})
    _both(np.reshape, _array(shape, np.float32), new, **F32)


def test_reshape_order_a_follows_the_input_layout():
    # order 'A'/'K' depends on the memory layout, which finite differences do
    # not keep: check the rule against the 'F' rule it must equal
    x = np.asfortranarray(_array((2, 3)))
    Δx, ȳ = _array((2, 3)), _array((6,))
    for f, args in [(np.reshape, ((6,), "A")), (np.ravel, ("K",)), (np.ravel, ("A",))]:
        fargs = ((6,), "F") if f is np.reshape else ("F",)
        ΔΩ = cr.frule((NoTangent(), Δx) + (NoTangent(),) * len(args), f, x, *args)[1]
        assert np.array_equal(ΔΩ, f(Δx, *fargs))
        assert np.array_equal(cr.rrule(f, x, *args)[1](ȳ)[1], np.reshape(ȳ, (2, 3), order="F"))


def test_reshape_method_takes_the_shape_as_separate_integers():
    x = _array((2, 3))
    _both(np.ndarray.reshape, x, I(3), I(2))
    _both(np.ndarray.reshape, x, (6,), fkwargs={"order": "F"})


@pytest.mark.parametrize("f", [np.ravel, np.ndarray.ravel, np.ndarray.flatten])
def test_ravel_and_flatten(f):
    _both(f, _array((2, 3)))
    _both(f, _array((2, 3)), fkwargs={"order": "F"})
    _both(f, _array(()))


def test_ravel_order_k_of_a_strided_array_is_refused():
    x = _array((4, 4))[::2, ::2]
    with pytest.raises(TypeError, match="order='K'"):
        cr.rrule(np.ravel, x, "K")


# ----- axes -----------------------------------------------------------------------------

@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 0, -2)], ids=str)
def test_transpose(axes):
    x = _array((2, 3, 4))
    _both(np.transpose, x, I(axes) if axes is None else axes)
    _both(np.transpose, x, fkwargs={"axes": axes})
    _both(np.permute_dims, x, fkwargs={"axes": axes})


def test_transpose_method_with_separate_axes_or_a_tuple():
    x = _array((2, 3, 4))
    _both(np.ndarray.transpose, x)
    _both(np.ndarray.transpose, x, I(2), I(0), I(1))
    _both(np.ndarray.transpose, x, (1, 2, 0))
    _both(np.matrix_transpose, x)


def test_swapaxes_moveaxis_rollaxis():
    x = _array((2, 3, 4))
    _both(np.swapaxes, x, I(0), I(-1))
    _both(np.ndarray.swapaxes, x, I(1), I(2))
    _both(np.moveaxis, x, I(0), I(-1))
    _both(np.moveaxis, x, (0, 1), (2, 0))
    for axis, start in [(2, 0), (0, 3), (1, 1), (-1, 1)]:
        _both(np.rollaxis, x, I(axis), I(start))


def test_squeeze_expand_dims():
    _both(np.squeeze, _array((1, 3, 1)))
    _both(np.squeeze, _array((1, 3, 1)), I(-1))
    _both(np.ndarray.squeeze, _array((1, 1)))
    _both(np.expand_dims, _array((2, 3)), I(1))
    _both(np.expand_dims, _array((2, 3)), (0, -1))
    _both(np.expand_dims, _array(()), I(0))


@pytest.mark.parametrize("f", [np.atleast_1d, np.atleast_2d, np.atleast_3d])
def test_atleast(f):
    _both(f, _array(()))
    _both(f, _array((3,)))
    _both(f, _array((2, 3)))
    _both(f, _array(()), _array((2,)))


# ----- broadcasting ------------------------------------------------------------------------

@pytest.mark.parametrize("shape,target", [((3,), (2, 3)), ((3, 1), (2, 3, 4)), ((), (2,)), ((2, 3), (2, 3))],
                         ids=str)
def test_broadcast_to(shape, target):
    _both(np.broadcast_to, _array(shape), target)
    _both(np.broadcast_to, _array(shape, np.float32), target, **F32)


def test_broadcast_arrays():
    _both(np.broadcast_arrays, _array((3, 1)), _array((4,)))
    _both(np.broadcast_arrays, _array(()), _array((2, 2)), _array((2, 1)))


# ----- tile, repeat --------------------------------------------------------------------------

@pytest.mark.parametrize("shape,reps", [((3,), 2), ((2, 3), (2, 1)), ((3,), (2, 2)), ((2, 3), (3,)),
                                        ((), (2, 3)), ((2, 2), 1)], ids=str)
def test_tile(shape, reps):
    _both(np.tile, _array(shape), I(reps) if isinstance(reps, int) else reps)


@pytest.mark.parametrize("shape,repeats,axis", [((3,), 2, None), ((2, 3), 2, None), ((2, 3), 3, 1),
                                                ((2, 3), [1, 0, 2], 1), ((2, 3), [2, 1], 0), ((), 3, None)],
                         ids=str)
def test_repeat(shape, repeats, axis):
    r = I(repeats) if isinstance(repeats, int) else np.array(repeats)
    a = I(axis)
    _both(np.repeat, _array(shape), r, a)
    _both(np.ndarray.repeat, _array(shape), r, a)


# ----- flip, rot90, roll ------------------------------------------------------------------------

def test_flips_and_rotations():
    x = _array((2, 3, 4))
    _both(np.flip, x)
    _both(np.flip, x, I(1))
    _both(np.flip, x, (0, 2))
    _both(np.flipud, x)
    _both(np.fliplr, x)
    for k in (1, 2, 3, -1):
        _both(np.rot90, x, I(k))
        _both(np.rot90, x, I(k), (2, 0))


@pytest.mark.parametrize("shift,axis", [(1, None), (-2, 0), ((1, 2), (0, 1)), (4, -1)], ids=str)
def test_roll(shift, axis):
    _both(np.roll, _array((3, 4)), I(shift) if isinstance(shift, int) else shift,
          I(axis) if not isinstance(axis, tuple) else axis)


# ----- pad ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", [1, ((1, 2), (0, 3)), (2, 1)], ids=str)
def test_pad(mode, width):
    x = _array((3, 4))
    _both(np.pad, x, I(width) if isinstance(width, int) else width, I(mode))


def test_pad_constant_value_is_not_differentiated_and_callable_modes_are_refused():
    x = _array((3,))
    _both(np.pad, x, (1, 2), fkwargs={"constant_values": 5.0})
    _both(np.pad, _array((2, 2), np.complex128), I(1))

    def pad_with(vector, width, axis, kwargs):
        vector[:width[0]] = 0

    with pytest.raises(TypeError, match="mode=<function"):
        cr.rrule(np.pad, x, 1, pad_with)


# every stat window is free of ties (random normal values), so max/min/median are differentiable
PAD_MODES = [("linear_ramp", {}), ("linear_ramp", {"end_values": (1.0, -2.0)}),
             ("maximum", {}), ("minimum", {"stat_length": 2}), ("mean", {}),
             ("mean", {"stat_length": (1, 3)}), ("median", {}), ("median", {"stat_length": 2}),
             ("median", {"stat_length": 3}), ("reflect", {"reflect_type": "odd"}),
             ("symmetric", {"reflect_type": "odd"})]


PER_AXIS = [("linear_ramp", {"end_values": ((1.0, -2.0), (0.5, 3.0))}),
            ("mean", {"stat_length": ((1, 3), (2, 1))}), ("maximum", {"stat_length": ((2, 1), (3, 2))})]


@pytest.mark.parametrize("mode,kw", PAD_MODES + PER_AXIS, ids=str)
@pytest.mark.parametrize("width", [1, ((1, 2), (0, 3)), ((5, 6), (4, 0))], ids=str)
def test_pad_other_modes(mode, kw, width):
    # widths larger than the axes: repeated reflections, ramps and statistics over everything
    _both(np.pad, _array((3, 4)), I(width) if isinstance(width, int) else width, I(mode), fkwargs=kw)


@pytest.mark.parametrize("mode,kw", PAD_MODES, ids=str)
def test_pad_other_modes_shapes(mode, kw):
    _both(np.pad, _array((5,)), (2, 3), I(mode), fkwargs=kw)
    _both(np.pad, _array((2, 3, 2)), ((1, 0), (2, 1), (0, 2)), I(mode), fkwargs=kw)
    _both(np.pad, _array((3, 4), np.float32), I(2), I(mode), fkwargs=kw, **F32)
    _both(np.pad, _array(()), I(2), I(mode), fkwargs=kw)      # 0-d: nothing to pad
    _both(np.pad, _array((2, 3)), fkwargs={"pad_width": ((1, 0), (2, 1)), "mode": mode, **kw})


@pytest.mark.parametrize("mode", ["linear_ramp", "mean"])
def test_pad_linear_modes_complex(mode):
    _both(np.pad, _array((3, 2), np.complex128), ((1, 2), (2, 1)), I(mode))
    _both(np.pad, _array((4,), np.complex128), I(3), I("reflect"), fkwargs={"reflect_type": "odd"})


def test_pad_empty_carries_the_interior_only():
    # the padding of 'empty' is whatever memory held: no derivative, and
    # finite differences cannot see it; the rule equals the constant mode's
    x, Δx = _array((3, 4)), _array((3, 4))
    width = ((1, 2), (0, 3))
    Ω, ΔΩ = cr.frule((NoTangent(), Δx, NoTangent(), NoTangent()), np.pad, x, width, "empty")
    assert np.array_equal(Ω[1:4, 0:4], x)
    assert np.array_equal(ΔΩ, cr.frule((NoTangent(), Δx, NoTangent()), np.pad, x, width)[1])
    ȳ = _array(Ω.shape)
    x̄ = unthunk(cr.rrule(np.pad, x, width, "empty")[1](ȳ)[1])
    assert np.array_equal(x̄, unthunk(cr.rrule(np.pad, x, width)[1](ȳ)[1]))
    test_rrule(np.pad, x, width, I("constant"))


def test_pad_ties_follow_numpy_selection():
    # ties in a maximum window: the cotangent goes to the element np.argmax picks (the first)
    x = np.array([[2.0, 2.0, 1.0], [0.5, 3.0, 3.0]])
    x̄ = unthunk(cr.rrule(np.pad, x, ((0, 0), (1, 0)), "maximum")[1](np.ones((2, 4)))[1])
    assert np.array_equal(x̄, np.ones((2, 3)) + np.array([[1.0, 0, 0], [0, 1.0, 0]]))
    # ties outside the windows leave the rule differentiable
    _both(np.pad, np.array([1.0, 4.0, 2.0, 2.0, 0.0, 5.0]), (2, 1), I("maximum"), fkwargs={"stat_length": 2})


# ----- diagonals, triangles ----------------------------------------------------------------------

def test_diagonal_diag_triangles():
    x = _array((3, 4))
    for offset in (0, 1, -2):
        _both(np.diagonal, x, I(offset))
        _both(np.diag, x, I(offset))
        _both(np.triu, x, I(offset))
        _both(np.tril, x, I(offset))
    _both(np.diagonal, _array((2, 3, 4)), I(1), I(2), I(0))
    _both(np.ndarray.diagonal, _array((2, 3, 4)), I(0), I(-1), I(1))
    _both(np.diag, _array((3,)))
    _both(np.diag, _array((3,)), I(-1))
    _both(np.triu, _array((2, 3, 3)))
    _both(np.tril, _array((3,)))


# ----- joining ----------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1, None], ids=str)
def test_concatenate(axis):
    arrays = (_array((2, 3)), _array((2, 3)), _array((2, 3)))
    _both(np.concatenate, arrays, I(axis))
    _both(np.concatenate, list(arrays), fkwargs={"axis": axis})


def test_concatenate_uneven_sizes_dtypes_and_integers():
    _both(np.concatenate, (_array((1, 3)), _array((4, 3))))
    _both(np.concatenate, (_array((2,), np.float32), _array((3,))), **F32)
    _both(np.concatenate, (_array((2,), np.complex128), _array((3,))))
    test_rrule(np.concatenate, (_array((2,)), np.arange(3)))
    _, pb = cr.rrule(np.concatenate, (_array((2,), np.float32), _array((3,))))
    d = pb(np.ones(5))[1]
    assert isinstance(d, Tangent) and d[0].dtype == np.float32 and d[1].dtype == np.float64


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_stack(axis):
    _both(np.stack, (_array((2, 3)), _array((2, 3))), I(axis))


def test_hstack_vstack_dstack_column_stack_append():
    for arrays in [(_array((3,)), _array((2,))), (_array((2, 3)), _array((2, 1)))]:
        _both(np.hstack, arrays)
    for arrays in [(_array((3,)), _array((3,))), (_array((2, 3)), _array((1, 3))), (_array(()), _array(()))]:
        _both(np.vstack, arrays)
    _both(np.dstack, (_array((2, 3)), _array((2, 3, 2))))
    _both(np.column_stack, (_array((3,)), _array((3, 2))))
    _both(np.append, _array((2, 3)), _array((4,)))
    _both(np.append, _array((2, 3)), _array((1, 3)), I(0))


def test_joining_one_array_joins_its_rows():
    # np.vstack(a) of ONE ndarray iterates it (a valid call): the cotangent is one array,
    # not a Tangent of its rows (which raised "a tangent of ndarray takes keyword fields")
    import warnings
    from chainrules import ad
    joiners = [np.vstack, np.hstack, np.column_stack, np.dstack, np.concatenate, np.stack]
    for f in joiners:
        for a in (_array((2, 3)), _array((3,)), _array((2, 3, 2)), _array((2, 2), np.complex128)):
            if f is np.concatenate and a.ndim == 1:
                continue            # its rows are 0-d: NumPy refuses them
            _both(f, a)
            g = ad.gradient(lambda x: np.sum(np.abs(f(x)) ** 2), a)
            np.testing.assert_allclose(g, 2 * a)
    if hasattr(np, "row_stack"):        # deprecated in NumPy 2.0 (an alias of vstack)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            a = _array((2, 3))
            np.testing.assert_allclose(ad.gradient(lambda x: np.sum(np.row_stack(x) ** 2), a), 2 * a)


# ----- splitting --------------------------------------------------------------------------------

@pytest.mark.parametrize("f,args", [(np.split, (I(3),)), (np.split, ([1, 4],)), (np.split, (I(2), I(1))),
                                    (np.array_split, (I(4),)), (np.array_split, (I(2), I(-1))),
                                    (np.hsplit, (I(2),)), (np.vsplit, (I(3),)), (np.dsplit, (I(1),))],
                         ids=lambda v: getattr(v, "__name__", None) or str(v))
def test_split(f, args):
    x = _array((6, 4, 2)) if f is np.dsplit else _array((6, 4))
    _both(f, x, *args)


def test_split_with_zero_parts_in_the_seed():
    x = _array((6,))
    _, pb = cr.rrule(np.split, x, 3)
    dx = unthunk(pb([ZeroTangent(), np.ones(2), ZeroTangent()])[1])
    assert np.array_equal(dx, [0, 0, 1, 1, 0, 0])
    assert pb([ZeroTangent()] * 3)[1] is ZeroTangent()


# ----- where, clip --------------------------------------------------------------------------

def test_where():
    c = np.array([[True, False, True]])
    _both(np.where, c, _array((2, 3)), _array((3,)))
    _both(np.where, c, _array((2, 1)), 2.5)
    _both(np.where, np.array(True), _array(()), _array(()))
    _both(np.where, c, _array((2, 3), np.complex128), _array((2, 3)))
    Ω, pb = cr.rrule(np.where, c)
    assert pb(1.0) == (NoTangent(), NoTangent())


def test_clip():
    x = np.array([[-2.0, -0.3, 0.1], [0.4, 0.9, 3.0]])
    _both(np.clip, x, -0.5, 0.5)
    _both(np.clip, x, np.array([-1.0, 0.0, 0.2]), 0.5)
    _both(np.clip, x, I(None), np.array([[0.0], [1.0]]))
    try:
        np.clip(x, min=-0.5, max=0.5)          # the names min=/max= came with NumPy 2.1
    except TypeError as e:                     # before: the rules raise what the primal raises
        for call in (lambda: cr.rrule(np.clip, x, min=-0.5, max=0.5),
                     lambda: cr.frule((NoTangent(), x), np.clip, x, min=-0.5, max=0.5)):
            with pytest.raises(TypeError, match=re.escape(str(e))):
                call()
    else:
        _both(np.clip, x, fkwargs={"min": -0.5, "max": 0.5})


def test_clip_float32_with_python_float_bounds():
    # the bounds' tangents are Python floats (float64): ΔΩ keeps x's float32
    x = np.array([-2.0, -0.3, 0.1, 0.9], np.float32)
    for f in (np.clip, np.ndarray.clip):
        Ω, ΔΩ = cr.frule((NoTangent(), np.ones(4, np.float32), 1.0, 2.0), f, x, -0.5, 0.5)
        assert Ω.dtype == ΔΩ.dtype == np.float32
        assert ΔΩ.tolist() == [1.0, 1.0, 1.0, 2.0]
    _both(np.ndarray.clip, x, -0.5, 0.5)
    _both(np.clip, x.astype(np.float32), np.float32(-0.5), np.float32(0.5), **F32)


def test_clip_at_the_bounds_x_keeps_the_cotangent():
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    _, pb = cr.rrule(np.clip, x, 0.0, 1.0)
    _, dx, dlo, dhi = pb(np.ones(4))
    assert np.array_equal(dx, [0, 1, 1, 0]) and dlo == 1.0 and dhi == 1.0


# ----- sort ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((5,), -1), ((3, 4), 0), ((3, 4), -1), ((3, 4), None), ((0,), -1),
                                        ((), None)], ids=str)
def test_sort(shape, axis):
    _both(np.sort, _array(shape), I(axis))
    _both(np.sort, _array(shape), fkwargs={"axis": axis, "kind": "stable"})


def test_sort_with_ties_follows_the_stable_permutation():
    x = np.array([2.0, 1.0, 2.0, 1.0])
    Ω, pb = cr.rrule(np.sort, x)
    assert np.array_equal(Ω, [1, 1, 2, 2])
    assert np.array_equal(pb(np.array([10.0, 20.0, 30.0, 40.0]))[1], [30, 10, 40, 20])
    _both(np.sort, _array((4,), np.complex128))


# ----- take, take_along_axis ----------------------------------------------------------------

@pytest.mark.parametrize("indices,axis,mode", [([0, 2, 2, 1], None, "raise"), ([[0, 0], [3, 1]], 1, "raise"),
                                               ([-1, 5, 7], 0, "wrap"), ([-1, 5, 7], 1, "clip"),
                                               (2, 0, "raise")], ids=str)
def test_take(indices, axis, mode):
    x = _array((3, 4))
    _both(np.take, x, I(indices) if isinstance(indices, int) else np.array(indices), I(axis),
          fkwargs={"mode": mode})
    _both(np.ndarray.take, x, np.array(indices), I(axis), fkwargs={"mode": mode})


def test_take_accumulates_repeated_indices():
    _, pb = cr.rrule(np.take, np.zeros(3), np.array([0, 2, 2, 2]))
    dx = pb(np.ones(4))[1]
    assert np.array_equal(unthunk(dx), [1, 0, 3])       # the body's scatter-add


def test_take_along_axis():
    x = _array((3, 4))
    _both(np.take_along_axis, x, np.argsort(x, axis=1), I(1))
    _both(np.take_along_axis, x, np.array([[0, 0, 3]]), I(1))         # broadcast, repeated
    _both(np.take_along_axis, x, np.array([[2], [0]]), I(0))
    _both(np.take_along_axis, _array((5,)), np.array([4, 4, 0]), I(None))


# ----- indexing -----------------------------------------------------------------------------

X = np.arange(24.0).reshape(2, 3, 4) / 10
INDICES = [
    1, -1, (1, 2), (0, 1, 3), slice(None, None, -1), (Ellipsis, 1), (slice(0, 2), None, slice(1, 3)),
    np.array([0, 0, 1]),                           # repeated advanced index
    (slice(None), np.array([2, 0, 2, 2])),         # repeated along an inner axis
    (np.array([[0, 1], [1, 1]]), slice(None), np.array([[3, 3], [0, 3]])),
    X > 1.0,                                       # boolean mask
    (np.array([True, False]), Ellipsis),
    [1, 1, 0],                                     # a list is an advanced index
    (),
]


@pytest.mark.parametrize("idx", INDICES, ids=lambda i: repr(i)[:40])
@pytest.mark.parametrize("getitem", [operator.getitem, np.ndarray.__getitem__], ids=["getitem", "__getitem__"])
def test_getitem(getitem, idx):
    _both(getitem, X.copy(), I(idx))


def test_getitem_float32_complex_and_0d():
    _both(operator.getitem, X.astype(np.float32), I((1, slice(None), np.array([0, 0]))), **F32)
    _both(operator.getitem, X * (1 + 2j), I(np.array([1, 1])))
    _both(operator.getitem, np.array(2.0), I(()))
    _both(operator.getitem, _array((0, 3)), I(slice(None)))


def test_getitem_repeated_indices_accumulate_in_place():
    x = np.zeros(4)
    _, pb = cr.rrule(operator.getitem, x, [0, 0, 3])
    _, dx, didx = pb(np.array([1.0, 2.0, 5.0]))
    assert isinstance(dx, InplaceableThunk) and didx is NoTangent()
    acc = np.ones(4)
    assert cr.add_inplace(acc, dx) is acc and np.array_equal(acc, [4, 1, 1, 6])
    assert np.array_equal(unthunk(dx), [3, 0, 0, 5])
    # a complex seed on a real array gives a real cotangent
    assert unthunk(pb(np.ones(3) * 1j)[1]).dtype == np.float64


def test_getitem_of_integer_arrays_has_no_tangent():
    _, pb = cr.rrule(operator.getitem, np.arange(5), slice(1, 3))
    assert pb(np.ones(2)) == (NoTangent(), NoTangent(), NoTangent())


# ----- copies and conversions -----------------------------------------------------------------

@pytest.mark.parametrize("f", [np.copy, np.asarray, np.array, np.asanyarray, np.ascontiguousarray,
                               np.asfortranarray, np.ndarray.copy], ids=lambda f: f.__name__)
def test_copies(f):
    _both(f, _array((2, 3)))
    _both(f, _array((2, 3), np.complex64), **F32)


def test_conversions_project_the_tangent():
    x = _array((3,))
    _both(np.ndarray.astype, x, I(np.float32), **F32)
    _both(np.ndarray.astype, x, I(np.complex128))
    _both(np.array, x, fkwargs={"dtype": np.float32}, **F32)
    _, pb = cr.rrule(np.ndarray.astype, x, np.float32)
    assert pb(np.ones(3, np.float32))[1].dtype == np.float64
    Ω, ΔΩ = cr.frule((NoTangent(), np.ones(3), NoTangent()), np.ndarray.astype, x, np.int64)
    assert ΔΩ is NoTangent()
    _both(np.real_if_close, x + 1j)
    # a real result: finite differences would leave the real line, check by hand
    z = x + 1e-20j
    Ω, ΔΩ = cr.frule((NoTangent(), np.ones(3) * (2 + 1j)), np.real_if_close, z)
    assert Ω.dtype == np.float64 and np.array_equal(ΔΩ, [2.0, 2.0, 2.0])
    dz = cr.rrule(np.real_if_close, z)[1](np.ones(3))[1]
    assert dz.dtype == np.complex128 and np.array_equal(dz, np.ones(3))


def test_shape_queries_are_non_differentiable():
    for f in (np.shape, np.ndim, np.size, np.zeros_like):
        Ω, pb = cr.rrule(f, _array((2, 3)))
        assert pb(1.0) == (NoTangent(), NoTangent())


def test_array_likes_get_structural_tangents():
    _both(np.reshape, [1.0, 2.0, 3.0, 4.0], (2, 2))
    _both(np.transpose, [[1.0, 2.0], [3.0, 4.0]])
    _both(np.sort, [3.0, 1.0, 2.0])
    _both(np.take, [3.0, 1.0, 2.0], np.array([0, 0, 2]))


def test_item():
    x = _array((2, 3))
    _both(np.ndarray.item, x, I(4))
    _both(np.ndarray.item, x, I(-1))
    _both(np.ndarray.item, x, I(1), I(0))
    _both(np.ndarray.item, x, (0, 2))
    _both(np.ndarray.item, _array((1, 1)))
    _both(np.ndarray.item, _array((3,), np.complex128), I(1))


# ----- partition: the cotangent follows the permutation ------------------------------

_RP = np.random.default_rng(9)


@pytest.mark.parametrize("x,args,kw", [
    (_RP.normal(size=7), (3,), {}), (_RP.normal(size=(3, 5)), (2,), {}), (_RP.normal(size=(4, 3)), (1, 0), {}),
    (_RP.normal(size=(4, 3)), ([0, 2],), dict(axis=None)), (_RP.normal(size=(0, 3)), (0,), {}),
    (_RP.normal(size=5) + 1j * _RP.normal(size=5), (2,), {}), (np.array([3.0, 1.0, 0.5, 2.0]), (-1,), {})])
def test_partition(x, args, kw):
    test_frule(np.partition, x, *args, fkwargs=kw)
    test_rrule(np.partition, x, *args, fkwargs=kw)


def test_partition_float32_and_refused_order():
    x = _RP.normal(size=6).astype(np.float32)
    test_frule(np.partition, x, 2, rtol=1e-2, atol=1e-2)
    test_rrule(np.partition, x, 2, rtol=1e-2, atol=1e-2)
    with pytest.raises(TypeError, match="order="):
        cr.rrule(np.partition, x, 2, order="a")
