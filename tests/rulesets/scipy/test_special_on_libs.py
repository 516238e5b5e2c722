"""The scipy.special rows on jax.scipy.special and torch.special
(rulesets/scipy/special_libs.py): for every registered (library, function),
the rrule and frule on the library's arrays agree with the NumPy rule on the
same values, and with the library's own autodiff where it has the derivative;
where it lacks one, the kit checks ours against finite differences; order 2
through the kit's `backend=`; the host-only parameter derivatives are
not_implemented naming the argument; the docs' table is current."""

import pathlib

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from .special_samples import POINTS

sp = pytest.importorskip("scipy.special")
NT = cr.NoTangent()

# the functions of special.py (not table rows): their sample points here
LIB_POINTS = {
    "gammaln": [(1.7,), (0.3,), (-2.5,), (30.0,)], "gamma": [(1.7,), (0.3,), (-2.5,)],
    "digamma": [(1.7,), (0.3,), (-2.5,), (30.0,)], "polygamma": [(1, 1.7), (2, 0.4), (0, 3.0)],
    "erf": [(0.7,), (0.0,), (-2.5,)], "erfc": [(0.7,), (0.0,), (-2.5,)], "erfinv": [(0.3,), (-0.9,)],
    "erfcinv": [(0.3,), (1.9,)], "ndtr": [(0.7,), (-4.0,)], "log_ndtr": [(0.7,), (-4.0,), (5.0,)],
    "ndtri": [(0.3,), (0.99,)], "expit": [(0.7,), (-5.0,)], "log_expit": [(0.7,), (-5.0,)],
    "logit": [(0.3,), (0.9,)], "entr": [(0.3,), (2.5,)], "zetac": [(2.5,)],
    "zeta": [(2.5, 1.3), (4.0, 0.7)], "xlogy": [(1.3, 0.6), (0.0, 2.0), (-0.7, 3.0)],
    "xlog1py": [(1.3, 0.6), (0.0, 2.0), (-0.7, -0.5)],
}

# where the library's own function differs from SciPy's (its accuracy, not the rule's)
# (relative: torch's Bessel functions near their zeros at x = 10)
PRIMAL = {("jax.scipy.special", "betaln"): 1e-9, ("jax.scipy.special", "log_ndtr"): 1e-9,
          ("torch.special", "polygamma"): 1e-9,
          **{("torch.special", f): 1e-7 for f in ("j0", "j1", "y0", "y1")}}
# ... and in a function its partials call: jax's betaln (in betainc's density) to ~1e-6 at (10, 3)
TOL = {("jax.scipy.special", "betainc"): 1e-5, **{("torch.special", f): 1e-6 for f in ("j0", "j1", "y0", "y1")}}
# points where the library's function is not SciPy's (jax's hyp2f1 diverges near z = 1 with
# c − a − b < 0): the rule is compared at the other points
DIVERGES = {("jax.scipy.special", "hyp2f1")}


def _library(label):
    if label == "jax.scipy.special":
        jax = pytest.importorskip("jax")
        jax.config.update("jax_enable_x64", True)
        pytest.importorskip("jax.scipy.special")
    else:
        pytest.importorskip("torch")
    from chainrules.rulesets.scipy import special_libs
    return special_libs


def _registered():
    """(label, scipy name) of every row each library may register (the test imports
    the library; a name not registered is checked to be listed as skipped)."""
    from chainrules.rulesets.scipy import special_libs
    return [(label, name) for label, names in special_libs.NAMES.items() for name in names]


def _row(L, name):
    return next(r for r in [*L.LIB_ROWS, *L.ROWS] if r.name == name)


def _to(label, a):
    if label == "jax.scipy.special":
        import jax.numpy as jnp
        return jnp.asarray(a)
    import torch
    return torch.as_tensor(a)


def _np(v):
    if isinstance(v, cr.AbstractTangent):
        return v
    return np.asarray(v.detach() if hasattr(v, "detach") else v)


