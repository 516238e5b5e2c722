"""The scipy.special rules on the libraries that have the same functions
(issue 23, item 3): `jax.scipy.special` and `torch.special`.

A row of the table (`special_table`) writes each partial derivative once,
with two names: `sp`, the special functions, and `np`, the array functions.
On SciPy those are scipy.special and NumPy, and the row's functions run as
written (the NumPy path is the table's, unchanged).  On another library the
same functions run with `sp` and `np` bound to that library's namespaces:
each partial (and every helper of the row modules it calls) is rebuilt once
per namespace from its own code object with those two names rebound
(`types.FunctionType(code, globals')`), so there is still one body per
derivative.  The namespace is chosen once per rule call, from the arguments
(`chainrules._xp.namespace`): jax.numpy for JAX arrays and tracers, the
array_api_compat namespace for torch tensors, and the engine's namespace for
values tracked by an enclosing differentiation (the rule differentiated: any
order), around which the library's special functions are wrapped the same way.

A row is registered on a library's function when (a) the library has the
function (`NAMES`: the scipy name, and the library's name for it) and (b)
every `sp.…` and `np.…` its partials call exists there.  A partial that
calls a parameter series of `special_series` (dgammainc_da, dzeta_ds…:
NumPy loops on the host, their length read from the values) gives
`not_implemented(...)` naming the argument on the other libraries; a series
with a version for them (`special_series.ON_LIBRARIES`: dbetainc_dab with a
fixed number of terms, NaN where they have not converged; dzeta_ds's own body,
its branches chosen by `where`) runs there, rebuilt with the library's
namespaces as the partials are.  `SKIPPED` lists, per library, the rows
not registered and the names missing; `NOT_ON_LIBRARY` the arguments that
are host-only there.  Both are computed by reading the partials' bytecode
(the names loaded as attributes of `sp` and `np`), once, when the library is
imported.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import copy
import dis
import sys
import types
from typing import Any

import numpy as np
import scipy.special as sp

from chainrules._core import Tangent, register_frule, register_rrule, unthunk
from chainrules._protocols import Pullback
from chainrules._xp import is_numpy, namespace
from chainrules.rulesets._arrays import NO, ZERO, is_zero, named_rule, output_parts, reject_out, seed
from chainrules.rulesets.elementwise.rules import _arr, _conj, _fit, _projector, _tangent, _zero_for
from chainrules.rulesets.scipy import special as _special
from chainrules.rulesets.scipy import special_series
from chainrules.rulesets.scipy.special_series import dzeta_ds
from chainrules.rulesets.scipy.special_table import INT, NI, ROWS, Row

__all__ = ["NAMES", "LIB_ROWS", "REGISTERED", "SKIPPED", "NOT_ON_LIBRARY", "register_for", "table"]

# ----- the functions of special.py (hand-written NumPy rules) as rows, for the libraries --------
# NumPy keeps its own rules for these; the partials are the same function objects.

_UNARY_PARTIAL = {name: (f, partial, c) for name, f, partial, c in _special._UNARY}


def _xlog_x(log: Any) -> Any:
    def d(x: Any, y: Any, o: Any) -> Any:
        return log(y)
    return d


def _xlog_y(shift: float) -> Any:
    def d(x: Any, y: Any, o: Any) -> Any:
        at0 = x == 0
        return np.where(at0, 0.0, x / np.where(at0, 1.0, y + shift))
    return d


LIB_ROWS = [Row(f, name, "x", partial, holomorphic=c) for name, (f, partial, c) in _UNARY_PARTIAL.items()]
LIB_ROWS += [
    Row(sp.polygamma, "polygamma", "n, x", INT, lambda n, x, o: _special._dpolygamma(n, x)),
    Row(_special._zeta, "zeta", "x, q", lambda s, q, o: dzeta_ds(s, q),
        lambda s, q, o: -s * _special._zeta(s + 1.0, q)),
    Row(sp.xlogy, "xlogy", "x, y", lambda x, y, o: np.log(y), _xlog_y(0.0)),
    Row(sp.xlog1py, "xlog1py", "x, y", lambda x, y, o: np.log1p(y), _xlog_y(1.0)),
]

# ----- which library function is which scipy.special function ------------------------------

_SAME = "same"
# scipy name -> the library's name (in its special module), per library; `torch.special`
# names its Bessel functions otherwise and takes polygamma's and multigammaln's order as an int
NAMES: dict[str, dict[str, Any]] = {
    "jax.scipy.special": {n: n for n in (
        "gammaln", "gamma", "digamma", "polygamma", "erf", "erfc", "erfinv", "ndtr", "log_ndtr", "ndtri",
        "expit", "logit", "entr", "zeta", "xlogy", "xlog1py", "boxcox", "boxcox1p", "rel_entr", "kl_div",
        "beta", "betaln", "gammasgn", "loggamma", "poch", "multigammaln", "gammainc", "gammaincc",
        "betainc", "erfcx", "dawsn", "wofz", "owens_t", "i0", "i1", "i0e", "i1e", "exp1", "expi", "expn",
        "sici", "fresnel", "spence", "hyp1f1", "hyp2f1")},
    "torch.special": {
        "gammaln": "gammaln", "digamma": "digamma", "polygamma": "polygamma", "erf": "erf", "erfc": "erfc",
        "erfcx": "erfcx", "erfinv": "erfinv", "ndtr": "ndtr", "ndtri": "ndtri", "log_ndtr": "log_ndtr",
        "expit": "expit", "logit": "logit", "entr": "entr", "zeta": "zeta", "xlogy": "xlogy",
        "xlog1py": "xlog1py", "expm1": "expm1", "log1p": "log1p", "exp2": "exp2", "gammainc": "gammainc",
        "gammaincc": "gammaincc", "multigammaln": "multigammaln", "i0": "i0", "i1": "i1", "i0e": "i0e",
        "i1e": "i1e", "j0": "bessel_j0", "j1": "bessel_j1", "y0": "bessel_y0", "y1": "bessel_y1",
        "k0": "modified_bessel_k0", "k1": "modified_bessel_k1", "k0e": "scaled_modified_bessel_k0",
        "k1e": "scaled_modified_bessel_k1"},
}
# NumPy's names that the standard (array_api_compat's torch namespace) spells otherwise
_NUMPY_ALIASES = {"power": "pow", "arctan": "atan", "arcsin": "asin", "arccos": "acos", "arctanh": "atanh",
                  "arcsinh": "asinh", "arccosh": "acosh", "arctan2": "atan2", "absolute": "abs"}
# globals of the row modules bound to a SciPy function by another name than sp.<name>
_REBIND = {"_zeta": "zeta"}

REGISTERED: dict[str, dict[str, Any]] = {}      # library -> {scipy name: library function}
SKIPPED: dict[str, dict[str, str]] = {}         # library -> {scipy name: the missing names}
NOT_ON_LIBRARY: dict[str, dict[str, list[str]]] = {}   # library -> {scipy name: host-only arguments}


def _library_special(label: str, module: Any) -> Any:
    """The library's special functions under scipy's names (a namespace)."""
    fns: dict[str, Any] = {}
    for name, lib_name in NAMES[label].items():
        f = getattr(module, lib_name, None)
        if f is not None:
            fns[name] = f
    if label == "torch.special":
        polygamma: Any = fns.get("polygamma")
        multigammaln: Any = fns.get("multigammaln")

        def torch_polygamma(n: Any, x: Any) -> Any:
            return polygamma(int(n), x)

        def torch_multigammaln(a: Any, d: Any) -> Any:
            return multigammaln(a, int(d))
        if polygamma is not None:
            fns["polygamma"] = torch_polygamma
        if multigammaln is not None:
            fns["multigammaln"] = torch_multigammaln
        gammaln: Any = fns.get("gammaln")

        def torch_betaln(a: Any, b: Any) -> Any:
            # not in torch.special: for the partials that call it (Beta's log_prob and
            # entropy, StudentT's entropy), written as torch's own Beta.log_prob writes it;
            # a number beside a tensor takes the tensor's dtype (torch.special wants tensors)
            import torch
            like = a if isinstance(a, torch.Tensor) else b
            dtype = like.dtype if isinstance(like, torch.Tensor) else torch.float64
            if isinstance(a, (int, float)):
                a = torch.as_tensor(a, dtype=dtype)
            if isinstance(b, (int, float)):
                b = torch.as_tensor(b, dtype=dtype)
            return gammaln(a) + gammaln(b) - gammaln(a + b)
        if gammaln is not None:
            fns.setdefault("betaln", torch_betaln)
    ns = types.SimpleNamespace(**fns)
    ns.__name__ = label
    return ns


class _NumpyNames:
    """An array namespace read with NumPy's names (np.power is xp.pow)."""

    def __init__(self, xp: Any) -> None:
        self._xp = xp
        self.__name__ = getattr(xp, "__name__", "xp")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        f = getattr(self._xp, _NUMPY_ALIASES.get(name, name))
        setattr(self, name, f)
        return f


