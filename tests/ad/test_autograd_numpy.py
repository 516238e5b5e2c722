"""chainrules.ad.numpy and chainrules.ad.scipy: the drop-ins for autograd.numpy
and autograd.scipy (NumPy itself, plus array/asarray/r_/c_ of tracked values;
scipy.special with its rules; stats.norm), compared with autograd."""

import numpy as onp
import pytest

from chainrules import ad
import scipy.special
import scipy.stats

autograd = pytest.importorskip("autograd")
import autograd.numpy as anp  # noqa: E402
import autograd.scipy.special  # noqa: E402
import autograd.scipy.stats.norm  # noqa: E402

import chainrules.ad.autograd as cag  # noqa: E402
import chainrules.ad.numpy as cnp  # noqa: E402
import chainrules.ad.scipy as cscipy  # noqa: E402
import chainrules.ad.scipy.stats.norm as cnorm  # noqa: E402
from chainrules import ad  # noqa: E402
from chainrules.ad.scipy.special import logsumexp  # noqa: E402
from chainrules.finite_differences import central_fdm, grad as fd_grad  # noqa: E402
from chainrules.testing import test_approx  # noqa: E402

X = onp.array([0.3, -0.7, 1.1])


def test_the_namespace_is_numpy():
    names = {n for n in dir(onp) if not n.startswith("_")}
    assert set(cnp.__all__) == names | {"make_diagonal"}          # autograd.numpy's own addition
    assert cnp.__version__ == onp.__version__
    assert cnp.sum.__wrapped__ is onp.sum and cnp.random is onp.random
    assert cnp.linalg.norm.__wrapped__ is onp.linalg.norm and cnp.fft.fft.__wrapped__ is onp.fft.fft
    assert cnp.linalg.LinAlgError is onp.linalg.LinAlgError and set(cnp.linalg.__all__) >= {"norm", "svd"}
    assert cnp.pi == onp.pi and cnp.float64 is onp.float64
    # the ufuncs are wrapped (no NumPy dispatch on tracked values), every other name is NumPy's
    for n in names:
        v = getattr(onp, n)
        if n in ("array", "asarray", "asanyarray", "r_", "c_", "linalg", "fft"):    # chainrules.ad.numpy's own
            continue
        if isinstance(v, onp.ufunc):
            assert getattr(cnp, n).f is v, n
        elif type(v).__name__ in ("_ArrayFunctionDispatcher", "function", "builtin_function_or_method"):
            assert getattr(cnp, n).__wrapped__ is v, n      # stacks lists of tracked numbers first
        else:
            assert getattr(cnp, n) is v, n


def test_wrapped_ufuncs_are_the_ufuncs_on_plain_values():
    x = onp.array([0.25, -1.5, 2.0])
    for name in ("sin", "exp", "add", "maximum", "arctan2", "logaddexp", "isfinite", "sign"):
        w, u = getattr(cnp, name), getattr(onp, name)
        args = (x,) * u.nin
        a, b = w(*args), u(*args)
        assert type(a) is type(b) and a.dtype == b.dtype
        onp.testing.assert_array_equal(a, b)
        a, b = w(*(0.5,) * u.nin), u(*(0.5,) * u.nin)        # a Python float: NumPy's scalar type
        assert type(a) is type(b) and a == b
        assert w.nin == u.nin and w.nout == u.nout and w.__name__ == u.__name__
    assert cnp.add.reduce(x) == onp.add.reduce(x)
    onp.testing.assert_array_equal(cnp.multiply.outer(x, x), onp.multiply.outer(x, x))
    onp.testing.assert_array_equal(cnp.add.accumulate(x), onp.add.accumulate(x))
    out = onp.empty(3)
    assert cnp.sin(x, out=out) is out
    with pytest.raises(AttributeError):
        cnp.sin.no_such_attribute