def _arrays(r, point, INT):
    """The point as arrays of two elements (the second nudged), integer arguments as given."""
    out = []
    for i, p in enumerate(point):
        if r.partials[i] is INT:
            out.append(p)
        else:
            out.append(np.array([p, p + 0.01 * abs(p) + 0.01 if not isinstance(p, complex) else p]))
    return out


@pytest.mark.parametrize("label,name", _registered())
def test_rule_on_library_agrees_with_numpy(label, name):
    L = _library(label)
    if name not in L.REGISTERED[label]:
        assert name in L.SKIPPED[label], f"{label}.{name}: neither registered nor listed as skipped"
        return
    fn = L.REGISTERED[label][name]
    r = _row(L, name)
    host = L.NOT_ON_LIBRARY[label].get(name, [])
    points = (LIB_POINTS.get(name) or POINTS[name])[:3]
    checked = 0
    for point in points:
        if label == "torch.special" and any(isinstance(p, complex) for p in point):
            continue
        args = _arrays(r, point, L.INT)
        y0, pb0 = cr.rrule(r.f, *args)
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(np.asarray(y0 if r.outputs == 1 else y0[0]))):
                continue
        lib_args = [a if r.partials[i] is L.INT else _to(label, a) for i, a in enumerate(args)]
        y, pb = cr.rrule(fn, *lib_args)
        ys, y0s = (y, y0) if r.outputs > 1 else ((y,), (y0,))
        # the rule computes with the library's functions: it agrees with NumPy's as far as
        # they agree with SciPy's (1e-12, or the library's primal error times 100)
        err = max(float(np.max(np.abs(_np(u) - v) / np.maximum(np.abs(v), 1e-300))) for u, v in zip(ys, y0s))
        if err > 1e-6 and (label, name) in DIVERGES:
            continue
        assert err <= PRIMAL.get((label, name), 1e-12), f"{label}.{name} primal at {point}: {err:.2g}"
        rtol = max(1e-12, 100 * err, TOL.get((label, name), 0.0))
        seed = cr.Tangent[tuple](*[np.ones_like(v) for v in y0s]) if r.outputs > 1 else np.ones_like(y0)
        lib_seed = (cr.Tangent[tuple](*[_to(label, np.ones_like(v)) for v in y0s]) if r.outputs > 1
                    else _to(label, np.ones_like(y0)))
        got, want = pb(lib_seed), pb0(seed)
        for i, p in enumerate(r.params[:len(args)]):
            if r.partials[i] is L.INT:
                assert got[i + 1] is NT
            elif p in host or r.partials[i] is L.NI:
                assert isinstance(got[i + 1], cr.NotImplementedTangent), (label, name, p)
                assert p in str(got[i + 1].info)
            elif not isinstance(want[i + 1], cr.NotImplementedTangent):
                np.testing.assert_allclose(_np(got[i + 1]), want[i + 1], rtol=rtol, atol=1e-13,
                                           err_msg=f"{label}.{name} cotangent of {p} at {point}")
                # the frule along this argument
                tangents = [NT] + [cr.ZeroTangent()] * len(args)
                tangents[i + 1] = _to(label, np.ones_like(args[i]))
                _, ẏ = cr.frule(tuple(tangents), fn, *lib_args)
                tangents[i + 1] = np.ones_like(args[i])
                _, ẏ0 = cr.frule(tuple(tangents), r.f, *args)
                for u, v in (zip(ẏ, ẏ0) if r.outputs > 1 else [(ẏ, ẏ0)]):
                    np.testing.assert_allclose(_np(u), _np(v), rtol=rtol, atol=1e-13,
                                               err_msg=f"{label}.{name} pushforward along {p}")
                checked += 1
    assert checked or all(r.partials[i] in (L.INT, L.NI) or r.params[i] in host
                          for i in range(len(r.params))), f"{label}.{name}: no point checked"


