"""chainrules' C scalar table from numba's nopython code (chainrules.numba):
every row's f, f′ and fused (f, f′) called from @njit and compared with
chainrules' rules, in a loop over an array, with a clear error for a wrong
argument, and from a cached function in a fresh process."""

import pathlib
import subprocess
import sys
import textwrap

import math

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="numba is not installed (the test extra installs it)")

import chainrules  # noqa: E402
import chainrules.numba as crn  # noqa: E402
from chainrules import _core  # noqa: E402

from . import _rows  # noqa: E402


def _jitted(name, kind):
    """An @njit function of the row giving (f, (f′…), fused f, (fused f′…))."""
    if kind[1] == "1":
        src = (f"def g(x):\n    f, d = crn.{name}_fd(x)\n"
               f"    return crn.{name}(x), (crn.{name}_d(x),), f, (d,)\n")
    else:
        src = (f"def g(x, y):\n    f, a, b = crn.{name}_fd(x, y)\n"
               f"    return crn.{name}(x, y), crn.{name}_d(x, y), f, (a, b)\n")
    ns = {"crn": crn}
    exec(src, ns)
    return numba.njit(ns["g"])


def test_rows_and_addresses_are_the_core_table():
    table = _core._native_table()
    assert crn.ROWS == {name: entry[0] for name, entry in table.items()}
    assert set(crn.addresses()) == set(table)
    assert all(all(a > 0 for a in addrs) for addrs in crn.addresses().values())
    for name in table:
        for suffix in ("", "_d", "_fd"):
            assert name + suffix in crn.__all__


def test_every_row_has_f_derivative_and_fused_in_numba():
    table = _core._native_table()
    jitted = {name: _jitted(name, kind) for name, (kind, *_) in table.items()}
    seen = set()
    for name, args, want in _rows.cases(table):
        if table[name][0][0] == "c":
            args = tuple(complex(a) for a in args)
        else:
            args = tuple(float(a) for a in args)
        _rows.check(name, args, want, jitted[name](*args))
        seen.add(name)
    assert seen == set(table), sorted(set(table) - seen)


def test_a_loop_over_an_array_matches_the_rules():
    @numba.njit
    def tanh_and_derivative(x, y, dy):
        for i in range(x.size):
            y[i], dy[i] = crn.tanh_fd(x[i])

    x = np.linspace(-3, 3, 1001)
    y, dy = np.empty_like(x), np.empty_like(x)
    tanh_and_derivative(x, y, dy)
    want = [chainrules.frule((chainrules.NoTangent(), 1.0), math.tanh, v) for v in x]
    assert y.tolist() == [w[0] for w in want]           # libm's tanh, as math.tanh
    assert dy.tolist() == [w[1] for w in want]          # the rule's own kernel


def test_integers_are_real_arguments():
    @numba.njit
    def g(n):
        return crn.exp_fd(n), crn.atan2_d(n, 2)

    (f, d), (a, b) = g(1)
    assert f == d == np.exp(1.0) and (a, b) == (2 / 5, -1 / 5)


def test_a_complex_argument_to_a_real_row_is_a_clear_error():
    @numba.njit
    def g(z):
        return crn.sin_d(z)

    with pytest.raises(numba.core.errors.TypingError, match=r"chainrules.numba.sin_d: argument 1 "
                       r"must be a real number, got complex128"):
        g(1j)


def test_cache_true_resolves_the_kernels_in_a_new_process(tmp_path):
    # the compiled code names the kernels by symbol (chainrules_sinh_fd), which
    # chainrules.numba registers at import: a cached function loads and runs
    script = tmp_path / "cached_kernels.py"
    script.write_text(textwrap.dedent("""
        import numba
        import chainrules.numba as crn

        @numba.njit(cache=True)
        def g(x):
            return crn.sinh_fd(x)

        f, d = g(0.5)
        print(f, d, sum(g.stats.cache_hits.values()))
    """))
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           check=True, cwd=tmp_path).stdout.split() for _ in range(2)]
    want = [repr(math.sinh(0.5)), repr(math.cosh(0.5))]
    assert runs[0] == want + ["0"]          # compiled and written to the cache
    assert runs[1] == want + ["1"]          # loaded from it
    assert list(pathlib.Path(tmp_path).rglob("*.nbi"))
