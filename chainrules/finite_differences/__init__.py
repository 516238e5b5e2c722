"""chainrules.finite_differences: derivatives by finite differences, the oracle
that every rule is tested against (FiniteDifferences.jl for Python).

- `central_fdm(p, q)`, `forward_fdm(p, q)`, `backward_fdm(p, q)`: methods for the
  q-th derivative of a scalar function from p points, adaptive step;
  `m(f, x)` estimates it at x.
- `to_vec(x) -> (v, back)`: flatten numbers, complex numbers (two reals), NumPy
  arrays, tuples, lists, dicts, dataclasses and `Tangent` values to a float vector.
- `jvp`, `vjp` (J′ᵀ·ȳ, FiniteDifferences.jl's `j′vp`), `grad`, `jacobian`.
"""

from chainrules.finite_differences.methods import (
    DEFAULT_CONDITION,
    DEFAULT_FACTOR,
    FiniteDifferenceMethod,
    backward_fdm,
    central_fdm,
    estimate_step,
    forward_fdm,
)
from chainrules.finite_differences.to_vec import to_vec
from chainrules.finite_differences.grad import grad, jacobian, j_vp, jvp, vjp

__all__ = [
    # methods
    "FiniteDifferenceMethod", "central_fdm", "forward_fdm", "backward_fdm", "estimate_step",
    "DEFAULT_CONDITION", "DEFAULT_FACTOR",
    # flattening
    "to_vec",
    # derivatives of functions of many variables
    "jvp", "vjp", "j_vp", "grad", "jacobian",
]
