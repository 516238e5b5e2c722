"""chainrules' C scalar table from numba (issue 13 item 4): a `@numba.njit` loop
over 10^6 points that computes a function and its derivative with chainrules'
kernels (`chainrules.numba`), against the same loop with the derivative
written by hand in numba.

Variants, each one pass over x (10^6 float64) per call, writing y and dy:

- `hand_fd` (the baseline): f and f′ written by hand with numba's `math`
  (sin: `y = sin(x); dy = cos(x)`; tanh: `y = tanh(x); dy = 1 - y*y`; …);
- `chainrules_fd`: `y, dy = chainrules.numba.NAME_fd(x)`, the fused kernel;
- `hand_d`: f′ alone, by hand;
- `chainrules_d`: `dy = chainrules.numba.NAME_d(x)`.

The real kernels are Python that numba compiles with the loop
(chainrules/_numba_kernels.py, generated from the C kernels): LLVM inlines
them, so the loops are the hand-written ones' machine code, except that the
kernels divide without numba's zero check (error_model="numpy", as C): the
hand-written `log1p′` checks and does not vectorize.  Target (issue 13): at
most 1.2× the hand-written loop (chainrules_fd / hand_fd, chainrules_d /
hand_d).  Without numba every variant is *missing*.
"""

import math

import numpy as np

# f′ by hand, per function: (fused body, derivative-only body) in numba
_HAND = {
    "sin": ("y[i] = math.sin(v); dy[i] = math.cos(v)", "dy[i] = math.cos(v)"),
    "tanh": ("t = math.tanh(v); y[i] = t; dy[i] = 1.0 - t * t",
             "t = math.tanh(v); dy[i] = 1.0 - t * t"),
    "exp": ("e = math.exp(v); y[i] = e; dy[i] = e", "dy[i] = math.exp(v)"),
    "log1p": ("y[i] = math.log1p(v); dy[i] = 1.0 / (1.0 + v)", "dy[i] = 1.0 / (1.0 + v)"),
}


def _loop(body, ns):
    """An @njit function f(x, y, dy) running `body` with v = x[i]."""
    import numba

    src = f"def loop(x, y, dy):\n    for i in range(x.size):\n        v = x[i]\n        {body}\n"
    exec(src, ns)
    return numba.njit(ns["loop"])


class NumbaLoop:
    params = ["sin", "tanh", "exp", "log1p"]
    param_names = ["function"]
    baseline = "hand_fd"
    n = 3

    def setup(self, function):
        import chainrules.numba as crn  # ModuleNotFoundError without numba: "missing"

        ns = {"math": math, "crn": crn}
        hand_fd, hand_d = _HAND[function]
        self.loops = {
            "hand_fd": _loop(hand_fd.replace("; ", "\n        "), ns),
            "hand_d": _loop(hand_d.replace("; ", "\n        "), ns),
            "chainrules_fd": _loop(f"y[i], dy[i] = crn.{function}_fd(v)", ns),
            "chainrules_d": _loop(f"dy[i] = crn.{function}_d(v)", ns),
        }
        rng = np.random.default_rng(0)
        self.x = rng.uniform(0.1, 3.0, 10**6)
        self.y, self.dy = np.empty_like(self.x), np.empty_like(self.x)
        results = {}
        for name, loop in self.loops.items():       # compiles each; values checked
            y, dy = np.zeros_like(self.x), np.zeros_like(self.x)
            loop(self.x, y, dy)
            results[name] = (y, dy)
        for name in ("chainrules_fd", "chainrules_d"):
            for k in ((0, 1) if name.endswith("fd") else (1,)):
                want = results["hand" + name[10:]][k]
                if not np.allclose(results[name][k], want, rtol=1e-14, atol=0):
                    raise AssertionError(f"{name}({function}) disagrees with the hand-written loop")

    def _time(self, name):
        loop, x, y, dy = self.loops[name], self.x, self.y, self.dy
        for _ in range(self.n):
            loop(x, y, dy)

    def time_hand_fd(self, function):
        self._time("hand_fd")

    def time_chainrules_fd(self, function):
        self._time("chainrules_fd")

    def time_hand_d(self, function):
        self._time("hand_d")

    def time_chainrules_d(self, function):
        self._time("chainrules_d")
