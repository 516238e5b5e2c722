"""The native kernels (chainrules/include/chainrules/scalar.pxd, cscalar.pxd,
chainrules.numba) against chainrules' own rules: every row of the C scalar
table (chainrules._core._scalar_rows(), each function and arity) is matched
to its native function, and frule on the row gives the expected f and f′."""

import math

import numpy as np

import chainrules
from chainrules import AbstractZero, NoTangent, _core
from chainrules._native_names import native_name

REAL_1 = (0.0, 0.3, -0.7, 1.9, 2.0, -2.5)
REAL_2 = ((0.3, 1.9), (-0.7, 0.3), (1.9, -0.7), (2.0, 1.0), (2.5, 2.0), (0.0, 0.5), (1.5, 1.5))
COMPLEX_1 = (0.3 + 0.4j, -0.7 + 1.1j, 1.9 - 0.6j)
COMPLEX_2 = ((0.3 + 0.4j, 1.9 - 0.6j), (-0.7 + 1.1j, 0.5 + 0.2j))


def rows():
    """(function, row name, arity) of every row of the table."""
    out = []
    for f, row in _core._scalar_rows().items():
        for n in row.arities:
            out.append((f, row.name, n))
    return out


def expected(f, args, n_int=()):
    """(Ω, (∂Ω/∂args…)) by chainrules.frule, one argument at a time (NoTangent
    for integer arguments, listed in n_int); None where the primal refuses."""
    partials = []
    omega = None
    for i in range(len(args)):
        ts = []
        for j, a in enumerate(args):
            one = 1 + 0j if isinstance(a, complex) else 1.0
            ts.append(NoTangent() if j in n_int else (one if j == i else 0 * one))
        if i in n_int:
            partials.append(0.0)
            continue
        try:
            with np.errstate(all="ignore"):      # NumPy's primal at a pole or outside its domain
                omega, d = chainrules.frule((NoTangent(), *ts), f, *args)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        partials.append(0.0 if isinstance(d, AbstractZero) else d)
    return omega, tuple(partials)


def close(a, b, rtol=1e-13):
    a, b = complex(a), complex(b)
    for u, v in ((a.real, b.real), (a.imag, b.imag)):
        if math.isnan(u) or math.isnan(v):
            if not (math.isnan(u) and math.isnan(v)):
                return False
        elif math.isinf(u) or math.isinf(v):
            if u != v:
                return False
        elif abs(u - v) > rtol * max(1.0, abs(v)):
            return False
    return True


def cases(table):
    """(native name, args, (Ω, partials)) for every row of the table and point
    the rule accepts; complex cases for the rows whose native complex version
    exists (cmath, operator, NumPy's holomorphic ufuncs)."""
    out = []
    for f, row_name, n in rows():
        name = native_name(row_name, n)
        if not row_name.startswith("cmath."):
            assert name in table, (row_name, n, name)
            n_int = (1,) if name == "ldexp" else ()
            for pt in (REAL_1 if n == 1 else REAL_2):
                args = tuple(int(a) if i in n_int else a for i, a in enumerate(
                    pt if n == 2 else (pt,)))
                if n_int and args[1] != pt[1]:
                    continue
                want = expected(f, args, n_int)
                # (-0.7) ** 0.3 is complex in Python: the real kernel gives NaN, as C's pow
                if want is not None and not isinstance(want[0], (complex, np.complexfloating)):
                    out.append((name, args, want))
        if "c" + name in table and not row_name.startswith("math.") and row_name not in (
                "max", "min", "abs", "operator.abs", "numpy.absolute", "numpy.conjugate"):
            for pt in (COMPLEX_1 if n == 1 else COMPLEX_2):
                args = pt if n == 2 else (pt,)
                want = expected(f, args)
                if want is not None:
                    out.append(("c" + name, args, want))
    return out


def check(name, args, want, got):
    """got: (f, partials from NAME_d, f from NAME_fd, partials from NAME_fd)."""
    omega, partials = want
    f, d, f2, d2 = got
    where = f"{name}{args}"
    assert close(f, omega), (where, "f", f, omega)
    assert f2 == f or (f2 != f2 and f != f), (where, "fused f", f2, f)
    assert len(d) == len(partials) == len(d2), where
    for a, b, c in zip(d, d2, partials):
        assert close(a, c), (where, "f′", a, c)
        assert close(b, c), (where, "fused f′", b, c)