def test_wrapped_ufuncs_differentiate_as_numpys():
    from chainrules import ad
    x = onp.array([0.3, -0.7, 0.5])
    for f, g in ((lambda t: cnp.sum(cnp.arcsin(0.2 + cnp.sin(t))), lambda t: onp.sum(onp.arcsin(0.2 + onp.sin(t)))),
                 (lambda t: cnp.sum(cnp.exp(t) * t), lambda t: onp.sum(onp.exp(t) * t)),
                 (lambda t: cnp.add.reduce(cnp.tanh(t)), lambda t: onp.add.reduce(onp.tanh(t)))):
        for point in (0.3, onp.float64(0.3), onp.float32(0.3), x):
            for engine in (ad.gradient, ad.derivative, ad.hessian):
                if engine is ad.derivative and onp.ndim(point):
                    continue
                a, b = engine(f, point), engine(g, point)
                assert type(a) is type(b), (engine, point)
                onp.testing.assert_array_equal(a, b)


def test_numpys_subpackages_import_as_modules():
    # `import chainrules.ad.numpy.random as npr` (autograd's spelling) failed:
    # chainrules.ad.numpy was a module; in a fresh interpreter, as the first import
    import subprocess
    import sys
    code = ("import chainrules.ad.numpy.random as npr, chainrules.ad.numpy.linalg as la, numpy; "
            "from chainrules.ad.numpy.fft import fft; import chainrules.ad.numpy as cnp; "
            "assert npr is numpy.random is cnp.random and la is cnp.linalg and fft.__wrapped__ is numpy.fft.fft; "
            "print(npr.default_rng(0).standard_normal(2).shape)")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(2,)"


@pytest.mark.parametrize("obj", [[1.0, 2.0], [[1, 2], [3, 4]], (1.5, [2.0, 3.0][0]), X, 2.5, []])
def test_plain_values_give_numpys_arrays(obj):
    for f, g in ((cnp.array, onp.array), (cnp.asarray, onp.asarray), (cnp.asanyarray, onp.asanyarray)):
        a, b = f(obj), g(obj)
        assert type(a) is type(b) and a.dtype == b.dtype
        onp.testing.assert_array_equal(a, b)
    assert cnp.array([1, 2], dtype=float, ndmin=2).shape == (1, 2)
    onp.testing.assert_array_equal(cnp.r_[X, 1.0, 0:2], onp.r_[X, 1.0, 0:2])
    onp.testing.assert_array_equal(cnp.c_[X, X], onp.c_[X, X])


def nested_array(np):
    return lambda x: np.sum(np.array([[x[0] * x[1], 1.0], [np.sin(x[2]), x[0]]]) ** 3)


@pytest.mark.parametrize("build", [
    nested_array,
    lambda np: lambda x: np.sum(np.array([x, 2.0 * x, np.ones(3)]) * X),
    lambda np: lambda x: np.sum(np.asarray([x[0], x[2]]) ** 2),
    lambda np: lambda x: np.sum(np.array((x[1], x[2]), dtype=float) ** 2),
    lambda np: lambda x: np.sum(np.array(x) ** 2),
    lambda np: lambda x: np.sum(np.r_[x, x[0] * 3, np.ones(2)] ** 2),
    lambda np: lambda x: np.sum(np.c_[x, x ** 2] ** 2),
    lambda np: lambda x: np.sum(np.concatenate([x, x[:1] * 2]) ** 2) + np.sum(np.stack([x, x]) ** 3),
], ids=["nested", "arrays", "asarray", "dtype", "array-of-tracked", "r_", "c_", "concatenate-stack"])
def test_arrays_of_tracked_values_are_differentiated(build):
    test_approx(cag.grad(build(cnp))(X), autograd.grad(build(anp))(X), rtol=1e-10)
    test_approx(cag.hessian(build(cnp))(X), autograd.hessian(build(anp))(X), rtol=1e-10)


