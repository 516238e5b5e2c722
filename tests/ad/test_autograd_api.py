"""chainrules.ad.autograd: autograd's differential operators, compared with autograd.

Each operator is called the same way on both (autograd with autograd.numpy,
ours with chainrules.ad.numpy) and the results agree to rtol 1e-10: argnum
as an int, a negative int or a tuple, gradients of containers, orders up to
four, complex numbers in autograd's convention; then the errors."""

import warnings
from collections import OrderedDict

import numpy as onp
import pytest

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402

import chainrules.ad.autograd as cag  # noqa: E402
import chainrules.ad.numpy as cnp  # noqa: E402
from chainrules import ad  # noqa: E402
from chainrules.ad import autograd as cag_from_package  # noqa: E402
from chainrules.testing import test_approx  # noqa: E402

LIBS = [(autograd, anp), (cag, cnp)]
X = onp.array([0.3, -0.7, 1.1])


def same(make):
    """make(ag, np) with autograd's modules and with ours: equal results."""
    theirs, ours = (make(ag, np) for ag, np in LIBS)
    _same(ours, theirs)
    return ours


def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for k in theirs:
            _same(ours[k], theirs[k])
    else:
        assert onp.shape(ours) == onp.shape(theirs)
        test_approx(onp.asarray(ours), onp.asarray(theirs), rtol=1e-10, atol=1e-12)


def f3(np):
    return lambda x, y=2.0: np.sum(np.sin(x) * x ** 2) * y + np.prod(x) ** 2


def test_the_module_is_importable_both_ways_and_does_not_import_autograd():
    import subprocess
    import sys
    code = ("import sys, chainrules.ad.autograd, chainrules.ad.numpy, chainrules.ad.scipy; "
            "assert 'autograd' not in sys.modules, 'imports autograd'")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert cag_from_package is cag
    assert set(cag.__all__) >= {"grad", "elementwise_grad", "value_and_grad", "grad_and_aux", "jacobian",
                                "hessian", "hessian_tensor_product", "hessian_vector_product",
                                "tensor_jacobian_product", "vector_jacobian_product", "make_vjp",
                                "make_jvp", "make_hvp", "make_ggnvp", "deriv", "holomorphic_grad",
                                "grad_named", "multigrad_dict", "checkpoint"}
    assert cag.hessian_vector_product is cag.hessian_tensor_product
    assert cag.vector_jacobian_product is cag.tensor_jacobian_product


# ----- the operators against autograd --------------------------------------------------

@pytest.mark.parametrize("argnum", [0, 1, -1, (0, 1), (1, 0), [0, 1]])
def test_grad_argnum(argnum):
    g = same(lambda ag, np: ag.grad(f3(np), argnum)(X, 1.5))
    if not isinstance(argnum, int):
        assert type(g) is tuple and len(g) == 2


def test_grad_keyword_arguments_pass_through():
    same(lambda ag, np: ag.grad(f3(np))(X, y=-0.5))


def test_grad_of_containers_has_their_types():
    def loss(np):
        return lambda p: np.sum(p["w"] * p["pair"][0]) + p["pair"][1][1] ** 3
    params = {"w": X, "pair": (X * 2, [1.5, 0.5])}
    g = same(lambda ag, np: ag.grad(loss(np))(params))
    assert type(g) is dict and type(g["pair"]) is tuple and type(g["pair"][1]) is list


def test_grad_of_an_unused_argument_is_zeros():
    g = same(lambda ag, np: ag.grad(lambda x, y: np.sum(x ** 2), 1)(X, onp.ones(2)))
    assert isinstance(g, onp.ndarray) and not g.any()


def test_grad_keeps_float32():
    g = cag.grad(lambda x: cnp.sum(x ** 2))(onp.ones(2, dtype=onp.float32))
    assert g.dtype == onp.float32


def test_operator_names_are_autograds():
    for op in ("grad", "elementwise_grad", "value_and_grad", "jacobian", "hessian", "make_vjp", "deriv"):
        assert getattr(cag, op)(onp.sum, 1).__name__ == getattr(autograd, op)(onp.sum, 1).__name__


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_grad_and_elementwise_grad_to_fourth_order(order):
    def nest(op, f):
        for _ in range(order):
            f = op(f)
        return f
    same(lambda ag, np: nest(ag.grad, lambda x: np.tanh(x) * np.exp(x / 3))(0.4))
    same(lambda ag, np: nest(ag.elementwise_grad, lambda x: np.tanh(x) * np.exp(x / 3))(X))
    same(lambda ag, np: nest(ag.deriv, lambda x: np.tanh(x) * np.exp(x / 3))(0.4))


