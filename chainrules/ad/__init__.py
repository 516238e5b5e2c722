"""chainrules.ad: small reference AD engines that only consume frule/rrule.

Forward mode (dual numbers), reverse mode (a tape) and mixed mode
(forward-over-reverse Hessian-vector products).  They run the rules end to
end, supply the `RuleConfig`s that higher-order rules call back into, and
show what a rule-driven AD costs: the scalar path of both engines runs in C
on the kernels of the scalar rule table.

What they differentiate: code written with Python operators, NumPy functions
and ufuncs (through NumPy's `__array_ufunc__`/`__array_function__`), the
drop-in namespaces `chainrules.ad.math` and `chainrules.ad.cmath`, and any
function called through `wrap(f)` (its rule, including user-registered and
config rules; without a rule, its body is traced).  When the function being
differentiated has a rule, the rule is used.  A plain `math.sin(x)` on a
tracked value raises TypeError (it would lose the derivative).

Example::

    >>> from chainrules import ad
    >>> from chainrules.ad import math
    >>> def foo(x):
    ...     return math.asin(0.2 + math.sin(x))
    >>> ad.derivative(foo, 3.0)      # forward mode
    -1.0531613736418153
    >>> ad.gradient(foo, 3.0)        # reverse mode
    -1.0531613736418153
    >>> ad.hessian(foo, 3.0)         # forward over reverse
    0.25237008600841926

Nested differentiation is safe: every differentiation tags its values, and
an operation on values of several tags is done for the innermost one.  Second
derivatives need first derivatives that are themselves differentiable: a rule
evaluated on values tracked by an enclosing differentiation is differentiated
by it when its body computes with NumPy functions and operators on its
arguments (NumPy's element-wise ufuncs and Python's scalar functions by the
element-wise table; indexing, sort, clip, take, max and min by their
array-API bodies registered on Dual and Var; matmul and tensordot by their
one rule, the array-API body; sum, mean,
reshape, prod, var, std, cumprod, the products (dot, einsum, outer, kron,
…), linalg.norm/solve/inv/det/slogdet/cholesky/eigh/eigvalsh/qr/svd,
np.pad and most shape functions by their own rules; every rule of another
array library).  There is no second registry:
a rule that cannot compute with tracked values raises a clear NoRuleError
naming the rule.

`checkpoint(f)` trades time for memory: reverse mode keeps none of f's
intermediate values and recomputes them in the backward pass (with the
random numbers f drew from NumPy's global generator and `random`'s).

autograd programs run on these engines by changing their imports:
`chainrules.ad.autograd` has autograd's operators (`grad`, `jacobian`,
`hessian`, `make_vjp`, …), `chainrules.ad.numpy` and `chainrules.ad.scipy`
stand for `autograd.numpy` and `autograd.scipy` (submodules, imported on
demand).

Calls the engines cannot see: a `math` function or a function with a rule
called directly inside the differentiated code (use `chainrules.ad.math`,
`chainrules.ad.cmath` or `wrap(f)`); NumPy dispatches on array arguments only,
so a NumPy higher-order function given plain arrays and a closure over a
tracked value needs `wrap` too.  None of these loses a derivative silently:
the tracked value raises TypeError when converted.
"""

from chainrules._core import Dual, Tape, Tracked, Var, Wrapped, _ad_set_dispatch
from chainrules.ad import _tracing
from chainrules.ad._tracing import EscapedTrackedValueError, NoRuleError, wrap
from chainrules.ad.config import ForwardConfig, ReverseConfig
from chainrules.ad.forward import derivative, jvp
from chainrules.ad.reverse import gradient, value_and_gradient, vjp
from chainrules.ad.mixed import hessian, hvp, jacobian
from chainrules.ad.compile import compile  # noqa: A004  (ad.compile, the compiled derivative)
from chainrules.ad.checkpointing import checkpoint
from chainrules.ad import cmath, math  # noqa: F401  (the drop-in namespaces)
from chainrules.ad._routing import register_numpy_on_tracked as _register_numpy_on_tracked
from chainrules.ad._routing import register_scalars_on_tracked as _register_scalars_on_tracked
from chainrules.ad._routing import register_getitem_on_tracked as _register_getitem_on_tracked


_ad_set_dispatch(_tracing.dispatch)
# Rules for values tracked by an enclosing differentiation (Dual, Var, and
# ad.compile's traced values: every subclass of Tracked), so that the rules run
# inside a nested differentiation are themselves differentiated:
_register_numpy_on_tracked(Tracked)      # NumPy's ufuncs by the table's generic bodies
_register_scalars_on_tracked(Tracked)    # math, cmath, operator, abs, pow, max, min
_register_getitem_on_tracked(Tracked)    # indexing: the array-API rule

__all__ = [
    # forward mode
    "derivative", "jvp",
    # reverse mode
    "gradient", "value_and_gradient", "vjp",
    # both / mixed
    "jacobian", "hessian", "hvp",
    # trace once, replay compiled
    "compile",
    # recompute instead of keeping (gradient checkpointing)
    "checkpoint",
    # calling functions with rules on tracked values
    "wrap", "Wrapped", "math", "cmath",
    # configs for higher-order rules
    "ForwardConfig", "ReverseConfig",
    # the tracked values
    "Tracked", "Dual", "Var", "Tape",
    # errors
    "NoRuleError", "EscapedTrackedValueError",
]
