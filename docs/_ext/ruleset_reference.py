"""Sphinx extension: the rule-set reference, written from the registry.

At `builder-inited` (before any page is read) it imports chainrules and the
optional libraries whose import registers more rules (scipy.special), walks
`chainrules._core._registered_functions()` and writes
`reference/rulesets.md`: every function with a rule, grouped by the module it
belongs to, with what answers `frule` and `rrule` for it (a row of the C
scalar table, a Python rule and the argument types it is registered for,
`non_differentiable`, `opt_out`, a rule that needs a RuleConfig).  The page is
generated on every build, so it cannot drift from the code; it is not
committed (.gitignore).

`python docs/_ext/ruleset_reference.py OUT.md` writes the same page without
Sphinx.
"""

import importlib
import os
import sys
import types
from collections import defaultdict

# Importing these registers rules (chainrules/rulesets/__init__.py installs an
# import hook for each); a library that is not installed is named on the page.
OPTIONAL_LIBRARIES = ["scipy.special"]

_KIND = {0: "rule", 1: "non-differentiable", 2: "opt-out (no rule)"}


def _import_optional():
    imported, missing = [], []
    for name in OPTIONAL_LIBRARIES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
        else:
            imported.append(name)
    return imported, missing


# The modules a user imports the functions from, most specific first where one
# object is exported by several.
_PUBLIC_MODULES = ["math", "cmath", "operator", "functools", "itertools", "builtins",
                   "numpy.linalg", "numpy.fft", "numpy", "scipy.special",
                   # the array libraries' namespaces (rules registered when they are
                   # imported): array-api-compat's wrappers share their __module__
                   # across libraries, so each is named by the namespace exporting it
                   "array_api_strict", "array_api_compat.numpy", "array_api_compat.torch",
                   "array_api_compat.dask.array", "array_api_compat.cupy", "torch",
                   "jax.numpy", "dask.array",
                   # and their linalg extensions (after them: a function both export
                   # is named by the main namespace)
                   "array_api_strict.linalg", "array_api_compat.numpy.linalg",
                   "array_api_compat.torch.linalg", "array_api_compat.dask.array.linalg",
                   "torch.linalg", "jax.numpy.linalg", "dask.array.linalg"]


def _loaded(modname):
    """The imported module (or a namespace attribute of one, as
    array_api_strict.linalg) of this dotted name, or None."""
    mod = sys.modules.get(modname)
    if mod is None and "." in modname:
        parent, _, attr = modname.rpartition(".")
        mod = getattr(_loaded(parent), attr, None)
    return mod


def _module_name(f):
    """The public module that exports f under its own name, else its __module__."""
    name = getattr(f, "__name__", None)
    for modname in _PUBLIC_MODULES:
        mod = _loaded(modname)
        if mod is not None and name and getattr(mod, name, None) is f:
            return modname
    mod = getattr(f, "__module__", None)
    if not isinstance(mod, str):
        return "builtins"
    if mod.startswith("chainrules"):
        return "chainrules"
    for modname in _PUBLIC_MODULES:
        if mod.startswith(modname + ".") or mod.startswith("_" + modname):
            return modname
    return mod


def _dotted(mod, name):
    return name if mod == "builtins" else f"{mod}.{name}"


def _qualified_name(f):
    """(group, name): where a function belongs on the page and its dotted name.
    Methods (np.ndarray.sum, np.add.reduce, float.conjugate) are grouped by
    their class."""
    from chainrules.rulesets.elementwise.interop import LABELS
    label = LABELS.get(f) if getattr(f, "__hash__", None) is not None else None
    if label is not None:                        # an array library's dunder: jax.Array.__add__
        return label.rsplit(".", 1)[0], label
    self_ = getattr(f, "__self__", None)        # a bound method: np.add.reduce
    if self_ is not None and not isinstance(self_, types.ModuleType):
        _, owner = _qualified_name(self_)
        cls = type(self_)
        return _dotted(_module_name(cls), cls.__qualname__), f"{owner}.{f.__name__}"
    cls = getattr(f, "__objclass__", None)       # a method descriptor: np.ndarray.sum
    if cls is not None:
        group = _dotted(_module_name(cls), cls.__qualname__)
        return group, f"{group}.{f.__name__}"
    mod = _module_name(f)
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return mod, _dotted(mod, name)


def _type_name(t):
    if t is None or t is object:
        return "any"
    if isinstance(t, tuple):
        return " or ".join(_type_name(u) for u in t)
    mod = _module_name(t)
    return _dotted("numpy" if mod.startswith("numpy") else mod, t.__qualname__)