def test_value_and_grad_and_grad_and_aux():
    same(lambda ag, np: ag.value_and_grad(f3(np), (0, 1))(X, 1.5))
    g, aux = cag.grad_and_aux(lambda x: (cnp.sum(x ** 3), {"norm": cnp.sum(x ** 2)}))(X)
    g_ag, _ = autograd.grad_and_aux(lambda x: (anp.sum(x ** 3), {"norm": anp.sum(x ** 2)}))(X)
    _same(g, g_ag)
    assert aux == {"norm": onp.sum(X ** 2)}       # autograd returns boxes here; ours plain values


@pytest.mark.parametrize("shape", [(), (3,), (2, 2)])
def test_jacobian_shapes(shape):
    x = onp.linspace(0.2, 0.9, int(onp.prod(shape))).reshape(shape) if shape else 0.6
    J = same(lambda ag, np: ag.jacobian(lambda x: np.outer(np.ravel(np.sin(x)), np.ravel(x ** 2)))(x))
    n = onp.size(x)
    assert J.shape == (n, n) + onp.shape(x)


def test_hessian_of_vector_functions_and_fourth_order_tensors():
    H = same(lambda ag, np: ag.hessian(lambda x: np.sin(x) * x[0] ** 2)(X))
    assert H.shape == (3, 3, 3)
    H4 = same(lambda ag, np: ag.hessian(ag.hessian(lambda x: np.sum(x ** 4) * x[1]))(X))
    assert H4.shape == (3,) * 4
    same(lambda ag, np: ag.jacobian(ag.grad(f3(np), 0), 0)(X, 1.5))


def test_mixed_partials_across_arguments():
    # the outer differentiation tracks y, which the inner one (over x) closes over
    same(lambda ag, np: ag.jacobian(ag.grad(f3(np)), 1)(X, 1.5))
    same(lambda ag, np: ag.grad(lambda y: np.sum(ag.grad(f3(np))(X, y) ** 2))(1.5))
    same(lambda ag, np: ag.hessian(lambda y: np.sum(ag.grad(f3(np))(X, y) ** 3))(1.5))


def test_products():
    v = onp.array([1.0, 2.0, -0.5])
    same(lambda ag, np: ag.hessian_tensor_product(f3(np))(X, 1.5, v))
    same(lambda ag, np: ag.hessian_tensor_product(f3(np), 1)(X, 1.5, 2.0))
    same(lambda ag, np: ag.tensor_jacobian_product(lambda x: np.outer(x, x))(X, onp.eye(3)))
    same(lambda ag, np: ag.vector_jacobian_product(lambda x: np.sin(x) * x[0])(X, v))
    hvp, g = cag.make_hvp(f3(cnp))(X)
    hvp_ag, g_ag = autograd.make_hvp(f3(anp))(X)
    _same((hvp(v), g), (hvp_ag(v), g_ag))
    same(lambda ag, np: ag.make_ggnvp(lambda x: np.sin(x) * x)(X)(v))
    same(lambda ag, np: ag.make_ggnvp(lambda w, x: np.tanh(np.dot(x, w)), lambda y: np.sum(np.exp(y)), 0)(
        v, onp.eye(3) + 0.1)(X))


def test_make_vjp_and_make_jvp():
    u = onp.array([[1.0, 0.5, 0.0], [2.0, -1.0, 3.0]])
    def f(np):
        return lambda x, w: np.stack([np.sin(x) * w, x ** 2])
    vjp, ans = cag.make_vjp(f(cnp), (0, 1))(X, 0.7)
    vjp_ag, ans_ag = autograd.make_vjp(f(anp), (0, 1))(X, 0.7)
    _same((ans, vjp(u)), (ans_ag, vjp_ag(u)))
    same(lambda ag, np: ag.make_jvp(f(np))(X, 0.7)(u[0]))
    same(lambda ag, np: ag.make_jvp(f(np), 1)(X, 0.7)(1.0))
    same(lambda ag, np: ag.deriv(lambda x, y: x * y ** 2, (0, 1))(2.0, 3.0))
    # a tuple output's tangent is a tuple, as autograd's check_grads reads it (autograd itself
    # sees no boxes in a plain tuple an function returns: its tangent there is zeros)
    v = u[0]
    ans, t = cag.make_jvp(lambda x: (cnp.sin(x), [x * 2.0, {"a": x ** 2}]))(X)(v)
    _same(ans, (onp.sin(X), [X * 2.0, {"a": X ** 2}]))
    _same(t, (onp.cos(X) * v, [2.0 * v, {"a": 2 * X * v}]))
    ans, t = cag.make_jvp(lambda x: (x[0], 3.0))(X)(v)
    _same(t, (v[0], 0.0))


def test_grad_named_and_multigrad_dict():
    same(lambda ag, np: ag.grad_named(f3(np), "y")(X, 1.5))
    same(lambda ag, np: ag.grad_named(f3(np), "x")(X, y=1.5))

    def f(x, y=2.0, *rest, scale=1.0):
        return cnp.sum(x ** 2) * y * scale + sum(r ** 3 for r in rest)
    g = cag.multigrad_dict(f)(X, 1.5, 2.0, 3.0)
    # autograd's multigrad_dict needs the funcsigs backport (not installed with it): compared with grad
    assert type(g) is OrderedDict and list(g) == ["x", "y", "rest", "scale"]
    _same(g["x"], cag.grad(f)(X, 1.5, 2.0, 3.0))
    _same(g["y"], onp.sum(X ** 2))
    _same(g["rest"], (12.0, 27.0))
    _same(g["scale"], 1.5 * onp.sum(X ** 2))


