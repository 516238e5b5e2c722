"""The scipy.stats rules on `torch.distributions` (issue 23, item 3):
`Normal(loc, scale).log_prob(x)`, `.cdf`, `.icdf`, `.entropy()` get the
rule of `scipy.stats.norm.logpdf`, `cdf`, `ppf`, `entropy`, and so for the
distributions of `TORCH` whose parameters are SciPy's or simple functions
of them (Exponential's and Gamma's `rate` is 1/scale, Uniform's `high − low`
the scale, LogNormal's `exp(loc)` SciPy's scale; Geometric is SciPy's geom at
loc = −1, NegativeBinomial's `probs` 1 − SciPy's p, Chi2 SciPy's gamma at
a = df/2, scale 2).  Each mapping was checked
against torch's own log_prob, cdf, icdf and entropy.

A torch distribution is an object, its parameters its fields: as SciPy's
frozen spelling (`frozen.py`), its bound methods are found through the
instance rule on bound methods, and the parameters' derivatives live in
∂self: `Tangent[method](__self__=Tangent[Normal](loc=…, scale=…))`; the
frule reads them from a Δself of that form.  The value is torch's own
method; the derivatives are the method's one body (`_build.Method`'s
partials), run with torch's namespaces (`libs.py`: the partials rebuilt
with `np`/`sp` bound to torch's array API and `torch.special`), through a
function of SciPy's parameters (`PRIMALS`: our formula on torch, with the
same rules registered on it), so that a rule differentiated again (any
order) stays on torch.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules._core import Tangent, ZeroTangent, frule, register_frule, register_rrule, rrule, unthunk
from chainrules._protocols import Pullback
from chainrules._xp import namespace
from chainrules.rulesets._arrays import NO, is_zero
from chainrules.rulesets.scipy import special_libs as _libs
from chainrules.rulesets.scipy.stats import libs as _stats_libs
from chainrules.rulesets.scipy.stats._build import METHODS, Method

__all__ = ["TORCH", "REGISTERED", "SKIPPED", "register_for", "table"]


def _same(field: str) -> Any:
    return (field,), lambda v: v, lambda v: (1.0,)


def _inverse(field: str) -> Any:
    return (field,), lambda r: 1 / r, lambda r: (-1 / (r * r),)


def _width(lo: str, hi: str) -> Any:
    return (lo, hi), lambda a, b: b - a, lambda a, b: (-1.0, 1.0)


def _complement(field: str) -> Any:
    return (field,), lambda p: 1 - p, lambda p: (-1.0,)


def _exp(field: str) -> Any:
    return (field,), lambda v: namespace(v).exp(v), lambda v: (namespace(v).exp(v),)


def _half(field: str) -> Any:
    return (field,), lambda v: v / 2, lambda v: (0.5,)


def _const(c: float) -> Any:
    return (), lambda: c, lambda: ()


_LS = {"loc": _same("loc"), "scale": _same("scale")}
# torch class name -> (SciPy distribution, SciPy parameter -> (torch fields, value, partials))
TORCH: dict[str, tuple[str, dict[str, Any]]] = {
    "Normal": ("norm", _LS), "Cauchy": ("cauchy", _LS), "Laplace": ("laplace", _LS), "Gumbel": ("gumbel_r", _LS),
    "StudentT": ("t", {"df": _same("df"), **_LS}),
    "Gamma": ("gamma", {"a": _same("concentration"), "scale": _inverse("rate")}),
    "Exponential": ("expon", {"scale": _inverse("rate")}),
    "Uniform": ("uniform", {"loc": _same("low"), "scale": _width("low", "high")}),
    "VonMises": ("vonmises", {"kappa": _same("concentration"), "loc": _same("loc")}),
    "Poisson": ("poisson", {"mu": _same("rate")}),
    "Bernoulli": ("bernoulli", {"p": _same("probs")}),
    "HalfNormal": ("halfnorm", {"scale": _same("scale")}),
    "HalfCauchy": ("halfcauchy", {"scale": _same("scale")}),
    # χ²(df) is Γ(df/2, scale 2): gamma's cdf runs on torch, chi2's (sp.chdtr) does not
    "Chi2": ("gamma", {"a": _half("df"), "scale": _const(2.0)}),
    "Beta": ("beta", {"a": _same("concentration1"), "b": _same("concentration0")}),
    # torch counts the failures before the first success (from 0), SciPy the trials (from 1)
    "Geometric": ("geom", {"p": _same("probs"), "loc": _const(-1.0)}),
    "Binomial": ("binom", {"n": _same("total_count"), "p": _same("probs")}),
    # torch's probs is the probability of the outcome counted (a failure in SciPy's nbinom)
    "NegativeBinomial": ("nbinom", {"n": _same("total_count"), "p": _complement("probs")}),
    "LogNormal": ("lognorm", {"s": _same("scale"), "scale": _exp("loc")}),
    "Weibull": ("weibull_min", {"c": _same("concentration"), "scale": _same("scale")}),
    "Pareto": ("pareto", {"b": _same("alpha"), "scale": _same("scale")}),
}
_METHODS = {"log_prob": ("logpdf", "logpmf"), "cdf": ("cdf",), "icdf": ("ppf",), "entropy": ("entropy",)}

REGISTERED: dict[tuple[str, str], Method] = {}   # (torch class, method) -> SciPy's Method
SKIPPED: dict[tuple[str, str], str] = {}
PRIMALS: dict[str, Any] = {}                     # "norm.logpdf" -> the formula on torch, with the rules
_ENTRIES: dict[tuple[type, str], tuple[Method, Any, dict[str, Any]]] = {}


def _primal(lib: Any, m: Method) -> Any:
    def value(*args: Any) -> Any:
        args = (*args, *(m.defaults[p] for p in m.params[len(args):]))
        xp = namespace(*args)
        ref = next((a for a in args if hasattr(a, "dtype")), None)
        if ref is not None:             # the defaults (scale = 1) as arrays: torch's log takes no float
            args = tuple(xp.asarray(a, dtype=ref.dtype) if isinstance(a, (int, float)) else a for a in args)
        return lib.env(xp).clone(m.value)(*args)
    value.__name__ = value.__qualname__ = f"torch_{m.name.replace('.', '_')}"
    return value


def _params(m: Method, spec: dict[str, Any], obj: Any, ndata: int) -> list[Any]:
    """The values of SciPy's parameters after the data, from the object's fields."""
    out = []
    for p in m.params[ndata:]:
        if p in spec:
            fields, f, _ = spec[p]
            out.append(f(*[getattr(obj, n) for n in fields]))
        else:
            out.append(m.defaults[p])
    return out


def _find(method: Any) -> Any:
    obj = getattr(method, "__self__", None)
    return None if obj is None else _ENTRIES.get((type(obj), getattr(method, "__name__", "")))


def torch_frule(tangents: Any, method: Any, *data: Any, **kw: Any) -> tuple[Any, Any] | None:
    entry = _find(method)
    if entry is None or kw:
        return None
    m, primal, spec = entry
    obj, ndata = method.__self__, len(data)
    Δself = unthunk(tangents[0])
    Δobj = ZeroTangent() if is_zero(Δself) else unthunk(_field(Δself, "__self__"))
    dots = []
    for p in m.params[ndata:]:
        if p not in spec or is_zero(Δobj):
            dots.append(ZeroTangent())
            continue
        fields, _, df = spec[p]
        vals = [getattr(obj, n) for n in fields]
        acc: Any = ZeroTangent()
        for d, n in zip(df(*vals), fields):
            ḟ = unthunk(_field(Δobj, n))
            if not is_zero(ḟ):
                acc = d * ḟ if is_zero(acc) else acc + d * ḟ
        dots.append(acc)
    got = frule((NO, *tangents[1:], *dots), primal, *data, *_params(m, spec, obj, ndata))
    return None if got is None else (method(*data), got[1])


def torch_rrule(method: Any, *data: Any, **kw: Any) -> tuple[Any, Pullback] | None:
    entry = _find(method)
    if entry is None or kw:
        return None
    m, primal, spec = entry
    obj, ndata = method.__self__, len(data)
    got = rrule(primal, *data, *_params(m, spec, obj, ndata))
    if got is None:
        return None
    _, pullback = got

    def torch_pullback(ȳ: Any) -> tuple[Any, ...]:
        g = pullback(ȳ)
        fields: dict[str, Any] = {}
        for p, ḡ in zip(m.params[ndata:], g[1 + ndata:]):
            if p not in spec or is_zero(ḡ) or ḡ is NO:
                continue
            names, _, df = spec[p]
            if not hasattr(ḡ, "shape"):
                fields.update({n: ḡ for n in names})       # not_implemented: for each field it reaches
                continue
            for d, n in zip(df(*[getattr(obj, k) for k in names]), names):
                fields[n] = d * ḡ if n not in fields else fields[n] + d * ḡ
        tangent: Any = Tangent          # parametrized by runtime types (mypy reads them as types)
        self_bar = tangent[type(method)](__self__=tangent[type(obj)](**fields)) if fields else NO
        return (self_bar, *g[1:1 + ndata])

    return method(*data), torch_pullback


def _field(t: Any, name: str) -> Any:
    try:
        return t[name]
    except (KeyError, TypeError, IndexError, AttributeError):
        return ZeroTangent()


def register_for(module: Any) -> None:
    """Register the methods of TORCH's distributions (torch imported); a second call
    does nothing."""
    if _ENTRIES or SKIPPED:
        return
    import torch.distributions as D
    if "torch.special" not in _libs._LIBRARIES:
        _libs.register_for("torch", module)
    lib = _stats_libs._StatsLibrary("torch.distributions", _libs._LIBRARIES["torch.special"])
    by_name = {m.name: m for m in METHODS}
    for cls_name, (dist, spec) in TORCH.items():
        cls = getattr(D, cls_name, None)
        if cls is None:
            continue
        for torch_name, scipy_names in _METHODS.items():
            if getattr(cls, torch_name, None) is getattr(D.Distribution, torch_name, None):
                continue        # torch's Distribution raises NotImplementedError
            m = next((by_name[f"{dist}.{n}"] for n in scipy_names if f"{dist}.{n}" in by_name), None)
            if m is None:
                continue
            lack, series = lib.missing(m)
            vlack, vseries = lib.missing(m, m.value)
            if (series | vseries) & _stats_libs._HOST_VALUES:
                SKIPPED[(cls_name, torch_name)] = "a sum over the support, computed on the host"
                continue
            if lack or vlack or series or vseries:
                SKIPPED[(cls_name, torch_name)] = ", ".join(dict.fromkeys(
                    [*lack, *vlack, *(f"{n} (a series on the host)" for n in sorted(series | vseries))]))
                continue
            primal = PRIMALS.get(m.name)
            if primal is None:
                primal = PRIMALS[m.name] = _primal(lib, m)
                fr, rr = _stats_libs._build(lib, m, primal, list(m.params))
                register_frule(primal, object, ...)(fr)
                register_rrule(primal, object, ...)(rr)
            _ENTRIES[(cls, torch_name)] = (m, primal, spec)
            REGISTERED[(cls_name, torch_name)] = m
    if _ENTRIES:
        from chainrules.rulesets.scipy.stats import frozen
        frozen.BOUND_METHODS.append((torch_frule, torch_rrule))


def table() -> str:
    """The Markdown table of the docs (docs/guide/stats.md, "On PyTorch"): the methods
    registered per distribution, with SciPy's method each runs, and the methods left out."""
    lines = []
    by_class: dict[str, list[str]] = {}
    for (cls_name, method), m in sorted(REGISTERED.items()):
        by_class.setdefault(cls_name, []).append(f"`{method}` ({m.name})")
    lines.append(f"**`torch.distributions`** ({len(REGISTERED)} methods): "
                 + "; ".join(f"`{c}`: {', '.join(ms)}" for c, ms in by_class.items()) + ".")
    if SKIPPED:
        lines.append("")
        lines.append("Not registered on `torch.distributions` (a function their formulas call is missing there): "
                     + "; ".join(f"`{c}.{m}` ({why})" for (c, m), why in sorted(SKIPPED.items())) + ".")
    return "\n".join(lines) + "\n"
