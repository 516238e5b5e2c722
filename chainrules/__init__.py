"""chainrules: differentiation rules for Python and NumPy.

`frule` / `rrule` for the functions of math, cmath, operator, the builtins
and NumPy, the tangent types they speak in, a rule-testing kit
(`chainrules.testing`, `chainrules.finite_differences`) and reference AD
engines (`chainrules.ad`).

Documentation: the site built from `docs/` in the source tree (`.ci/docs`
builds it to `docs/_build/html`): an introduction to frule, rrule and the
tangent types, guides for rule authors and AD authors, the conventions at
non-differentiable points, the rule-set reference and the API.  In Python,
`help(chainrules.frule)`, `help(chainrules.rrule)` and
`help(chainrules.register_rrule)` give the protocol.
"""

import importlib.util as _importlib_util

if _importlib_util.find_spec("chainrules._core") is None:
    raise ImportError(
        f"chainrules: the compiled core chainrules._core is missing from {__path__[0]}: these are "
        "the uncompiled sources (you are probably in the repository root). Install chainrules "
        "(`pip install .`, or the development set-up of the README: `pip install "
        "--no-build-isolation -e '.[test]'`) and run Python outside the source folder or with "
        "`python -P`, which keeps the current folder off sys.path.")
del _importlib_util

from chainrules._core import (  # noqa: E402
    # the rule protocol
    frule,
    rrule,
    RuleConfig,
    rrule_via_ad,
    frule_via_ad,
    # defining rules
    scalar_rule,
    register_frule,
    register_rrule,
    non_differentiable,
    opt_out,
    derivatives_given_output,
    RuleOverwriteWarning,
    # tangent types
    AbstractTangent,
    AbstractZero,
    ZeroTangent,
    NoTangent,
    NO_FIELDS,
    AbstractThunk,
    Thunk,
    thunk,
    unthunk,
    InplaceableThunk,
    StructuralTangent,
    Tangent,
    MutableTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    not_implemented,
    # working with tangents
    ProjectTo,
    add_inplace,
    is_inplaceable_destination,
    canonicalize,
    backing,
    construct,
    zero_tangent,
    ignore_derivatives,
)

# The rule sets register themselves on import.
from chainrules import rulesets as _rulesets  # noqa: E402,F401
from chainrules._debug import CompiledReplayError, MutationError, debug_mode  # noqa: E402
# the shapes of pullbacks and rules, for annotations
from chainrules._protocols import FruleFunction, Pullback, RruleFunction  # noqa: E402

from chainrules._version import version as __version__  # noqa: E402  (meson.build's)


def get_include() -> str:
    """The folder to compile Cython code against chainrules' C scalar table.

    It holds the ``.pxd`` files of the package ``chainrules`` (``scalar.pxd``:
    f, f′ and the fused (f, f′) of every real row, nogil on C doubles;
    ``cscalar.pxd``: the complex rows; ``kernels.pxd``: the derivative kernels
    they share with the compiled core).  Give it to Cython as an include path
    (``cythonize(..., include_path=[chainrules.get_include()])``) and
    ``cimport chainrules.scalar``.  The functions are inline: the extension
    needs neither chainrules nor Python at run time to call them.  See the
    documentation page "Calling the kernels from Cython and numba".
    """
    import os
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")


__all__ = [
    "frule", "rrule", "RuleConfig", "rrule_via_ad", "frule_via_ad",
    "scalar_rule", "register_frule", "register_rrule", "non_differentiable", "opt_out",
    "derivatives_given_output", "RuleOverwriteWarning", "debug_mode", "MutationError", "CompiledReplayError",
    "AbstractTangent", "AbstractZero", "ZeroTangent", "NoTangent", "NO_FIELDS",
    "AbstractThunk", "Thunk", "thunk", "unthunk", "InplaceableThunk",
    "StructuralTangent", "Tangent", "MutableTangent",
    "NotImplementedTangent", "NotImplementedTangentError", "not_implemented",
    "ProjectTo", "add_inplace", "is_inplaceable_destination", "canonicalize", "backing",
    "construct", "zero_tangent", "ignore_derivatives",
    "Pullback", "FruleFunction", "RruleFunction", "get_include",
]
