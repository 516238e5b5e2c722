"""chainrules.numba's derivatives of numba-compilable functions (grad,
value_and_grad, derivative, jvp, hessian; issue 25): each checked against
chainrules.ad (the same functions run with chainrules.ad's math/cmath/numpy
drop-ins) and finite differences, on functions covering every construct
(branches both ways, for loops of 0 and several iterations, while loops,
early returns inside loops, complex arguments, tuples, arrays, calls), at
awkward points (0, negatives, the scalar table's conventions), from inside
another @njit function, and the errors that name the line.

numba compiles slowly: each transform is built once per module (the `built`
fixture) and the points loop inside one test."""

import cmath
import inspect
import linecache
import math
import textwrap

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="numba is not installed (the test extra installs it)")

import chainrules  # noqa: E402
import chainrules.numba as crn  # noqa: E402
from chainrules import _core, ad  # noqa: E402
from chainrules import finite_differences as fd  # noqa: E402
from chainrules._native_names import native_name  # noqa: E402
from chainrules.ad import cmath as ad_cmath  # noqa: E402
from chainrules.ad import math as ad_math  # noqa: E402
from chainrules.ad import numpy as ad_np  # noqa: E402

# ----- the functions -------------------------------------------------------------


def foo(x):
    return math.asin(0.2 + math.sin(x))


def branch(x, y):
    if x > y:
        z = x * y
    else:
        z = x / y + math.exp(y)
    return z * z


def for_loop(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x * i) / (i + 1)
        x = x * 0.9
    return s


def while_loop(x):
    k = 0
    while x < 10.0:
        x = x * 1.5 + 0.1
        k += 1
    return x * k


def early_return(x):
    if x < 0:
        return -x * x
    for i in range(5):
        x = math.sqrt(x + 1.0)
        if x > 1.5:
            return x * i
    return x


def nested_return(x):
    s = x
    for i in range(4):
        j = 0
        t = s * 0.5
        while j < 3:
            s = math.sin(s) * 1.3 + x * t
            if s > 1.25 + 0.1 * i:
                return s * s
            j += 1
    return s


def clobbered(x):
    a = x * 2.0
    s = 0.0
    for i in range(3):
        s += math.sin(a * s + x)
    a = 5.0 * s                     # a changes after the loop that read it
    return a * x + s


def arrays_and_tuples(x, p):
    s = 0.0
    for i in range(x.size):
        s += p[0] * math.tanh(x[i] * p[1]) ** 2
    a, b = p
    return s + a * b - np.log1p(x[0] * x[0])


def operators(x, y):
    a = abs(x) + max(x, y) + x ** y if y > 0 else abs(x)
    b = math.hypot(x, y) + math.atan2(y, x) + np.log1p(x * x)
    c = -a if a > 1 else +a
    c -= b
    c *= 2
    c /= 3
    return c + x % 1.5 + math.pi + y ** 3 - x ** 0 + x ** 1


def holomorphic(z, w):
    u = cmath.exp(z * w) + z ** 3 - cmath.sin(w) / z
    return u * cmath.sqrt(z)


def real_of_complex(z, w):
    u = cmath.exp(z * w) + z ** 3
    return abs(u) + (u * z.conjugate()).real + abs(w) + w.imag * z.real


def helper(a, b):
    return math.sin(a) * b + a


def calls(x, y):
    return helper(x * y, y) ** 2 + helper(y, 2.0)


def conventions(x):
    return abs(x) + math.sqrt(x * x + 1.0) + x ** 2.0 + x ** 3


def sqrt_at_zero(x):
    return math.sqrt(x)


def tie(x, y):
    return max(x, y) + min(x, y) * 2.0


