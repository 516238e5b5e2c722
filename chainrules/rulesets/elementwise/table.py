"""The element-wise derivatives: ONE table, keyed by the array API standard's
names (https://data-apis.org/array-api/latest/API_specification/elementwise_functions.html).

A row gives, for one function of one or two arguments, its partial
derivatives, each written ONCE: a formula of the small language of
`_formula.py` (`"cos(x)"`, `"1 + Ω*Ω"`), in terms of the output Ω where that
is cheaper (exp → Ω, tanh → 1 - Ω², sqrt → 1/(2Ω)).  From a formula are made
the Python partials

    ∂(xp, x, Ω)         for a unary function,
    ∂(xp, x, y, Ω)      for a binary one, one per argument,

over any array namespace `xp` (compiled here, at import), the NumPy ufunc
rules' partials (numpy/ufuncs.py) and the C scalar kernels `d_<name>`,
`c_<name>` (the generated block of chainrules/include/chainrules/kernels.pxd,
written by _core/gen_kernels.py; tests/core/test_written_once.py fails when
it is stale or when a formula is written again by hand).  A binary row not
yet in the language gives its partials as Python functions of that form.  A partial is `None` where it is zero (no work), `ONE` or
`NEG_ONE` where it is ±1 (no multiply).  For real arguments, and for complex
ones when the function is holomorphic, the rules are

    pushforward  ΔΩ = Σᵢ ∂ᵢ·Δxᵢ,      pullback  x̄ᵢ = conj(∂ᵢ)·ȳ

(ChainRules' convention: complex numbers as R², a holomorphic f pulls back
with conj(f')).  The functions that are not holomorphic on complex arguments
(abs, real, imag, conj, sign) give their complex pushforward and pullback by
hand, `complex_rule = (jvp(xp, z, Ω, Δz), vjp(xp, z, Ω, ȳ))`.  The
conventions are those of the NumPy rules (numpy_ufuncs.py): abs'(0) = 0,
sqrt'(0) = inf, maximum/minimum give a tie to y.

Each row also names the NumPy functions it corresponds to (np.arcsin and
np.asin for asin).  A row not in the standard (exp2, cbrt, fmod, ...) is
there because a NumPy ufunc or a C scalar row has that derivative too.

The rules built from the table (any namespace, broadcasting, projection)
are in `elementwise/rules.py`; their registration for each array library in
`elementwise/interop.py`.  A new element-wise function is one row here.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

from chainrules._xp import astype
from chainrules.rulesets._formula import CONSTANTS, Formula, python_source

__all__ = ["Row", "TABLE", "NUMPY_ONLY", "ONE", "NEG_ONE", "STANDARD", "Formula", "row_for_numpy_name"]


class _Unit:
    """The partial ±1: the rules skip the multiply (and the pullback of
    add may return ȳ itself)."""
    __slots__ = ("sign",)

    def __init__(self, sign: Any) -> None:
        self.sign = sign

    def __repr__(self) -> str:
        return "ONE" if self.sign > 0 else "NEG_ONE"


ONE = _Unit(1)
NEG_ONE = _Unit(-1)


class Row:
    """One element-wise function: its name in the standard, its partials,
    whether it is holomorphic, its complex rule if it is not, and the names of
    the NumPy functions with this derivative."""
    __slots__ = ("name", "partials", "formulas", "holomorphic", "complex_rule", "numpy", "standard", "kernel")

    def __init__(self, name: str, partials: Any, holomorphic: Any, complex_rule: Any, numpy: Any, standard: Any,
                 kernel: bool = True) -> None:
        self.name = name
        self.kernel = kernel            # its C kernels are generated from it (_core/gen_kernels.py)
        # a formula's partial is compiled from it; the formula is kept (the NumPy rules and the
        # C kernels are made from it too)
        self.formulas = tuple(d if isinstance(d, Formula) else None for d in partials)
        self.partials = tuple(_python_partial(name, i, d, len(partials)) if isinstance(d, Formula) else d
                              for i, d in enumerate(partials))
        self.holomorphic = holomorphic
        self.complex_rule = complex_rule
        self.numpy = numpy
        self.standard = standard

    @property
    def arity(self) -> Any:
        return len(self.partials)

    @property
    def zero(self) -> bool:
        """A zero derivative everywhere (round, floor, ...)."""
        return self.complex_rule is None and all(d is None for d in self.partials)

    def __repr__(self) -> str:
        return f"<Row {self.name}/{self.arity}>"


TABLE: dict[Any, Any] = {}
# rows of functions only NumPy has (np.sinc): the NumPy rules and nothing else read them
NUMPY_ONLY: dict[Any, Any] = {}


def _row(name: str, *partials: Any, holomorphic: Any = False, complex_rule: Any = None, numpy: Any = None,
         standard: Any = True, table: Any = TABLE, kernel: bool = True, **formula: Any) -> None:
    """A row; a partial given as text is a formula (with, for a unary row, the
    keywords of `Formula`: dz=, c=, cz=).  kernel=False: the C scalar rows of
    the function keep a convention of their own (no kernel is generated)."""
    partials = tuple(Formula(d, **formula) if isinstance(d, str) else d for d in partials)
    table[name] = Row(name, partials, holomorphic, complex_rule,
                      (name,) if numpy is None else tuple(numpy), standard, kernel)


# ----- the Python partials of the formulas ---------------------------------------------

def _python_partial(name: str, i: int, formula: Any, arity: int) -> Any:
    """∂(xp, x, Ω) (∂(xp, x, y, Ω)) compiled from the formula: its `d`, and
    its `dz` for complex arguments when it has one."""
    args = "xp, x, Ω" if arity == 1 else "xp, x, y, Ω"
    fname = f"d_{name}" if arity == 1 else f"d{'xy'[i]}_{name}"
    body = f"    return {python_source(formula.d)}\n"
    if formula.dz is not None:
        body = f"    if _is_complex(xp, x):\n        return {python_source(formula.dz)}\n" + body
    namespace: dict[str, Any] = {k: v for k, (v, _) in CONSTANTS.items()}
    namespace.update(_is_complex=_is_complex, _sign=_sign, _where=_where, _not=_not, _as_dtype=_as_dtype,
                     _copysign=_copysign)
    exec(compile(f"def {fname}({args}):\n{body}", f"<elementwise row {name}>", "exec"), namespace)
    fn = namespace[fname]
    fn.formula = formula
    return fn


# ----- helpers the partials share ---------------------------------------------

def _is_complex(xp: Any, v: Any) -> Any:
    dtype = getattr(v, "dtype", None)
    if dtype is None:
        return isinstance(v, complex)
    return xp.isdtype(dtype, "complex floating")


def _as_dtype(xp: Any, cond: Any, like: Any, negate: Any = False) -> Any:
    """A boolean mask (negated with `negate`) as 0/1 of like's dtype (the
    standard has no bool·float).  A comparison of tracked scalars is a Python
    bool: made an array first."""
    if isinstance(cond, bool):
        cond = xp.asarray(cond)
    if negate:
        cond = xp.logical_not(cond)
    return astype(xp, cond, like.dtype)


def _not(xp: Any, cond: Any) -> Any:
    """The formula language's ~cond (a comparison of tracked scalars is a
    Python bool: made an array first)."""
    return xp.logical_not(xp.asarray(cond) if isinstance(cond, bool) else cond)


def _where(xp: Any, cond: Any, a: Any, b: Any) -> Any:
    """The formula language's where(cond, a, b); a number branch takes the
    other branch's dtype and shape (the standard's where wants arrays)."""
    if isinstance(cond, bool):
        cond = xp.asarray(cond)
    if isinstance(a, (int, float)):
        a = xp.zeros_like(b) + a
    elif isinstance(b, (int, float)):
        b = xp.zeros_like(a) + b
    return xp.where(cond, a, b)


def _copysign(xp: Any, a: Any, b: Any, like: Any) -> Any:
    """The formula language's copysign(a, b); a number a takes like's dtype
    and shape (the standard's copysign wants arrays)."""
    if isinstance(a, (int, float)):
        a = xp.zeros_like(like) + a
    return xp.copysign(a, b)


def _div_nonzero(xp: Any, num: Any, den: Any) -> Any:
    """num/den, and 0 where den == 0 (no 0/0 = NaN)."""
    nonzero = den != 0
    safe = xp.where(nonzero, den, xp.ones_like(den))
    return xp.where(nonzero, num / safe, xp.zeros_like(num / safe))


def _complex_of(xp: Any, r: Any, z: Any) -> Any:
    """The real array r as an array of the complex dtype of z."""
    return astype(xp, r, z.dtype)


# ----- the non-holomorphic functions on complex arguments, by hand ---------------

# abs: ΔΩ = Re(conj(z)·Δz)/|z|, z̄ = Re(ȳ)·z/|z|; both 0 at z = 0.
def _abs_jvp(xp: Any, z: Any, Ω: Any, Δz: Any) -> Any:
    return _div_nonzero(xp, xp.real(xp.conj(z) * Δz), Ω)


def _abs_vjp(xp: Any, z: Any, Ω: Any, ȳ: Any) -> Any:
    ȳ = xp.real(ȳ) if _is_complex(xp, ȳ) else ȳ
    return _div_nonzero(xp, _complex_of(xp, ȳ, z) * z, _complex_of(xp, Ω, z))


# real / imag: R-linear projections; their adjoints put a real cotangent back
# into the real or the imaginary part.
def _real_jvp(xp: Any, z: Any, Ω: Any, Δz: Any) -> Any:
    return xp.real(Δz) if _is_complex(xp, Δz) else Δz


def _real_vjp(xp: Any, z: Any, Ω: Any, ȳ: Any) -> Any:
    return _complex_of(xp, xp.real(ȳ) if _is_complex(xp, ȳ) else ȳ, z)


def _imag_jvp(xp: Any, z: Any, Ω: Any, Δz: Any) -> Any:
    return xp.imag(Δz) if _is_complex(xp, Δz) else xp.zeros_like(Ω)


def _imag_vjp(xp: Any, z: Any, Ω: Any, ȳ: Any) -> Any:
    return _complex_of(xp, xp.real(ȳ) if _is_complex(xp, ȳ) else ȳ, z) * 1j


# conj: R-linear and its own adjoint.
def _conj_jvp(xp: Any, z: Any, Ω: Any, Δz: Any) -> Any:
    return xp.conj(Δz) if _is_complex(xp, Δz) else Δz


def _conj_vjp(xp: Any, z: Any, Ω: Any, ȳ: Any) -> Any:
    return xp.conj(ȳ) if _is_complex(xp, ȳ) else ȳ


# sign(z) = z/|z|: the projection orthogonal to Ω, over |z|, its own adjoint;
# 0 at z = 0.
def _sign_jvp(xp: Any, z: Any, Ω: Any, Δz: Any) -> Any:
    Δz = Δz if _is_complex(xp, Δz) else _complex_of(xp, Δz, z)
    along = _complex_of(xp, xp.real(xp.conj(Ω) * Δz), z)
    r = _complex_of(xp, xp.abs(z), z)
    return _div_nonzero(xp, Δz - Ω * along, r)


# ----- partials the table shares -----------------------------------------------

# A library's function -> a stand-in computing the same values, used wherever the
# table's rules call the function (elementwise/interop.py: torch.ldexp, which warns when
# its second argument broadcasts the first; array_api_compat's torch sign, which
# writes NaN through a boolean mask that torch.func.vmap cannot batch).
STAND_INS: dict[Any, Any] = {}


def _sign(xp: Any, x: Any) -> Any:
    sign = xp.sign
    return STAND_INS.get(sign, sign)(x) if STAND_INS else sign(x)


def _pow_dx(xp: Any, x: Any, p: Any, Ω: Any) -> Any:
    # p·x^(p-1), written p·Ω/x away from x = 0.  At x = 0 ChainRules' table:
    # 1 for p = 1, 0 for p = 0 or p > 1, inf for 0 < p < 1 (p·0^(p-1)).  For
    # p = 0 it is 0·x¹, not 0·x⁻¹: 0^-1 divides by zero (a ZeroDivisionError on
    # Python floats, 0·inf = nan on arrays), and so did the second derivative
    # d²/dx² x⁰ at 0 (it is 0), which differentiates this expression.
    zero = x == 0
    safe = xp.where(zero, xp.ones_like(x), x)
    exponent = xp.where(p == 0, xp.ones_like(p), p - 1)
    at0 = p * xp.pow(xp.where(zero, x, xp.ones_like(x)), exponent)
    return xp.where(zero, at0, p * (Ω / safe))


def _pow_dp(xp: Any, x: Any, p: Any, Ω: Any) -> Any:
    # Ω·log(x); for real x < 0 the real part log|x| (the real projection of
    # the complex derivative); 0 at x = 0.
    if _is_complex(xp, x):
        logx = xp.log(xp.where(x == 0, xp.ones_like(x), x))
    elif _is_complex(xp, p):
        logx = xp.log(astype(xp, xp.where(x == 0, xp.ones_like(x), x), p.dtype))
    else:
        logx = xp.log(xp.abs(xp.where(x == 0, xp.ones_like(x), x)))
    d = Ω * logx
    return xp.where(x == 0, xp.zeros_like(d), d)


# ----- unary ----------------------------------------------------------------------
#     name        ∂Ω/∂x: a formula over x, Ω

_row("sin",       "cos(x)", holomorphic=True)
_row("cos",       "-sin(x)", holomorphic=True)
_row("tan",       "1 + Ω*Ω", holomorphic=True)
# complex x: 1 - x, 1 + x written -(x - 1), x - -1 keep the sign of a zero
# imaginary part, which picks the side of a branch cut as the primal does
# (1/sqrt(1-x²) takes the other side of the cut at real |x| > 1); real x keeps
# 1/sqrt(1-x²)
_row("asin",      "1/sqrt(1 - x*x)", dz="1/(sqrt(-(x - 1)) * sqrt(x - -1))", holomorphic=True,
     numpy=("arcsin", "asin"))
_row("acos",      "-1/sqrt(1 - x*x)", dz="-1/(sqrt(-(x - 1)) * sqrt(x - -1))", holomorphic=True,
     numpy=("arccos", "acos"))
_row("atan",      "1/(1 + x*x)", holomorphic=True, numpy=("arctan", "atan"))
_row("sinh",      "cosh(x)", holomorphic=True)
_row("cosh",      "sinh(x)", holomorphic=True)
_row("tanh",      "1 - Ω*Ω", holomorphic=True)
# x*x - -1 keeps the sign of a zero imaginary part (on the cut |Im x| > 1); the C
# kernel of real x takes hypot, which does not overflow at |x| > 1e154
_row("asinh",     "1/sqrt(x*x - -1)", c="1/hypot(x, 1)", holomorphic=True, numpy=("arcsinh", "asinh"))
# 1/sqrt(x²-1) takes the wrong branch for complex x left of the cut; for real x it
# is one sqrt (the arrays' speed), and the C kernel keeps two (no cancellation near 1)
_row("acosh",     "1/sqrt(x*x - 1)", dz="1/(sqrt(x - 1) * sqrt(x - -1))",
     c="1/(sqrt(x - 1) * sqrt(x - -1))", holomorphic=True, numpy=("arccosh", "acosh"))
_row("atanh",     "1/(1 - x*x)", holomorphic=True, numpy=("arctanh", "atanh"))
_row("exp",       "Ω", holomorphic=True)
_row("expm1",     "Ω + 1", holomorphic=True)
_row("log",       "1/x", holomorphic=True)
_row("log1p",     "1/(x + 1)", holomorphic=True)
_row("log2",      "1/(x*LN2)", holomorphic=True)
_row("log10",     "1/(x*LN10)", holomorphic=True)
# sqrt'(0) = inf (ChainRules'); the C kernels give +inf at -0.0 too, and at a complex 0
_row("sqrt",      "0.5/Ω", c="0.5/abs(Ω)", cz="where(Ω == 0, inf, 0.5/Ω)", holomorphic=True)
_row("square",    "2*x", holomorphic=True)
_row("reciprocal", "-Ω*Ω", holomorphic=True)
_row("negative",  NEG_ONE, holomorphic=True)
_row("positive",  ONE, holomorphic=True)
# the non-holomorphic ones: the partial for real x (sign: abs'(0) = 0), the complex rule by hand
_row("abs",       "sign(x)", complex_rule=(_abs_jvp, _abs_vjp), numpy=("absolute", "abs"))
_row("real",      ONE, complex_rule=(_real_jvp, _real_vjp))
_row("imag",      None, complex_rule=(_imag_jvp, _imag_vjp))
_row("conj",      ONE, complex_rule=(_conj_jvp, _conj_vjp), numpy=("conjugate", "conj"))
_row("sign",      None, complex_rule=(_sign_jvp, _sign_jvp))
# piecewise constant: a zero derivative
for _name, _np_names in [("round", ("round", "rint")), ("floor", None), ("ceil", None), ("trunc", None)]:
    _row(_name, None, numpy=_np_names)
# not in the standard: NumPy ufuncs and C scalar rows with these derivatives
_row("exp2",      "Ω*LN2", holomorphic=True, standard=False)
_row("cbrt",      "1/(3*Ω*Ω)", standard=False)
_row("fabs",      "sign(x)", standard=False)
_row("deg2rad",   "pi/180", numpy=("deg2rad", "radians"), standard=False)
_row("rad2deg",   "180/pi", numpy=("rad2deg", "degrees"), standard=False)
_row("erf",       "TWO_OVER_SQRT_PI*exp(-x*x)", numpy=(), standard=False)
_row("erfc",      "-TWO_OVER_SQRT_PI*exp(-x*x)", numpy=(), standard=False)
# NumPy alone: sinc(x) = sin(πx)/(πx); its derivative (cos(πx) - sinc(x))/x is 0 at
# x = 0, written there as its Taylor term -π²x/3 so that the second derivative is
# right too
_row("sinc",      "where(x == 0, (-pi*pi/3)*x, (cos(pi*x) - Ω)/where(x == 0, 1, x))",
     standard=False, table=NUMPY_ONLY)


# ----- binary ---------------------------------------------------------------------
#     name        ∂Ω/∂x (xp, x, y, Ω)                        ∂Ω/∂y

_row("add",       ONE,                                        ONE, holomorphic=True)
_row("subtract",  ONE,                                        NEG_ONE, holomorphic=True)
_row("multiply",  "y",                                        "x", holomorphic=True)
_row("divide",    "1/y",                                      "-Ω/y", holomorphic=True,
     numpy=("divide", "true_divide"))
_row("pow",       _pow_dx,                                    _pow_dp, holomorphic=True,
     numpy=("power", "pow", "float_power"))
_row("atan2",     "y/(x*x + y*y)",                            "-x/(x*x + y*y)", numpy=("arctan2", "atan2"))
# zeros at (0, 0), where x = y = Ω = 0 (ChainRules' hypot convention)
_row("hypot",     "x/where(Ω == 0, 1, Ω)",                    "y/where(Ω == 0, 1, Ω)")
_row("logaddexp", "exp(x - Ω)",                               "exp(y - Ω)")
# ties go to y (ChainRules' max/min); NaN follows the primal's choice
_row("maximum",   "ind(x > y)",                               "ind(~(x > y))")
_row("minimum",   "ind(x < y)",                               "ind(~(x < y))")
# ±1 by whether the sign changes; the sign source gets a numeric zero
_row("copysign",  "copysign(1, x)*copysign(1, y)",            None)
# remainder: Ω = x - q·y with q piecewise constant, read from Ω itself.  The C rows of
# Python's % and math.fmod keep ChainRules' scalar convention (NaN where q jumps)
_row("remainder", ONE,                                        "-round((x - Ω)/y)", numpy=("remainder", "mod"),
     kernel=False)
_row("floor_divide", None,                                    None)
# nextafter(x, y) is x moved by one ulp: the identity in x
_row("nextafter", ONE,                                        None)
# not in the standard
_row("fmod",      ONE,                                        "-round((x - Ω)/y)", standard=False, kernel=False)
# fmax/fmin ignore a NaN: the derivative goes to the other argument
_row("fmax",      "ind((x > y) | isnan(y))",                  "ind(~((x > y) | isnan(y)))", standard=False)
_row("fmin",      "ind((x < y) | isnan(y))",                  "ind(~((x < y) | isnan(y)))", standard=False)
_row("logaddexp2", "exp2(x - Ω)",                             "exp2(y - Ω)", standard=False)
# NumPy alone: heaviside(x, h) is h at x = 0, else 0 or 1
_row("heaviside", None,                                       "ind(x == 0)", standard=False, table=NUMPY_ONLY)
# ldexp(x, e) = x·2**e; the exponent is an integer (no tangent)
_row("ldexp",     lambda xp, x, e, Ω: xp.ldexp(xp.ones_like(Ω), e), None, standard=False)

del _name, _np_names

STANDARD = frozenset(name for name, r in TABLE.items() if r.standard)

_BY_NUMPY_NAME = {n: r for r in TABLE.values() for n in r.numpy}


def row_for_numpy_name(name: str) -> Any:
    """The row of the NumPy function of this name (np.arcsin → asin), or None."""
    return _BY_NUMPY_NAME.get(name)