# ----- what a partial calls, read from its bytecode ------------------------------------------

_OUR_MODULES = ("chainrules.rulesets.scipy.special", "chainrules.rulesets.scipy.special_rows_basic",
                "chainrules.rulesets.scipy.special_rows_bessel", "chainrules.rulesets.scipy.special_rows_other",
                "chainrules.rulesets.scipy.special_libs", "chainrules.rulesets.scipy.stats.continuous",
                "chainrules.rulesets.scipy.stats.discrete")


def _ours(f: Any) -> bool:
    return isinstance(f, types.FunctionType) and f.__module__ in _OUR_MODULES


def _special_name(v: Any) -> str | None:
    """The scipy.special name of v, a function of scipy.special held as a value (a
    distribution's `cdf=sp.ndtr`), else None."""
    name = getattr(v, "__name__", None)
    return name if isinstance(name, str) and getattr(sp, name, None) is v else None


def _on_library(v: Any, g: dict[str, Any]) -> Any:
    """What a function of special_series that g's code calls runs on another library: its
    version there (`special_series.ON_LIBRARIES`), or itself for a helper that such a
    version calls (special_series' own code); None for a series that runs on the host only."""
    if not isinstance(v, types.FunctionType) or v.__module__ != special_series.__name__:
        return None
    if v.__name__ in special_series.ON_LIBRARIES:
        return special_series.ON_LIBRARIES[v.__name__]
    if g is vars(special_series) and v.__name__ != "_plain":
        return v
    return None


