"""Scalar rules: `frule` and `rrule`+pullback of every unary `math` function
against the same rule hand-written in pure Python.

The hand-written rules are what a user would write without chainrules (the
issue's `def frule_sin(x, dx): return sin(x), cos(x) * dx` and a closure-based
rrule with a named pullback), generated from one template per kind with the
derivative expression of each function, and call the functions as bare names
(`from math import sin`), the cheapest way Python offers.  chainrules computes
the same derivative in C (`_core/scalar_table.pxi`).

Targets (issue 4): `frule` at most 1.0x and `rrule`+pullback at most 0.8x of
the hand-written rule, for every function.

    python bench/benchmarks/scalar_rules.py [repetitions]

prints the ratios of one interleaved run (each repetition times every variant
of every function once), worst first.
"""

import math
from math import (acos, acosh, asin, asinh, atan, atanh, cbrt, ceil, cos, cosh, degrees, erf,
                  erfc, exp, exp2, expm1, fabs, floor, gamma, lgamma, log, log1p, log2, log10,
                  pi, radians, sin, sinh, sqrt, tan, tanh, trunc)

NO = None  # NoTangent(), set in setup: importing this module must stay cheap
LN2 = math.log(2.0)
LN10 = math.log(10.0)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def digamma(x):
    """ψ(x) in pure Python (math has none): recurrence to 10, then the series."""
    r = 0.0
    if x < 0.0:
        return digamma(1.0 - x) - pi / tan(pi * x)
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return r + log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (
        1 / 240 - f * (1 / 132 - f * (691 / 32760 - f / 12))))))


# name: (point, derivative in terms of x and the output y)
UNARY = {
    "sin": (0.5, "cos(x)"),
    "cos": (0.5, "-sin(x)"),
    "tan": (0.5, "1.0 + y * y"),
    "asin": (0.5, "1.0 / sqrt(1.0 - x * x)"),
    "acos": (0.5, "-1.0 / sqrt(1.0 - x * x)"),
    "atan": (0.5, "1.0 / (1.0 + x * x)"),
    "sinh": (0.5, "cosh(x)"),
    "cosh": (0.5, "sinh(x)"),
    "tanh": (0.5, "1.0 - y * y"),
    "asinh": (0.5, "1.0 / sqrt(x * x + 1.0)"),
    "acosh": (1.5, "1.0 / sqrt(x * x - 1.0)"),
    "atanh": (0.5, "1.0 / (1.0 - x * x)"),
    "exp": (0.5, "y"),
    "exp2": (0.5, "y * LN2"),
    "expm1": (0.5, "y + 1.0"),
    "log": (1.5, "1.0 / x"),
    "log2": (1.5, "1.0 / (x * LN2)"),
    "log10": (1.5, "1.0 / (x * LN10)"),
    "log1p": (0.5, "1.0 / (1.0 + x)"),
    "sqrt": (1.5, "0.5 / y"),
    "cbrt": (1.5, "1.0 / (3.0 * y * y)"),
    "fabs": (-1.5, "(x > 0) - (x < 0)"),
    "degrees": (0.5, "180.0 / pi"),
    "radians": (0.5, "pi / 180.0"),
    "erf": (0.5, "TWO_OVER_SQRT_PI * exp(-x * x)"),
    "erfc": (0.5, "-TWO_OVER_SQRT_PI * exp(-x * x)"),
    "gamma": (2.5, "y * digamma(x)"),
    "lgamma": (2.5, "digamma(x)"),
    "floor": (2.5, "0.0"),
    "ceil": (2.5, "0.0"),
    "trunc": (2.5, "0.0"),
}

_TEMPLATE = '''
def frule_{name}(x, dx):
    y = {name}(x)
    return y, ({d}) * dx


def rrule_{name}(x):
    y = {name}(x)
    d = {d}

    def {name}_pullback(dy):
        return NO, d * dy
    return y, {name}_pullback
'''

