"""The scipy.stats methods that have rules (chainrules.rulesets.scipy.stats),
exposed in chainrules.ad.scipy.stats: each distribution is a module
(`chainrules.ad.scipy.stats.expon`, importable as autograd's are) whose
functions are SciPy's methods, differentiated on tracked values by their
rules (`library_function`), and which is callable for the frozen spelling:
`stats.t(df, loc, scale).logpdf(x)` calls `stats.t.logpdf(x, df, loc,
scale)` with the parameters positional (so that every one of them, also one
given by keyword, is differentiated).  The modules with formulas of their own
(norm, t, gamma, …) keep them and get the methods they lack."""

from __future__ import annotations

import sys
import types
from typing import Any

import scipy.stats as _st

from chainrules.ad._namespace import library_function
from chainrules.rulesets.scipy.stats import METHODS

# the parameters of the multivariate methods, in SciPy's order, and their defaults
_MULTIVARIATE: dict[str, dict[str, Any]] = {
    "multivariate_normal": {"logpdf": ("x", "mean", "cov", "allow_singular"),
                            "pdf": ("x", "mean", "cov", "allow_singular"), "entropy": ("mean", "cov")},
    "dirichlet": {"logpdf": ("x", "alpha"), "pdf": ("x", "alpha"), "entropy": ("alpha",)},
    "multinomial": {"logpmf": ("x", "n", "p"), "pmf": ("x", "n", "p")},
    "wishart": {"logpdf": ("x", "df", "scale"), "pdf": ("x", "df", "scale")},
    "invwishart": {"logpdf": ("x", "df", "scale"), "pdf": ("x", "df", "scale")},
}
_MULTIVARIATE_DEFAULTS = {"mean": None, "cov": 1.0, "allow_singular": False}


def _method(dist: str, method: str) -> Any:
    """scipy.stats.<dist>.<method>, differentiated on tracked values by its rule."""
    f = library_function(getattr(getattr(_st, dist), method))

    def stats_method(*args: Any, **kwds: Any) -> Any:
        return f(*args, **kwds)

    stats_method.__name__ = stats_method.__qualname__ = method
    stats_method.__module__ = f"chainrules.ad.scipy.stats.{dist}"
    stats_method.__doc__ = (f"scipy.stats.{dist}.{method}, with SciPy's arguments; on values tracked by "
                            "chainrules.ad, differentiated by its rule (chainrules.rulesets.scipy.stats).")
    return stats_method


class Frozen:
    """A distribution with its parameters fixed (`stats.norm(loc, scale)`):
    its methods take the data only."""

    def __init__(self, dist: Any, args: Any, kwds: Any) -> None:
        self.dist, self.args, self.kwds = dist, tuple(args), dict(kwds)

    def __repr__(self) -> str:
        return f"{self.dist.__name__}(*{self.args!r}, **{self.kwds!r})"

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)
        params, defaults = self.dist._params[method]
        f = getattr(self.dist, method)
        lead = 1 if params and params[0] in ("x", "q", "k") else 0

        def frozen_method(*data: Any) -> Any:
            if len(data) != lead:
                raise TypeError(f"{self.dist.__name__}(...).{method}: takes {lead} argument(s), got {len(data)}")
            values = list(self.args)
            rest = params[lead + len(values):]
            unknown = set(self.kwds) - set(rest)
            if unknown:
                raise TypeError(f"{self.dist.__name__}(...): unexpected or repeated parameters {sorted(unknown)}")
            for name in rest:
                if name in self.kwds:
                    values.append(self.kwds[name])
                elif name in defaults:
                    values.append(defaults[name])
                else:
                    raise TypeError(f"{self.dist.__name__}(...).{method}: missing the parameter {name!r}")
            return f(*data, *values)

        frozen_method.__name__ = method
        return frozen_method


class Distribution(types.ModuleType):
    """A module of chainrules.ad.scipy.stats that is also callable: `norm(loc,
    scale)` freezes the parameters (see `Frozen`)."""

    _params: dict[str, Any]

    def __call__(self, *args: Any, **kwds: Any) -> Frozen:
        return Frozen(self, args, kwds)


def install(package: dict[str, Any]) -> list[str]:
    """Give every distribution with rules a module in `package` (the namespace of
    chainrules.ad.scipy.stats), adding the methods the existing modules lack;
    returns the names added."""
    table: dict[str, dict[str, Any]] = {}
    for m in METHODS:
        dist, method = m.name.split(".")
        table.setdefault(dist, {})[method] = (m.params, m.defaults)
    for dist, methods in _MULTIVARIATE.items():
        for method, params in methods.items():
            table.setdefault(dist, {})[method] = (params, _MULTIVARIATE_DEFAULTS)
    added = []
    for dist, methods in table.items():
        qualname = f"{package['__name__']}.{dist}"
        mod = package.get(dist)
        if mod is None:
            mod = Distribution(qualname, f"{qualname}: scipy.stats.{dist}'s methods with rules "
                                         f"({', '.join(methods)}), and the frozen spelling {dist}(...).")
            mod.__all__ = []  # type: ignore[attr-defined]  # a module's attribute
            sys.modules[qualname] = mod
            package[dist] = mod
            added.append(dist)
        elif not isinstance(mod, Distribution):
            mod.__class__ = Distribution
        mod._params = {**getattr(mod, "_params", {}), **methods}
        for method in methods:
            if not hasattr(mod, method):
                setattr(mod, method, _method(dist, method))
                if method not in mod.__all__:
                    mod.__all__.append(method)
    return added