def _library_grads(label, fn, lib_args, live, outputs):
    """The library's own derivatives of Σ f(args) in the arguments `live` (one reverse
    pass), None for an argument where it has none (an error, or NaN)."""
    def one(g):
        g = np.asarray(g)
        return g if np.all(np.isfinite(g)) else None
    if label == "jax.scipy.special":
        import jax
        import jax.numpy as jnp

        def total(*xs):
            args = list(lib_args)
            for i, x in zip(live, xs):
                args[i] = x
            out = fn(*args)
            return sum(jnp.sum(jnp.real(o)) for o in out) if outputs > 1 else jnp.sum(jnp.real(out))
        try:
            return [one(g) for g in jax.grad(total, argnums=tuple(range(len(live))))(*[lib_args[i] for i in live])]
        except Exception:
            return [None] * len(live) if len(live) == 1 else \
                [_library_grads(label, fn, lib_args, [i], outputs)[0] for i in live]
    import torch
    args = list(lib_args)
    xs = [args[i].clone().requires_grad_(True) for i in live]
    for i, x in zip(live, xs):
        args[i] = x
    try:
        out = fn(*args)
        total = sum(o.sum() for o in out) if outputs > 1 else out.sum()
        return [one(g.detach().numpy()) for g in torch.autograd.grad(total, xs)]
    except (RuntimeError, NotImplementedError):
        return [None] * len(live) if len(live) == 1 else \
            [_library_grads(label, fn, lib_args, [i], outputs)[0] for i in live]


