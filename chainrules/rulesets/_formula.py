"""The formula language of the element-wise table (`elementwise/table.py`): each
partial derivative is written once, as a small expression, and rendered from
it to every place that computes it (issue 22, item 1):

- Python over an array namespace `xp` (the generic rules, any library), and
  over NumPy (the NumPy ufunc rules): compiled once at import;
- C/Cython for the scalar kernels (`d_<name>(x, o)` on doubles, `c_<name>(z, o)`
  on double complex): written by `_core/gen_kernels.py` into the generated
  block of `chainrules/include/chainrules/kernels.pxd`, from which
  `_core/gen_numba.py` derives the numba kernels.

The language is a subset of Python's expression syntax:

- variables: `x` (and `y` for a binary row), `Ω` the function's output;
- numbers, and the constants of `CONSTANTS` (`pi`, `LN2`, `LN10`,
  `TWO_OVER_SQRT_PI`, `inf`);
- `+ - * /`, unary `-`, comparisons (`x == 0`), and parentheses;
- conditions: comparisons, `isnan(v)`, `c | d` (or), `~c` (not);
- the functions of `FUNCTIONS` (`cos(x)`, `sqrt(x)`, `sign(x)`, ...),
  `where(condition, a, b)`: the case split, elementwise in Python
  (`xp.where`), a conditional expression in C; and `ind(condition)`, the
  indicator (1 where the condition holds, else 0: maximum's ∂x is
  `ind(x > y)`), a mask of the output's dtype in the generic partials, the
  boolean array itself in NumPy's (bool·ȳ keeps ȳ's dtype), 1.0 or 0.0 in C.

Nothing else parses: a typo in a row is an error at import, naming the row.
Arithmetic is rendered as written, operand for operand (the generated code
computes what the formula says, to the bit): `1 - x` for a complex x in C is
`1.0 - z` (Cython's real-to-complex rules), `-(x - 1)` keeps the sign of a
zero imaginary part, as it does in Python.
"""

from __future__ import annotations

import ast
import math
from typing import Any

__all__ = ["Formula", "CONSTANTS", "FUNCTIONS", "parse", "python_source", "c_source",
           "is_constant", "single_call"]

# name -> (value in Python, name in C)
CONSTANTS: dict[str, tuple[float, str]] = {
    "pi": (math.pi, "M_PI"),
    "LN2": (math.log(2.0), "M_LN2"),
    "LN10": (math.log(10.0), "M_LN10"),
    "TWO_OVER_SQRT_PI": (2 / math.sqrt(math.pi), "_TWO_OVER_SQRT_PI"),
    "inf": (math.inf, "INFINITY"),
}

# name -> (arity, C real name, C complex name or None).  In Python a function
# f is `xp.f`, except those of _PYTHON_XP (a helper that takes xp).
FUNCTIONS: dict[str, tuple[int, str, str | None]] = {
    "sin": (1, "sin", "csin"), "cos": (1, "cos", "ccos"), "tan": (1, "tan", "ctan"),
    "sinh": (1, "sinh", "csinh"), "cosh": (1, "cosh", "ccosh"), "tanh": (1, "tanh", "ctanh"),
    "exp": (1, "exp", "cexp"), "exp2": (1, "exp2", None), "log": (1, "log", "clog"),
    "sqrt": (1, "sqrt", "csqrt"), "abs": (1, "fabs", None), "hypot": (2, "hypot", None),
    # sign(x): 1, -1, 0 at ±0 (abs'(0) = 0) and NaN at NaN; cr_sign in kernels.pxd
    "sign": (1, "cr_sign", None),
    "isnan": (1, "isnan", None),
    "copysign": (2, "copysign", None),
    # round half to even (the current rounding mode's rint in C)
    "round": (1, "rint", None),
    "where": (3, "", ""),
    "ind": (1, "", None),
}
# in the generic Python partials: helpers that take xp (a stand-in may replace the
# library's sign; where and ind accept Python numbers and bools, as tracked scalars give)
_PYTHON_XP = {"sign": "_sign(xp, {0})", "where": "_where(xp, {0}, {1}, {2})", "ind": "_as_dtype(xp, {0}, Ω)",
              "copysign": "_copysign(xp, {0}, {1}, Ω)"}
