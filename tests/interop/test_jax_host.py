"""to_jax on the inputs and functions issue 21 found broken: Python floats and
NumPy arrays under `jax.grad`, bfloat16, `np.transpose(a)`, `slogdet`'s
namedtuple, and the NumPy functions whose rules compute with NumPy only (they
run on the host through `jax.pure_callback`), each against JAX's own
derivative of its own function under grad, jit and vmap."""

import numpy as np
import pytest

from chainrules.interop import to_jax

from ._cases import X

pytestmark = pytest.mark.interop
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
sp = pytest.importorskip("scipy.special")

Y = np.array([0.55, -0.35, 0.6])
A = np.array([[1.3, 0.2, 0.1], [0.3, 1.1, 0.2], [0.1, 0.4, 1.4]])


@pytest.fixture(autouse=True)
def _x64(jax_x64):
    yield


def test_python_float_and_numpy_array_under_grad():
    # a host rule (scipy.special), and identities whose JAX tracer of a float is a typed scalar
    np.testing.assert_allclose(jax.grad(to_jax(sp.gamma))(0.45), sp.gamma(0.45) * sp.digamma(0.45),
                               rtol=1e-12)
    for f in (np.positive, np.conjugate, np.real, np.sinc):
        want = jax.grad(getattr(jnp, f.__name__))(0.45)
        np.testing.assert_allclose(jax.grad(to_jax(f))(0.45), want, rtol=1e-12, err_msg=f.__name__)
    # NumPy arrays as the differentiated arguments
    np.testing.assert_allclose(jax.grad(lambda v: to_jax(np.sin)(v).sum())(X), np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(jax.grad(lambda v: to_jax(np.dot)(v, Y))(X), Y, rtol=1e-12)


def test_bfloat16():
    x = jnp.asarray(X, dtype=jnp.bfloat16)
    g = jax.grad(lambda v: to_jax(np.sin)(v).sum())(x)
    assert g.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(g, dtype=float), np.cos(X), rtol=1e-2)


def test_transpose_without_axes():
    a = jnp.asarray(A)
    np.testing.assert_array_equal(to_jax(np.transpose)(a), A.T)
    w = jnp.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(jax.grad(lambda v: (to_jax(np.transpose)(v) * w).sum())(a), w.T)


def test_slogdet_under_grad():
    g = jax.grad(lambda a: to_jax(np.linalg.slogdet)(a)[1])(jnp.asarray(A))
    np.testing.assert_allclose(g, np.linalg.inv(A).T, rtol=1e-12)
    # second order: ∂²/∂a² log|det a| applied to a direction, against JAX's own
    h = lambda f: jax.grad(lambda a: (jax.grad(lambda b: f(b)[1])(a) * A).sum())(jnp.asarray(A))
    np.testing.assert_allclose(h(to_jax(np.linalg.slogdet)), h(jnp.linalg.slogdet), rtol=1e-10)


def test_polygamma_float32():
    x = jnp.asarray(X + 0.5, dtype=jnp.float32)
    g = jax.grad(lambda v: to_jax(sp.polygamma)(1, v).sum())(x)
    assert g.dtype == jnp.float32
    np.testing.assert_allclose(g, sp.polygamma(2, X + 0.5), rtol=1e-5)
    # second order (reverse over reverse: chainrules.ad on the host), float32 too
    h = jax.grad(lambda u: jax.grad(lambda v: to_jax(sp.polygamma)(1, v).sum())(u).sum())(x)
    assert h.dtype == jnp.float32
    np.testing.assert_allclose(h, sp.polygamma(3, X + 0.5), rtol=1e-5)


def test_integer_array_argument_under_jit():
    # an integer leaf keeps its dtype in the stand-in call that finds the output's shape
    idx, w = np.array([2, 0, 1]), jnp.asarray(Y)
    g = jax.jit(jax.grad(lambda v: to_jax(np.take_along_axis)(v, idx, 0) @ w))(jnp.asarray(X))
    np.testing.assert_allclose(g, np.array([Y[1], Y[2], Y[0]]), rtol=1e-12)


