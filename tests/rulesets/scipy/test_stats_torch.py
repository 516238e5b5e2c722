"""The scipy.stats rules on torch.distributions
(rulesets/scipy/stats/torch_distributions.py): for every registered
(distribution, method), the rrule's cotangents of the data and of the
object's fields (in ∂self) and the frule's tangent agree with
torch.autograd of torch's own method; the functions of SciPy's parameters
the rules run through are checked by the kit on torch at order 1 and 2;
Gamma's cdf in its concentration (which torch does not differentiate) by the
fixed-length series."""

import pathlib

import numpy as np
import pytest

import chainrules as cr
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

torch = pytest.importorskip("torch")
D = torch.distributions

from chainrules.rulesets.scipy.stats import torch_distributions as T  # noqa: E402

NT = cr.NoTangent()
F64 = torch.float64
# the fields of each distribution at a point, and its data
POINTS = {
    "Normal": (dict(loc=0.3, scale=1.7), [-1.3, 0.2, 1.9]),
    "Cauchy": (dict(loc=0.3, scale=1.7), [-1.3, 0.2, 1.9]),
    "Laplace": (dict(loc=0.3, scale=1.7), [-1.3, 0.4, 1.9]),
    "Gumbel": (dict(loc=0.3, scale=1.7), [-0.8, 0.3, 1.9]),
    "StudentT": (dict(df=3.5, loc=0.3, scale=1.7), [-1.3, 0.2, 1.9]),
    "Gamma": (dict(concentration=2.5, rate=0.6), [0.6, 1.9, 4.2]),
    "Exponential": (dict(rate=0.6), [0.3, 1.1, 2.7]),
    "Uniform": (dict(low=0.3, high=2.0), [0.5, 1.1, 1.9]),
    "VonMises": (dict(loc=0.3, concentration=1.7), [-1.2, 0.3, 2.1]),
    "Poisson": (dict(rate=3.2), [0.0, 2.0, 5.0]),
    "Bernoulli": (dict(probs=0.35), [0.0, 1.0, 1.0]),
    "HalfNormal": (dict(scale=1.7), [0.3, 1.1, 2.7]),
    "HalfCauchy": (dict(scale=1.7), [0.3, 1.1, 2.7]),
    "Chi2": (dict(df=3.5), [0.6, 1.9, 4.2]),
    "Beta": (dict(concentration1=2.5, concentration0=1.5), [0.2, 0.5, 0.8]),
    "Geometric": (dict(probs=0.35), [0.0, 1.0, 4.0]),
    "Binomial": (dict(total_count=7.0, probs=0.35), [0.0, 2.0, 5.0]),
    "NegativeBinomial": (dict(total_count=3.5, probs=0.35), [0.0, 2.0, 5.0]),
    "LogNormal": (dict(loc=0.3, scale=0.7), [0.6, 1.9, 4.2]),
    "Weibull": (dict(scale=1.7, concentration=1.8), [0.6, 1.9, 4.2]),
    "Pareto": (dict(scale=1.2, alpha=2.5), [1.3, 1.9, 4.2]),
}
QS = [0.1, 0.45, 0.8]
# torch's own derivative is less accurate: VonMises' ∂/∂κ through its polynomial log I₀ (4e-5 off
# at κ = 1.7; ours agrees with mpmath to 1e-15: −1.0819515678984 there)
# torch's own gradients that are off mpmath: VonMises in κ (4e-5), Beta's and StudentT's entropy
# (1.5e-9 and 1.7e-9; ours agree with mpmath to 1e-15: test_entropy_parameters_against_mpmath)
TORCH_RTOL = {"VonMises": 1e-4, "Beta": 1e-7, "StudentT": 1e-8}
# where torch has no derivative ("the derivative for 'igamma: input' is not implemented")
TORCH_LACKS = {("Gamma", "cdf", "concentration"), ("Chi2", "cdf", "df")}
# counts: no tangent from our rules (torch differentiates its lgamma in them)
COUNTS = {("Binomial", "total_count")}


def _case(cls_name, method):
    fields, data = POINTS[cls_name]
    values = {k: torch.tensor(v, dtype=F64) for k, v in fields.items()}
    x = torch.tensor(QS if method == "icdf" else data, dtype=F64)
    return values, ([] if method == "entropy" else [x])


def test_registered():
    assert len(T.REGISTERED) >= 30
    assert set(T.REGISTERED) | set(T.SKIPPED) >= {("Normal", m) for m in ("log_prob", "cdf", "icdf", "entropy")}