# (function, argnums, points)
R = (0.0, 0.3, -0.7, 1.9, -2.5)
CASES = [
    (foo, 0, [(x,) for x in (0.0, 0.3, -0.7, 3.0)]),
    (branch, (0, 1), [(1.0, 2.0), (3.0, 2.0), (-0.5, 0.7)]),
    (for_loop, 0, [(0.7, 4), (0.7, 0), (-1.3, 1)]),
    (while_loop, 0, [(0.5,), (20.0,), (3.0,)]),
    (early_return, 0, [(-1.0,), (0.1,), (10.0,), (2.0,)]),
    (nested_return, 0, [(0.3,), (0.6,), (0.9,), (1.1,), (-0.5,)]),
    (clobbered, 0, [(0.3,), (-0.5,), (1.1,)]),
    (arrays_and_tuples, (0, 1), [(np.array([0.1, 0.5, -1.0]), (0.3, 1.2)),
                                 (np.array([0.0]), (-0.3, 0.0))]),
    (operators, (0, 1), [(0.4, 1.3), (-0.4, -1.3), (2.5, 0.5)]),
    (real_of_complex, (0, 1), [(0.3 + 0.2j, 0.5 - 0.1j), (-1.1 + 0.4j, 0.2 + 0.9j)]),
    (calls, (0, 1), [(0.3, 0.7), (-1.2, 0.4)]),
]


def _ad_version(f):
    """f with chainrules.ad's drop-ins for math, cmath and numpy."""
    ns = {"math": ad_math, "cmath": ad_cmath, "np": ad_np, "helper": None}
    exec(textwrap.dedent(inspect.getsource(f)), ns)
    if f is calls:
        exec(textwrap.dedent(inspect.getsource(helper)), ns)
    return ns[f.__name__]


def _nums(argnums):
    return argnums if isinstance(argnums, tuple) else (argnums,)


def _close(a, b, rtol):
    a, b = np.asarray(a, dtype=complex), np.asarray(b, dtype=complex)
    return a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True)


def _flat(g):
    """A gradient (number, array, tuple, Tangent) as a flat complex vector."""
    if isinstance(g, (tuple, list)) or type(g).__name__.startswith("Tangent"):
        return np.concatenate([_flat(u) for u in g]) if len(g) else np.zeros(0)
    return np.atleast_1d(np.asarray(g, dtype=complex)).ravel()


@pytest.fixture(scope="module")
def built():
    """Every transform of every case, compiled once."""
    out = {}
    for f, argnums, _ in CASES:
        vg = crn.value_and_grad(f, argnums) if f in WITH_VALUE else None
        out[f] = (crn.grad(f, argnums), vg)
    return out


WITH_VALUE = (branch, nested_return, arrays_and_tuples, real_of_complex)


# ----- grad and value_and_grad ---------------------------------------------------

def test_grad_matches_chainrules_ad_and_finite_differences(built):
    failures = []
    fdm = fd.central_fdm(5, 1)
    for f, argnums, points in CASES:
        g, vg = built[f]
        fa = _ad_version(f)
        nums = _nums(argnums)
        for args in points:
            got = g(*args)
            got_flat = _flat(got if isinstance(argnums, tuple) else (got,))
            if vg is not None:
                value, got2 = vg(*args)
                if not _close(_flat(got2 if isinstance(argnums, tuple) else (got2,)), got_flat, 0):
                    failures.append((f.__name__, args, "value_and_grad's gradient", got2, got))
                if not _close(value, f(*args), 1e-15):
                    failures.append((f.__name__, args, "value", value, f(*args)))

            def partial(*xs, args=args):
                full = list(args)
                for i, x in zip(nums, xs):
                    full[i] = x
                return full
            want = ad.gradient(lambda *xs: fa(*partial(*xs)), *[args[i] for i in nums])
            want = _flat(want if len(nums) > 1 else (want,))
            if not _close(got_flat, want, 1e-12):
                failures.append((f.__name__, args, "ad.gradient", got_flat, want))
            fdv = fd.grad(fdm, lambda *xs: f(*partial(*xs)), *[args[i] for i in nums])
            if not _close(got_flat, _flat(fdv), 1e-6):
                failures.append((f.__name__, args, "finite differences", got_flat, _flat(fdv)))
    assert not failures, failures


