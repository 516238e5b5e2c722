"""chainrules' C scalar table from numba's nopython code (chainrules.numba):
every row's f, f′ and fused (f, f′) called from @njit and compared with
chainrules' rules and, for the real rows (numba compiles their kernels from
the generated chainrules/_numba_kernels.py), with the C kernels to the bit;
in a loop over an array, inlined into it, with a clear error for a wrong
argument, and from a cached function in a fresh process."""

import ctypes
import itertools
import pathlib
import platform
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


ROOT = pathlib.Path(__file__).resolve().parent.parent.parent

# real points: ordinary ones, the domain edges of the rows (±1, 0, poles, the
# overflow of exp and gamma), ±0.0, subnormals, ±inf and NaN
EDGES = (0.0, -0.0, 0.3, -0.7, 0.5, -0.5, 1.0, -1.0, 1.9, 2.0, -2.5, 3.0, -3.0, 10.0, -10.5,
         0.1 + 1e-16, math.pi, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 709.0, 710.0, 171.7,
         -171.5, 1e16, math.inf, -math.inf, math.nan)
EDGES_2 = (0.0, -0.0, 0.3, -0.7, 1.0, -1.0, 2.0, 2.5, -3.0, 1e300, 5e-324, math.inf, -math.inf,
           math.nan)


def _c_functions(name, kind):
    """The C kernels of a real row by address (ctypes), as (f, f′, fused) callables
    giving what _jitted's functions give."""
    f_addr, d_addr, fd_addr = crn.addresses()[name]
    D, P = ctypes.c_double, ctypes.POINTER(ctypes.c_double)
    if kind == "r1":
        class Pair(ctypes.Structure):
            _fields_ = [("f", D), ("d", D)]
        f = ctypes.CFUNCTYPE(D, D)(f_addr)
        d = ctypes.CFUNCTYPE(D, D)(d_addr)
        fd = ctypes.CFUNCTYPE(Pair, D)(fd_addr)

        def one(x):
            p = fd(x)
            return f(x), (d(x),), p.f, (p.d,)
        return one
    f = ctypes.CFUNCTYPE(D, D, D)(f_addr)
    d = ctypes.CFUNCTYPE(None, D, D, P, P)(d_addr)
    fd = ctypes.CFUNCTYPE(D, D, D, P, P)(fd_addr)

    def two(x, y):
        a, b, c, e = D(), D(), D(), D()
        d(x, y, ctypes.byref(a), ctypes.byref(b))
        o = fd(x, y, ctypes.byref(c), ctypes.byref(e))
        return f(x, y), (a.value, b.value), o, (c.value, e.value)
    return two


class _Complex(ctypes.Structure):
    # C99's double complex as the x86-64 and AArch64 ABIs pass it: two doubles
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


def z(c):
    return complex(c.re, c.im)


def _c_complex_functions(name, kind):
    """A complex row's C functions by address (ctypes), as (f, f′, fused)
    callables giving what _jitted's functions give."""
    f_addr, d_addr, fd_addr = crn.addresses()[name]
    D, C, P = ctypes.c_double, _Complex, ctypes.POINTER(_Complex)
    n = int(kind[1])
    args = [D] * (2 * n)
    f = ctypes.CFUNCTYPE(C, *args)(f_addr)
    if n == 1:
        d = ctypes.CFUNCTYPE(C, *args)(d_addr)
        fd = ctypes.CFUNCTYPE(C, *args, P)(fd_addr)

        def one(x):
            out = C()
            o = fd(x.real, x.imag, ctypes.byref(out))
            return z(f(x.real, x.imag)), (z(d(x.real, x.imag)),), z(o), (z(out),)
        return one
    d = ctypes.CFUNCTYPE(None, *args, P, P)(d_addr)
    fd = ctypes.CFUNCTYPE(C, *args, P, P)(fd_addr)

    def two(x, y):
        a, b, c, e = C(), C(), C(), C()
        xy = (x.real, x.imag, y.real, y.imag)
        d(*xy, ctypes.byref(a), ctypes.byref(b))
        o = fd(*xy, ctypes.byref(c), ctypes.byref(e))
        return z(f(*xy)), (z(a), z(b)), z(o), (z(c), z(e))
    return two


