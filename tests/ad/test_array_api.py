"""chainrules.ad on array-API-generic code, on every array library: the
engines take leaves of array-api-strict, PyTorch (CPU), JAX and Dask, run the
code through the rules registered for that library and return that library's
arrays (dtype kept, Dask kept lazy), checked against NumPy."""

import contextlib

import numpy as np
import pytest

from chainrules import ad

pytestmark = pytest.mark.interop

LIBS = ["array_api_strict", "torch", "jax", "dask"]


class _Lib:
    """One library: making its arrays from NumPy, reading them back, its type."""

    def __init__(self, name):
        self.name = name
        if name == "array_api_strict":
            self.mod = pytest.importorskip("array_api_strict")
            self.array_type = self.mod.Array if hasattr(self.mod, "Array") else type(self.mod.asarray(0.0))
        elif name == "torch":
            self.mod = pytest.importorskip("torch")
            self.array_type = self.mod.Tensor
        elif name == "jax":
            jax = pytest.importorskip("jax")
            jax.config.update("jax_enable_x64", True)
            import jax.numpy as jnp
            self.mod = jnp
            self.array_type = jax.Array
        else:
            self.mod = pytest.importorskip("dask.array")
            self.array_type = self.mod.Array

    def array(self, a):
        a = np.asarray(a)
        if self.name == "torch":
            return self.mod.asarray(a.copy())
        if self.name == "dask":
            return self.mod.from_array(a, chunks=max(1, a.shape[0] // 2) if a.ndim else ())
        return self.mod.asarray(a)

    def numpy(self, x):
        assert isinstance(x, self.array_type), f"expected a {self.name} array, got {type(x)}"
        if self.name == "dask":
            x = x.compute(scheduler="sync")
        if self.name == "torch":
            return x.detach().numpy()
        return np.asarray(x)

    def dtype_name(self, x):
        return str(x.dtype).split(".")[-1]

    @contextlib.contextmanager
    def lazy(self):
        """Around a differentiation: Dask may not compute anything."""
        if self.name != "dask":
            yield
            return
        import dask

        def refuse(*args, **kwargs):
            raise AssertionError("a Dask array was computed during the differentiation")
        with dask.config.set(scheduler=refuse):
            yield


@pytest.fixture(params=LIBS)
def lib(request):
    return _Lib(request.param)


def xp_of(x):
    import array_api_compat
    return array_api_compat.array_namespace(x)


X = np.array([0.3, -1.1, 0.7, 2.0])


# ----- functions written once for every library ------------------------------------

def f_sin(x):
    xp = xp_of(x)
    return xp.sum(xp.sin(x) * x)


def f_ops(x):
    xp = xp_of(x)
    y = (x * x - 2.0 * x) / (1.5 + x ** 2) + xp.exp(-x)
    return xp.sum(y[1:] * y[:-1]) + xp.mean(xp.abs(x))


def f_shapes(x):
    xp = xp_of(x)
    m = xp.reshape(x, (2, 2))
    p = m @ xp.permute_dims(m, (1, 0))
    return xp.sum(p * p) + xp.max(xp.tanh(x)) + xp.prod(xp.cos(x))


FUNCS = [f_sin, f_ops, f_shapes]


def _fd_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_gradient(lib, f):
    x = lib.array(X)
    with lib.lazy():
        g = ad.gradient(f, x)
        v, g2 = ad.value_and_gradient(f, x)
    want = _fd_grad(lambda a: float(f(a)), X)
    np.testing.assert_allclose(lib.numpy(g), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(lib.numpy(g2), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(float(lib.numpy(v)), float(f(X)), rtol=1e-12)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_jvp_and_vjp(lib, f):
    x, t = lib.array(X), lib.array(np.array([1.0, 0.5, -2.0, 0.25]))
    with lib.lazy():
        y, dy = ad.jvp(f, (x,), (t,))
        y2, pb = ad.vjp(f, x)
        (g,) = pb(1.0)
    want = _fd_grad(lambda a: float(f(a)), X)
    np.testing.assert_allclose(float(lib.numpy(dy)), want @ np.array([1.0, 0.5, -2.0, 0.25]), rtol=1e-6)
    np.testing.assert_allclose(lib.numpy(g), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(float(lib.numpy(y)), float(lib.numpy(y2)))


def test_float32_stays_float32(lib):
    x = lib.array(X.astype(np.float32))
    with lib.lazy():
        g = ad.gradient(f_sin, x)
    assert lib.dtype_name(g) == "float32"
    np.testing.assert_allclose(lib.numpy(g), np.sin(X) + X * np.cos(X), rtol=1e-5)


def test_indexing_and_vector_output(lib):
    def f(x):
        xp = xp_of(x)
        return xp.stack([xp.sin(x[0]) * x[1], x[2] ** 3, xp.sum(x[1:3])])
    x = lib.array(X)
    with lib.lazy():
        jr = ad.jacobian(f, x)
        jf = ad.jacobian(f, x, mode="forward")
    want = np.zeros((3, 4))
    want[0, 0], want[0, 1] = np.cos(X[0]) * X[1], np.sin(X[0])
    want[1, 2] = 3 * X[2] ** 2
    want[2, 1:3] = 1.0
    np.testing.assert_allclose(lib.numpy(jr), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(lib.numpy(jf), want, rtol=1e-12, atol=1e-14)


def test_derivative_of_a_scalar_array(lib):
    def f(x):
        xp = xp_of(x)
        return xp.sin(x) * xp.exp(x)
    x = lib.array(np.array(0.4))
    with lib.lazy():
        d = ad.derivative(f, x)
    np.testing.assert_allclose(lib.numpy(d), np.exp(0.4) * (np.sin(0.4) + np.cos(0.4)), rtol=1e-12)


def test_hessian(lib):
    x = lib.array(X)
    with lib.lazy():
        h = ad.hessian(f_sin, x)
    want = np.diag(2 * np.cos(X) - X * np.sin(X))
    np.testing.assert_allclose(lib.numpy(h), want, rtol=1e-10, atol=1e-12)


# ----- bad input -----------------------------------------------------------------------

def test_inputs_of_two_libraries_name_both(lib):
    x = lib.array(X)
    for run in (lambda: ad.gradient(lambda a, b: xp_of(a).sum(a * 2.0) + float(b.sum()), x, X),
                lambda: ad.jvp(lambda a, b: a, (x, X), (x, X)),
                lambda: ad.vjp(lambda a, b: a, x, X)):
        with pytest.raises(TypeError, match=r"two libraries.*numpy|numpy.*two libraries") as e:
            run()
        assert lib.name.split("_")[0] in str(e.value).replace("jax.numpy", "jax")


def test_an_array_of_another_library_inside_names_both(lib):
    def f(x):
        xp = xp_of(x)
        return xp.sum(x * np.ones(4))
    with pytest.raises(TypeError, match="two libraries") as e:
        ad.gradient(f, lib.array(X))
    assert "numpy" in str(e.value)


def test_a_library_function_without_a_rule_is_a_no_rule_error(lib):
    def f(x):
        xp = xp_of(x)
        return xp.sum(xp.tril(xp.reshape(x, (2, 2))))

    def g(x):
        xp = xp_of(x)
        return xp.sum(xp.linalg.qr(xp.reshape(x, (2, 2)))[1])
    for h in (f, g):
        name = "tril" if h is f else "qr"
        with pytest.raises(ad.NoRuleError, match=f"reverse mode.*{name}"):
            ad.gradient(h, lib.array(X))
        with pytest.raises(ad.NoRuleError, match=f"forward mode.*{name}"):
            ad.jvp(h, (lib.array(X),), (lib.array(X),))


def test_gradient_of_a_non_scalar_output(lib):
    with pytest.raises(TypeError, match=r"gradient: f returned an? .*array\[float64, \(4,\)\]; a gradient needs a real scalar"):
        ad.gradient(lambda x: xp_of(x).sin(x), lib.array(X))


def test_gradient_of_a_complex_output(lib):
    def f(x):
        xp = xp_of(x)
        return xp.sum(x * xp.asarray(1j, dtype=xp.complex128))
    with pytest.raises(TypeError, match="gradient: f returned a complex .*real scalar"):
        ad.gradient(f, lib.array(X))