def _holder(v: Any) -> bool:
    """An object of the row modules holding partials as attributes (a scipy.stats
    distribution's standard form, captured by the closures of its methods)."""
    return not isinstance(v, type) and type(v).__module__ in _OUR_MODULES and hasattr(v, "__dict__")


def _calls(fn: Any, seen: set[Any] | None = None) -> tuple[set[str], set[str], set[str]]:
    """(the sp names, the np names, the special_series functions) that fn calls, with
    the helpers of the row modules it calls and the functions it defines inside."""
    seen = set() if seen is None else seen
    sps: set[str] = set()
    nps: set[str] = set()
    series: set[str] = set()

    def code(c: Any, g: dict[str, Any], cells: dict[str, Any]) -> None:
        if c in seen:
            return
        seen.add(c)
        ins = list(dis.get_instructions(c))
        for i, op in enumerate(ins):
            if op.opname == "LOAD_DEREF" and _holder(cells.get(op.argval)):
                # a holder's attribute: only the partials read from it count
                nxt = ins[i + 1] if i + 1 < len(ins) else None
                held = cells[op.argval]
                held_values = ([getattr(held, nxt.argval, None)] if nxt is not None
                               and nxt.opname in ("LOAD_ATTR", "LOAD_METHOD") else list(vars(held).values()))
                for v in held_values:
                    if _ours(v):
                        visit(v)
                    elif _special_name(v):
                        sps.add(_special_name(v))  # type: ignore[arg-type]  # a str here
            elif op.opname == "LOAD_GLOBAL":
                name = op.argval
                nxt = ins[i + 1] if i + 1 < len(ins) else None
                if name in ("sp", "np") and nxt is not None and nxt.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                    (sps if name == "sp" else nps).add(nxt.argval)
                elif name in _REBIND:
                    sps.add(_REBIND[name])
                else:
                    v = g.get(name)
                    if isinstance(v, types.FunctionType):
                        if _on_library(v, g) is not None:
                            visit(_on_library(v, g))
                        elif v.__module__ == special_series.__name__:
                            series.add(name)
                        elif _ours(v):
                            visit(v)
            elif op.opname == "LOAD_ATTR" and i and ins[i - 1].opname == "LOAD_GLOBAL":
                owner = g.get(ins[i - 1].argval)
                if owner is _special and op.argval in ("_zeta",):
                    sps.add("zeta")
                elif owner is _special or owner is special_series:
                    v = getattr(owner, op.argval, None)
                    if owner is special_series:
                        series.add(op.argval)
                    elif _ours(v):
                        visit(v)
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                code(k, g, cells)

    def visit(f: Any) -> None:
        cells: dict[str, Any] = {}
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            try:
                cells[name] = v = cell.cell_contents
            except ValueError:
                continue
            if _ours(v):
                visit(v)
            elif _special_name(v):
                sps.add(_special_name(v))  # type: ignore[arg-type]  # a str here
        for v in (*(f.__defaults__ or ()), *(f.__kwdefaults__ or {}).values()):
            if _ours(v):
                visit(v)
        code(f.__code__, f.__globals__, cells)

    visit(fn)
    return sps, nps, series