# the functions whose derivative the library itself lacks (torch.special's Bessel functions
# raise "not implemented" in autograd): ours, checked by the kit against finite differences
LACKS = {("torch.special", n) for n in ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e")}
# ... or in some arguments: jax's betainc in a and b ("not supported": jax#15487)
LACKS |= {("jax.scipy.special", "betainc", p) for p in "ab"}
# ... and torch's gammainc, gammaincc in a ("the derivative for 'igamma: input' is not implemented")
LACKS |= {("torch.special", f, "a") for f in ("gammainc", "gammaincc")}
# ... and torch's zeta in x ("the derivative for 'special_zeta: self' is not implemented")
LACKS |= {("torch.special", "zeta", "x")}


@pytest.mark.parametrize("label,name", _registered())
def test_rule_on_library_against_its_autodiff(label, name):
    L = _library(label)
    if name not in L.REGISTERED[label]:
        return
    if (label, name) == ("jax.scipy.special", "hyp2f1"):
        return      # jax.grad of hyp2f1 traces for ~15 s; its rule is compared with NumPy's above
    fn, r = L.REGISTERED[label][name], _row(L, name)
    host = L.NOT_ON_LIBRARY[label].get(name, [])
    point = (LIB_POINTS.get(name) or POINTS[name])[0]
    if label == "torch.special" and any(isinstance(p, complex) for p in point):
        return
    args = _arrays(r, point, L.INT)
    lib_args = [a if r.partials[i] is L.INT else _to(label, a) for i, a in enumerate(args)]
    y, pb = cr.rrule(fn, *lib_args)
    ones = [np.ones_like(_np(v)) for v in (y if r.outputs > 1 else (y,))]
    seed = cr.Tangent[tuple](*[_to(label, o) for o in ones]) if r.outputs > 1 else _to(label, ones[0])
    ours = pb(seed)
    live = [i for i, p in enumerate(r.params)
            if not (r.partials[i] is L.INT or r.partials[i] is L.NI or p in host or isinstance(point[i], complex))]
    for i, g in zip(live, _library_grads(label, fn, lib_args, live, r.outputs)):
        p = r.params[i]
        lacks = (label, name) in LACKS or (label, name, p) in LACKS
        assert (g is None) == lacks, f"{label}.{name}: the library's derivative in {p}: {g}"
        if g is not None:
            np.testing.assert_allclose(_np(ours[i + 1]), g, rtol=1e-7, atol=1e-10,
                                       err_msg=f"{label}.{name}: ours and the library's derivative in {p}")
            continue
        # (every argument with a derivative, against finite differences; the others held fixed)
        kit_args = [a if j in live else PrimalAndTangent(a, NT) for j, a in enumerate(args)]
        test_rrule(r.f, *kit_args, backend="jax" if label.startswith("jax") else "torch", backend_f=fn,
                   rtol=1e-6, atol=1e-8)


# order 2 on the library's arrays: the kit differentiates the rule itself (through
# chainrules.ad, which calls the library's functions with their rules: the partials rebuilt
# for the engine's namespace)
ORDER2 = [("jax.scipy.special", "gammaln", (1.7,)), ("jax.scipy.special", "digamma", (0.7,)),
          ("jax.scipy.special", "betainc", (2.3, 1.5, 0.4)), ("jax.scipy.special", "i1e", (0.7,)),
          ("jax.scipy.special", "xlogy", (1.3, 0.6)), ("jax.scipy.special", "polygamma", (1, 0.7)),
          ("torch.special", "digamma", (0.7,)), ("torch.special", "j1", (0.7,)),
          ("torch.special", "gammainc", (2.3, 1.4)), ("jax.scipy.special", "zeta", (2.5, 1.3)),
          ("torch.special", "zeta", (2.5, 1.3))]


@pytest.mark.parametrize("label,name,point", ORDER2, ids=[f"{a}-{b}" for a, b, _ in ORDER2])
def test_order2_on_library(label, name, point):
    L = _library(label)
    fn, r = L.REGISTERED[label][name], _row(L, name)
    host = L.NOT_ON_LIBRARY[label].get(name, [])
    args = [p if r.partials[i] is L.INT else
            PrimalAndTangent(np.array([p, p + 0.1]), NT) if r.params[i] in host else np.array([p, p + 0.1])
            for i, p in enumerate(point)]
    args = [PrimalAndTangent(a, NT) if r.partials[i] is L.INT else a for i, a in enumerate(args)]
    backend = "jax" if label.startswith("jax") else "torch"
    test_frule(r.f, *args, backend=backend, backend_f=fn, order=2, rtol=1e-6, atol=1e-8)
    test_rrule(r.f, *args, backend=backend, backend_f=fn, order=2, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("label", ["jax.scipy.special", "torch.special"])
def test_host_only_derivative_names_the_argument(label):
    """An argument whose partial is a host-only series (none is left on these libraries:
    zeta's rule built here as if x were) has a not_implemented tangent naming it."""
    L = _library(label)
    fn, r = L.REGISTERED[label]["zeta"], _row(L, "zeta")
    assert L.NOT_ON_LIBRARY[label] == {}
    fr, rr = L._build(L._LIBRARIES[label], r, fn, (0,))
    x, q = _to(label, np.array([2.5, 4.0])), _to(label, np.array([1.3, 0.7]))
    _, pb = rr(x, q)
    x̄ = pb(_to(label, np.ones(2)))[1]
    assert isinstance(x̄, cr.NotImplementedTangent)
    assert f"{label}.zeta: the derivative in x" in str(x̄.info) and "NumPy arrays only" in str(x̄.info)
    # held fixed, the other derivative is there
    _, ẏ = fr((NT, cr.ZeroTangent(), _to(label, np.ones(2))), x, q)
    np.testing.assert_allclose(_np(ẏ), cr.frule((NT, cr.ZeroTangent(), np.ones(2)), r.f,
                                                 np.array([2.5, 4.0]), np.array([1.3, 0.7]))[1], rtol=1e-12)


@pytest.mark.parametrize("label", ["jax.scipy.special", "torch.special"])
def test_zeta_in_x_on_library(label):
    """zeta(x, q) in x on the library (special_series._dzeta_ds, dzeta_ds's body with its
    branches chosen by `where`): NumPy's rule to 1e-12 and mpmath's ζ′ to 1e-9, Hurwitz's
    and Riemann's (q = 1, x < 0 by the functional equation), NaN where SciPy's ζ is; on
    JAX also under jax.jit."""
    mp = pytest.importorskip("mpmath")
    L = _library(label)
    fn = L.REGISTERED[label]["zeta"]
    x = np.array([2.5, 4.0, 1.05, 30.0, 3.0, -2.5, -7.3, 0.5, 0.5, 2.0])
    q = np.array([1.3, 0.7, 2.0, 0.05, 50.0, 1.0, 1.0, 1.0, 2.0, -1.0])
    want = cr.rrule(sp.zeta, x, q)[1](np.ones_like(x))[1]
    _, pb = cr.rrule(fn, _to(label, x), _to(label, q))
    got = _np(pb(_to(label, np.ones_like(x)))[1])
    runs = [got]
    if label == "jax.scipy.special":
        import jax
        runs.append(np.asarray(jax.jit(lambda x, q: cr.rrule(fn, x, q)[1](jax.numpy.ones_like(x))[1])(
            _to(label, x), _to(label, q))))
    else:
        import torch
        _, ẏ = cr.frule((NT, _to(label, np.ones_like(x)), cr.ZeroTangent()), fn, _to(label, x), _to(label, q))
        runs.append(_np(ẏ))
        assert isinstance(ẏ, torch.Tensor)
    with mp.workdps(30):
        exact = [float(mp.zeta(x[i], q[i], 1)) for i in range(8)]
    for g in runs:
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=0)
        np.testing.assert_allclose(g[:8], exact, rtol=1e-9)
        assert np.isnan(g[8]) and np.isnan(g[9])        # s < 1 with q ≠ 1, q ≤ 0


def test_docs_table_is_current():
    _library("jax.scipy.special")
    L = _library("torch.special")
    import jax.scipy.special  # noqa: F401  (the import registers the rows)
    text = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "guide" / "special.md").read_text(encoding="utf-8")
    begin, end = "<!-- special-libs table: begin -->\n", "<!-- special-libs table: end -->"
    current = text[text.index(begin) + len(begin):text.index(end)]
    assert current == L.table(), ("docs/guide/special.md's table of the functions on other libraries is out of "
                                  "date: paste chainrules.rulesets.scipy.special_libs.table() (JAX and PyTorch "
                                  "imported) between its markers")


