"""Dispatch: one scalar `frule` / `rrule`+pullback call against bare `math` calls and against the same rule hand-written in pure Python.

Variants, per function `f` at one point:

- `primal`: `f(x)` alone, the floor;
- `bare_math`: the primal and its pushforward written inline with bare
  `math` calls (`y = sin(x); dy = cos(x) * dx`), no function call for the
  rule (the baseline);
- `hand_frule`, `hand_rrule`: a ChainRules-style rule written in pure Python
  (`def sin_frule(tangents, x)`, `def sin_rrule(x)` returning a named
  pullback), called like chainrules calls its rules;
- `frule`: `chainrules.frule((NoTangent(), dx), f, x)`;
- `rrule`: `y, pb = chainrules.rrule(f, x); pb(1.0)`.

Timed by pyperf (`timed_by = "pyperf"`: worker processes, calibrated loops;
bench/_pyperf.py) when it is installed, else by the runner's own timer.

The target (issue 7): `frule` at or below `hand_frule`, `rrule` at or below
`hand_rrule`.  The loops are generated from one template per variant so
that each variant runs the same loop with its call inlined (a helper
function per variant would add a Python call to the cheap ones).
"""

import math
import operator
from math import asin, atan2, cos, exp, log, sin, sqrt, tanh

NO = None  # NoTangent(), set in setup: importing this module must stay cheap


# ----- hand-written rules, in ChainRules' style ----------------------------

def sin_frule(t, x):
    return sin(x), cos(x) * t[1]


def sin_rrule(x):
    c = cos(x)

    def sin_pullback(ȳ):
        return NO, c * ȳ
    return sin(x), sin_pullback


def cos_frule(t, x):
    return cos(x), -sin(x) * t[1]


def cos_rrule(x):
    s = -sin(x)

    def cos_pullback(ȳ):
        return NO, s * ȳ
    return cos(x), cos_pullback


def asin_frule(t, x):
    return asin(x), t[1] / sqrt(1.0 - x * x)


def asin_rrule(x):
    d = 1.0 / sqrt(1.0 - x * x)

    def asin_pullback(ȳ):
        return NO, d * ȳ
    return asin(x), asin_pullback


def exp_frule(t, x):
    y = exp(x)
    return y, y * t[1]


def exp_rrule(x):
    y = exp(x)

    def exp_pullback(ȳ):
        return NO, y * ȳ
    return y, exp_pullback


def log_frule(t, x):
    return log(x), t[1] / x


def log_rrule(x):
    def log_pullback(ȳ):
        return NO, ȳ / x
    return log(x), log_pullback


def sqrt_frule(t, x):
    y = sqrt(x)
    return y, t[1] / (2.0 * y)


def sqrt_rrule(x):
    y = sqrt(x)
    d = 1.0 / (2.0 * y)

    def sqrt_pullback(ȳ):
        return NO, d * ȳ
    return y, sqrt_pullback


def tanh_frule(t, x):
    y = tanh(x)
    return y, (1.0 - y * y) * t[1]


def tanh_rrule(x):
    y = tanh(x)
    d = 1.0 - y * y

    def tanh_pullback(ȳ):
        return NO, d * ȳ
    return y, tanh_pullback


def add_frule(t, x, y):
    return x + y, t[1] + t[2]


def add_rrule(x, y):
    def add_pullback(ȳ):
        return NO, ȳ, ȳ
    return x + y, add_pullback


def mul_frule(t, x, y):
    return x * y, t[1] * y + x * t[2]


def mul_rrule(x, y):
    def mul_pullback(ȳ):
        return NO, ȳ * y, x * ȳ
    return x * y, mul_pullback


def truediv_frule(t, x, y):
    z = x / y
    return z, (t[1] - z * t[2]) / y


def truediv_rrule(x, y):
    z = x / y

    def truediv_pullback(ȳ):
        dx = ȳ / y
        return NO, dx, -dx * z
    return z, truediv_pullback


def pow_frule(t, x, p):
    z = x ** p
    return z, p * x ** (p - 1.0) * t[1] + z * log(x) * t[2]