# ----- the partials rebuilt with a library's sp and np -------------------------------------

class _Env:
    """The partials of the rows with `sp` and `np` bound to one library's namespaces."""

    def __init__(self, sp_ns: Any, np_ns: Any) -> None:
        self.sp = sp_ns
        self.np = np_ns
        self._globals: dict[int, dict[str, Any]] = {}
        self._clones: dict[Any, Any] = {}

    def globals_of(self, g: dict[str, Any]) -> dict[str, Any]:
        new = self._globals.get(id(g))
        if new is None:
            new = self._globals[id(g)] = dict(g)
            new["sp"], new["np"] = self.sp, self.np
            for name, lib_name in _REBIND.items():
                if name in new:
                    new[name] = getattr(self.sp, lib_name, None)
            for name, v in g.items():
                if _ours(v):
                    new[name] = self.clone(v)
                elif _on_library(v, g) is not None:
                    new[name] = self.clone(_on_library(v, g))
                elif v is _special:
                    new[name] = types.SimpleNamespace(
                        _zeta=getattr(self.sp, "zeta", None),
                        **{k: self.clone(f) for k, f in vars(_special).items() if _ours(f)})
        return new

    def clone(self, f: Any) -> Any:
        c = self._clones.get(f)
        if c is None:
            g = self.globals_of(f.__globals__)       # may clone f itself (a module's function)
            c = self._clones.get(f)
            if c is None:
                closure = tuple(types.CellType(self._value(cell.cell_contents)) for cell in f.__closure__ or ())
                defaults = None if f.__defaults__ is None else tuple(self._value(v) for v in f.__defaults__)
                c = types.FunctionType(f.__code__, g, f.__name__, defaults, closure or None)
                c.__kwdefaults__ = None if f.__kwdefaults__ is None else \
                    {k: self._value(v) for k, v in f.__kwdefaults__.items()}
                self._clones[f] = c
        return c

    def _value(self, v: Any) -> Any:
        """A closure's or default's value in this environment: our functions and
        holders cloned, anything else as it is."""
        if _ours(v):
            return self.clone(v)
        name = _special_name(v)
        if name is not None:
            return getattr(self.sp, name, v)
        if _holder(v):
            c = self._clones.get(id(v))
            if c is None:
                c = self._clones[id(v)] = copy.copy(v)
                for name, f in vars(v).items():
                    if _ours(f) or _special_name(f):
                        setattr(c, name, self._value(f))
            return c
        return v


class _Library:
    """One library: its special functions under scipy's names, and the partials'
    namespaces for each array namespace its values come in (plain or tracked)."""

    def __init__(self, label: str, special: Any, xp: Any) -> None:
        self.label = label
        self.special = special          # a namespace of scipy names
        self.xp = xp                    # the library's array namespace (namespace() of its arrays)
        self._envs: dict[Any, _Env] = {}

    def numpy_names(self, xp: Any) -> Any:
        return xp if self.label.startswith("jax") else _NumpyNames(xp)

    def env(self, xp: Any) -> _Env:
        e = self._envs.get(xp)
        if e is None:
            # a namespace seen through an engine (it holds the library's as `_xp`, as
            # chainrules._xp.namespace reads it) wraps the special functions the same way
            sp_ns = self.special if getattr(xp, "_xp", None) is None else type(xp)(self.special)
            e = self._envs[xp] = _Env(sp_ns, self.numpy_names(xp))
        return e

    def missing(self, row: Row, i: int) -> tuple[list[str], list[str]]:
        """(the names partial i of row calls that the library lacks, the series it calls)."""
        sps, nps, series = _calls(row.partials[i])
        xp = self.numpy_names(self.xp)
        lack = [f"sp.{n}" for n in sorted(sps) if not hasattr(self.special, n)]
        lack += [f"np.{n}" for n in sorted(nps) if not hasattr(xp, n)]
        return lack, sorted(series)


