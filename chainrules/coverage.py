"""The coverage census: which functions of NumPy and SciPy have rules.

`python -m chainrules.coverage` prints, per namespace (``numpy``,
``numpy.linalg``, ``numpy.fft``, each SciPy module), how many functions are
differentiable, how many of them have rules, and how many JAX and autograd
have; ``--functions`` adds one line per function (its rules, the arguments
that receive a tangent, the orders, the libraries and adapters). The
documentation's coverage page is written from `census()` at build time.

The definitions, so that a reviewer can check every number:

- **differentiable functions** of a namespace: its public callables (not
  classes, not modules), minus the names listed in `NON_DIFFERENTIABLE`
  (grouped below, with the reason of each group), minus those chainrules'
  own rule set declares non-differentiable (`cr.non_differentiable`: integer,
  boolean and comparison ufuncs, for instance). For ``scipy.special`` only
  ufuncs with a loop whose inputs and outputs are all floating are counted,
  plus its Python functions not listed; for ``scipy.stats``, the density,
  distribution and quantile methods of every distribution object
  (``norm.pdf``…), the only part of ``scipy.stats`` a rule would attach to.
- **rules**: a row of the C scalar table or a registered `frule`/`rrule`
  (not an opt-out) for the function object, or for a distribution method its
  bound or unbound method. **extras**: names with rules that the definition
  does not count as differentiable (shown apart, never in the rule count).
- **arguments**: the positional arguments whose tangent is not `NoTangent()`,
  read from a pullback at a sample point for element-wise functions (ufuncs);
  for other functions the first argument is probed with a small matrix;
  ``?`` where the sample call does not apply (the rule-set reference then
  says which types the rule is registered for).
- **orders**: ``1`` when `chainrules.ad` computes a first derivative at the
  sample point and ``≥2`` when it also computes a second (nested engines,
  through the rule bodies); ``?`` as above.
- **libraries**: NumPy, and every installed array library whose function of
  the same name has a rule (chainrules registers those when the library is
  imported); **adapters**: the `chainrules.interop` adapters that use the
  rule (`to_autograd` on NumPy arrays; `to_jax`, `to_torch` when the
  library's own function has a rule, and `to_jax` on the host for SciPy).
- **JAX**: the differentiable names that the JAX counterpart (``jax.numpy``,
  ``jax.scipy.special``…) also defines. JAX differentiates nearly everything it
  defines, so this counts what JAX has rather than what it differentiates: an
  upper bound. **autograd**: the differentiable names whose autograd
  counterpart (``autograd.numpy``…) is a primitive with a registered VJP
  (``autograd.core.primitive_vjps``). ``—`` when the library is not installed.
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

import chainrules  # noqa: F401  (registers the rule sets)
from chainrules import _core

# ----- the classification, as data -------------------------------------------

# Names that are public callables but not differentiable functions of floating
# inputs, per namespace, one group per reason.  Everything not listed here (and
# not declared non-differentiable by the rule set itself) is counted.
NON_DIFFERENTIABLE: dict[str, dict[str, list[str]]] = {
    "numpy": {
        # arrays made from a shape or a count, not from floating inputs
        "creation by shape": ["arange", "empty", "empty_like", "eye", "identity", "ones",
                              "ones_like", "zeros", "zeros_like", "full", "full_like", "tri",
                              "bartlett", "blackman", "hamming", "hanning", "kaiser", "indices",
                              "fromfunction", "mask_indices"],
        # reading, writing and formatting
        "input, output and text": ["load", "save", "savetxt", "savez", "savez_compressed",
                                   "loadtxt", "genfromtxt", "fromfile", "frombuffer", "fromstring",
                                   "fromregex", "fromiter", "from_dlpack", "array2string",
                                   "array_repr", "array_str", "base_repr", "binary_repr",
                                   "format_float_positional", "format_float_scientific",
                                   "datetime_as_string", "datetime_data", "typename",
                                   "mintypecode", "printoptions", "set_printoptions",
                                   "get_printoptions", "getbufsize", "setbufsize", "geterr",
                                   "seterr", "geterrcall", "seterrcall", "show_config",
                                   "show_runtime", "get_include", "info", "test", "errstate"],
        # questions about dtypes, shapes and memory: the answer is not a float
        "dtypes, shapes and memory": ["can_cast", "common_type", "isdtype", "issubdtype",
                                      "min_scalar_type", "promote_types", "result_type",
                                      "isfortran", "isscalar", "iterable", "may_share_memory",
                                      "shares_memory", "ndim", "shape", "size", "require",
                                      "asmatrix", "bmat", "nested_iters", "frompyfunc",
                                      "apply_over_axes"],
        # integer, boolean and calendar results
        "integers, booleans, calendars": ["bincount", "bitwise_count", "packbits", "unpackbits",
                                          "busday_count", "busday_offset", "is_busday",
                                          "count_nonzero", "histogram", "histogram2d",
                                          "histogramdd", "histogram_bin_edges", "digitize",
                                          "all", "any", "array_equal", "array_equiv",
                                          "allclose", "isclose", "iscomplex", "iscomplexobj",
                                          "isreal", "isrealobj", "isneginf", "isposinf"],
        # indices, not values
        "indices": ["argmax", "argmin", "argsort", "argpartition", "argwhere", "nonzero",
                    "flatnonzero", "lexsort", "searchsorted", "nanargmax", "nanargmin",
                    "diag_indices", "diag_indices_from", "tril_indices", "tril_indices_from",
                    "triu_indices", "triu_indices_from", "unravel_index", "ravel_multi_index",
                    "ix_"],
        # set operations: which values, not how much
        "sets": ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
                 "intersect1d", "union1d", "setdiff1d", "setxor1d", "isin"],
        # write into an argument and return None: no output to differentiate
        "in-place writers": ["copyto", "fill_diagonal", "place", "put", "put_along_axis",
                             "putmask"],
    },
    "numpy.linalg": {
        "integer results": ["matrix_rank"],
        "module test runner": ["test"],
    },
    "numpy.fft": {
        # sample frequencies from a length: creation by shape
        "creation by shape": ["fftfreq", "rfftfreq"],
        "module test runner": ["test"],
    },
    "scipy.special": {
        # integers, tables and zeros of special functions: integer inputs or outputs
        "integers and tables": ["comb", "perm", "factorial", "factorial2", "factorialk",
                                "stirling2", "bernoulli", "euler", "lqn", "lqmn", "clpmn",
                                "lpn", "lpmn", "riccati_jn", "riccati_yn", "pbdn_seq", "pbvv_seq",
                                "mathieu_even_coef", "mathieu_odd_coef", "assoc_laguerre"],
        "zeros and nodes": ["ai_zeros", "bi_zeros", "jn_zeros", "jnp_zeros", "jnjnp_zeros",
                            "jnyn_zeros", "yn_zeros", "ynp_zeros", "y0_zeros", "y1_zeros",
                            "y1p_zeros", "fresnel_zeros", "fresnelc_zeros", "fresnels_zeros",
                            "kelvin_zeros", "klvnzo", "obl_cv_seq", "pro_cv_seq", "mathieu_a",
                            "mathieu_b", "cbrt"],
        # orthogonal polynomial objects and quadrature nodes, made from an order
        "polynomial objects": ["legendre", "chebyt", "chebyu", "chebyc", "chebys", "jacobi",
                               "laguerre", "genlaguerre", "hermite", "hermitenorm", "gegenbauer",
                               "sh_legendre", "sh_chebyt", "sh_chebyu", "sh_jacobi"],
        "configuration": ["geterr", "seterr", "errstate", "get_include"],
    },
    "scipy.linalg": {
        "creation by shape": ["hadamard", "helmert", "hilbert", "invhilbert", "pascal", "invpascal",
                              "dft", "fiedler_companion", "leslie", "convolution_matrix"],
        "integer and boolean results": ["matrix_rank", "issymmetric", "ishermitian", "bandwidth",
                                        "find_best_blas_type", "get_blas_funcs", "get_lapack_funcs"],
        "module test runner": ["test"],
    },
    "scipy.signal": {
        # window functions and waveforms from a length (the window module)
        "creation by shape": ["get_window", "unit_impulse", "max_len_seq", "gausspulse"],
        "indices": ["argrelmin", "argrelmax", "argrelextrema", "find_peaks", "find_peaks_cwt",
                    "peak_prominences", "peak_widths"],
        "configuration": ["choose_conv_method", "check_COLA", "check_NOLA"],
        "module test runner": ["test"],
    },
    "scipy.integrate": {
        # Newton–Cotes weights and the error of a rule, from an order
        "tables": ["newton_cotes"],
        "module test runner": ["test"],
    },
    "scipy.optimize": {
        "checks and printing": ["check_grad", "show_options", "approx_fprime"],
        "module test runner": ["test"],
    },
    "scipy.interpolate": {
        "module test runner": ["test"],
    },
}

# The methods of scipy.stats distributions that are differentiable functions
# of x and of the shape parameters (continuous; discrete: in the parameters).
STATS_METHODS = {"continuous": ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"],
                 "discrete": ["pmf", "logpmf", "cdf", "logcdf", "sf", "logsf"]}

NAMESPACES = ["numpy", "numpy.linalg", "numpy.fft", "scipy.special", "scipy.linalg",
              "scipy.signal", "scipy.integrate", "scipy.optimize", "scipy.interpolate",
              "scipy.stats"]

# Where JAX and autograd keep the same namespace.
JAX_NAMESPACE = {"numpy": "jax.numpy", "numpy.linalg": "jax.numpy.linalg",
                 "numpy.fft": "jax.numpy.fft", **{f"scipy.{m}": f"jax.scipy.{m}" for m in
                 ("special", "linalg", "signal", "integrate", "optimize", "interpolate", "stats")}}
AUTOGRAD_NAMESPACE = {"numpy": "autograd.numpy", "numpy.linalg": "autograd.numpy.linalg",
                      "numpy.fft": "autograd.numpy.fft", **{f"scipy.{m}": f"autograd.scipy.{m}"
                      for m in ("special", "linalg", "signal", "integrate", "stats")}}

# The array libraries whose functions get chainrules' rules on import, and the
# namespace of each that stands for a NumPy namespace (None: it has none).
LIBRARIES: dict[str, dict[str, str]] = {
    "JAX": {"numpy": "jax.numpy", "numpy.linalg": "jax.numpy.linalg",
            "numpy.fft": "jax.numpy.fft", "scipy.special": "jax.scipy.special"},
    "PyTorch": {"numpy": "torch", "numpy.linalg": "torch.linalg", "numpy.fft": "torch.fft",
                "scipy.special": "torch.special"},
    "array-api-strict": {"numpy": "array_api_strict", "numpy.linalg": "array_api_strict.linalg",
                         "numpy.fft": "array_api_strict.fft"},
    "Dask": {"numpy": "dask.array", "numpy.linalg": "dask.array.linalg",
             "numpy.fft": "dask.array.fft"},
}
ADAPTER_OF = {"JAX": "to_jax", "PyTorch": "to_torch"}

ABSENT = "—"


# ----- the census ------------------------------------------------------------

@dataclass
class Function:
    """One differentiable function of a namespace (or a rule on an extra name)."""
    name: str
    rule: str                       # "C table", "frule+rrule", "rrule", "frule" or ""
    arguments: str = "?"
    orders: str = "?"
    libraries: list[str] = field(default_factory=list)
    adapters: list[str] = field(default_factory=list)
    jax: bool | None = None
    autograd: bool | None = None


@dataclass
class Namespace:
    name: str
    installed: bool
    functions: list[Function] = field(default_factory=list)
    extras: list[Function] = field(default_factory=list)
    jax_installed: bool = False
    autograd_installed: bool = False

    @property
    def with_rules(self) -> list[Function]:
        return [f for f in self.functions if f.rule]

    def count(self, engine: str) -> int | None:
        if not (self.jax_installed if engine == "jax" else self.autograd_installed):
            return None
        return sum(1 for f in self.functions if getattr(f, engine))


def _import(name: str) -> Any:
    """The module (or namespace attribute, as array_api_strict.linalg), or None."""
    try:
        return importlib.import_module(name)
    except ImportError:
        parent, _, attr = name.rpartition(".")
        return getattr(_import(parent), attr, None) if parent else None
    except Exception:          # a library that fails on import is as good as absent
        return None


def rule_kind(f: Any) -> str:
    """What answers frule/rrule for f: "C table", "frule+rrule", "rrule", "frule",
    or "" (nothing, only non-differentiable declarations or opt-outs)."""
    try:
        frules, rrules = _core._rules_of(f)
        row = _core._scalar_row(f)
    except TypeError:              # an unhashable callable has no table
        return ""
    if row is not None and row.arities:
        return "C table"
    fr = any(r.kind == 0 for r in frules)
    rr = any(r.kind == 0 for r in rrules)
    return {(True, True): "frule+rrule", (False, True): "rrule", (True, False): "frule"}.get((fr, rr), "")


def declared_non_differentiable(f: Any) -> bool:
    try:
        frules, rrules = _core._rules_of(f)
    except TypeError:
        return False
    rules = frules + rrules
    return bool(rules) and all(r.kind == 1 for r in rules) and _core._scalar_row(f) is None


def _public_callables(mod: Any) -> dict[str, Any]:
    out = {}
    for name in sorted(getattr(mod, "__all__", None) or dir(mod)):
        if name.startswith("_"):
            continue
        obj = getattr(mod, name, None)
        if callable(obj) and not isinstance(obj, (type, types.ModuleType)):
            out[name] = obj
    return out


def _float_ufunc(u: np.ufunc) -> bool:
    """A loop whose inputs and outputs are all floating (real or complex)."""
    return any(set(sig.replace("->", "")) <= set("efdgFDG") for sig in u.types)


def _candidates(ns: str, mod: Any) -> dict[str, Any]:
    """{name: callable} of the differentiable functions of ns (before the rule
    set's own non-differentiable declarations are taken out)."""
    if ns == "scipy.stats":
        out = {}
        for name in sorted(dir(mod)):
            dist = getattr(mod, name)
            kind = ("continuous" if isinstance(dist, mod.rv_continuous) else
                    "discrete" if isinstance(dist, mod.rv_discrete) else None)
            if kind is not None:
                for meth in STATS_METHODS[kind]:
                    out[f"{name}.{meth}"] = getattr(dist, meth)
        return out
    listed = {n for group in NON_DIFFERENTIABLE.get(ns, {}).values() for n in group}
    out = {n: f for n, f in _public_callables(mod).items() if n not in listed}
    if ns == "scipy.special":
        out = {n: f for n, f in out.items() if not isinstance(f, np.ufunc) or _float_ufunc(f)}
    return out


def _stats_rule(f: Any) -> str:
    """A distribution method has rules on the bound method or on its class's function.
    (The rule on every bound method that serves scipy.stats' frozen spelling,
    rulesets/scipy/stats/frozen.py, declines other methods: it does not count.)"""
    registered = getattr(_core, "_registered_functions")()
    own = rule_kind(f) if f in registered else ""
    cls = getattr(type(f.__self__), f.__name__)
    return own or (rule_kind(cls) if cls in registered else "")


# ----- probes: arguments and orders at a sample point -------------------------

SAMPLE_SCALARS = (0.6, 0.7, 0.8, 0.9)
SAMPLE_MATRIX = ((2.0, 0.5), (0.5, 1.5))    # symmetric positive definite, well conditioned


def _probe_ufunc(f: np.ufunc) -> tuple[str, str]:
    from chainrules import ad
    args: list[Any] = list(SAMPLE_SCALARS[: f.nin])
    # a float64 loop that takes integers too (ldexp's exponent, polygamma's order)
    for sig in f.types:
        ins, _, outs = sig.partition("->")
        if "d" in outs and set(ins) <= set("dilq") and "d" in ins:
            args = [a if c == "d" else 2 for a, c in zip(SAMPLE_SCALARS, ins)]
            break
    out = chainrules.rrule(f, *args)
    if out is None:
        return "?", "?"
    grads = out[1](1.0)[1:]
    live = [i for i, g in enumerate(grads) if not isinstance(g, (chainrules.NoTangent,
                                                                 chainrules.NotImplementedTangent))]
    if not live:
        return "none", "?"
    i = live[0]

    def along(t: Any) -> Any:
        return f(*args[:i], t, *args[i + 1:])
    return ", ".join(map(str, live)), _orders(lambda t: ad.derivative(along, t), args[i])


def _real_sum(y: Any) -> Any:
    if isinstance(y, tuple):
        return sum((_real_sum(v) for v in y), 0.0)
    return np.sum(np.real(y))


def _probe_array(f: Callable[..., Any]) -> tuple[str, str]:
    from chainrules import ad
    x = np.array(SAMPLE_MATRIX)
    try:
        f(x)
    except Exception:              # needs more arguments than one array
        return "?", "?"
    return "0", _orders(lambda y: ad.gradient(lambda z: _real_sum(f(z)), y), x)


def _orders(first: Callable[[Any], Any], x: Any) -> str:
    """"1", "≥2" or "?": whether `first` (a first derivative) runs, and runs
    under a second differentiation, at x."""
    from chainrules import ad
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            first(x)
        except Exception:
            return "?"
        try:
            if isinstance(x, np.ndarray):
                ad.jvp(first, (x,), (np.ones_like(x),))
            else:
                ad.derivative(first, x)
        except Exception:
            return "1"
    return "≥2"


def _probe(f: Any, ns: str) -> tuple[str, str]:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if isinstance(f, np.ufunc):
                return _probe_ufunc(f)
            if ns in ("numpy", "numpy.linalg", "numpy.fft"):
                return _probe_array(f)
    except Exception:
        pass
    return "?", "?"


# ----- the counterparts in JAX, autograd and the array libraries --------------

def _has(mod: Any, dotted: str) -> Any:
    obj = mod
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _autograd_vjps() -> Any:
    core = _import("autograd.core")
    return None if core is None else core.primitive_vjps


def census(namespaces: Sequence[str] = NAMESPACES, probe: bool = True) -> list[Namespace]:
    """The census of every namespace (those not installed have no functions)."""
    libs = {lib: {ns: _import(m) for ns, m in spaces.items()} for lib, spaces in LIBRARIES.items()}
    vjps = _autograd_vjps()
    result = []
    for ns in namespaces:
        mod = _import(ns)
        entry = Namespace(ns, installed=mod is not None)
        result.append(entry)
        if mod is None:
            continue
        jax_mod = _import(JAX_NAMESPACE[ns]) if ns in JAX_NAMESPACE else None
        ag_mod = _import(AUTOGRAD_NAMESPACE[ns]) if ns in AUTOGRAD_NAMESPACE else None
        entry.jax_installed = _import("jax") is not None
        entry.autograd_installed = vjps is not None
        listed = {n for group in NON_DIFFERENTIABLE.get(ns, {}).values() for n in group}
        for name, f in _candidates(ns, mod).items():
            if ns != "scipy.stats" and declared_non_differentiable(f):
                continue
            kind = _stats_rule(f) if ns == "scipy.stats" else rule_kind(f)
            row = Function(name, kind)
            if kind:
                row.arguments, row.orders = _probe(f, ns) if probe else ("?", "?")
                row.libraries = ["NumPy"] + [lib for lib, spaces in libs.items()
                                             if rule_kind(_has(spaces.get(ns), name))]
                row.adapters = ["to_autograd"] + [ADAPTER_OF[lib] for lib in row.libraries
                                                  if lib in ADAPTER_OF]
                if ns.startswith("scipy.") and "to_jax" not in row.adapters:
                    row.adapters.append("to_jax (on the host)")
            row.jax = _has(jax_mod, name) is not None if entry.jax_installed else None
            if vjps is not None:
                g = _has(ag_mod, name)
                row.autograd = g is not None and g in vjps
            entry.functions.append(row)
        if ns != "scipy.stats":
            for name, f in _public_callables(mod).items():
                if name in listed and rule_kind(f):
                    entry.extras.append(Function(name, rule_kind(f)))
    return result


# ----- the tables ------------------------------------------------------------

def _n(x: int | None) -> str:
    return ABSENT if x is None else str(x)


SUMMARY_HEADER = ["namespace", "differentiable functions", "with rules", "without",
                  "JAX has", "autograd has"]


def summary_rows(result: Iterable[Namespace]) -> list[list[str]]:
    rows = []
    for ns in result:
        if not ns.installed:
            rows.append([ns.name] + ["not installed"] + [ABSENT] * 4)
            continue
        n, r = len(ns.functions), len(ns.with_rules)
        rows.append([ns.name, str(n), str(r), str(n - r), _n(ns.count("jax")),
                     _n(ns.count("autograd"))])
    return rows


FUNCTION_HEADER = ["function", "rule", "arguments", "orders", "libraries", "adapters",
                   "JAX", "autograd"]


def _mark(b: bool | None) -> str:
    return ABSENT if b is None else ("yes" if b else "no")


def function_rows(ns: Namespace) -> list[list[str]]:
    return [[f.name, f.rule or "no rule", f.arguments if f.rule else "",
             f.orders if f.rule else "", ", ".join(f.libraries), ", ".join(f.adapters),
             _mark(f.jax), _mark(f.autograd)] for f in ns.functions]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows])


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("{:<%d}" % w for w in widths)
    return "\n".join([line.format(*header), line.format(*("-" * w for w in widths))]
                     + [line.format(*r) for r in rows])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m chainrules.coverage",
                                 description="Which functions of NumPy and SciPy have rules "
                                 "(definitions: the docstring of chainrules.coverage).")
    ap.add_argument("namespaces", nargs="*", metavar="NAMESPACE",
                    help=f"namespaces to count (default: all of {', '.join(NAMESPACES)})")
    ap.add_argument("--functions", action="store_true",
                    help="one line per function: rule, arguments, orders, libraries, adapters")
    ap.add_argument("--markdown", action="store_true",
                    help="the counts as a Markdown table (the README's, which a test compares)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.namespaces if n not in NAMESPACES]
    if unknown:
        ap.error(f"unknown namespace {', '.join(unknown)}; choose from {', '.join(NAMESPACES)}")
    result = census(args.namespaces or NAMESPACES, probe=args.functions)
    if args.markdown:
        print("\n".join(markdown_table(SUMMARY_HEADER, summary_rows(result))))
        return 0
    print(_text_table(SUMMARY_HEADER, summary_rows(result)))
    for ns in result:
        if ns.extras:
            print(f"\n{ns.name}: rules on names not counted as differentiable: "
                  + ", ".join(f.name for f in ns.extras))
    if args.functions:
        for ns in result:
            if ns.functions:
                print(f"\n{ns.name}\n" + _text_table(FUNCTION_HEADER, function_rows(ns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
