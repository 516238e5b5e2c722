"""What the entry points accept (chainrules/ad/_inputs.py): ndarray subclasses
are refused at every entry point (memmap excepted), and arguments without a
tangent space (NumPy integers) are named, never differentiated to zeros."""

import warnings

import numpy as np
import pytest

from chainrules import ad
from chainrules.ad import autograd as ag


def _entry_points(f, x):
    """Every entry point of the engines, differentiating f at x."""
    ones = np.ones(np.shape(x))
    return [
        ("gradient", lambda: ad.gradient(f, x)),
        ("value_and_gradient", lambda: ad.value_and_gradient(f, x)),
        ("vjp", lambda: ad.vjp(f, x)),
        ("jvp", lambda: ad.jvp(f, (x,), (ones,))),
        ("jacobian", lambda: ad.jacobian(f, x)),
        ("jacobian", lambda: ad.jacobian(f, x, mode="forward")),
        ("hvp", lambda: ad.hvp(f, x, ones)),
        ("hessian", lambda: ad.hessian(f, x)),
        ("compile", lambda: ad.compile(f)(x)),
        ("compile", lambda: ad.compile(lambda a, m: a * f(m), argnums=(0, 1))(2.0, x)),
        # checkpoint is not an entry point of its own: the differentiation around it refuses
        ("gradient", lambda: ad.gradient(ad.checkpoint(f), x)),
        ("grad", lambda: ag.grad(f)(x)),
        ("elementwise_grad", lambda: ag.elementwise_grad(f)(x)),
        ("jacobian", lambda: ag.jacobian(f)(x)),
        ("hessian", lambda: ag.hessian(f)(x)),
        ("make_jvp", lambda: ag.make_jvp(f)(x)(ones)),
    ]


with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)      # NumPy's about np.matrix
    _MATRIX = np.matrix([[0.3, 0.6], [0.9, 1.2]])

SUBCLASSES = [
    (_MATRIX, "numpy.matrix", "matrix products"),
    (np.ma.array([0.1, 0.2, 0.3, 0.4], mask=[0, 0, 1, 1]), "numpy.ma.MaskedArray", "mask would be ignored"),
]


@pytest.mark.parametrize("x, name, why", SUBCLASSES, ids=["matrix", "masked"])
def test_every_entry_point_refuses_an_ndarray_subclass(x, name, why):
    # np.matrix: `*` and `**` are matrix products (value_and_gradient gave 2.617 where f(M)
    # is 3.984); a masked array: the mask was ignored (the gradient of mean(exp(m)) with two
    # of four entries masked was [.276 .305 .337 .373], not [.553 .611 0 0])
    def f(m):
        return np.sum(m * m) if isinstance(x, np.matrix) else np.mean(np.exp(m))
    for who, call in _entry_points(f, x):
        with pytest.raises(TypeError, match=rf"^{who}\b.*{name} \(an ndarray subclass\).*{why}"):
            call()
    # inside containers and next to plain arguments, and as argnum of the autograd front door
    with pytest.raises(TypeError, match=name):
        ad.gradient(lambda d: f(d["m"]), {"m": x})
    with pytest.raises(TypeError, match=name):
        ad.gradient(lambda a, m: a * f(m), 2.0, x)
    with pytest.raises(TypeError, match=rf"grad \(argument 1 of .*\): .*{name}"):
        ag.grad(lambda a, m: a * f(m), (0, 1))(2.0, x)


def test_a_memmap_is_an_ndarray(tmp_path):
    m = np.memmap(tmp_path / "x", dtype=float, mode="w+", shape=(3,))
    m[:] = [1.0, 2.0, 3.0]
    np.testing.assert_allclose(ad.gradient(lambda x: np.sum(x ** 2), m), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(ag.grad(lambda x: np.sum(x ** 2))(m), [2.0, 4.0, 6.0])


@pytest.mark.parametrize("x", [np.arange(3), np.arange(3, dtype=np.uint8), np.int64(2)], ids=str)
def test_integer_numpy_arguments_are_named_not_differentiated_to_zeros(x):
    # autograd's operators gave zeros on integer arrays (grad(sum(x**2))(arange(3)) was
    # [0 0 0]); NumPy integers have no tangent space (docs/conventions.md): the autograd
    # front door refuses them as ad.gradient does, naming the function and the argument
    def f(v):
        return np.sum(v ** 2)
    for op in (ag.grad, ag.elementwise_grad, ag.jacobian, ag.value_and_grad, ag.deriv, ag.make_vjp):
        with pytest.raises(TypeError, match=rf"^{op.__name__}: argument 0 of .*\bf is .*{x.dtype}.*"
                                            r"x\.astype\(float\)"):
            op(f)(x)
    with pytest.raises(TypeError, match=r"^gradient: no argument has a tangent space.*x\.astype\(float\)"):
        ad.gradient(f, x)
    # jacobian and hessian say the same (they took NumPy integers as reals)
    for who, op in [("jacobian", ad.jacobian), ("jacobian", lambda f, x: ad.jacobian(f, x, mode="forward")),
                    ("hessian", ad.hessian)]:
        with pytest.raises(TypeError, match=rf"^{who}\(f, x\): x has no tangent space.*x\.astype\(float\)"):
            op(f, x)
    assert ad.hessian(lambda v: v ** 3, 2) == ad.jacobian(lambda v: 3 * v ** 2, 2) == 12.0
    # a Python int is a real number (both doors), and a float array of the same values works
    assert ag.grad(lambda v: v ** 2)(3) == ad.gradient(lambda v: v ** 2, 3) == 6.0
    np.testing.assert_allclose(ag.grad(f)(np.asarray(x, dtype=float)), 2.0 * x)


def test_integer_arrays_are_constants_beside_differentiated_arguments():
    x, idx = np.array([1.0, 2.0, 3.0]), np.array([2, 0])
    np.testing.assert_allclose(ag.grad(lambda v, i: np.sum(v[i] ** 2))(x, idx), [2.0, 0.0, 6.0])
    gx, gi = ad.gradient(lambda v, i: np.sum(v[i] ** 2), x, idx)
    np.testing.assert_allclose(gx, [2.0, 0.0, 6.0])
    with pytest.raises(TypeError, match=r"^grad: argument 1 of .*<lambda> is an array of dtype int64"):
        ag.grad(lambda v, i: np.sum(v[i] ** 2), 1)(x, idx)
