"""The scipy.stats rules on the libraries that have the same functions
(issue 23, item 3): `jax.scipy.stats`.

A method of a scipy.stats distribution has one rule body (`_build.Method`:
its value and one partial per parameter, written with `np` and `sp`); on
`jax.scipy.stats` the same partials run with `np` and `sp` bound to
jax.numpy and JAX's special functions, rebuilt from their code objects as
the scipy.special rows are (`special_libs._Env`: the distribution's
standard form, captured by the method's closures, is rebuilt the same way).
So a JAX function gets the rule of SciPy's method of the same name, with
JAX's own primal (`jax.scipy.stats.norm.logpdf(x, loc, scale)` computes the
value; the partials are ours, evaluated with jax.numpy: they trace under
`jax.jit`).  Values tracked by an enclosing differentiation (the rule
differentiated) go through that engine's namespace: every order works.

A method is registered when the library has it, its positional parameters
are the first of SciPy's (`vonmises.logpdf(x, kappa)`: loc and scale at
their defaults), and every `sp.…`/`np.…` its partials call exists there
(`SKIPPED` says which are missing).  The parameter series of
`special_series` they call (the incomplete gamma and beta functions in
their parameters: the `cdf`s of gamma, chi2, beta, gennorm…) run there in
their fixed-length form (`special_series.ON_LIBRARIES`); a method calling
a series that runs on the host only (the discrete distributions' sums over
the support, the entropies without a closed form) is not registered.

`multivariate_normal` and `dirichlet` (`logpdf`, `pdf`) are not elementwise:
their rules (multivariate.py) are written with an array namespace `xp`
(NumPy's, jax.numpy and jnp.linalg here) and registered on the library's
functions with it (`HAND_WRITTEN`): one body for both.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import contextlib
import importlib
import inspect
import types
from typing import Any

from chainrules._core import register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules._xp import namespace
from chainrules.rulesets._arrays import NO, ZERO, is_zero, named_rule, reject_out, seed
from chainrules.rulesets.elementwise.rules import _arr, _fit, _projector, _tangent, _zero_for
from chainrules.rulesets.scipy import special_libs as _libs
from chainrules.rulesets.scipy.stats import multivariate
from chainrules.rulesets.scipy.stats._build import METHODS, Method, fill_parameters

__all__ = ["REGISTERED", "SKIPPED", "HAND_WRITTEN", "register_for", "table"]

LIBRARIES = {"jax.scipy.stats": "jax.scipy.special"}     # the stats module -> its special functions

REGISTERED: dict[str, dict[str, Any]] = {}      # library -> {"norm.logpdf": the library's function}
SKIPPED: dict[str, dict[str, str]] = {}         # library -> {"gennorm.cdf": why not}
# library -> {"dirichlet.logpdf": the library's function}: the hand-written rules of
# multivariate.py (not elementwise: not `Method`s), their body run with the library's namespaces
HAND_WRITTEN: dict[str, dict[str, Any]] = {}

# special_series' functions that are not a derivative (the support's bounds of a sum: host only)
_HOST_VALUES = frozenset({"_plain"})


class _NumpyAndErrstate:
    """An array namespace with NumPy's `errstate` (a no-op: the library has no
    floating-point error flags)."""

    def __init__(self, xp: Any) -> None:
        self._inner = xp
        self.__name__ = getattr(xp, "__name__", "xp")

    @staticmethod
    def errstate(**kw: Any) -> Any:
        return contextlib.nullcontext()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        f = getattr(self._inner, name)
        setattr(self, name, f)
        return f


class _StatsLibrary:
    """One library: the special functions' library of special_libs, and the
    partials' environments per array namespace (series stood in for)."""

    def __init__(self, label: str, special: Any) -> None:
        self.label = label
        self.special = special          # special_libs._Library
        self._envs: dict[Any, Any] = {}

    def env(self, xp: Any) -> Any:
        e = self._envs.get(xp)
        if e is None:
            base = self.special.env(xp)
            e = self._envs[xp] = _libs._Env(base.sp, _NumpyAndErrstate(base.np))
        return e

    def missing(self, m: Method, fn: Any = None) -> tuple[list[str], set[str]]:
        """(the names the partials of m (or fn) call that the library lacks, the series they call)."""
        sps, nps, series = _libs._calls(m.partials if fn is None else fn)
        xp = _NumpyAndErrstate(self.special.numpy_names(self.special.xp))
        lack = [f"sp.{n}" for n in sorted(sps) if not hasattr(self.special.special, n)]
        lack += [f"np.{n}" for n in sorted(nps) if not hasattr(xp, n)]
        return lack, series