# comparisons in NumPy's partials: the ufuncs, which order complex numbers (Python's
# complex numbers do not compare)
_NUMPY_COMPARE = {ast.Gt: "greater", ast.GtE: "greater_equal", ast.Lt: "less", ast.LtE: "less_equal",
                  ast.Eq: "equal", ast.NotEq: "not_equal"}

_VARIABLES = {"x": ("x", "z"), "y": ("y", "w"), "Ω": ("o", "o")}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitOr: "|"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class Formula:
    """One partial derivative: `d` for real arguments (and complex ones when
    the row is holomorphic), `dz` for complex arguments where that form must
    differ (a branch cut's side), and `c`, `cz` for the C kernels where C's
    own convention differs (`sqrt'(±0) = +inf`).  Each is text of the
    language, parsed (and so checked) here."""
    __slots__ = ("d", "dz", "c", "cz")

    def __init__(self, d: str, dz: str | None = None, c: str | None = None, cz: str | None = None) -> None:
        for text in (d, dz, c, cz):
            if text is not None:
                parse(text)
        self.d, self.dz, self.c, self.cz = d, dz, c, cz

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(t for t in (self.d, self.dz, self.c, self.cz) if t is not None)

    def __repr__(self) -> str:
        return f"Formula({self.d!r})"