COMPLEX_EDGES = (0j, complex(-0.0, 0.0), complex(0.0, -0.0), 0.3 + 0.4j, -0.7 + 1.1j, 1.9 - 0.6j,
                 1 + 0j, -1 + 0j, 1j, -2j, complex(710, 1), complex(1, 1e300),
                 complex(math.inf, 0), complex(-math.inf, 1), complex(1, math.inf),
                 complex(math.nan, 0), complex(0, math.nan))


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64", "aarch64", "arm64"),
                    reason="ctypes passes double complex as two doubles on x86-64 and AArch64 only")
def test_the_complex_rows_are_the_c_functions_at_complex_points():
    # numba calls the C functions by symbol: the complex values cross the call intact
    checked = 0
    for name, (kind, *_) in _core._native_table().items():
        if kind[0] != "c":
            continue
        g, c = _jitted(name, kind), _c_complex_functions(name, kind)
        points = ([(x,) for x in COMPLEX_EDGES] if kind == "c1"
                  else itertools.product(COMPLEX_EDGES[:9], COMPLEX_EDGES[:9]))
        for args in points:
            got, want = _flat(g(*args)), _flat(c(*args))
            assert all(_same(u.real, v.real) and _same(u.imag, v.imag)
                       for u, v in zip(got, want)), (name, args, got, want)
            checked += 1
    assert checked > 24 * len(COMPLEX_EDGES)


def _same(a, b):
    """a and b are the same double: equal with the same sign, or both NaN."""
    return (a != a and b != b) or (a == b and math.copysign(1.0, a) == math.copysign(1.0, b))


def _flat(got):
    f, d, f2, d2 = got
    return (f, *d, f2, *d2)


def test_the_real_rows_are_the_c_kernels_to_the_bit():
    # numba compiles the generated Python kernels; they call libm as the C does
    checked = 0
    for name, (kind, *_) in _core._native_table().items():
        if kind[0] != "r":
            continue
        g, c = _jitted(name, kind), _c_functions(name, kind)
        points = [(x,) for x in EDGES] if kind == "r1" else itertools.product(EDGES_2, EDGES_2)
        for args in points:
            got, want = _flat(g(*args)), _flat(c(*args))
            assert all(map(_same, got, want)), (name, args, got, want)
            checked += 1
    assert checked > 37 * len(EDGES)


def _gen_numba():
    sys.path.insert(0, str(ROOT / "_core"))
    try:
        import gen_numba
    finally:
        sys.path.pop(0)
    return gen_numba


def test_the_real_rows_in_vectorizable_loops_are_the_c_kernels_to_the_bit():
    # inlined into a loop over an array, LLVM may vectorize: the numbers stay C's
    ns = {"crn": crn}
    for name, (kind, *_) in _core._native_table().items():
        if kind == "r1":
            src = (f"def loop(x, y, out):\n    for i in range(x.size):\n"
                   f"        a, b = crn.{name}_fd(x[i])\n"
                   f"        out[i, 0], out[i, 1], out[i, 2] = a, b, crn.{name}_d(x[i])\n")
            x = np.array(EDGES * 3)
            y = x
        elif kind == "r2":
            src = (f"def loop(x, y, out):\n    for i in range(x.size):\n"
                   f"        out[i, 0], out[i, 1], out[i, 2] = crn.{name}_fd(x[i], y[i])\n")
            x, y = (np.array(v) for v in zip(*itertools.product(EDGES_2, EDGES_2)))
        else:
            continue
        exec(src, ns)
        out = np.empty((x.size, 3))
        numba.njit(ns["loop"])(x, y, out)
        c = _c_functions(name, kind)
        for i, (u, v) in enumerate(zip(x.tolist(), y.tolist())):
            f, d, f2, d2 = c(u) if kind == "r1" else c(u, v)
            want = (f2, *d2, d[0]) if kind == "r1" else (f2, *d2)
            assert all(map(_same, out[i].tolist(), want)), (name, u, v, out[i], want)