def _numbers_only(xp: Any) -> bool:
    return xp is np or is_numpy(xp)


def _build(lib: _Library, r: Row, fn: Any, host_only: tuple[int, ...]) -> tuple[Any, Any]:
    """The frule and rrule of row r on the library function fn; the arguments in
    host_only have a not_implemented tangent (their partial is a NumPy series)."""
    fname = f"{lib.label}.{r.name}"
    k = r.outputs
    partials = [NI if i in host_only else p for i, p in enumerate(r.partials)]

    def ni(i: int) -> Any:
        from chainrules._core import not_implemented
        where = " (a series computed on the host, for NumPy arrays only)" if i in host_only else ""
        return not_implemented(f"{fname}: the derivative in {r.params[i]}{where}")

    def start(args: Any, kw: Any) -> Any:
        reject_out(fname, kw)
        if len(args) > len(r.params):
            raise TypeError(f"{fname}: too many arguments ({len(args)} for {len(r.params)})")
        xp = namespace(*args)
        Ω = None
        if _numbers_only(xp):           # numbers or NumPy arrays given to the library's function
            Ω = fn(*args, **kw)
            xp = namespace(Ω[0] if k > 1 else Ω)
        e = lib.env(xp)
        if Ω is None:
            Ω = getattr(e.sp, r.name)(*args, **kw)
        outs = tuple(Ω) if k > 1 else (Ω,)
        if not r.holomorphic and any(_complex_array(xp, a) for a in args):
            return None
        vals = [a if partials[i] is INT else _arr(xp, a, outs[0]) for i, a in enumerate(args)]
        for name in r.params[len(args):]:
            if name in kw:
                vals.append(kw[name])
            elif name in r.defaults:
                vals.append(r.defaults[name])
            else:
                raise TypeError(f"{fname}: missing the argument {name}")
        return xp, e, Ω, outs, vals

    def partial(e: _Env, i: int, vals: Any, outs: Any) -> Any:
        p = partials[i]
        if p is NI:
            return NI
        d = e.clone(p)(*vals, *outs)
        return d if d is NI or k > 1 else (d,)

    def lib_frule(tangents: Any, *args: Any, **kw: Any) -> tuple[Any, Any] | None:
        s = start(args, kw)
        if s is None:
            return None
        xp, e, Ω, outs, vals = s
        dots = [unthunk(t) for t in tangents[1:len(args) + 1]]
        live = [i for i, ẋ in enumerate(dots) if not is_zero(ẋ) and partials[i] is not INT]
        if not live:
            return Ω, ZERO
        acc: list[Any] = [None] * k
        for i in live:
            d = partial(e, i, vals, outs)
            if d is NI:
                return Ω, ni(i)
            ẋ = _tangent(xp, dots[i], vals[i])
            for j, dj in enumerate(d):
                t = dj * ẋ
                acc[j] = t if acc[j] is None else acc[j] + t
        tangent = [_fit(xp, outs[j], acc[j]) for j in range(k)]
        return Ω, (Tangent[tuple](*tangent) if k > 1 else tangent[0])  # type: ignore[type-arg]

    def lib_rrule(*args: Any, **kw: Any) -> tuple[Any, Pullback] | None:
        s = start(args, kw)
        if s is None:
            return None
        xp, e, Ω, outs, vals = s
        projs = [_projector(xp, a, vals[i]) if partials[i] is not INT else None for i, a in enumerate(args)]

        def lib_pullback(ȳ: Any) -> tuple[Any, ...]:
            parts = output_parts(ȳ, k, fname) if k > 1 else (seed(ȳ, r.name),)
            live = [j for j, p in enumerate(parts) if not is_zero(p)]
            grads: list[Any] = [NO]
            for i, p in enumerate(projs):
                if p is None or not p.kind:
                    grads.append(NO)
                elif not live:
                    grads.append(_zero_for(p))
                else:
                    d = partial(e, i, vals, outs)
                    if d is NI:
                        grads.append(ni(i))
                        continue
                    g: Any = None
                    for j in live:
                        t = _conj(xp, d[j]) * _tangent(xp, unthunk(parts[j]), outs[j])
                        g = t if g is None else g + t
                    grads.append(p(g))
            return tuple(grads)

        return Ω, lib_pullback

    return named_rule(lib_frule, r.name), named_rule(lib_rrule, r.name)