def parse(text: str) -> ast.expr:
    """The checked syntax tree of a formula; a ValueError naming what is not
    of the language."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"formula {text!r}: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Load)) or type(node) in _BINOPS or \
                type(node) in _CMPOPS or isinstance(node, (ast.USub, ast.UAdd, ast.Invert)):
            if isinstance(node, ast.BinOp) and type(node.op) not in _BINOPS:
                raise ValueError(f"formula {text!r}: the operator {type(node.op).__name__} is not of the language")
            if isinstance(node, ast.Compare) and (len(node.ops) != 1 or type(node.ops[0]) not in _CMPOPS):
                raise ValueError(f"formula {text!r}: one comparison at a time")
            continue
        if isinstance(node, ast.Constant):
            if type(node.value) not in (int, float):
                raise ValueError(f"formula {text!r}: {node.value!r} is not a number")
            continue
        if isinstance(node, ast.Name):
            if node.id not in _VARIABLES and node.id not in CONSTANTS and node.id not in FUNCTIONS:
                raise ValueError(f"formula {text!r}: unknown name {node.id!r}")
            continue
        if isinstance(node, ast.Call):
            fname = getattr(node.func, "id", None)
            if fname not in FUNCTIONS or node.keywords:
                raise ValueError(f"formula {text!r}: unknown function {ast.unparse(node.func)!r}")
            if len(node.args) != FUNCTIONS[fname][0]:
                raise ValueError(f"formula {text!r}: {fname} takes {FUNCTIONS[fname][0]} arguments")
            continue
        raise ValueError(f"formula {text!r}: {type(node).__name__} is not of the language")
    return tree


def is_constant(text: str) -> bool:
    """No variable in the formula (deg2rad's pi/180)."""
    return not any(isinstance(n, ast.Name) and n.id in _VARIABLES for n in ast.walk(parse(text)))


def single_call(text: str) -> str | None:
    """`f` when the formula is `f(x)` (the NumPy rule then calls the ufunc
    itself), else None."""
    tree = parse(text)
    if isinstance(tree, ast.Call) and len(tree.args) == 1 and isinstance(tree.args[0], ast.Name) \
            and tree.args[0].id == "x" and tree.func.id != "where":  # type: ignore[attr-defined]
        return str(tree.func.id)  # type: ignore[attr-defined]
    return None


# ----- Python --------------------------------------------------------------------------

class _ToPython(ast.NodeTransformer):
    def __init__(self, generic: bool) -> None:
        self.generic = generic

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        fname = node.func.id  # type: ignore[attr-defined]
        if self.generic and fname in _PYTHON_XP:
            return ast.parse(_PYTHON_XP[fname].format(*map(ast.unparse, node.args)), mode="eval").body
        if fname == "ind":
            return node.args[0]
        node.func = ast.Attribute(value=ast.Name(id="xp", ctx=ast.Load()), attr=fname, ctx=ast.Load())
        return node

    def visit_Compare(self, node: ast.Compare) -> Any:
        self.generic_visit(node)
        if self.generic:
            return node
        ufunc = ast.Attribute(value=ast.Name(id="xp", ctx=ast.Load()), attr=_NUMPY_COMPARE[type(node.ops[0])],
                              ctx=ast.Load())
        return ast.Call(func=ufunc, args=[node.left, node.comparators[0]], keywords=[])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        self.generic_visit(node)
        if self.generic and isinstance(node.op, ast.Invert):   # a tracked scalar's condition is a bool
            return ast.parse(f"_not(xp, {ast.unparse(node.operand)})", mode="eval").body
        return node


def python_source(text: str, generic: bool = True) -> str:
    """The Python expression of a formula: functions called as `xp.f(...)`
    (the generic partials, or `xp` bound to NumPy), constants by name."""
    return ast.unparse(ast.fix_missing_locations(_ToPython(generic).visit(parse(text))))


# ----- C / Cython ----------------------------------------------------------------------

_PREC: dict[type, float] = {ast.BitOr: -0.5, ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2}


def _c_atom(v: ast.expr, cplx: bool) -> str | None:
    """A number or a named constant, as a C double (a double complex in the
    branch of a complex conditional, which Cython does not promote)."""
    if isinstance(v, ast.Constant):
        s = repr(float(v.value))  # type: ignore[arg-type]
    elif isinstance(v, ast.Name) and v.id in CONSTANTS:
        s = CONSTANTS[v.id][1]
    else:
        return None
    return f"cr_cmplx({s}, 0.0)" if cplx else s


def _prec(node: ast.expr) -> float:
    if isinstance(node, ast.BinOp):
        return _PREC[type(node.op)]
    if isinstance(node, ast.UnaryOp):
        return -0.25 if isinstance(node.op, ast.Invert) else 3
    if isinstance(node, ast.Compare):
        return 0
    if isinstance(node, ast.Call) and node.func.id in ("where", "ind"):  # type: ignore[attr-defined]
        return -1
    return 4


def _c(node: ast.expr, cplx: bool) -> str:
    """C text of node; the operands are parenthesized where C's precedence
    (Python's, for these operators) would group them otherwise."""
    def sub(child: ast.expr, least: float) -> str:
        s = _c(child, cplx)
        return f"({s})" if _prec(child) < least else s

    if isinstance(node, ast.Constant):
        return repr(float(node.value))  # type: ignore[arg-type]
    if isinstance(node, ast.Name):
        if node.id in _VARIABLES:
            return _VARIABLES[node.id][cplx]
        return CONSTANTS[node.id][1]
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Invert):
            return f"not {sub(node.operand, 0)}"
        s = sub(node.operand, 3)
        return s if isinstance(node.op, ast.UAdd) else f"-{s}"
    if isinstance(node, ast.BinOp):
        p = _PREC[type(node.op)]
        if isinstance(node.op, ast.BitOr):
            return f"{sub(node.left, 0)} or {sub(node.right, 0)}"
        return f"{sub(node.left, p)} {_BINOPS[type(node.op)]} {sub(node.right, p + 1)}"
    if isinstance(node, ast.Compare):
        return f"{sub(node.left, 1)} {_CMPOPS[type(node.ops[0])]} {sub(node.comparators[0], 1)}"
    assert isinstance(node, ast.Call)
    fname = node.func.id  # type: ignore[attr-defined]
    if fname == "ind":
        one, zero = ("cr_cmplx(1.0, 0.0)", "cr_cmplx(0.0, 0.0)") if cplx else ("1.0", "0.0")
        return f"{one} if {sub(node.args[0], 0)} else {zero}"
    if fname == "where":
        cond, a, b = node.args
        ca, cb = (_c_atom(v, cplx) or sub(v, 0) for v in (a, b))
        return f"{ca} if {sub(cond, 0)} else {cb}"
    name = FUNCTIONS[fname][2 if cplx else 1]
    if not name:
        raise ValueError(f"{fname} has no complex C function")
    return f"{name}({', '.join(_c(a, cplx) for a in node.args)})"


def c_source(text: str, cplx: bool = False) -> str:
    """The Cython expression of a formula over doubles (`x`, `o`) or double
    complex (`z`, `o`)."""
    return _c(parse(text), cplx)