def _lib_params(fn: Any, m: Method) -> list[str] | None:
    """The library function's parameters, when they are the first of SciPy's method's
    (the data may have another name: jax.scipy.stats.logistic.ppf(x, loc, scale))."""
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    same = names[1:] == list(m.params[1:len(names)])
    return names if same and (names[0] == m.params[0] or m.name.split(".")[1] != "entropy") else None


def _build(lib: _StatsLibrary, m: Method, fn: Any, names: list[str]) -> tuple[Any, Any]:
    """The frule and rrule of SciPy's method m on the library function fn (parameters
    `names`)."""
    fname = f"{lib.label}.{m.name}"

    def start(args: Any, kw: Any) -> Any:
        reject_out(fname, kw)
        if len(args) > len(names):
            raise TypeError(f"{fname}: too many arguments ({len(args)} for {len(names)})")
        given = {m.params[names.index(k)] if k in names else k: v for k, v in kw.items()}
        # (the counts may come as NumPy arrays or numbers: JAX takes them so)
        counts = {m.params[i] for i in m.ints}
        xp = namespace(*[a for i, a in enumerate(args) if i not in m.ints],
                       *[v for k, v in given.items() if k not in counts])
        if _libs._numbers_only(xp):
            xp = namespace(*args, *kw.values())     # numbers, and the library's counts
        if getattr(xp, "_xp", None) is None:    # the library's arrays, numbers, NumPy arrays
            Ω = fn(*args, **kw)
            xp = namespace(Ω)
        else:                                   # tracked by an enclosing differentiation: its own call
            Ω = type(xp)(types.SimpleNamespace(f=fn)).f(*args, **kw)
        vals = [a if i in m.ints else _arr(xp, a, Ω) for i, a in enumerate(args)]
        return xp, Ω, fill_parameters(m, fname, vals, given, lambda i, v: v if i in m.ints else _arr(xp, v, Ω))

    def partials(xp: Any, Ω: Any, vals: Any) -> list[Any]:
        ds = lib.env(xp).clone(m.partials)(*vals, Ω)
        bad = xp.isnan(Ω)
        return [d if d is None else xp.where(bad, float("nan"), d) for d in ds]

    def lib_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        xp, Ω, vals = start(args, kw)
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]]
        live = [i for i, ẋ in enumerate(dots) if not is_zero(ẋ) and i not in m.ints]
        if not live:
            return Ω, ZERO
        ds = partials(xp, Ω, vals)
        acc: Any = None
        for i in live:
            t = ds[i] * _tangent(xp, dots[i], vals[i])
            acc = t if acc is None else acc + t
        return Ω, _fit(xp, Ω, acc)

    def lib_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        xp, Ω, vals = start(args, kw)
        projs = [None if i in m.ints else _projector(xp, a, vals[i]) for i, a in enumerate(args)]

        def lib_pullback(ȳ: Any) -> tuple[Any, ...]:
            ȳ = seed(ȳ, m.name)
            grads: list[Any] = [NO]
            ds = None
            for i, p in enumerate(projs):
                if p is None or not p.kind:
                    grads.append(NO)
                elif is_zero(ȳ):
                    grads.append(_zero_for(p))
                else:
                    ds = partials(xp, Ω, vals) if ds is None else ds
                    grads.append(p(ds[i] * _tangent(xp, unthunk(ȳ), Ω)))
            return tuple(grads)

        return Ω, lib_pullback

    rule_name = m.name.replace(".", "_")
    return named_rule(lib_frule, rule_name), named_rule(lib_rrule, rule_name)