def test_array_ndmin_of_tracked_values():
    # (autograd's own array(…, ndmin=3) of boxes fails in its vjp: compared with the plain form)
    def f(x):
        a = cnp.array([x * 2, x], ndmin=3)
        assert a.shape == (1, 2, 3)
        return cnp.sum(a ** 3)
    test_approx(cag.grad(f)(X), autograd.grad(lambda x: anp.sum(anp.array([x * 2, x]) ** 3))(X), rtol=1e-10)


@pytest.mark.parametrize("dtype", [onp.float32, complex])
def test_array_of_tracked_values_with_a_dtype(dtype):
    def f(np):
        return lambda x: np.sum(np.abs(np.array([x[0], x[1] * x[2]], dtype=dtype)) ** 2)
    a = cnp.array([X[0], X[1]], dtype=dtype)
    assert a.dtype == onp.dtype(dtype)
    test_approx(cag.grad(f(cnp))(X), autograd.grad(f(anp))(X), rtol=1e-6 if dtype is onp.float32 else 1e-10)
    test_approx(cag.hessian(f(cnp))(X), autograd.hessian(f(anp))(X), rtol=1e-6 if dtype is onp.float32 else 1e-10)


def test_arrays_of_tracked_values_errors():
    with pytest.raises(ValueError, match="array: the elements of the list have different shapes"):
        cag.grad(lambda x: cnp.sum(cnp.array([x, x[0]])))(X)
    with pytest.raises(TypeError, match="array: dtype=<U1 of tracked values would lose their derivative"):
        cag.grad(lambda x: cnp.sum(cnp.array([x[0], x[1]], dtype="U1")))(X)


def test_integer_casts_of_tracked_values_are_their_values():
    # as int(x), and as autograd, JAX and PyTorch: an integer array of tracked values is
    # their (non-differentiable) values; indices made this way select as usual
    W = onp.arange(12.0).reshape(3, 4) / 4

    def f(w):
        idx = onp.int64(w[:, -1] * 2)                   # NumPy's scalar type called on an array
        also = cnp.array([w[0, 0], w[1, 0]], dtype=onp.int32)
        assert idx.dtype == onp.int64 and also.dtype == onp.int32 and type(idx) is onp.ndarray
        return cnp.sum(w[:, :-1][idx % 3]) + cnp.sum(w * also[0])

    g = cag.grad(f)(W)
    want = onp.zeros_like(W)
    for i in onp.int64(W[:, -1] * 2) % 3:
        want[i, :-1] += 1
    onp.testing.assert_array_equal(g, want)          # also[0] is 0 here: no term through it
    assert ad.gradient(lambda x: onp.asarray(x, dtype=bool).sum() + x[0], onp.array([0.0, 2.0]))[0] == 1.0


def test_special_is_scipy_special_with_its_rules():
    assert cscipy.special.gammaln is scipy.special.gammaln      # a ufunc: NumPy dispatches it
    assert isinstance(logsumexp, ad.Wrapped) and logsumexp(X) == scipy.special.logsumexp(X)
    for name in ("logsumexp", "gammaln", "digamma", "erf", "expit"):
        def f(np, sp, name=name):
            return lambda x: np.sum(getattr(sp, name)(x) * X)
        test_approx(cag.grad(f(cnp, cscipy.special))(X), autograd.grad(f(anp, autograd.scipy.special))(X),
                    rtol=1e-10)
    test_approx(cag.grad(lambda x: logsumexp(x, b=X + 1, axis=0))(X),
                autograd.grad(lambda x: autograd.scipy.special.logsumexp(x, b=X + 1, axis=0))(X), rtol=1e-10)
    # softmax and log_softmax (autograd.scipy.special has neither): against finite differences
    for f in (cscipy.special.softmax, cscipy.special.log_softmax):
        test_approx(cag.grad(lambda x: cnp.sum(f(x) * X))(X),
                    fd_grad(central_fdm(5, 1), lambda x: onp.sum(f(x) * X), X)[0], rtol=1e-8)
    with pytest.raises(ad.NoRuleError, match="scipy.special"):
        cag.grad(lambda x: cnp.sum(cscipy.special.comb(x, 2.0)))(X)