def _types_text(rule):
    names = [_type_name(t) for t in rule.types]
    if not names:
        return "(any arguments)" if rule.varargs else "(no arguments)"
    if rule.varargs:
        names.append("…")
    return "(" + ", ".join(names) + ")"


def _config_text(rule):
    if rule.config is None:
        return ""
    caps = sorted(rule.config)
    return ", needs a RuleConfig" + (f" with {' and '.join(caps)}" if caps else "")


def _where(rule):
    mod = getattr(rule.fn, "__module__", None) or ""
    if mod.startswith("chainrules.rulesets."):      # its file: numpy/linalg/products
        return f" in `{mod.removeprefix('chainrules.rulesets.').replace('.', '/')}`"
    if mod.startswith("chainrules"):
        return f" in `{mod}`"
    return ""


def _rules_text(rules, row_arities):
    parts = []
    if row_arities:
        n = " or ".join(str(a) for a in row_arities)
        parts.append(f"C table ({n} scalar argument{'s' if row_arities != (1,) else ''})")
    for rule in rules:
        parts.append(f"{_KIND.get(rule.kind, 'rule')} {_types_text(rule)}{_config_text(rule)}"
                     f"{_where(rule)}")
    return "<br>".join(parts) if parts else "—"


def collect():
    """{group: [(name, frule text, rrule text)]} for every registered function."""
    from chainrules import _core
    groups = defaultdict(list)
    seen = defaultdict(int)
    for f in _core._registered_functions():
        frules, rrules = _core._rules_of(f)
        row = _core._scalar_row(f)
        arities = tuple(row.arities) if row is not None else ()
        if not (frules or rrules or arities):
            continue                # a table whose rules were removed: it answers nothing
        group, name = _qualified_name(f)
        seen[name] += 1
        if seen[name] > 1:
            # distinct objects of one qualified name (array_api_compat makes one
            # `_aliases.std` per library, jax one `_operator_add` per array class)
            name = f"{name} ({seen[name]})"
        groups[group].append((name, _rules_text(frules, arities), _rules_text(rrules, arities)))
    return {g: sorted(rows) for g, rows in sorted(groups.items())}


def render():
    import chainrules  # noqa: F401  (registers the rule sets)
    imported, missing = _import_optional()
    groups = collect()
    total = sum(len(rows) for rows in groups.values())
    lines = [
        "# Rule-set reference",
        "",
        "<!-- generated by docs/_ext/ruleset_reference.py at build time; do not edit -->",
        "",
        f"Every function that `frule` or `rrule` answers for: {total} functions in "
        f"{len(groups)} groups, read from the registry of chainrules {chainrules.__version__} "
        "when this site was built.",
        "",
        "- **C table**: a row of the compiled scalar table (Python and NumPy scalars, "
        "real and, where the function allows, complex); its derivative is computed in C.",
        "- **rule (types)**: a rule written in Python, used when the positional arguments "
        "are instances of these types (`any`: every type; `…`: more arguments may "
        "follow). The most specific registration wins; a user's registration beats a C row.",
        "- **non-differentiable**: the tangent is `NoTangent()` for every argument.",
        "- **opt-out**: `frule`/`rrule` return `None` there (the AD differentiates the primal).",
        "- **needs a RuleConfig**: a rule that calls back into the AD "
        "(`rrule_via_ad`/`frule_via_ad`); only an AD's config reaches it.",
        "",
        "The module named after each rule is the file of `chainrules/rulesets/` that holds it.",
    ]
    if imported:
        lines += ["", "Rules registered on import of: " + ", ".join(f"`{m}`" for m in imported)
                  + " (imported by this build)."]
    if missing:
        lines += ["", "Not installed when this page was built, so their rules are not listed: "
                  + ", ".join(f"`{m}`" for m in missing) + "."]
    for group, rows in groups.items():
        lines += ["", f"## `{group}`", "", "| function | frule | rrule |", "|---|---|---|"]
        for name, fr, rr in rows:
            lines.append(f"| `{name}` | {fr} | {rr} |")
    return "\n".join(lines) + "\n"


def write(path):
    write_if_changed(path, render())


def write_if_changed(path, text):
    """Write a generated page; unchanged, keep its mtime (Sphinx need not re-read it)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            old = fh.read()
    if old != text:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


def page_extension(relpath, write_page):
    """The `setup` of an extension that writes a generated page (relpath, in
    the source folder) with write_page(path) before any page is read."""
    def setup(app):
        app.connect("builder-inited", lambda app: write_page(os.path.join(app.srcdir, relpath)))
        return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
    return setup


setup = page_extension(os.path.join("reference", "rulesets.md"), write)


if __name__ == "__main__":
    write(sys.argv[1])