HAND = {}
for _name, (_x, _d) in UNARY.items():
    _ns = dict(globals())
    exec(compile(_TEMPLATE.format(name=_name, d=_d), f"<hand-written rules of {_name}>", "exec"), _ns)
    HAND[_name] = (_ns[f"frule_{_name}"], _ns[f"rrule_{_name}"])
del _name, _x, _d, _ns


def _setup(self, name):
    global NO
    import chainrules as cr
    NO = cr.NoTangent()
    self.f = getattr(math, name)
    self.x = UNARY[name][0]
    self.t = (NO, 1.0)
    self.hand_frule, self.hand_rrule = HAND[name]
    self.frule, self.rrule = cr.frule, cr.rrule
    # the hand-written rule and chainrules agree (and chainrules has the rule)
    y, dy = self.frule(self.t, self.f, self.x)
    y2, dy2 = self.hand_frule(self.x, 1.0)
    assert y == y2 and math.isclose(dy, dy2, rel_tol=1e-12, abs_tol=1e-300), (name, dy, dy2)
    assert math.isclose(self.rrule(self.f, self.x)[1](1.0)[1], dy2, rel_tol=1e-12, abs_tol=1e-300)


class Frule:
    """frule((NoTangent(), 1.0), f, x) against frule_f(x, 1.0) written in Python."""
    params = list(UNARY)
    param_names = ["function"]
    baseline = "python"
    n = 1000
    setup = _setup

    def time_python(self, name):
        rule, x = self.hand_frule, self.x
        for _ in range(self.n):
            rule(x, 1.0)

    def time_chainrules(self, name):
        frule, t, f, x = self.frule, self.t, self.f, self.x
        for _ in range(self.n):
            frule(t, f, x)


class RrulePullback:
    """y, pb = rrule(f, x); pb(1.0) against the closure-based rule in Python."""
    params = list(UNARY)
    param_names = ["function"]
    baseline = "python"
    n = 1000
    setup = _setup

    def time_python(self, name):
        rule, x = self.hand_rrule, self.x
        for _ in range(self.n):
            y, pb = rule(x)
            pb(1.0)

    def time_chainrules(self, name):
        rrule, f, x = self.rrule, self.f, self.x
        for _ in range(self.n):
            y, pb = rrule(f, x)
            pb(1.0)


def _ratios(repetitions=30):
    """{(class, function): ratio} from one interleaved run: per repetition every
    variant of every function is timed once; the minimum over repetitions of
    each variant gives the ratio (the least disturbed measurement)."""
    import time
    benches = []
    for cls in (Frule, RrulePullback):
        for name in cls.params:
            b = cls()
            b.setup(name)
            benches.append((cls.__name__, name, b))
    best = {}
    for _ in range(repetitions):
        for cname, name, b in benches:
            for variant in ("python", "chainrules"):
                fn = getattr(b, "time_" + variant)
                t0 = time.perf_counter()
                fn(name)
                dt = time.perf_counter() - t0
                key = (cname, name, variant)
                best[key] = min(best.get(key, dt), dt)
    return {(c, n): best[(c, n, "chainrules")] / best[(c, n, "python")]
            for c, n, v in best if v == "python"}


if __name__ == "__main__":
    import os
    import sys
    # NumPy's BLAS threads must not compete with the measurement (2 cores).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    ratios = _ratios(reps)
    targets = {"Frule": 1.0, "RrulePullback": 0.8}
    for cname in ("Frule", "RrulePullback"):
        rows = sorted(((r, n) for (c, n), r in ratios.items() if c == cname), reverse=True)
        over = [n for r, n in rows if r > targets[cname]]
        print(f"{cname}: target {targets[cname]:.1f}x, worst three: "
              + ", ".join(f"{n} {r:.2f}x" for r, n in rows[:3])
              + (f"; ABOVE TARGET: {over}" if over else ""))
        print("  " + "  ".join(f"{n} {r:.2f}" for r, n in rows))