def _complex_array(xp: Any, a: Any) -> bool:
    if isinstance(a, complex):
        return True
    dtype = getattr(a, "dtype", None)
    return dtype is not None and xp.isdtype(dtype, "complex floating")


# ----- registration, when the library is imported ---------------------------------------------

_LIBRARIES: dict[str, _Library] = {}


def _rows() -> list[Row]:
    return [*LIB_ROWS, *ROWS]


def _register_library(label: str, special_module: Any, xp: Any) -> None:
    lib = _LIBRARIES[label] = _Library(label, _library_special(label, special_module), xp)
    done, skipped, host = REGISTERED.setdefault(label, {}), SKIPPED.setdefault(label, {}), \
        NOT_ON_LIBRARY.setdefault(label, {})
    for r in _rows():
        if r.name not in NAMES[label] or r.name in done:
            continue
        fn = getattr(special_module, NAMES[label][r.name], None)
        if fn is None:
            continue
        lack: list[str] = []
        host_only = []
        for i, p in enumerate(r.partials):
            if p is INT or p is NI:
                continue
            missing, series = lib.missing(r, i)
            lack += [m for m in missing if m not in lack]
            if series:
                host_only.append(i)
        if lack:
            skipped[r.name] = ", ".join(lack)
            continue
        fr, rr = _build(lib, r, fn, tuple(host_only))
        targets = [fn]
        stand_in = getattr(lib.special, r.name)
        if stand_in is not fn:
            targets.append(stand_in)     # torch's polygamma(n, x) with n an int: a nested call reaches it
        for f in targets:
            register_frule(f, object, ...)(fr)
            register_rrule(f, object, ...)(rr)
        done[r.name] = fn
        if host_only:
            host[r.name] = [r.params[i] for i in host_only]


def register_for(module_name: str, module: Any) -> None:
    """Register the rows on the imported library `module_name` ("jax.scipy.special",
    "torch"); any other name does nothing, and so does a second call."""
    if module_name == "jax.scipy.special" and "jax.scipy.special" not in _LIBRARIES:
        _register_library("jax.scipy.special", module, sys.modules["jax.numpy"])
    elif module_name == "torch" and "torch.special" not in _LIBRARIES:
        import array_api_compat.torch as compat_torch
        _register_library("torch.special", module.special, compat_torch)


def table() -> str:
    """The Markdown table of the docs (docs/guide/special.md, "On other libraries"):
    per library, the functions registered, the arguments computed on the host only,
    and the rows left out with the names the library lacks."""
    lines = []
    for label in NAMES:
        done = REGISTERED.get(label, {})
        host = NOT_ON_LIBRARY.get(label, {})

        def entry(n: str) -> str:
            lib_name = NAMES[label][n]
            notes = [f"scipy's {n}"] if lib_name != n else []
            notes += [f"not in {', '.join(host[n])}"] if n in host else []
            return f"`{lib_name}`" + (f" ({'; '.join(notes)})" if notes else "")
        lines.append(f"**`{label}`** ({len(done)} functions): "
                     + ", ".join(entry(n) for n in sorted(done, key=lambda n: NAMES[label][n])) + ".")
        lines.append("")
        skipped = SKIPPED.get(label, {})
        if skipped:
            lines.append(f"Not registered on `{label}` (a function their derivatives call is missing there): "
                         + "; ".join(f"`{n}` ({m})" for n, m in sorted(skipped.items())) + ".")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