def test_grad_types():
    g = crn.grad(arrays_and_tuples, (0, 1))(np.array([0.1, 0.5]), (0.3, 1.2))
    assert isinstance(g[0], np.ndarray) and g[0].dtype == np.float64
    assert isinstance(g[1], tuple) and all(type(v) is float for v in g[1])
    gz = crn.grad(real_of_complex)(0.3 + 0.2j, 0.5 - 0.1j)
    assert isinstance(gz, complex)
    assert crn.grad(foo)(3.0) == -1.0531613736418153            # the seed's number


# ----- forward mode and second order ---------------------------------------------

SCALAR = [(foo, [0.0, 0.3, -0.7]), (for_loop, [0.7, -1.3]), (while_loop, [0.5, 20.0]),
          (early_return, [-1.0, 0.1, 10.0]), (nested_return, [0.3, 0.9, -0.5]),
          (clobbered, [0.3, -0.5]), (operators, [0.4, 2.5])]
REST = {for_loop: (4,), operators: (1.3,)}


def test_derivative_and_hessian_match_chainrules_ad():
    failures = []
    for f, xs in SCALAR:
        d, h, fa = crn.derivative(f), crn.hessian(f), _ad_version(f)
        rest = REST.get(f, ())
        for x in xs:
            got, want = d(x, *rest), ad.derivative(lambda u: fa(u, *rest), x)
            if not _close(got, want, 1e-12):
                failures.append((f.__name__, x, "derivative", got, want))
            got, want = h(x, *rest), ad.hessian(lambda u: fa(u, *rest), x)
            if not _close(got, want, 1e-10):
                failures.append((f.__name__, x, "hessian", got, want))
    assert not failures, failures


def test_holomorphic_derivative_and_jvp():
    failures = []
    d = crn.derivative(holomorphic)
    j = crn.jvp(holomorphic)
    fa = _ad_version(holomorphic)
    for z, w in [(0.3 + 0.2j, 0.5 - 0.1j), (-1.1 + 0.4j, 0.2 + 0.9j)]:
        got, want = d(z, w), ad.derivative(lambda u: fa(u, w), z)
        if not _close(got, want, 1e-12):
            failures.append(("derivative", z, got, want))
        for dz, dw in [(1.0 + 0j, 0j), (0.3 - 0.2j, 1.1 + 0.5j)]:
            got = j((z, w), (dz, dw))
            want = ad.jvp(fa, (z, w), (dz, dw))
            if not (_close(got[0], want[0], 1e-15) and _close(got[1], want[1], 1e-12)):
                failures.append(("jvp", z, dz, got, want))
    assert not failures, failures


def test_jvp_of_arrays_tuples_and_loops():
    j = crn.jvp(arrays_and_tuples)
    fdm = fd.central_fdm(5, 1)
    x, p = np.array([0.1, 0.5, -1.0]), (0.3, 1.2)
    dx, dp = np.array([0.5, -1.0, 2.0]), (0.7, -0.4)
    value, tangent = j((x, p), (dx, dp))
    assert value == arrays_and_tuples(x, p)
    want = fd.jvp(fdm, arrays_and_tuples, (x, dx), (p, dp))
    assert _close(tangent, want, 1e-8), (tangent, want)


def test_hessian_of_arrays_and_tuples():
    x, p = np.array([0.1, 0.5, -1.0]), (0.3, 1.2)
    h = crn.hessian(arrays_and_tuples)(x, p)
    hp = crn.hessian(arrays_and_tuples, 1)(x, p)
    fa = _ad_version(arrays_and_tuples)
    assert _close(h, ad.hessian(lambda u: fa(u, p), x), 1e-10)
    assert hp.shape == (2, 2)
    g = crn.grad(arrays_and_tuples, 1)
    step = 1e-5
    num = np.array([[(g(x, tuple(p[k] + step * (k == j) for k in range(2)))[i]
                      - g(x, tuple(p[k] - step * (k == j) for k in range(2)))[i]) / (2 * step)
                     for j in range(2)] for i in range(2)])
    assert _close(hp, num, 1e-6), (hp, num)