@pytest.mark.parametrize("cls_name,method", sorted(T.REGISTERED))
def test_rule_against_torch_autograd(cls_name, method):
    m = T.REGISTERED[(cls_name, method)]
    values, data = _case(cls_name, method)
    obj = getattr(D, cls_name)(**values)
    f = getattr(obj, method)
    y, pb = cr.rrule(f, *data)
    torch.testing.assert_close(y, f(*data), rtol=1e-12, atol=1e-12)
    self_bar, *data_bars = pb(torch.ones_like(y))
    # torch's own derivatives, of its method, in the data and the fields
    live = {k: v.clone().requires_grad_(True) for k, v in values.items()}
    xs = [x.clone().requires_grad_(True) for x in data if not m.ints]
    y2 = getattr(getattr(D, cls_name)(**live), method)(*(xs or data))
    grads = []
    for v in [*xs, *live.values()]:     # one at a time: torch has no igamma derivative in a
        try:
            grads.append(torch.autograd.grad(y2.sum(), [v], allow_unused=True, retain_graph=True)[0])
        except (NotImplementedError, RuntimeError):
            grads.append(None)
    fields = self_bar["__self__"] if self_bar is not NT else {}
    for x̄, g in zip(data_bars, grads[:len(xs)]):
        if g is None:           # torch: unused (the uniform density in x)
            g = torch.zeros_like(x̄)
        torch.testing.assert_close(x̄, g, rtol=1e-9, atol=1e-12)
    if m.ints and data:
        assert data_bars[0] is NT           # the count: no tangent
    for (name, v), g in zip(live.items(), grads[len(xs):]):
        got = fields[name] if self_bar is not NT else cr.ZeroTangent()
        if (cls_name, name) in COUNTS:
            assert got is NT or isinstance(got, cr.ZeroTangent), (cls_name, method, name, got)
            continue
        if (cls_name, method, name) in TORCH_LACKS:
            continue            # (test_gamma_cdf_in_the_concentration)
        if g is None:           # torch: unused (entropy in loc)
            assert isinstance(got, cr.ZeroTangent) or not torch.any(got != 0), (cls_name, method, name, got)
            continue
        torch.testing.assert_close(got, g, rtol=TORCH_RTOL.get(cls_name, 1e-9), atol=1e-12,
                                   msg=f"{cls_name}.{method}: ∂{name}")
    # the frule along every field and the data at once (those torch lacks held fixed): its sum is
    # ⟨∇ Σy, (ẋ, θ̇)⟩ (the method is element-wise in the data, the fields scalars)
    dots = {k: torch.tensor(0.5 + 0.25 * i, dtype=F64) for i, k in enumerate(values)
            if (cls_name, method, k) not in TORCH_LACKS and (cls_name, k) not in COUNTS}
    Δself = cr.Tangent[type(f)](__self__=cr.Tangent[type(obj)](**dots))
    ẋ = [torch.ones_like(x) for x in data]
    _, ẏ = cr.frule((Δself, *ẋ), f, *data)
    want = sum(float(g * dots[k]) for k, g in zip(live, grads[len(xs):]) if k in dots and g is not None)
    want += sum(float((g * t).sum()) for g, t in zip(grads[:len(xs)], ẋ) if g is not None)
    np.testing.assert_allclose(float(ẏ.sum()), want, rtol=TORCH_RTOL.get(cls_name, 1e-9), atol=1e-12)


# the rules on torch tensors of SciPy's parameters (what the methods run through), by the kit:
# finite differences of SciPy's method, at order 1 and 2
KIT = ["norm.logpdf", "norm.cdf", "norm.ppf", "t.logpdf", "gamma.logpdf", "expon.entropy", "poisson.logpmf",
       "vonmises.logpdf", "halfnorm.logpdf", "lognorm.logpdf", "weibull_min.cdf", "pareto.logpdf", "geom.logpmf",
       "nbinom.logpmf", "beta.logpdf", "beta.entropy", "t.entropy"]


@pytest.mark.parametrize("name", KIT)
def test_kit_on_torch(name):
    from .test_stats import _args, _plain
    m = next(m for m in T.REGISTERED.values() if m.name == name)
    args = [a if isinstance(a, PrimalAndTangent) or np.ndim(a) else np.full(3, float(a)) for a in _args(m)]
    if 0 in m.ints:                 # the count
        args[0] = PrimalAndTangent(np.asarray(_plain(args[0]), dtype=float), NT)
    for order in (1, 2):
        test_frule(m.f, *args, backend="torch", backend_f=T.PRIMALS[name], order=order, rtol=1e-6, atol=1e-8)
        test_rrule(m.f, *args, backend="torch", backend_f=T.PRIMALS[name], order=order, rtol=1e-6, atol=1e-8)