def pow_rrule(x, p):
    z = x ** p
    dx = p * x ** (p - 1.0)
    dp = z * log(x)

    def pow_pullback(ȳ):
        return NO, dx * ȳ, dp * ȳ
    return z, pow_pullback


def atan2_frule(t, y, x):
    h = x * x + y * y
    return atan2(y, x), (x * t[1] - y * t[2]) / h


def atan2_rrule(y, x):
    h = x * x + y * y
    dy, dx = x / h, -y / h

    def atan2_pullback(ȳ):
        return NO, dy * ȳ, dx * ȳ
    return atan2(y, x), atan2_pullback


# name: (f, arguments, primal expression, pushforward expression in dx1, dx2)
RULES = {
    "sin": (math.sin, (3.0,), "sin(x1)", "cos(x1) * dx1"),
    "cos": (math.cos, (3.0,), "cos(x1)", "-sin(x1) * dx1"),
    "asin": (math.asin, (0.5,), "asin(x1)", "dx1 / sqrt(1.0 - x1 * x1)"),
    "exp": (math.exp, (1.5,), "exp(x1)", "y * dx1"),
    "log": (math.log, (1.5,), "log(x1)", "dx1 / x1"),
    "sqrt": (math.sqrt, (2.0,), "sqrt(x1)", "dx1 / (2.0 * y)"),
    "tanh": (math.tanh, (0.5,), "tanh(x1)", "(1.0 - y * y) * dx1"),
    "add": (operator.add, (1.5, 2.5), "x1 + x2", "dx1 + dx2"),
    "mul": (operator.mul, (1.5, 2.5), "x1 * x2", "dx1 * x2 + x1 * dx2"),
    "truediv": (operator.truediv, (1.5, 2.5), "x1 / x2", "(dx1 - y * dx2) / x2"),
    "pow": (operator.pow, (1.5, 2.5), "x1 ** x2", "x2 * x1 ** (x2 - 1.0) * dx1 + y * log(x1) * dx2"),
    "atan2": (math.atan2, (1.0, 2.0), "atan2(x1, x2)", "(x2 * dx1 - x1 * dx2) / (x1 * x1 + x2 * x2)"),
}

TEMPLATES = {
    "primal": "{primal}",
    "bare_math": "y = {primal}; dy = {push}",
    "hand_frule": "hand_frule(t, {args})",
    "frule": "frule(t, f, {args})",
    "hand_rrule": "y, pb = hand_rrule({args}); pb(1.0)",
    "rrule": "y, pb = rrule(f, {args}); pb(1.0)",
}


def _loop(template, names, namespace):
    """A function `loop(n, x1, ...)` running the template's statement n times."""
    args = ", ".join(names)
    src = (f"def loop(n, {args}):\n"
           f"    for _ in range(n):\n"
           f"        {template}\n")
    exec(compile(src, f"<dispatch loop: {template}>", "exec"), namespace)
    return namespace["loop"]


class Rule:
    """One scalar rule, every variant: ratios are to the inline bare-math derivative."""
    params = list(RULES)
    param_names = ["function"]
    baseline = "bare_math"
    timed_by = "pyperf"       # sub-microsecond calls: pyperf's workers and calibrated loops
    n = 10000

    def setup(self, name):
        global NO
        import chainrules as cr
        NO = cr.NO_FIELDS
        f, xs, primal, push = RULES[name]
        names = [f"x{i + 1}" for i in range(len(xs))]
        t = (cr.NoTangent(),) + tuple(1.0 for _ in xs)
        if cr.frule(t, f, *xs) is None or cr.rrule(f, *xs) is None:
            raise NotImplementedError(f"chainrules has no rule for {name} yet")
        namespace = {"sin": sin, "cos": cos, "asin": asin, "exp": exp, "log": log, "sqrt": sqrt,
                     "tanh": tanh, "atan2": atan2, "f": f, "t": t, "frule": cr.frule, "rrule": cr.rrule,
                     "hand_frule": globals()[f"{name}_frule"], "hand_rrule": globals()[f"{name}_rrule"]}
        namespace.update({f"dx{i + 1}": 1.0 for i in range(len(xs))})
        # "y" in a pushforward is the primal output, computed just before.
        self.loops = {v: _loop(tpl.format(primal=primal, push=push, args=", ".join(names)), names,
                               dict(namespace)) for v, tpl in TEMPLATES.items()}
        self.xs = xs
        _check(name, f, xs, t, cr)

    def time_primal(self, name):
        self.loops["primal"](self.n, *self.xs)

    def time_bare_math(self, name):
        self.loops["bare_math"](self.n, *self.xs)

    def time_hand_frule(self, name):
        self.loops["hand_frule"](self.n, *self.xs)

    def time_frule(self, name):
        self.loops["frule"](self.n, *self.xs)

    def time_hand_rrule(self, name):
        self.loops["hand_rrule"](self.n, *self.xs)

    def time_rrule(self, name):
        self.loops["rrule"](self.n, *self.xs)