def test_the_generated_kernels_are_up_to_date():
    gen_numba = _gen_numba()
    path = pathlib.Path(gen_numba.OUT)
    assert path.read_text(encoding="utf-8") == gen_numba.output(), (
        "chainrules/_numba_kernels.py is not what _core/gen_numba.py writes: run it")


def test_the_translator_turns_pointers_into_returns_and_refuses_what_it_does_not_know():
    gen_numba = _gen_numba()
    src = gen_numba.translate(
        "cdef inline void d2_f(double x, double y, double o, double* dx, double* dy) noexcept nogil:",
        ["    cdef double u = m.fabs(x), w", "    if u > M_PI:", "        d2_max(x, y, o, dx, dy)",
         "        return", "    dx[0] = <int>u + <int>m.fmax(x, m.fmin(y, 1.0))", "    dy[0] = 0.0"], {"d2_max": 2})
    assert src.splitlines()[1:] == [
        "def d2_f(x, y, o):", "    u = _m.fabs(x)", "    if u > _m.M_PI:",
        "        dx, dy = d2_max(x, y, o)", "        return dx, dy", "    dx = _m.trunc(u) + _m.trunc(_m.fmax(x, _m.fmin(y, 1.0)))", "    dy = 0.0",
        "    return dx, dy"]
    header = "cdef inline double g(double x) noexcept nogil:"
    for line in ("    return <long>x", "    return h(&x)"):
        with pytest.raises(ValueError, match="gen_numba: cannot translate"):
            gen_numba.translate(header, [line], {})


@pytest.mark.parametrize("name", ["log1p", "sin", "exp", "tanh", "atan"])
def test_the_kernels_are_inlined_into_a_loop(name):
    # the derivative is compiled into the loop: no call to a kernel remains
    # (only libm's functions, as in a loop written by hand)
    ns = {"crn": crn}
    exec(f"def loop(x, dy):\n    for i in range(x.size):\n        dy[i] = crn.{name}_d(x[i])\n",
         ns)
    loop = numba.njit(ns["loop"])
    x = np.linspace(0.1, 0.9, 17)
    dy = np.empty_like(x)
    loop(x, dy)
    c = _c_functions(name, "r1")
    assert all(_same(a, c(v)[1][0]) for a, v in zip(dy.tolist(), x.tolist()))
    llvm = next(iter(loop.inspect_llvm().values()))
    body = llvm[llvm.index("define"):]
    calls = [line for line in body.splitlines() if "call " in line and "_numba_kernels" in line]
    assert calls == [], calls


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
    assert g(True) == g(1.0)


def test_the_real_rows_are_also_callable_from_python():
    # the public functions run the same compiled kernels outside @njit
    assert crn.sin_d(0.3) == math.cos(0.3) and crn.atan2_fd(3, 4) == (math.atan2(3, 4), 0.16, -0.12)


def test_a_complex_argument_to_a_real_row_is_a_clear_error():
    @numba.njit
    def g(z):
        return crn.sin_d(z)

    with pytest.raises(numba.core.errors.TypingError, match=r"chainrules.numba.sin_d: argument 1 "
                       r"must be a real number, got complex128"):
        g(1j)


def test_cache_true_resolves_the_kernels_in_a_new_process(tmp_path):
    # a real row is compiled into the cached code (it calls libm by name); a
    # complex one names the C kernel by symbol (chainrules_cexp_fd), which
    # chainrules.numba registers at import: a cached function loads and runs
    script = tmp_path / "cached_kernels.py"
    script.write_text(textwrap.dedent("""
        import numba
        import chainrules.numba as crn

        @numba.njit(cache=True)
        def g(x):
            return crn.sinh_fd(x), crn.cexp_fd(complex(x))

        (f, d), (w, e) = g(0.5)
        print(f, d, w == e, sum(g.stats.cache_hits.values()))
    """))
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           check=True, cwd=tmp_path).stdout.split() for _ in range(2)]
    want = [repr(math.sinh(0.5)), repr(math.cosh(0.5)), "True"]
    assert runs[0] == want + ["0"]          # compiled and written to the cache
    assert runs[1] == want + ["1"]          # loaded from it
    assert list(pathlib.Path(tmp_path).rglob("*.nbi"))
