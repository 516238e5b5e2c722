"""to_torch (chainrules.interop.torch): torch.autograd.grad, .backward(),
double backward, torch.func.grad/jvp/vjp through chainrules' rules, against
PyTorch's own derivatives of its own functions and finite differences."""

import functools

import numpy as np
import pytest

import chainrules as cr
from chainrules.interop import TorchConfig, export, to_torch
from chainrules.testing import test_adapter

from chainrules.interop.torch import _lookup
from conftest import registry_restored

from ._cases import A, COMPLEX, X, Z, no_rule, params, straight_through

pytestmark = pytest.mark.interop
# PyTorch's CPU build is installed by the test extra on CPython 3.11 only (pyproject.toml)
torch = pytest.importorskip("torch")


@pytest.mark.parametrize("f, args, kw", params())
def test_adapter_on_torch(f, args, kw):
    test_adapter(f, *args, engine="torch", **kw)


def t(x, grad=True):
    return torch.tensor(x, dtype=torch.float64, requires_grad=grad)


OWN = [("sin", np.sin, torch.sin), ("log", np.log, torch.log), ("tanh", np.tanh, torch.tanh),
       ("sqrt", np.sqrt, torch.sqrt)]


@pytest.mark.parametrize("f, own", [pytest.param(f, o, id=n) for n, f, o in OWN])
def test_grad_double_backward_and_func_match_torch_own(f, own):
    w = to_torch(f)
    x = t(X)
    g, = torch.autograd.grad(w(x).sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    g_own, = torch.autograd.grad(own(x).sum(), x, create_graph=True)
    h_own, = torch.autograd.grad(g_own.sum(), x)
    torch.testing.assert_close(g, g_own)
    torch.testing.assert_close(h, h_own)
    x.grad = None
    w(x).sum().backward()
    torch.testing.assert_close(x.grad, g_own.detach())
    xd, ones = x.detach(), torch.ones(3, dtype=torch.float64)
    torch.testing.assert_close(torch.func.grad(lambda v: w(v).sum())(xd), g_own.detach())
    torch.testing.assert_close(torch.func.jvp(w, (xd,), (ones,))[1], torch.func.jvp(own, (xd,), (ones,))[1])
    torch.testing.assert_close(torch.func.vjp(w, xd)[1](ones)[0], g_own.detach())
    # forward over reverse (a Hessian-vector product) and third order
    hvp = torch.func.jvp(torch.func.grad(lambda v: w(v).sum()), (xd,), (ones,))[1]
    torch.testing.assert_close(hvp, h_own.detach())
    d3 = lambda fn: torch.func.grad(lambda u: torch.func.grad(lambda v: torch.func.grad(
        lambda s: fn(s).sum())(v).sum())(u).sum())(xd)
    torch.testing.assert_close(d3(w), d3(own))


def test_the_library_function_works_as_the_numpy_one():
    x = t(X)
    g, = torch.autograd.grad(to_torch(torch.sin)(x).sum(), x)
    torch.testing.assert_close(g, torch.cos(x.detach()))
    a = t(A)
    g, = torch.autograd.grad((to_torch(np.sum)(a, axis=1) ** 2).sum(), a)
    torch.testing.assert_close(g, 2 * a.detach().sum(1, keepdim=True).expand(2, 3))


def test_float32_stays_float32():
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    y = to_torch(np.exp)(x)
    assert y.dtype == torch.float32
    assert torch.autograd.grad(y.sum(), x)[0].dtype == torch.float32
    assert torch.func.jvp(to_torch(np.sin), (x.detach(),), (torch.ones(3),))[1].dtype == torch.float32


@pytest.mark.parametrize("f, args", [pytest.param(f, a, id=n) for n, f, a in COMPLEX])
def test_complex_matches_torch_own(f, args):
    own = getattr(torch, f.__name__)
    z = torch.tensor(args[0], requires_grad=True)
    loss = lambda g: (lambda v: (g(v) * g(v).conj() + g(v)).real.sum())
    got, = torch.autograd.grad(loss(to_torch(f))(z), z)
    ref, = torch.autograd.grad(loss(own)(z), z)
    torch.testing.assert_close(got, ref)
    test_adapter(f, *args, engine="torch")


def test_torch_uses_our_rule_not_its_own():
    with straight_through() as hard_round:
        x = t(X)
        assert torch.all(torch.autograd.grad(hard_round(x).sum(), x)[0] == 0)
        g, = torch.autograd.grad(to_torch(hard_round)(x).sum(), x)
        torch.testing.assert_close(g, torch.ones(3, dtype=torch.float64))
        ẏ = torch.func.jvp(to_torch(hard_round), (x.detach(),), (2 * x.detach(),))[1]
        torch.testing.assert_close(ẏ, 2 * x.detach())
        # at second order too: g(v) = v + round(v) has derivative 2 by the rule
        g = lambda v: torch.func.grad(lambda u: (to_torch(hard_round)(u) * u).sum())(v)
        torch.testing.assert_close(torch.func.jacrev(g)(x.detach()), 2 * torch.eye(3, dtype=torch.float64))
        torch.testing.assert_close(torch.func.jacfwd(g)(x.detach()), 2 * torch.eye(3, dtype=torch.float64))


def test_higher_order_rule_calls_back_into_torch():
    x = t(X)
    f = lambda a, b: a * torch.sin(b)
    y = to_torch(functools.reduce)(f, [x[0], x[1], x[2]])
    g, = torch.autograd.grad(y, x)
    xd = x.detach()
    torch.testing.assert_close(g, torch.stack([torch.sin(xd[1]) * torch.sin(xd[2]),
                                               xd[0] * torch.cos(xd[1]) * torch.sin(xd[2]),
                                               xd[0] * torch.sin(xd[1]) * torch.cos(xd[2])]))
    _, pb = cr.rrule_via_ad(TorchConfig(), f, xd, xd)
    torch.testing.assert_close(pb(torch.ones(3, dtype=torch.float64))[1], torch.sin(xd))
    _, ẏ = cr.frule_via_ad(TorchConfig(), (cr.NoTangent(), cr.ZeroTangent(), torch.ones(3, dtype=torch.float64)),
                           f, xd, xd)
    torch.testing.assert_close(ẏ, xd * torch.cos(xd))


def test_scipy_special_is_first_order_on_the_host():
    import scipy.special as sp
    x = t(X)
    g, = torch.autograd.grad(to_torch(sp.gamma)(x).sum(), x, create_graph=True)
    torch.testing.assert_close(g.detach(), torch.tensor(sp.gamma(X) * sp.digamma(X)))
    with pytest.raises(TypeError, match=r"to_torch\(scipy.special.gamma\): second-order"):
        torch.autograd.grad(g.sum(), x)
    with pytest.raises(TypeError, match=r"to_torch\(scipy.special.gamma\): forward mode"):
        torch.func.jvp(to_torch(sp.gamma), (x.detach(),), (torch.ones(3, dtype=torch.float64),))
    # a host function of two arguments, one not differentiated
    y = torch.tensor(2 * X, requires_grad=True)
    g, = torch.autograd.grad(to_torch(sp.xlogy)(x, y.detach()).sum(), x, create_graph=True)
    torch.testing.assert_close(g.detach(), torch.tensor(np.log(2 * X)))
    # a second derivative through the host is never left out of a sum
    g, = torch.autograd.grad((x * to_torch(sp.gamma)(x)).sum(), x, create_graph=True)
    with pytest.raises(TypeError, match="second-order"):
        torch.autograd.grad(g.sum(), x)


def test_numpy_arrays_are_refused_clearly():
    with pytest.raises(TypeError, match=r"to_torch\(numpy.sin\): argument 0 is a NumPy array.*torch.as_tensor"):
        to_torch(np.sin)(X)


def test_no_rule_raises_naming_f_and_the_types():
    with pytest.raises(TypeError, match=r"to_torch\(.*no_rule\).*no rrule for .*no_rule.*torch.Tensor"):
        to_torch(no_rule)(t(X))


def test_export_many_functions():
    fs = export("torch", {"s": np.sin, "c": np.cos})
    x = t(X)
    g, = torch.autograd.grad((fs["s"](x) * fs["c"](x)).sum(), x)
    torch.testing.assert_close(g, torch.cos(2 * x.detach()))


def test_torch_func_vmap_batches_the_rules():
    x = torch.rand(4, 3, dtype=torch.float64)
    torch.testing.assert_close(torch.func.vmap(to_torch(np.sin))(x), torch.sin(x))
    g = torch.func.vmap(torch.func.grad(lambda v: to_torch(np.sin)(v).sum()))(x)
    torch.testing.assert_close(g, torch.cos(x))
    torch.testing.assert_close(torch.func.vmap(lambda v: to_torch(np.sum)(v, axis=0))(x), x.sum(1))


@pytest.mark.parametrize("f, own", [(np.exp, torch.exp), (np.tanh, torch.tanh), (np.sqrt, torch.sqrt)])
def test_modifying_the_output_in_place_raises_as_torch_does(f, own):
    # the pullback reads Ω: it is saved for backward, and torch's version check refuses
    for g in (own, to_torch(f)):
        x = t(X)
        y = g(x)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            torch.autograd.grad(y.sum(), x)


def test_modifying_the_input_in_place_raises_as_torch_does():
    for g in (torch.sin, to_torch(np.sin)):
        x0 = t(X)
        x = x0 * 1.0
        y = g(x)
        x.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            torch.autograd.grad(y.sum(), x0)


@pytest.mark.parametrize("f", [np.positive, np.real])
def test_an_input_returned_as_it_is(f):
    x = t(X)
    y = to_torch(f)(x)
    assert y is not x and y.data_ptr() == x.data_ptr()       # a view, as torch.positive gives
    torch.testing.assert_close(torch.autograd.grad((y * y).sum(), x)[0], 2 * x.detach())


def test_squeeze_without_an_axis_drops_every_length_one_axis():
    x = torch.rand(1, 3, 1, dtype=torch.float64, requires_grad=True)
    y = to_torch(np.squeeze)(x)
    assert y.shape == (3,)
    g, = torch.autograd.grad((y * y).sum(), x)
    torch.testing.assert_close(g, 2 * x.detach())


@pytest.mark.parametrize("f", [np.cbrt, np.conj, np.degrees, np.radians, np.fabs, np.rint, np.spacing])
def test_create_graph_through_numpy_functions_without_a_torch_twin_of_the_same_name(f):
    # np.degrees is torch's rad2deg, np.rint its round; np.cbrt, np.fabs and np.spacing
    # run on the host, their second derivatives from the element-wise table in torch
    x = torch.tensor([0.3, 0.7, 1.2], dtype=torch.float64, requires_grad=True)
    torch.autograd.gradcheck(to_torch(f), (x,))
    torch.autograd.gradgradcheck(to_torch(f), (x,))
    g, = torch.autograd.grad(to_torch(f)(x).sum(), x, create_graph=True)
    if f is np.cbrt:
        torch.testing.assert_close(g, x.detach() ** (-2 / 3) / 3)
        h = torch.func.grad(lambda u: torch.func.grad(lambda v: torch.func.grad(
            lambda s: to_torch(f)(s).sum())(v).sum())(u).sum())(x.detach())
        torch.testing.assert_close(h, 10 / 27 * x.detach() ** (-8 / 3))
        torch.testing.assert_close(torch.func.jvp(to_torch(f), (x.detach(),), (torch.ones(3, dtype=torch.float64),))[1],
                                   x.detach() ** (-2 / 3) / 3)


def test_python_floats_alone_are_refused_as_torch_does():
    with pytest.raises(TypeError, match=r"to_torch\(numpy.sin\): no argument is a torch tensor \(float\)"):
        to_torch(np.sin)(0.5)
    # beside a tensor, a Python float is a constant
    x = t(X)
    g, = torch.autograd.grad(to_torch(np.power)(x, 2.5).sum(), x)
    torch.testing.assert_close(g, 2.5 * x.detach() ** 1.5)


def test_sign_and_abs_under_vmap():
    # array_api_compat's torch sign wrote NaN through a boolean mask, which
    # torch.func.vmap cannot batch: np.sign under vmap and np.abs under vmap(grad) raised
    x = torch.tensor([[1.5, -2.0, 0.0], [float("nan"), -0.5, 3.0]], dtype=torch.float64)
    sign, absolute = to_torch(np.sign), to_torch(np.abs)
    got = torch.func.vmap(sign)(x)
    assert torch.equal(got.isnan(), x.isnan())
    assert torch.equal(torch.nan_to_num(got), torch.nan_to_num(torch.sign(x)))
    g = torch.func.vmap(torch.func.grad(lambda v: absolute(v).sum()))(x)
    want = torch.func.vmap(torch.func.grad(lambda v: torch.abs(v).sum()))(x)
    assert torch.equal(torch.nan_to_num(g[0]), torch.nan_to_num(want[0]))
    assert g[1, 0].isnan() and torch.equal(g[1, 1:], want[1, 1:])
    z = torch.tensor([[0j, 3 + 4j]], dtype=torch.complex128)
    assert torch.allclose(torch.func.vmap(sign)(z), torch.sgn(z))


# ----- the fast path of an element-wise row on one real tensor (issue 25) ------------------

ROWS = [np.sin, np.exp, np.log, np.tanh, np.sqrt, np.arctan, np.expm1, np.negative, np.positive]


def test_the_row_fast_path_computes_what_the_rule_computes():
    """np.sin & co. on one real tensor take RowFunction, which must give the
    rule's own Ω, pullback and pushforward bit for bit (float64 and float32),
    at second order too (torch differentiates its backward)."""
    config, fast = TorchConfig(), 0
    for f in ROWS:
        w = to_torch(f)
        for dtype in (torch.float64, torch.float32):
            x = torch.tensor([0.3, 0.7, 1.9], dtype=dtype, requires_grad=True)
            ȳ, ẋ = torch.tensor([1.0, -2.0, 0.5], dtype=dtype), torch.tensor([0.5, 3.0, -1.0], dtype=dtype)
            y = w(x)
            fast += type(y.grad_fn).__name__.startswith("RowFunction")
            g = _lookup(f)[0]
            Ω, pullback = cr.rrule(config, g, x.detach())
            assert torch.equal(y.detach(), Ω) and y.dtype == dtype, f
            got, = torch.autograd.grad(y, x, ȳ)
            assert torch.equal(got, pullback(ȳ)[1]), f
            assert torch.equal(torch.func.jvp(w, (x.detach(),), (ẋ,))[1],
                               cr.frule(config, (cr.NoTangent(), ẋ), g, x.detach())[1]), f
            # second order: torch differentiates the backward's own operations
            d1, = torch.autograd.grad(w(x), x, ȳ, create_graph=True)
            x0 = x.detach().requires_grad_()
            e1 = cr.rrule(config, g, x0)[1](ȳ)[1]
            assert d1.requires_grad == e1.requires_grad, f       # np.negative's: a constant
            if d1.requires_grad:
                torch.testing.assert_close(torch.autograd.grad(d1.sum(), x)[0],
                                           torch.autograd.grad(e1.sum(), x0)[0])
    assert fast == 2 * len(ROWS)       # the fast path served every case (not vacuous)


def test_the_row_fast_path_leaves_other_calls_and_later_rules_to_the_generic_path():
    w = to_torch(np.sin)
    x = torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)
    assert type(w(x).grad_fn).__name__.startswith("RowFunction")
    # a seed of another dtype: the rule's pullback casts it
    g, = torch.autograd.grad(w(x), x, torch.tensor([1.0, 2.0], dtype=torch.float32))
    torch.testing.assert_close(g, torch.cos(x.detach()) * torch.tensor([1.0, 2.0], dtype=torch.float64))
    # a rule registered later for torch.sin is the one that runs
    with registry_restored():
        @cr.register_rrule(torch.sin)
        def _rrule(x):
            return torch.sin(x), lambda ȳ: (cr.NoTangent(), 3 * ȳ)
        y = w(x)
        assert not type(y.grad_fn).__name__.startswith("RowFunction")
        torch.testing.assert_close(torch.autograd.grad(y.sum(), x)[0], torch.full((2,), 3.0, dtype=torch.float64))
    assert type(w(x).grad_fn).__name__.startswith("RowFunction")
    # debug mode: the generic path, which checks the rules' contracts
    with cr.debug_mode(True):
        assert not type(w(x).grad_fn).__name__.startswith("RowFunction")