def _check(name, f, xs, t, cr):
    """The hand-written rules and chainrules' must agree before being compared."""
    hf, hr = globals()[f"{name}_frule"], globals()[f"{name}_rrule"]
    y, dy = cr.frule(t, f, *xs)
    y2, dy2 = hf(t, *xs)
    _, pb = cr.rrule(f, *xs)
    _, pb2 = hr(*xs)
    grads, grads2 = pb(1.0)[1:], pb2(1.0)[1:]
    ok = math.isclose(y, y2, rel_tol=1e-14) and math.isclose(dy, dy2, rel_tol=1e-12) and all(
        math.isclose(a, b, rel_tol=1e-12) for a, b in zip(grads, grads2))
    if not ok:
        raise AssertionError(f"{name}: chainrules gives {(y, dy, grads)}, the hand-written rules {(y2, dy2, grads2)}")


# ----- the seed chain: foo(x) = asin(0.2 + sin(x)) --------------------------

def _bare_foo(x):
    b = 0.2 + sin(x)
    return asin(b), cos(x) / sqrt(1.0 - b * b)


def _hand_frule_chain(x):
    a, ȧ = sin_frule((NO, 1.0), x)
    b, ḃ = add_frule((NO, 0.0, ȧ), 0.2, a)
    return asin_frule((NO, ḃ), b)


def _hand_rrule_chain(x):
    a, a_pb = sin_rrule(x)
    b, b_pb = add_rrule(0.2, a)
    c, c_pb = asin_rrule(b)
    _, b̄ = c_pb(1.0)
    _, _, ā = b_pb(b̄)
    _, x̄ = a_pb(ā)
    return c, x̄


class SeedChain:
    """The seed example by hand: `foo(x) = asin(0.2 + sin(x))` at x = 3, its
    derivative by chained rules (as `python -m chainrules` does)."""
    baseline = "bare_math"
    timed_by = "pyperf"
    n = 10000

    def setup(self):
        global NO
        import chainrules as cr
        NO = cr.NO_FIELDS
        frule, rrule, Z = cr.frule, cr.rrule, cr.ZeroTangent()

        def frule_chain(x):
            a, ȧ = frule((NO, 1.0), sin, x)
            b, ḃ = frule((NO, Z, ȧ), operator.add, 0.2, a)
            return frule((NO, ḃ), asin, b)

        def rrule_chain(x):
            a, a_pb = rrule(sin, x)
            b, b_pb = rrule(operator.add, 0.2, a)
            c, c_pb = rrule(asin, b)
            _, b̄ = c_pb(1.0)
            _, _, ā = b_pb(b̄)
            _, x̄ = a_pb(ā)
            return c, x̄

        self.chains = {"bare_math": _bare_foo, "hand_frule": _hand_frule_chain, "frule": frule_chain,
                       "hand_rrule": _hand_rrule_chain, "rrule": rrule_chain}
        ref = _bare_foo(3.0)
        for v, fn in self.chains.items():
            got = fn(3.0)
            if not all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(got, ref)):
                raise AssertionError(f"seed chain {v}: got {got}, expected {ref}")

    def _run(self, v):
        fn = self.chains[v]
        for _ in range(self.n):
            fn(3.0)

    def time_bare_math(self):
        self._run("bare_math")

    def time_hand_frule(self):
        self._run("hand_frule")

    def time_frule(self):
        self._run("frule")

    def time_hand_rrule(self):
        self._run("hand_rrule")

    def time_rrule(self):
        self._run("rrule")