@pytest.mark.parametrize("name", ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"])
def test_stats_norm(name):
    ours, theirs, plain = (getattr(m, name) for m in (cnorm, autograd.scipy.stats.norm, scipy.stats.norm))
    test_approx(ours(X, 0.2, 1.7), plain(X, 0.2, 1.7), rtol=1e-12)
    args = (X, 0.2, 1.7)
    for argnum in (0, 1, 2):
        test_approx(cag.jacobian(ours, argnum)(*args), autograd.jacobian(theirs, argnum)(*args), rtol=1e-10)


def test_make_diagonal_and_r_with_ranges():
    from chainrules import ad
    from chainrules.testing import test_rrule
    D = onp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    A = cnp.make_diagonal(D, axis1=-1, axis2=-2)
    assert A.shape == (2, 3, 3)
    onp.testing.assert_array_equal(onp.diagonal(A, axis1=-1, axis2=-2), D)
    assert onp.count_nonzero(A) == 6
    W = onp.arange(18.0).reshape(2, 3, 3)
    onp.testing.assert_array_equal(ad.gradient(lambda d: cnp.sum(cnp.make_diagonal(d, axis1=-1, axis2=-2) * W), D),
                                   onp.diagonal(W, axis1=-1, axis2=-2))
    with pytest.raises(NotImplementedError, match="make_diagonal"):
        cnp.make_diagonal(D)
    x = onp.array([0.3, -0.7])
    f = lambda t: cnp.sum(cnp.r_[t, 1:4, t * 2, 0:1:3j] ** 2)
    assert f(x) == onp.sum(onp.r_[x, 1:4, x * 2, 0:1:3j] ** 2)
    onp.testing.assert_allclose(ad.gradient(f, x), 2 * x + 8 * x)
    with pytest.raises(TypeError, match="string directives"):
        ad.gradient(lambda t: cnp.sum(cnp.r_["0,2", t, t]), x)


def test_lists_of_tracked_numbers_are_stacked_as_autograds():
    # NumPy converts a list to an array before dispatching: its tracked numbers would
    # lose their derivative; chainrules.ad.numpy's functions stack them first
    assert cag.grad(lambda x: cnp.mean([x, x + 2]))(0.0) == 1.0
    assert cag.grad(lambda x: cnp.mean((x, x + 2)))(0.0) == 1.0
    assert cag.grad(lambda x: cnp.std([x, x + 2]))(0.0) == 0.0
    assert cag.grad(lambda x: cnp.var(((x, 1.0), (x + 2, 3.0))))(0.5) == -0.25      # (6/4) - 2·1.75·(2/4)
    assert cag.grad(lambda x: cnp.sum(cnp.append([x, 2.0 * x], x)))(1.0) == 4.0
    assert cag.grad(lambda x: cnp.sum(cnp.append([[x, 2.0]], [[3.0, x]], axis=0)))(1.0) == 2.0
    # sequences of arrays are NumPy's to read (concatenate's), plain lists too
    x = onp.array([0.5, 1.5])
    onp.testing.assert_array_equal(cag.grad(lambda t: cnp.sum(cnp.concatenate((t, t * 2))))(x), [3.0, 3.0])
    assert cnp.mean([1.0, 2.0]) == 1.5 and cnp.sum.__name__ == "sum"
    # and so do linalg's and fft's (autograd's test_norm_list_of_boxes)
    assert cag.grad(lambda x: cnp.linalg.norm([x, x + 2]))(0.0) == 1.0
    assert cag.grad(lambda x: cnp.linalg.norm((x, x + 2)))(0.0) == 1.0
    import chainrules.ad.numpy.linalg as la
    assert la is cnp.linalg