def test_parameter_series_on_libraries():
    """special_series.dbetainc_dab_fixed and dgammainc_da_fixed (betainc in a and b, gammainc
    in a on JAX: a fixed number of terms, traced by jax.jit) equal the NumPy series, whose
    accuracy test_special_table.py checks against mpmath, across a, b in [0.5, 40], x in
    [0.01, 0.99] (betainc) and a in [0.1, 50], x in [1e-3, 150] (gammainc); NaN where their
    terms have not converged (never a truncated sum)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from chainrules.rulesets.scipy import special_series as ss
    A, B, X = np.meshgrid([0.5, 1.3, 4.0, 15.0, 40.0], [0.5, 1.3, 4.0, 15.0, 40.0], [0.01, 0.2, 0.5, 0.8, 0.95, 0.99],
                          indexing="ij")
    a, b, x = A.ravel(), B.ravel(), X.ravel()
    want = ss.dbetainc_dab(a, b, x)
    fn = jax.scipy.special.betainc
    got = jax.jit(lambda a, b, x: cr.rrule(fn, a, b, x)[1](jnp.ones_like(x))[1:3])(*map(jnp.asarray, (a, b, x)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-11, atol=1e-300)
    # a ≫ b near x = (a + 1)/(a + b + 2): 1000 terms are not enough there
    _, pb = cr.rrule(fn, jnp.array([1000.0, 2.0]), jnp.array([0.5, 3.0]), jnp.array([0.998, 0.4]))
    ā = np.asarray(pb(jnp.ones(2))[1])
    assert np.isnan(ā[0]) and np.isfinite(ā[1])
    A, X = np.meshgrid([0.1, 0.5, 1.3, 4.0, 15.0, 50.0], [1e-3, 0.1, 1.0, 3.0, 10.0, 40.0, 150.0], indexing="ij")
    a, x = A.ravel(), X.ravel()
    fn = jax.scipy.special.gammainc
    got = jax.jit(lambda a, x: cr.rrule(fn, a, x)[1](jnp.ones_like(x))[1])(jnp.asarray(a), jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), ss.dgammainc_da(a, x), rtol=1e-11, atol=1e-300)
    # x just below a + 1 = 5e4: about 2000 terms (their product falls like exp(−k²/2x))
    _, pb = cr.rrule(fn, jnp.array([5e4, 2.0]), jnp.array([49990.0, 1.4]))
    ā = np.asarray(pb(jnp.ones(2))[1])
    assert np.isnan(ā[0]) and np.isfinite(ā[1])
