"""chainrules.ad.scipy.integrate: scipy.integrate for autograd programs (a
drop-in for `autograd.scipy.integrate`).

Every public function of scipy.integrate, wrapped as in
`chainrules.ad.scipy.linalg`: those with rules
(chainrules.rulesets.scipy.integrate) are differentiated by them on tracked
values, the others raise a NoRuleError naming the function.  `odeint(func,
y0, t, args=())` is SciPy's, differentiable in y0, t and the values of
`args` (autograd's odeint is the same function with the same signature);
`quad` in its limits and `args`; `trapezoid`, `simpson`,
`cumulative_trapezoid` in their samples.  Tracked values may come in `args`
given by keyword (`odeint(f, y0, t, args=(a, b))`, as in autograd's examples):
`odeint` and `quad` pass it on by position, where the rules find them.
`solve_ivp(fun, t_span, y0, ..., t_eval=..., args=...)` is differentiable in
y0, t_span, t_eval and the values of `args` (forward sensitivities in forward
mode, the adjoint method in reverse mode: chainrules.rulesets.scipy.integrate_ode);
read its `.y` (and `.t`): `solve_ivp(f, (0, 1), y0, args=(p,), t_eval=ts).y`.
It passes its arguments up to `args` on by position.
"""

from __future__ import annotations

import scipy.integrate as _integrate

import chainrules.rulesets.scipy.integrate  # noqa: F401  (the rules)
from chainrules.ad._namespace import REQUIRED, by_position, populate_from_library

__all__ = populate_from_library(_integrate, globals())
for _name in ("odeint", "quad"):
    _first = ("func", "y0", "t") if _name == "odeint" else ("func", "a", "b")
    by_position(globals(), _name, tuple((p, REQUIRED) for p in _first) + (("args", ()),))
by_position(globals(), "solve_ivp", (("fun", REQUIRED), ("t_span", REQUIRED), ("y0", REQUIRED), ("method", "RK45"),
                                     ("t_eval", None), ("dense_output", False), ("events", None),
                                     ("vectorized", False), ("args", None)))
