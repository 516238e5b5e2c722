"""Rules know no AD (issue 22 item 3): no module under chainrules/rulesets/
imports or names the reference AD (`chainrules.ad`, its `Tracked` values and
the core's AD engine names).  A rule asks `is_traced(x)` / `untraced(x)`
(chainrules._core's registry of traced types); what the reference AD needs
(routing NumPy functions to generic bodies on its values) lives in
chainrules/ad/.  The sources are parsed: import statements, names and
attributes, and import_module/__import__ calls; prose in docstrings and
comments is not looked at."""

import ast
import fnmatch
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULESETS = ROOT / "chainrules" / "rulesets"

# The AD engine's names in chainrules._core (ad_*.pxi) that a rule must not use.
AD_NAMES = frozenset({"Tracked", "Dual", "Var", "Tape", "_Traced"})
AD_PREFIXES = ("_ad_", "_compile_")
AD_MODULE = "chainrules.ad"

# Modules allowed to name the AD, each with its reason: none (the linear algebra, rewritten
# as one array-API body per function, names no AD type either)
ALLOWED: dict[str, str] = {}


def _is_ad_module(name):
    return name == AD_MODULE or name.startswith(AD_MODULE + ".")


def _is_ad_name(name):
    return name in AD_NAMES or name.startswith(AD_PREFIXES)


def _absolute(module, level, package):
    """The absolute module name of `from <level dots><module> import …` in
    `package` (a dotted name)."""
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join(base + ([module] if module else []))


def violations(source, package="chainrules.rulesets"):
    """What the source names of the AD: a list of (line, text)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if _is_ad_module(a.name):
                    found.append((node.lineno, f"import {a.name}"))
        elif isinstance(node, ast.ImportFrom):
            mod = _absolute(node.module, node.level, package)
            for a in node.names:
                full = f"{mod}.{a.name}" if mod else a.name
                if _is_ad_module(mod) or _is_ad_module(full):
                    found.append((node.lineno, f"from {mod} import {a.name}"))
                elif _is_ad_name(a.name):
                    found.append((node.lineno, f"from {mod} import {a.name}"))
        elif isinstance(node, ast.Name) and _is_ad_name(node.id):
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            if _is_ad_name(node.attr):
                found.append((node.lineno, f".{node.attr}"))
            elif node.attr == "ad" and isinstance(node.value, ast.Name) and node.value.id == "chainrules":
                found.append((node.lineno, "chainrules.ad"))
        elif isinstance(node, ast.Call):
            fn = node.func
            called = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if called in ("import_module", "__import__"):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _is_ad_module(arg.value):
                        found.append((node.lineno, f"{called}({arg.value!r})"))
    return sorted(set(found))


def _allowed(rel):
    return any(fnmatch.fnmatch(rel, pattern) for pattern in ALLOWED)


MODULES = sorted(p for p in RULESETS.rglob("*.py"))


def test_the_rulesets_name_no_ad():
    checked, bad = 0, {}
    for path in MODULES:
        rel = path.relative_to(RULESETS).as_posix()
        if _allowed(rel):
            continue
        package = ".".join(("chainrules", "rulesets") + path.relative_to(RULESETS).parent.parts)
        found = violations(path.read_text(encoding="utf-8"), package)
        checked += 1
        if found:
            bad[rel] = found
    assert checked > 40, checked
    assert not bad, "rules must not name the AD (use is_traced/untraced; routing lives in chainrules/ad/):\n" + \
        "\n".join(f"  {rel}:{line}: {what}" for rel, found in bad.items() for line, what in found)


def test_every_allow_list_entry_has_its_reason_and_matches_a_module():
    for pattern, reason in ALLOWED.items():
        assert reason.strip(), pattern
        assert any(fnmatch.fnmatch(p.relative_to(RULESETS).as_posix(), pattern) for p in MODULES), pattern


@pytest.mark.parametrize("source, what", [
    ("import chainrules.ad\n", "import chainrules.ad"),
    ("import chainrules.ad.numpy as anp\n", "import chainrules.ad.numpy"),
    ("from chainrules import ad\n", "from chainrules import ad"),
    ("from chainrules.ad._tracing import wrap\n", "from chainrules.ad._tracing import wrap"),
    ("from ...ad import gradient\n", "from chainrules.ad import gradient"),
    ("from ... import ad\n", "from chainrules import ad"),
    ("from chainrules._core import Tracked\n", "from chainrules._core import Tracked"),
    ("from chainrules._core import _ad_strip_all as s\n", "from chainrules._core import _ad_strip_all"),
    ("import chainrules\nchainrules.ad.gradient(f, 1.0)\n", "chainrules.ad"),
    ("from chainrules import _core\nisinstance(x, _core.Tracked)\n", ".Tracked"),
    ("isinstance(x, Dual)\n", "Dual"),
    ("import importlib\nimportlib.import_module('chainrules.ad.numpy')\n", "import_module('chainrules.ad.numpy')"),
])
def test_the_check_finds_each_way_of_naming_the_ad(source, what):
    found = violations(source, "chainrules.rulesets.numpy")
    assert what in [w for _, w in found], found


def test_the_check_lets_traced_values_and_prose_through():
    source = ('"""Rules differentiated by chainrules.ad see Tracked values."""\n'
              "from chainrules._core import is_traced, untraced, register_frule\n"
              "# chainrules.ad.gradient of a Tracked value\n"
              "def f(x):\n"
              "    return untraced(x) if is_traced(x) else x\n")
    assert violations(source) == []