# ----- registration, when the library is imported ---------------------------------------------

_LIBRARIES: dict[str, _StatsLibrary] = {}


def _register_library(label: str, module: Any) -> None:
    special_label = LIBRARIES[label]
    if special_label not in _libs._LIBRARIES:      # its import registers it (the import hook)
        _libs.register_for(special_label, importlib.import_module(special_label))
    lib = _LIBRARIES[label] = _StatsLibrary(label, _libs._LIBRARIES[special_label])
    done, skipped = REGISTERED.setdefault(label, {}), SKIPPED.setdefault(label, {})
    for m in METHODS:
        dist_name, method_name = m.name.split(".")
        fn = getattr(getattr(module, dist_name, None), method_name, None)
        if fn is None or m.name in done:
            continue
        names = _lib_params(fn, m)
        if names is None:
            skipped[m.name] = "its parameters are not SciPy's"
            continue
        lack, series = lib.missing(m)
        if series & _HOST_VALUES:
            skipped[m.name] = "a sum over the support, computed on the host"
            continue
        if lack or series:
            skipped[m.name] = ", ".join([*lack, *(f"{n} (a series on the host)" for n in sorted(series))])
            continue
        fr, rr = _build(lib, m, fn, names)
        register_frule(fn, object, ...)(fr)
        register_rrule(fn, object, ...)(rr)
        done[m.name] = fn
    _register_hand_written(label, module, lib)


def _register_hand_written(label: str, module: Any, lib: _StatsLibrary) -> None:
    """multivariate_normal's and dirichlet's logpdf and pdf: multivariate.py's rules with
    the library's array namespace (and special functions, for dirichlet's digamma)."""
    xp, xsp = lib.special.xp, importlib.import_module(LIBRARIES[label])
    done = HAND_WRITTEN.setdefault(label, {})
    for method_name in ("logpdf", "pdf"):
        exp = method_name == "pdf"
        fn = getattr(getattr(module, "multivariate_normal", None), method_name, None)
        if fn is not None:
            multivariate._mvn_rules(fn, method_name, exp, xp, label=label)
            done[f"multivariate_normal.{method_name}"] = fn
        fn = getattr(getattr(module, "dirichlet", None), method_name, None)
        if fn is not None:
            multivariate._dir_rules(fn, method_name, exp, xp, xsp, label=label)
            done[f"dirichlet.{method_name}"] = fn


def register_for(module_name: str, module: Any) -> None:
    """Register the methods on the imported library `module_name` ("jax.scipy.stats",
    "torch": its distributions, torch_distributions.py); any other name does nothing,
    and so does a second call."""
    if module_name in LIBRARIES and module_name not in _LIBRARIES:
        _register_library(module_name, module)
    elif module_name == "torch":
        from chainrules.rulesets.scipy.stats import torch_distributions
        torch_distributions.register_for(module)


def table() -> str:
    """The Markdown table of the docs (docs/guide/stats.md, "On JAX"): per library, the
    methods registered and the methods left out with the reason."""
    lines = []
    for label in LIBRARIES:
        done = REGISTERED.get(label, {})
        lines.append(f"**`{label}`** ({len(done)} methods): "
                     + ", ".join(f"`{n}`" for n in sorted(done)) + ".")
        lines.append("")
        hand = HAND_WRITTEN.get(label, {})
        if hand:
            lines.append(f"Multivariate, on `{label}` (their hand-written rules, computed with its namespace): "
                         + ", ".join(f"`{n}`" for n in sorted(hand)) + ".")
            lines.append("")
        skipped = SKIPPED.get(label, {})
        if skipped:
            lines.append(f"Not registered on `{label}`: "
                         + "; ".join(f"`{n}` ({why})" for n, why in sorted(skipped.items())) + ".")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