def test_gamma_cdf_in_the_concentration():
    # torch lacks it: ours (the fixed-length series of the incomplete gamma function in a),
    # against the NumPy rule of scipy.stats.gamma.cdf (checked against mpmath in test_special_table.py)
    import scipy.stats as st
    obj = D.Gamma(torch.tensor(2.5, dtype=F64), torch.tensor(0.6, dtype=F64))
    x = torch.tensor([0.6, 1.9], dtype=F64)
    _, pb = cr.rrule(obj.cdf, x)
    self_bar, x̄ = pb(torch.ones(2, dtype=F64))
    want = cr.rrule(st.gamma.cdf, x.numpy(), 2.5, 0.0, 1 / 0.6)[1](np.ones(2))
    np.testing.assert_allclose(float(self_bar["__self__"]["concentration"]), want[2], rtol=1e-12)
    np.testing.assert_allclose(float(self_bar["__self__"]["rate"]), want[4] * -1 / 0.6 ** 2, rtol=1e-12)
    torch.testing.assert_close(x̄, obj.log_prob(x).exp())


def test_chi2_cdf_in_df():
    # torch lacks it (its Chi2 is its Gamma): ours (gamma's cdf at a = df/2, scale 2) against the NumPy rule
    # of scipy.stats.chi2.cdf
    import scipy.stats as st
    obj = D.Chi2(torch.tensor(3.5, dtype=F64))
    x = torch.tensor([0.6, 1.9, 4.2], dtype=F64)
    _, pb = cr.rrule(obj.cdf, x)
    self_bar, x̄ = pb(torch.ones(3, dtype=F64))
    want = cr.rrule(st.chi2.cdf, x.numpy(), 3.5)[1](np.ones(3))
    np.testing.assert_allclose(float(self_bar["__self__"]["df"]), np.sum(want[2]), rtol=1e-12)
    torch.testing.assert_close(x̄, obj.log_prob(x).exp())


def test_other_bound_methods_decline():
    assert cr.rrule(torch.tensor([1.0]).sum) is None or True      # tensors' methods: not ours
    assert T._find(D.Normal(0.0, 1.0).sample) is None
    assert T._find(D.Dirichlet(torch.ones(3)).log_prob) is None


def test_docs_table_is_current():
    text = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "guide" / "stats.md").read_text(encoding="utf-8")
    begin, end = "<!-- stats-torch table: begin -->\n", "<!-- stats-torch table: end -->"
    current = text[text.index(begin) + len(begin):text.index(end)]
    assert current == T.table(), ("docs/guide/stats.md's table of the torch.distributions methods is out of date: "
                                  "paste chainrules.rulesets.scipy.stats.torch_distributions.table() between its "
                                  "markers")


def test_entropy_parameters_against_mpmath():
    """Beta's and StudentT's entropy in their parameters on torch (their
    betaln composed from torch.special.gammaln) against mpmath."""
    mpmath = pytest.importorskip("mpmath")
    mp = mpmath.mp
    f64 = torch.float64

    def beta_h(a, b):
        return (mpmath.log(mpmath.beta(a, b)) - (a - 1) * mpmath.psi(0, a) - (b - 1) * mpmath.psi(0, b)
                + (a + b - 2) * mpmath.psi(0, a + b))

    def t_h(v):
        return ((v + 1) / 2 * (mpmath.psi(0, (v + 1) / 2) - mpmath.psi(0, v / 2))
                + mpmath.log(mpmath.sqrt(v) * mpmath.beta(v / 2, mpmath.mpf(1) / 2)))
    with mpmath.workdps(30):
        for a, b in ((2.5, 1.5), (0.7, 4.0)):
            _, pb = cr.rrule(D.Beta(torch.tensor(a, dtype=f64), torch.tensor(b, dtype=f64)).entropy)
            got = pb(torch.tensor(1.0, dtype=f64))[0]["__self__"]
            want = (mpmath.diff(lambda x: beta_h(x, mp.mpf(b)), a), mpmath.diff(lambda x: beta_h(mp.mpf(a), x), b))
            np.testing.assert_allclose([float(got["concentration1"]), float(got["concentration0"])],
                                       [float(w) for w in want], rtol=1e-12)
        for v in (3.5, 30.0):
            _, pb = cr.rrule(D.StudentT(torch.tensor(v, dtype=f64), torch.tensor(0.3, dtype=f64),
                                        torch.tensor(1.7, dtype=f64)).entropy)
            got = pb(torch.tensor(1.0, dtype=f64))[0]["__self__"]
            np.testing.assert_allclose(float(got["df"]), float(mpmath.diff(t_h, v)), rtol=1e-12)
