"""The coverage census (chainrules/coverage.py, `python -m chainrules.coverage`):
its counts agree with the registry and with its own tables, its
classification lists name real functions, and it runs without JAX or
autograd."""

import subprocess
import sys

import numpy as np
import pytest

import chainrules as cr
from chainrules import coverage as cov

FAST = ["numpy", "numpy.linalg", "numpy.fft"]


@pytest.fixture(scope="module")
def fast_census():
    return cov.census(FAST, probe=False)


def test_rules_are_differentiable_functions_or_listed_extras(fast_census):
    for ns in fast_census:
        mod = cov._import(ns.name)
        counted = {f.name for f in ns.functions}
        extras = {f.name for f in ns.extras}
        listed = {n for group in cov.NON_DIFFERENTIABLE[ns.name].values() for n in group}
        assert not counted & listed and not counted & extras
        for name, f in cov._public_callables(mod).items():
            if cov.rule_kind(f):
                # every public function with a rule is counted, or shown apart as an extra
                assert name in counted or name in extras, (ns.name, name)
            if cov.declared_non_differentiable(f):
                assert name not in counted, (ns.name, name)
        for row in ns.functions:
            assert row.rule == cov.rule_kind(getattr(mod, row.name))
        assert all(f.rule for f in ns.extras)


def test_the_summary_counts_are_the_tables(fast_census):
    rows = {r[0]: r for r in cov.summary_rows(fast_census)}
    for ns in fast_census:
        table = cov.function_rows(ns)
        with_rules = [r for r in table if r[1] != "no rule"]
        name, n, r, without, jax_n, ag_n = rows[ns.name]
        assert (int(n), int(r), int(without)) == (len(table), len(with_rules),
                                                   len(table) - len(with_rules))
        assert int(r) > 0
        if ns.jax_installed:
            assert int(jax_n) == sum(row[6] == "yes" for row in table) <= int(n)
        if ns.autograd_installed:
            assert int(ag_n) == sum(row[7] == "yes" for row in table) <= int(n)
    numpy = next(ns for ns in fast_census if ns.name == "numpy")
    names = {f.name for f in numpy.with_rules}
    assert {"sin", "sum", "matmul", "where", "sort"} <= names
    assert {"argmax", "zeros", "unique"}.isdisjoint(f.name for f in numpy.functions)


def test_the_classification_lists_name_functions_that_exist():
    # a list entry that names nothing would hide a typo, or a function since removed
    for ns, groups in cov.NON_DIFFERENTIABLE.items():
        mod = cov._import(ns)
        if mod is None:
            continue
        names = [n for group in groups.values() for n in group]
        assert len(names) == len(set(names)), ns
        missing = [n for n in names if getattr(mod, n, None) is None]
        assert len(missing) <= len(names) // 4, (ns, missing)   # names differ across versions


def test_a_rule_registered_now_is_counted(registry):
    linalg = pytest.importorskip("scipy.linalg")
    before = next(iter(cov.census(["scipy.linalg"], probe=False)))
    # numpy's functions all have rules: one of scipy.linalg's without
    name = sorted({f.name for f in before.functions} - {f.name for f in before.with_rules})[0]
    f = getattr(linalg, name)
    cr.register_rrule(f)(lambda a: (f(a), lambda ȳ: (cr.NoTangent(), ȳ)))
    after = next(iter(cov.census(["scipy.linalg"], probe=False)))
    assert len(after.with_rules) == len(before.with_rules) + 1
    assert next(g for g in after.functions if g.name == name).rule == "rrule"


def test_the_probes_read_arguments_and_orders():
    [ns] = cov.census(["numpy.fft"], probe=True)
    fft = next(f for f in ns.functions if f.name == "fft")
    assert (fft.arguments, fft.orders) == ("0", "≥2")
    assert cov._probe(np.arctan2, "numpy") == ("0, 1", "≥2")
    assert cov._probe(np.sin, "numpy") == ("0", "≥2")
    assert cov._probe(np.ldexp, "numpy")[0] == "0"          # the exponent is an integer
    assert cov._probe(np.reshape, "numpy") == ("?", "?")     # needs a shape: not probed
    assert "NumPy" in fft.libraries and "to_autograd" in fft.adapters


def test_without_jax_and_autograd_the_counts_are_dashes(monkeypatch):
    real = cov._import
    monkeypatch.setattr(cov, "_import", lambda name: None if name.split(".")[0] in (
        "jax", "autograd") else real(name))
    [ns] = cov.census(["numpy.fft"], probe=False)
    row = cov.summary_rows([ns])[0]
    assert row[4:] == [cov.ABSENT, cov.ABSENT]
    assert all(f.jax is None and f.autograd is None for f in ns.functions)
    assert all("JAX" not in f.libraries for f in ns.functions)


def test_the_command_prints_the_census(capsys):
    assert cov.main(["numpy.fft", "--functions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["namespace", "differentiable"]
    [ns] = cov.census(["numpy.fft"], probe=False)
    assert lines[2].split()[:4] == cov.summary_rows([ns])[0][:4]
    assert any(line.split()[:3] == ["rfft", "frule+rrule", "0"] for line in lines)
    assert cov.main(["numpy.fft", "--markdown"]) == 0
    assert capsys.readouterr().out.splitlines() == cov.markdown_table(
        cov.SUMMARY_HEADER, cov.summary_rows([ns]))
    # `python -m chainrules.coverage` is the module's main (an unknown namespace
    # stops before the census, so this process imports no array library)
    bad = subprocess.run([sys.executable, "-P", "-m", "chainrules.coverage", "numpy.nothing"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown namespace numpy.nothing" in bad.stderr


def test_the_readme_table_is_the_census():
    # the README's counts are the census' (regenerate: python -m chainrules.coverage --markdown)
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = text.index("<!-- coverage table")
    table = text[text.index("\n", start) + 1:text.index("<!-- end of the coverage table")].strip()
    rows = cov.summary_rows(cov.census(probe=False))
    # the counts are of the libraries the comment names: the exact comparison runs
    # where they are installed (README command 2); another environment (the floor
    # jobs: NumPy 2.0, Python 3.12's JAX) counts other functions, and there the
    # table must still name the same namespaces, each with rules ≤ functions
    import re
    from importlib.metadata import PackageNotFoundError, version
    counted = dict(re.findall(r"(numpy|scipy|jax|autograd) ([0-9][^,\s]*)", text[start:text.index("\n", start)]))
    assert set(counted) == {"numpy", "scipy", "jax", "autograd"}, "the comment names the versions counted"

    def installed(lib):
        try:
            return version(lib)
        except PackageNotFoundError:
            return None
    if all(installed(lib) == v for lib, v in counted.items()):
        expected = cov.markdown_table(cov.SUMMARY_HEADER, rows)
        assert table.splitlines() == expected, "python -m chainrules.coverage --markdown"
    else:
        readme = [line.split("|")[1:-1] for line in table.splitlines()[2:]]
        assert [r[0].strip() for r in readme] == [str(r[0]) for r in rows]
        for r in readme:
            assert int(r[2]) <= int(r[1]), r