def test_checkpoint_gives_the_same_values_and_derivatives():
    f = cag.checkpoint(lambda x: cnp.sin(x) * x)
    assert f(0.5) == onp.sin(0.5) * 0.5
    same(lambda ag, np: ag.grad(lambda x: np.sum(ag.checkpoint(lambda z: np.sin(z) * z)(x) ** 2))(X))


# ----- complex numbers: autograd's convention ------------------------------------------

Z = 0.7 - 1.3j


def test_grad_of_real_functions_of_complex_arguments_is_autograds():
    g = same(lambda ag, np: ag.grad(lambda z: np.abs(z) ** 2)(Z))
    assert g == 2 * onp.conj(Z)                           # autograd: ∂f/∂x − i·∂f/∂y
    same(lambda ag, np: ag.grad(lambda z: np.real(np.sin(z) * np.conj(z)))(Z))
    same(lambda ag, np: ag.grad(lambda zs: np.sum(np.abs(zs - 1j) ** 3))(X + 2j * X))


def test_holomorphic_grad_is_the_complex_derivative():
    d = same(lambda ag, np: ag.holomorphic_grad(np.sin)(Z))
    test_approx(d, onp.cos(Z))
    same(lambda ag, np: ag.holomorphic_grad(ag.holomorphic_grad(lambda z: np.exp(z) / (1 + z ** 2)))(Z))
    with pytest.warns(UserWarning, match="not complex"):
        cag.holomorphic_grad(cnp.sin)(0.5)


def test_make_vjp_and_make_jvp_of_complex_functions():
    vjp, ans = cag.make_vjp(cnp.tanh)(Z)
    vjp_ag, ans_ag = autograd.make_vjp(anp.tanh)(Z)
    _same([ans, vjp(1.0 + 0j), vjp(2j)], [ans_ag, vjp_ag(1.0 + 0j), vjp_ag(2j)])
    same(lambda ag, np: ag.make_jvp(np.tanh)(Z)(1j))
    # autograd's jacobian of a complex output fails (its complex basis has 2n vectors);
    # ours is the complex derivative, as autograd's vjp convention gives it
    z = onp.array([Z, 1j])
    test_approx(cag.jacobian(lambda z: cnp.exp(z) * z)(z), onp.diag(onp.exp(z) * (1 + z)))


# ----- errors --------------------------------------------------------------------------

def test_grad_of_non_scalar_outputs_names_the_function():
    def vector_valued(x):
        return x * 2
    for op in (cag.grad, cag.value_and_grad):
        with pytest.raises(TypeError, match=r"vector_valued returned an array of shape \(3,\).*"
                                            "only applies to real scalar-output functions"):
            op(vector_valued)(X)
    with pytest.raises(TypeError, match="returned a complex number"):
        cag.grad(cnp.sin)(Z)
    with pytest.raises(TypeError, match="elementwise_grad: .*complex"):
        cag.elementwise_grad(lambda x: x * 1j)(X)
    with pytest.raises(TypeError, match="grad_and_aux: .* must return a pair"):
        cag.grad_and_aux(lambda x: x ** 2)(0.5)
    with pytest.raises(TypeError, match="jacobian: .* returned a dict"):
        cag.jacobian(lambda x: {"y": x})(0.5)


@pytest.mark.parametrize("argnum", [1.0, "x", (), (0, 1.5), True])
def test_bad_argnum_types(argnum):
    with pytest.raises(TypeError, match="grad: argnum must be an int or a non-empty tuple of ints"):
        cag.grad(onp.sum, argnum)


def test_argnum_out_of_range_and_bad_arguments():
    def two(x, y):
        return x * y
    with pytest.raises(IndexError, match="grad: argnum 2 is out of range: .*two was called with 2"):
        cag.grad(two, 2)(1.0, 2.0)
    with pytest.raises(IndexError, match="argnum -3"):
        cag.jacobian(two, (0, -3))(1.0, 2.0)
    with pytest.raises(TypeError, match="hessian_tensor_product: argnum must be an int"):
        cag.hessian_tensor_product(two, (0, 1))
    with pytest.raises(TypeError, match="grad: fun must be callable"):
        cag.grad(3.0)
    with pytest.raises(ValueError, match="grad_named: .*two has no positional parameter 'z'"):
        cag.grad_named(two, "z")
    with pytest.raises(TypeError, match="checkpoint: fun must be callable"):
        cag.checkpoint(None)  # type: ignore[arg-type]
