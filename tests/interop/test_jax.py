"""to_jax (chainrules.interop.jax): JAX's grad, jvp, vjp, jit, vmap and
higher order through chainrules' rules, against JAX's own derivatives of
its own functions and finite differences (chainrules.testing.test_adapter)."""

import functools

import numpy as np
import pytest

import chainrules as cr
from chainrules.interop import JaxConfig, export, to_jax
from chainrules.testing import test_adapter

from ._cases import COMPLEX, HOST_ONLY, X, Z, no_rule, params, straight_through

pytestmark = pytest.mark.interop
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def _x64(jax_x64):
    yield


@pytest.mark.parametrize("f, args, kw", params())
def test_adapter_on_jax(f, args, kw):
    test_adapter(f, *args, engine="jax", **kw)


OWN = [("sin", np.sin, jnp.sin), ("log", np.log, jnp.log), ("tanh", np.tanh, jnp.tanh),
       ("sqrt", np.sqrt, jnp.sqrt)]


@pytest.mark.parametrize("f, own", [pytest.param(f, o, id=n) for n, f, o in OWN])
def test_grad_hvp_jit_vmap_match_jax_own(f, own):
    w = to_jax(f)
    x = jnp.asarray(X)
    loss, ref = (lambda v: w(v).sum()), (lambda v: own(v).sum())
    np.testing.assert_allclose(jax.grad(loss)(x), jax.grad(ref)(x), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), jax.grad(ref)(x), rtol=1e-12)
    np.testing.assert_allclose(jax.hessian(loss)(x), jax.hessian(ref)(x), rtol=1e-10, atol=1e-12)
    # third order, forward over reverse over reverse
    d3 = lambda g: jax.jvp(jax.grad(lambda v: jax.grad(g)(v).sum()), (x,), (jnp.ones(3),))[1]
    np.testing.assert_allclose(d3(loss), d3(ref), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jax.vmap(jax.grad(w))(x), jax.vmap(jax.grad(own))(x), rtol=1e-12)
    y, ẏ = jax.jvp(w, (x,), (jnp.ones(3),))
    np.testing.assert_allclose(ẏ, jax.jvp(own, (x,), (jnp.ones(3),))[1], rtol=1e-12)


def test_the_library_function_works_as_the_numpy_one():
    x = jnp.asarray(X)
    np.testing.assert_allclose(jax.grad(lambda v: to_jax(jnp.sin)(v).sum())(x), np.cos(X))
    np.testing.assert_allclose(jax.grad(lambda v: to_jax(np.sum)(v, axis=0))(x), np.ones(3))


def test_float32_stays_float32():
    x = jnp.asarray(X, dtype=jnp.float32)
    assert to_jax(np.sin)(x).dtype == jnp.float32
    assert jax.grad(lambda v: to_jax(np.sin)(v).sum())(x).dtype == jnp.float32
    assert jax.jvp(to_jax(np.exp), (x,), (jnp.ones(3, jnp.float32),))[1].dtype == jnp.float32


@pytest.mark.parametrize("f, args", [pytest.param(f, a, id=n) for n, f, a in COMPLEX])
def test_complex_matches_jax_own(f, args):
    own = getattr(jnp, f.__name__)
    z = jnp.asarray(args[0])
    loss = lambda g: (lambda v: jnp.real(g(v) * jnp.conj(g(v)) + g(v)).sum())
    np.testing.assert_allclose(jax.grad(loss(to_jax(f)))(z), jax.grad(loss(own))(z), rtol=1e-12)
    _, pb = jax.vjp(to_jax(f), z)
    _, pb_own = jax.vjp(own, z)
    ȳ = jnp.asarray(Z[::-1].copy() if f is not np.abs else X)
    np.testing.assert_allclose(pb(ȳ)[0], pb_own(ȳ)[0], rtol=1e-12)
    test_adapter(f, *args, engine="jax")


def test_jax_uses_our_rule_not_its_own():
    with straight_through() as hard_round:
        x = jnp.asarray(X)
        # JAX's own derivative of round is 0; the registered rule says 1
        assert np.all(jax.grad(lambda v: hard_round(v).sum())(x) == 0)
        np.testing.assert_array_equal(jax.grad(lambda v: to_jax(hard_round)(v).sum())(x), np.ones(3))
        np.testing.assert_array_equal(jax.jvp(to_jax(hard_round), (x,), (2 * x,))[1], 2 * x)
        # at second order too: g(v) = v + round(v) has derivative 2 by the rule
        g = lambda v: jax.grad(lambda u: (to_jax(hard_round)(u) * u).sum())(v)
        np.testing.assert_allclose(jax.jacrev(g)(x), 2 * np.eye(3))
        np.testing.assert_allclose(jax.jacfwd(g)(x), 2 * np.eye(3))


