"""chainrules' C scalar table from Cython: a module that cimports
chainrules.scalar and chainrules.cscalar (chainrules.get_include()) is
compiled here (Cython, then the C compiler Python was built with) and every
row's f, f′ and fused (f, f′) are compared with chainrules' rules."""

import importlib.util
import math
import os
import pathlib
import re
import shlex
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import chainrules
from chainrules import _core

from . import _rows

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def _source(table):
    lines = ["# cython: language_level=3", "cimport chainrules.scalar as cr",
             "cimport chainrules.cscalar as cc", ""]
    for name, (kind, *_) in table.items():
        mod = "cr" if kind[0] == "r" else "cc"
        t = "double" if kind[0] == "r" else "double complex"
        if kind[1] == "1":
            lines += [f"def {name}({t} x):", f"    cdef {t} d",
                      f"    cdef {t} f = {mod}.{name}_fd(x, &d)",
                      f"    return {mod}.{name}(x), ({mod}.{name}_d(x),), f, (d,)", ""]
        else:
            lines += [f"def {name}({t} x, {t} y):", f"    cdef {t} a, b, c, e",
                      f"    {mod}.{name}_d(x, y, &a, &b)",
                      f"    cdef {t} f = {mod}.{name}_fd(x, y, &c, &e)",
                      f"    return {mod}.{name}(x, y), (a, b), f, (c, e)", ""]
    return "\n".join(lines)


def _build(tmp, name, source):
    """Compile the Cython source as the extension module `name` (Cython with
    chainrules.get_include() as its include path, then the C compiler Python was
    built with) and import it."""
    pyx = tmp / f"{name}.pyx"
    pyx.write_text(source)
    subprocess.run([sys.executable, "-m", "cython", "-3", "-I", chainrules.get_include(), str(pyx),
                    "-o", str(tmp / f"{name}.c")], check=True)
    so = tmp / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    subprocess.run([*cc, "-shared", "-fPIC", "-O1", "-I", sysconfig.get_paths()["include"],
                    str(tmp / f"{name}.c"), "-o", str(so), "-lm"], check=True)
    spec = importlib.util.spec_from_file_location(name, so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    """The compiled test module: one function per row giving (f, f′, fused f, fused f′)."""
    return _build(tmp_path_factory.mktemp("native_cython"), "cr_native_test",
                  _source(_core._native_table()))


def test_the_documentations_example_compiles_and_runs(tmp_path):
    page = (ROOT / "docs" / "native.md").read_text(encoding="utf-8")
    source = re.search(r"```cython\n(.*?)```", page, re.S).group(1)
    mod = _build(tmp_path, "tanh_loop", source)
    x = np.linspace(-2.0, 2.0, 9)
    y, dy = np.empty_like(x), np.empty_like(x)
    mod.tanh_and_derivative(x, y, dy)
    want = [chainrules.frule((chainrules.NoTangent(), 1.0), math.tanh, v) for v in x]
    assert y.tolist() == [w[0] for w in want] and dy.tolist() == [w[1] for w in want]
    assert mod.atan2_partials(3.0, 4.0) == (0.16, -0.12)


def test_get_include_holds_the_pxd_files():
    inc = pathlib.Path(chainrules.get_include())
    for name in ("__init__.pxd", "kernels.pxd", "scalar.pxd", "cscalar.pxd"):
        assert (inc / "chainrules" / name).is_file(), name


def test_every_row_has_f_derivative_and_fused_in_cython(native):
    table = _core._native_table()
    cases = _rows.cases(table)
    seen = set()
    for name, args, want in cases:
        _rows.check(name, args, want, getattr(native, name)(*args))
        seen.add(name)
    # every native function was checked at some point, the complex ones included
    assert seen == set(table), sorted(set(table) - seen)
    assert len(cases) > 600


def test_conventions_at_non_differentiable_points(native):
    assert native.fabs(0.0)[1] == (0.0,)                    # abs′(0) = 0
    assert native.sqrt(0.0)[1] == (float("inf"),)            # sqrt′(0) = inf
    f, (dx, dy), _, _ = native.mod(2.0, 1.0)                 # mod jumps: NaN partials
    assert f == 0.0 and dx != dx and dy != dy
    assert native.max(1.5, 1.5)[1] == (0.0, 1.0)             # a tie: to y (max) …
    assert native.min(1.5, 1.5)[1] == (1.0, 0.0)             # … and to x (min)
    assert native.pow(0.0, 0.5)[1] == (float("inf"), 0.0)    # ChainRules' x ** p at 0


def test_the_generated_files_are_up_to_date():
    sys.path.insert(0, str(ROOT / "_core"))
    try:
        import gen_native
    finally:
        sys.path.pop(0)
    for path, text in gen_native.outputs().items():
        assert pathlib.Path(path).read_text(encoding="utf-8") == text, (
            f"{os.path.relpath(path, ROOT)} is not what _core/gen_native.py writes: run it")
