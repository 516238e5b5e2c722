"""chainrules.testing: test rules against finite differences (ChainRulesTestUtils for Python).

One line tests a rule::

    from chainrules.testing import test_rrule, test_frule, test_scalar
    test_scalar(math.sin, 0.5)
    test_rrule(np.dot, np.ones(3), np.arange(3.0))

The testers raise AssertionError, so they work in plain pytest functions and
parametrisations.  Arguments are drawn tangents by `rand_tangent`, or given
one with `PrimalAndTangent(x, ẋ)`; `PrimalAndTangent(x, NoTangent())` marks x
non-differentiable.  Pass `TestConfig()` first to test rules that need a
RuleConfig.  Finite differences come from `chainrules.finite_differences`.

`order=2` also checks that a rule is differentiable (by `chainrules.ad`);
`backend=` runs the check on another array library's arrays, which
`to_backend` and `to_numpy` convert to and from NumPy.  `test_adapter` checks
a function wrapped for JAX, PyTorch or autograd by `chainrules.interop`.
"""

from chainrules.testing.adapters import test_adapter
from chainrules.testing.backends import to_backend, to_numpy
from chainrules.testing.check_result import default_tolerance, test_approx
from chainrules.testing.config import TestConfig
from chainrules.testing.primal_and_tangent import PrimalAndTangent
from chainrules.testing.rand_tangent import rand_tangent
from chainrules.testing.testers import test_frule, test_rrule, test_scalar

__all__ = [
    # the testers
    "test_frule",
    "test_rrule",
    "test_scalar",
    # comparing tangents
    "test_approx",
    "default_tolerance",
    # building inputs
    "rand_tangent",
    "PrimalAndTangent",
    # other array libraries (backend=)
    "to_backend",
    "to_numpy",
    # configs for rules that call back into AD
    "TestConfig",
    # the interop adapters (chainrules.interop)
    "test_adapter",
]