# ----- the table's conventions, bit for bit ----------------------------------------

def test_conventions_at_awkward_points_bit_for_bit():
    g, d = crn.grad(conventions), crn.derivative(conventions)
    fa = _ad_version(conventions)
    for x in (0.0, -0.0, 1.0, -1.0, 2.5):
        want = ad.gradient(fa, x)
        # the same partials; summed in another order, so within one ulp
        assert abs(g(x) - want) <= math.ulp(want) and abs(d(x) - want) <= math.ulp(want), (
            x, g(x), d(x), want)
    assert crn.grad(conventions)(0.0) == 0.0                        # abs'(0) = 0
    assert crn.grad(sqrt_at_zero)(0.0) == math.inf                  # sqrt'(0) = inf
    # ties of max and min go where the table's rule sends them (chainrules.ad
    # runs Python's own max on tracked values instead)
    for x in (0.0, 1.5, -2.0):
        want = [chainrules.frule((chainrules.NoTangent(), *t), max, x, x)[1]
                + 2.0 * chainrules.frule((chainrules.NoTangent(), *t), min, x, x)[1]
                for t in ((1.0, 0.0), (0.0, 1.0))]
        assert list(crn.grad(tie, (0, 1))(x, x)) == want, x
    assert crn.derivative(sqrt_at_zero)(0.0) == ad.derivative(ad_math.sqrt, 0.0) == math.inf


def _function(src, name, ns=None):
    """A function from source text that inspect.getsource can read."""
    filename = f"<test_numba_ad {name}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    scope = {"math": math, "np": np, "cmath": cmath}
    scope.update(ns or {})
    exec(compile(src, filename, "exec"), scope)
    return scope[name]


def _row_functions():
    """One Python function per real row of the table: (native name, f, arity)."""
    seen = {}
    for f, row in _core._scalar_rows().items():
        for n in row.arities:
            name = native_name(row.name, n)
            if name in crn.ROWS and (name, n) not in seen and not row.name.startswith("cmath."):
                seen[(name, n)] = f
    return seen


@pytest.fixture(scope="module")
def every_row():
    """(rows, grad of one function calling row k's function for k)."""
    rows = sorted(_row_functions().items(), key=lambda kv: kv[0])
    lines = ["def every(x, y, k):"]
    ns = {}
    for k, ((name, n), f) in enumerate(rows):
        ns[f"f{k}"] = f
        call = f"f{k}(x)" if n == 1 else f"f{k}(x, y)"
        lines.append(f"    if k == {k}:\n        return {call}")
    lines.append("    return 0.0\n")
    every = _function("\n".join(lines), "every", ns)
    return rows, crn.grad(every, (0, 1))