def test_an_rrule_only_function_gets_a_custom_vjp():
    with straight_through() as hard_round:
        cr.opt_out(hard_round, object, rrule=False)          # the frule is gone, the rrule stays
        assert cr.frule((cr.NoTangent(), 1.0), hard_round, jnp.asarray(X)) is None
        x = jnp.asarray(X)
        np.testing.assert_array_equal(jax.grad(lambda v: to_jax(hard_round)(v).sum())(x), np.ones(3))
        np.testing.assert_array_equal(jax.jit(jax.grad(lambda v: (to_jax(hard_round)(v) ** 2).sum()))(x),
                                      2 * np.round(X))
        with pytest.raises(TypeError, match="can't apply forward-mode"):
            jax.jvp(to_jax(hard_round), (x,), (x,))
        # reverse over reverse through the custom_vjp: g(v) = v + round(v), whose
        # derivative is 2 by the rule at every order (JAX's own round would give 1)
        g = lambda v: jax.grad(lambda u: (to_jax(hard_round)(u) * u).sum())(v)
        np.testing.assert_allclose(jax.jacrev(g)(x), 2 * np.eye(3))


def test_higher_order_rule_calls_back_into_jax():
    x = jnp.asarray(X)
    f = lambda a, b: a * jnp.sin(b)
    red = to_jax(functools.reduce)
    got = jax.grad(lambda v: red(f, [v[0], v[1], v[2]]))(x)
    np.testing.assert_allclose(got, jax.grad(lambda v: v[0] * jnp.sin(v[1]) * jnp.sin(v[2]))(x))
    y, pb = cr.rrule_via_ad(JaxConfig(), f, x, x)
    np.testing.assert_allclose(pb(jnp.ones(3))[1], np.sin(X))
    _, ẏ = cr.frule_via_ad(JaxConfig(), (cr.NoTangent(), cr.ZeroTangent(), jnp.ones(3)), f, x, x)
    np.testing.assert_allclose(ẏ, X * np.cos(X))


def test_scipy_special_runs_on_the_host_under_jit_and_vmap():
    import scipy.special as sp
    x = jnp.asarray(X)
    g = jax.jit(jax.vmap(jax.grad(to_jax(sp.gamma))))(x)
    np.testing.assert_allclose(g, sp.gamma(X) * sp.digamma(X), rtol=1e-12)
    assert "gamma" in HOST_ONLY
    # second order in reverse mode: chainrules.ad differentiates the rule's pullback on the host
    g = lambda v: jax.grad(lambda u: to_jax(sp.gamma)(u).sum())(v)
    np.testing.assert_allclose(jax.jacrev(g)(x).diagonal(),
                               sp.gamma(X) * (sp.digamma(X) ** 2 + sp.polygamma(1, X)), rtol=1e-10)
    # forward mode too (an element-wise function: a custom_jvp whose partials run on the host)
    h = jax.hessian(lambda v: to_jax(sp.gamma)(v).sum())(x)
    np.testing.assert_allclose(h, np.diag(sp.gamma(X) * (sp.digamma(X) ** 2 + sp.polygamma(1, X))), rtol=1e-10)


