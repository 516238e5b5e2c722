"""Non-differentiable functions of Python's scalar world, as data
(ChainRules' `nondiff.jl`): predicates, comparisons, integer arithmetic,
conversions to non-numbers.  Each entry is `(f, *types)`; without types, every
call of f is non-differentiable: its frule gives `NoTangent()` and its
pullback `NoTangent()` for every argument.

Only what has no derivative anywhere is listed.  Rounding functions (floor,
ceil, trunc, round) are differentiable with a zero derivative (rows of the C
table, or python/builtins.py); NumPy's predicates and comparisons are declared
with the array rules (numpy/ufuncs.py).
"""

import builtins
import cmath
import math
import operator
from typing import Any

from chainrules._core import non_differentiable

NON_DIFFERENTIABLE: list[tuple[Any, ...]] = [
    # ----- math: predicates, integer functions, float bit-level steps -----
    (math.isnan,), (math.isinf,), (math.isfinite,), (math.isclose,),
    (math.comb,), (math.perm,), (math.factorial,), (math.gcd,), (math.lcm,), (math.isqrt,),
    (math.nextafter,), (math.ulp,),
    # ----- cmath: predicates -----
    (cmath.isnan,), (cmath.isinf,), (cmath.isfinite,), (cmath.isclose,),
    # ----- operator: comparisons, truth, identity, bitwise and sequence queries -----
    (operator.lt,), (operator.le,), (operator.eq,), (operator.ne,), (operator.ge,), (operator.gt,),
    (operator.not_,), (operator.truth,), (operator.is_,), (operator.is_not,), (operator.index,),
    (operator.and_,), (operator.or_,), (operator.xor,), (operator.invert,), (operator.inv,),
    (operator.lshift,), (operator.rshift,),
    (operator.iand,), (operator.ior,), (operator.ixor,), (operator.ilshift,), (operator.irshift,),
    (operator.contains,), (operator.countOf,), (operator.indexOf,), (operator.length_hint,),
    # ----- builtins: integers, truth, sizes, types, text -----
    (builtins.int,), (builtins.bool,), (builtins.len,), (builtins.isinstance,),
    (builtins.issubclass,), (builtins.hash,), (builtins.id,), (builtins.callable,),
    (builtins.hasattr,), (builtins.all,), (builtins.any,), (builtins.range,),
    (builtins.ord,), (builtins.chr,), (builtins.bin,), (builtins.hex,), (builtins.oct,),
    (builtins.repr,), (builtins.ascii,), (builtins.str,), (builtins.format,),
    (builtins.pow, object, object, object),  # pow(x, y, mod): integers only
    (builtins.float, (str, bytes, bytearray)),  # float("1.5")
    (builtins.complex, str),                    # complex("1+2j")
]

for _f, *_types in NON_DIFFERENTIABLE:
    non_differentiable(_f, *_types)
del _f, _types