def _check_every_row(every_row, random_points):
    """grad of every real row's function against the row's kernel (to the
    bit) and chainrules' own rule, at ±0, awkward points and random points
    of several scales."""
    rows, g = every_row
    rng = np.random.default_rng(25)
    scales = np.repeat([0.5, 3.0, 30.0], random_points // 3)
    pts = [(0.0, 0.5), (-0.0, 2.0), (0.3, 1.9), (-0.7, 0.3), (2.5, 2.0), (1.0, 1.0), (-1.0, -3.0)]
    pts += list(zip(rng.standard_normal(scales.size) * scales, rng.standard_normal(scales.size) * scales))
    failures, checked = [], 0
    for k, ((name, n), f) in enumerate(rows):
        if name == "ldexp":                                     # an integer argument
            continue
        kernel_fd = getattr(crn, name + "_fd")
        for x, y in pts:
            x, y = float(x), float(y)
            args = (x,) if n == 1 else (x, y)
            try:
                with np.errstate(all="ignore"):
                    omega, pb = chainrules.rrule(f, *args)
                    want = [float(v) for v in pb(1.0)[1:]]
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue                                       # outside the primal's domain
            if isinstance(omega, complex):
                continue
            got = g(x, y, k)
            got = [got[0]] if n == 1 else list(got)
            kernel = list(kernel_fd(*args)[1:])
            checked += 1
            # the kernel's own partials, to the bit; the rule's within 1e-13 (the rule
            # may compute a partial in another order: gamma′ = Γ·ψ differs by 2 ulps)
            if not all(a == b or (a != a and b != b) for a, b in zip(got, kernel)):
                failures.append((name, args, "kernel", got, kernel))
            if not all(a == b or (a != a and b != b) or abs(a - b) <= 1e-13 * max(1.0, abs(b))
                       for a, b in zip(got, want)):
                failures.append((name, args, "rule", got, want))
    assert checked > random_points // 6 * len(rows)
    assert not failures, (len(failures), sorted({f[0] for f in failures}), failures[:5])


def test_every_real_row_of_the_table(every_row):
    _check_every_row(every_row, 300)


@pytest.mark.sweep
def test_every_real_row_of_the_table_at_10000_points(every_row):
    _check_every_row(every_row, 10**4)


# ----- from numba code, user rules, errors ---------------------------------------

def test_callable_from_njit_code():
    gfoo, dfoo = crn.grad(foo), crn.derivative(foo)
    vg = crn.value_and_grad(branch, (0, 1))

    @numba.njit
    def loop(x):
        out = np.empty_like(x)
        acc = 0.0
        for i in range(x.size):
            out[i] = gfoo(x[i]) - dfoo(x[i])
            v, (a, b) = vg(x[i], 0.5)
            acc += v + a + b
        return out, acc
    x = np.linspace(-1.0, 0.8, 7)
    out, acc = loop(x)
    assert np.all(out == 0.0)
    want = sum(branch(v, 0.5) + sum(crn.grad(branch, (0, 1))(v, 0.5)) for v in x)
    assert math.isclose(acc, want, rel_tol=1e-14)


def cube(x):
    return x * x * x


def uses_cube(x):
    return cube(math.sin(x)) * 2.0


def test_a_users_scalar_rule_reaches_it(registry):
    # a deliberately different partial, so that the test sees the rule was used
    chainrules.scalar_rule(cube, lambda x: 3.0 * x * x + 1.0)
    s = math.sin(0.4)
    want = 2.0 * (3.0 * s * s + 1.0) * math.cos(0.4)
    assert math.isclose(crn.grad(uses_cube)(0.4), want, rel_tol=1e-14)
    assert math.isclose(crn.derivative(uses_cube)(0.4), want, rel_tol=1e-14)


ERRORS = [
    ("def f(x):\n    for i in range(3):\n        break\n    return x\n", crn.UnsupportedSyntaxError,
     3, "Break"),
    ("def f(x, y):\n    z = x\n    y[0] = z\n    return y[0]\n", crn.UnsupportedSyntaxError,
     3, "writing into arrays"),
    ("def f(x):\n    return math.factorial(x) * x\n", crn.NotDifferentiableError, 2, "factorial"),
    ("def f(x):\n    a = x\n    return sorted(a)\n", crn.NotDifferentiableError, 3, "sorted"),
    ("def f(x):\n    if x > 0:\n        return x\n", crn.UnsupportedSyntaxError, 1, "without a return"),
    ("def f(x):\n    with x:\n        pass\n    return x\n", crn.UnsupportedSyntaxError, 2, "With"),
]


def test_errors_name_the_line():
    for src, cls, line, what in ERRORS:
        f = _function(src, "f")
        with pytest.raises(cls) as e:
            crn.grad(f)
        assert f"line {line})" in str(e.value) and what in str(e.value), (src, str(e.value))
        assert issubclass(cls, (TypeError, SyntaxError))