def test_host_elementwise_functions_in_every_transformation():
    # issue 23 item 3: Python floats, jvp, jacfwd, hessian, jit, vmap, third order,
    # parameters of scipy.special's functions; against mpmath's values
    import mpmath
    import scipy.special as sp
    g = to_jax(sp.gammaln)
    assert jax.grad(g)(1.3) == pytest.approx(float(mpmath.digamma(1.3)), rel=1e-13)
    y, ẏ = jax.jvp(g, (1.3,), (2.0,))
    assert (y, ẏ) == (pytest.approx(sp.gammaln(1.3)), pytest.approx(2 * float(mpmath.digamma(1.3))))
    assert jax.grad(jax.grad(jax.grad(g)))(1.3) == pytest.approx(float(mpmath.polygamma(2, 1.3)), rel=1e-12)
    x = jnp.asarray(X)
    np.testing.assert_allclose(jax.jit(jax.jacfwd(g))(x), np.diag(sp.digamma(X)), rtol=1e-13)
    np.testing.assert_allclose(jax.vmap(jax.hessian(g))(x), sp.polygamma(1, X), rtol=1e-13)
    kv = to_jax(sp.kv)
    # d/dx K_ν(x) = -(K_{ν-1} + K_{ν+1})/2, and in ν by the rule's own series
    assert jax.grad(kv, argnums=1)(0.5, 1.3) == pytest.approx(-(sp.kv(-0.5, 1.3) + sp.kv(1.5, 1.3)) / 2)
    dν = float(mpmath.diff(lambda n: mpmath.besselk(n, 1.3), 0.5))
    assert jax.jvp(lambda n: kv(n, 1.3), (0.5,), (1.0,))[1] == pytest.approx(dν, rel=1e-8)
    hν = jax.hessian(kv, argnums=(0, 1))(0.5, 1.3)
    assert hν[0][1] == pytest.approx(hν[1][0]) and hν[0][1] == pytest.approx(
        float(mpmath.diff(lambda n, t: mpmath.besselk(n, t), (0.5, 1.3), (1, 1))), rel=1e-6)
    # integer arguments are constants; broadcasting; float32 stays float32
    assert jax.jacfwd(lambda t: to_jax(sp.polygamma)(1, t))(1.3) == pytest.approx(float(mpmath.polygamma(2, 1.3)))
    bc = jax.jacfwd(lambda t: to_jax(sp.kv)(jnp.array([0.5, 1.5]), t))(1.3)
    np.testing.assert_allclose(bc, -(sp.kv([-0.5, 0.5], 1.3) + sp.kv([1.5, 2.5], 1.3)) / 2)
    assert jax.grad(lambda t: g(t).sum())(x.astype(jnp.float32)).dtype == jnp.float32
    # ζ in s (its rule's own series), a Python function with a keyword-free call
    dz = jax.jvp(lambda s: to_jax(sp.zeta)(s, 2.0), (3.3,), (1.0,))[1]
    assert dz == pytest.approx(float(mpmath.zeta(3.3, 2.0, 1)), rel=1e-9)
    # complex values keep the reverse-mode path (no forward mode: JAX's own error)
    assert jax.grad(lambda z: jnp.real(to_jax(sp.wofz)(z)))(1.0 + 0.5j) != 0


def test_numpy_arrays_and_floats_are_converted():
    assert isinstance(to_jax(np.sin)(X), jax.Array)
    np.testing.assert_allclose(jax.grad(to_jax(np.sin))(0.5), np.cos(0.5))


def test_no_rule_raises_naming_f_and_the_types():
    with pytest.raises(TypeError, match=r"to_jax\(.*no_rule\).*no rule for .*no_rule.*jaxlib"):
        to_jax(no_rule)(jnp.asarray(X))
    with pytest.raises(TypeError, match="expected a function"):
        to_jax(3)


def test_export_many_functions():
    fs = export("jax", {"s": np.sin, "c": np.cos})
    x = jnp.asarray(X)
    np.testing.assert_allclose(jax.grad(lambda v: (fs["s"](v) * fs["c"](v)).sum())(x), np.cos(2 * X))
    assert sorted(export("jax", [np.sin, np.exp])) == ["exp", "sin"]
    import scipy.special as sp
    assert "gamma" in export("jax", sp)
    with pytest.raises(ValueError, match="unknown engine"):
        export("tensorflow", [np.sin])


def test_a_row_function_runs_jitted_and_honours_rules_registered_later():
    """to_jax(np.sin) runs its custom_jvp under jax.jit (issue 25): the rule's
    derivatives, also eagerly; a rule registered later for jnp.sin, and debug
    mode, send the calls back to the rule run op by op."""
    from conftest import registry_restored
    w = to_jax(np.sin)
    x = jnp.asarray(X)
    loss = lambda v: w(v).sum()
    g = jax.grad(loss)(x)
    np.testing.assert_array_equal(g, cr.frule(JaxConfig(), (cr.NoTangent(), jnp.ones(3)), jnp.sin, x)[1])
    with registry_restored():
        @cr.register_frule(jnp.sin)
        def _frule(tangents, v):
            return jnp.sin(v), 3 * tangents[1]
        np.testing.assert_allclose(jax.grad(loss)(x), jnp.full(3, 3.0))
    np.testing.assert_array_equal(jax.grad(loss)(x), g)
    with cr.debug_mode(True):
        np.testing.assert_allclose(jax.grad(loss)(x), g, rtol=1e-15)