# the NumPy functions issue 21 named, each called on x (real) as `call(f, x)`; f is
# to_jax(np.f) or jax.numpy's own
HOST = [
    ("dot", np.dot, lambda f, x: f(x, Y)),
    ("outer", np.outer, lambda f, x: f(x, Y)),
    ("einsum", np.einsum, lambda f, x: f("i,j->ij", x, Y)),
    ("trace", np.trace, lambda f, x: f(x[:, None] * A)),
    ("kron", np.kron, lambda f, x: f(x, Y)),
    ("diff", np.diff, lambda f, x: f(x)),
    ("pad", np.pad, lambda f, x: f(x, 1)),
    ("median", np.median, lambda f, x: f(x)),
    ("quantile", np.quantile, lambda f, x: f(x, 0.3)),
    ("nansum", np.nansum, lambda f, x: f(x)),
    ("tile", np.tile, lambda f, x: f(x, 2)),
    ("average", np.average, lambda f, x: f(x)),
    ("cumprod", np.cumprod, lambda f, x: f(x)),
    ("fft.fft", np.fft.fft, lambda f, x: f(x)),
    ("fft.rfft", np.fft.rfft, lambda f, x: f(x)),
    ("fft.irfft", np.fft.irfft, lambda f, x: f(x)),
    ("angle", np.angle, lambda f, x: f(x + 1j * Y[::-1])),
    # a list of arrays as the argument (the registry sweep differentiates top-level arrays only)
    ("concatenate", np.concatenate, lambda f, x: f([x, Y])),
    ("stack", np.stack, lambda f, x: f([x, Y])),
    ("hstack", np.hstack, lambda f, x: f([x, Y])),
    ("vstack", np.vstack, lambda f, x: f([x, Y])),
    ("dstack", np.dstack, lambda f, x: f([x, Y])),
    ("column_stack", np.column_stack, lambda f, x: f([x, Y])),
]


def _own(name):
    ns, _, short = name.rpartition(".")
    return getattr(getattr(jnp, ns) if ns else jnp, short)


def test_numpy_only_rules_under_grad_jit_vmap_match_jax_own():
    batch = jnp.stack([jnp.asarray(X), jnp.asarray(X[::-1] * 1.3)])
    for name, f, call in HOST:
        def loss(g):
            def s(x):
                y = call(g, x)
                k = jnp.arange(y.size, dtype=float).reshape(y.shape)     # a fixed weighting
                return (jnp.real(y) * jnp.cos(k) + jnp.imag(y) * jnp.sin(k + 1)).sum()
            return s
        ours, own = loss(to_jax(f)), loss(_own(name))
        np.testing.assert_allclose(jax.grad(ours)(X), jax.grad(own)(X), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}: grad")
        np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(ours)))(batch), jax.vmap(jax.grad(own))(batch),
                                   rtol=1e-10, atol=1e-12, err_msg=f"{name}: jit(vmap(grad))")


def test_via_ad_a_function_without_a_rule():
    """to_jax(f, via_ad=True): f is no rule but a program chainrules.ad differentiates; it runs
    on the host, its VJP chainrules.ad's, under grad, jit, jacrev and vmap."""
    from chainrules.ad import numpy as anp

    def f(x, y):
        return anp.sin(x) * anp.sum(x * y)
    g = to_jax(f, via_ad=True)
    want = jax.jacrev(lambda x, y: jnp.sin(x) * jnp.sum(x * y), argnums=(0, 1))(X, Y)
    for got in (jax.jacrev(g, argnums=(0, 1))(X, Y), jax.jit(jax.jacrev(g, argnums=(0, 1)))(X, Y)):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(jax.grad(lambda x: g(x, Y).sum())(X), jax.grad(
        lambda x: (jnp.sin(x) * jnp.sum(x * Y)).sum())(X), rtol=1e-12)
    np.testing.assert_allclose(jax.vmap(jax.grad(lambda x: g(x, Y).sum()))(np.stack([X, 2 * X])),
                               np.stack([jax.grad(lambda x: (jnp.sin(x) * jnp.sum(x * Y)).sum())(x) for x in (X, 2 * X)]),
                               rtol=1e-12)
    np.testing.assert_allclose(g(X, Y), np.sin(X) * np.sum(X * Y), rtol=1e-12)     # no transformation
    with pytest.raises(TypeError, match="no rule"):     # without via_ad: a function without a rule
        to_jax(f)(jnp.asarray(X), jnp.asarray(Y))
