"""Hand-written rules for Python's scalar functions: the ones that are not a
row of the C scalar table (`_core/scalar_table.pxi`) because they take any
number of arguments or a sequence (hypot, dist, fsum, prod, sum, max, min),
return several outputs (modf, frexp, divmod, polar) or are not holomorphic
(abs, phase on complex numbers).  ChainRules' conventions: `fastmath_able.jl`
and `base.jl`.

Each rule handles numbers only and declines (returns None) for anything
else, so that other rules (the NumPy array rules) or the AD itself can take
over.  Sequences are lists, tuples or 1-d NumPy arrays of numbers; their
cotangents are projected onto them (`Tangent[list]`, `Tangent[tuple]`, an
array).  Keyword arguments never receive tangents.
"""

import builtins
import cmath
import math
import operator

import numpy as np

from chainrules._core import (
    AbstractTangent,
    AbstractZero,
    NoTangent,
    ProjectTo,
    StructuralTangent,
    Tangent,
    ZeroTangent,
    backing,
    pullback_seed,
    register_frule,
    register_rrule,
    unthunk,
)

NO = NoTangent()
ZERO = ZeroTangent()

_REAL = (int, float, np.floating, np.integer)
_COMPLEX = (complex, np.complexfloating)
_BOOL = (bool, np.bool_)


def _is_real(x):
    return isinstance(x, _REAL) and not isinstance(x, _BOOL)


def _is_number(x):
    return _is_real(x) or isinstance(x, _COMPLEX)


def _numbers(xs, real=False):
    ok = _is_real if real else _is_number
    return all(ok(x) for x in xs)


def _is_sequence(xs):
    """A list, tuple or 1-d float/int/complex array: something the rule can
    read twice and whose cotangent it can build."""
    if isinstance(xs, np.ndarray):
        return xs.ndim == 1 and xs.dtype.kind in "fciu"
    return isinstance(xs, (list, tuple))


def _elements(t, n):
    """The n element tangents of a sequence's tangent: a list, tuple,
    `Tangent[list]`, array, or a zero (which stands for every element)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [t] * n
    if isinstance(t, StructuralTangent):
        t = backing(t)
    if isinstance(t, (list, tuple, np.ndarray)) and len(t) == n:
        return list(t)
    raise TypeError(f"expected the tangent of a sequence of {n} numbers, got {type(t).__name__}")


def _outputs(ȳ, n, name):
    """The n cotangents of a tuple output: a Tangent[tuple], a tuple, or a zero."""
    ȳ = pullback_seed(ȳ, name)
    if isinstance(ȳ, AbstractZero):
        return [ȳ] * n
    if isinstance(ȳ, StructuralTangent):
        ȳ = backing(ȳ)
    if isinstance(ȳ, (tuple, list)) and len(ȳ) == n:
        return [unthunk(v) for v in ȳ]
    raise TypeError(f"pullback of {name}: expected a Tangent[tuple] of {n} cotangents, got "
                    f"{type(ȳ).__name__}")


def _scalar(ȳ, name):
    """A scalar cotangent, unthunked; arrays of one element are read as numbers."""
    ȳ = pullback_seed(ȳ, name)
    if isinstance(ȳ, np.ndarray):
        if ȳ.size != 1:
            raise ValueError(f"pullback of {name}: expected a scalar cotangent, got an array of "
                             f"shape {ȳ.shape}")
        ȳ = ȳ.reshape(()).item()
    if not (isinstance(ȳ, AbstractTangent) or _is_number(ȳ)):
        raise TypeError(f"pullback of {name}: seed must be a tangent (number, array, ZeroTangent, Thunk, ...), "
                        f"got a {type(ȳ).__name__}")
    return ȳ


def _dot(partials, tangents):
    """Σ ∂ᵢ·Δxᵢ with zeros short-circuiting (the tangent ladder)."""
    acc = ZERO
    for p, t in zip(partials, tangents):
        acc = acc + p * unthunk(t)
    return acc


def _project_seq(xs, cts):
    """The cotangent of a sequence: `Tangent[list]`/`Tangent[tuple]` or an array."""
    if isinstance(xs, np.ndarray):
        if all(isinstance(c, AbstractZero) for c in cts):
            return ZERO
        return ProjectTo(xs)(np.array([0.0 if isinstance(c, AbstractZero) else c for c in cts]))
    return ProjectTo(xs)(list(cts))


def _real_part(ȳ):
    return ȳ.real if isinstance(ȳ, _COMPLEX) else ȳ


def _conj(x):
    return x.conjugate() if isinstance(x, _COMPLEX) else x


# =============================================================================
# math
# =============================================================================

# ----- math.hypot (n-ary) ----------------------------------------------------
# hypot(x, y) and hypot(x) are rows of the C table; this rule serves the other
# arities.  ∂Ω/∂xᵢ = xᵢ/Ω, zeros at the origin (ChainRules' hypot convention).

def _hypot_partials(xs, Ω):
    n = Ω if Ω != 0 else 1.0
    return [float(x) / n for x in xs]


@register_frule(math.hypot)
def hypot_frule(tangents, *xs):
    if not _numbers(xs, real=True):
        return None
    Ω = math.hypot(*xs)
    return Ω, ProjectTo(Ω)(_dot(_hypot_partials(xs, Ω), tangents[1:]))


@register_rrule(math.hypot)
def hypot_rrule(*xs):
    if not _numbers(xs, real=True):
        return None
    Ω = math.hypot(*xs)
    partials = _hypot_partials(xs, Ω)
    projectors = [ProjectTo(x) for x in xs]

    def hypot_pullback(ȳ):
        ȳ = _real_part(_scalar(ȳ, "math.hypot"))
        return (NO,) + tuple(p(d * ȳ) for p, d in zip(projectors, partials))
    return Ω, hypot_pullback


# ----- math.dist(p, q) = hypot(p - q) ---------------------------------------

def _dist_partials(p, q, Ω):
    n = Ω if Ω != 0 else 1.0
    return [(float(a) - float(b)) / n for a, b in zip(p, q)]


def _dist_ok(p, q):
    # lengths are the primal's to check (ValueError)
    return _is_sequence(p) and _is_sequence(q) and \
        _numbers(list(p), real=True) and _numbers(list(q), real=True)


@register_frule(math.dist)
def dist_frule(tangents, p, q):
    if not _dist_ok(p, q):
        return None
    Ω = math.dist(p, q)
    d = _dist_partials(p, q, Ω)
    return Ω, ProjectTo(Ω)(_dot(d, _elements(tangents[1], len(p))) -
                           _dot(d, _elements(tangents[2], len(q))))


@register_rrule(math.dist)
def dist_rrule(p, q):
    if not _dist_ok(p, q):
        return None
    Ω = math.dist(p, q)
    d = _dist_partials(p, q, Ω)

    def dist_pullback(ȳ):
        ȳ = _scalar(ȳ, "math.dist")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        ȳ = _real_part(ȳ)
        return NO, _project_seq(p, [di * ȳ for di in d]), _project_seq(q, [-di * ȳ for di in d])
    return Ω, dist_pullback


# ----- math.fsum(iterable): every element's partial is 1 ---------------------

@register_frule(math.fsum)
def fsum_frule(tangents, xs):
    if not (_is_sequence(xs) and _numbers(list(xs), real=True)):
        return None
    Ω = math.fsum(xs)
    ts = _elements(tangents[1], len(xs))
    if all(isinstance(unthunk(t), AbstractZero) for t in ts):
        return Ω, _dot([], [])
    return Ω, math.fsum(0.0 if isinstance(t, AbstractZero) else float(unthunk(t)) for t in ts)


@register_rrule(math.fsum)
def fsum_rrule(xs):
    if not (_is_sequence(xs) and _numbers(list(xs), real=True)):
        return None
    Ω = math.fsum(xs)

    def fsum_pullback(ȳ):
        ȳ = _scalar(ȳ, "math.fsum")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, _project_seq(xs, [_real_part(ȳ)] * len(xs))
    return Ω, fsum_pullback


# ----- math.prod(iterable, *, start=1) ---------------------------------------
# ∂Ω/∂xᵢ = start·Π_{j≠i} xⱼ, from prefix and suffix products: exact with one
# or several zeros (no division by xᵢ).

def _prod_partials(xs, start):
    n = len(xs)
    prefix = [start] * (n + 1)
    for i, x in enumerate(xs):
        prefix[i + 1] = prefix[i] * x
    partials = [None] * n
    suffix = 1
    for i in range(n - 1, -1, -1):
        partials[i] = prefix[i] * suffix
        suffix = suffix * xs[i]
    return partials


def _prod_ok(xs, start):
    return _is_sequence(xs) and _numbers(list(xs)) and _is_number(start)


@register_frule(math.prod)
def prod_frule(tangents, xs, *, start=1):
    if not _prod_ok(xs, start):
        return None
    xs_ = list(xs)
    Ω = math.prod(xs, start=start)
    partials = _prod_partials(xs_, start)
    return Ω, ProjectTo(Ω)(_dot(partials, _elements(tangents[1], len(xs_))))


@register_rrule(math.prod)
def prod_rrule(xs, *, start=1):
    if not _prod_ok(xs, start):
        return None
    xs_ = list(xs)
    Ω = math.prod(xs, start=start)
    partials = _prod_partials(xs_, start)

    def prod_pullback(ȳ):
        ȳ = _scalar(ȳ, "math.prod")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, _project_seq(xs, [_conj(d) * ȳ for d in partials])
    return Ω, prod_pullback


# ----- math.sumprod(p, q) (Python 3.12+): Σ pᵢqᵢ ------------------------------

if hasattr(math, "sumprod"):
    def _sumprod_ok(p, q):
        return _is_sequence(p) and _is_sequence(q) and len(p) == len(q) and \
            _numbers(list(p)) and _numbers(list(q))

    @register_frule(math.sumprod)
    def sumprod_frule(tangents, p, q):
        if not _sumprod_ok(p, q):
            return None
        Ω = math.sumprod(p, q)
        return Ω, ProjectTo(Ω)(_dot(list(q), _elements(tangents[1], len(p))) +
                               _dot(list(p), _elements(tangents[2], len(q))))

    @register_rrule(math.sumprod)
    def sumprod_rrule(p, q):
        if not _sumprod_ok(p, q):
            return None
        Ω = math.sumprod(p, q)

        def sumprod_pullback(ȳ):
            ȳ = _scalar(ȳ, "math.sumprod")
            if isinstance(ȳ, AbstractZero):
                return NO, ȳ, ȳ
            return (NO, _project_seq(p, [_conj(b) * ȳ for b in q]),
                    _project_seq(q, [_conj(a) * ȳ for a in p]))
        return Ω, sumprod_pullback


# ----- math.modf(x) -> (fractional part, integer part) -----------------------
# The fractional part moves with x (partial 1), the integer part is piecewise
# constant (a numeric zero, as for the rounding functions).

@register_frule(math.modf)
def modf_frule(tangents, x):
    if not _is_real(x):
        return None
    Ω = math.modf(x)
    Δx = unthunk(tangents[1])
    if isinstance(Δx, AbstractZero):
        return Ω, Tangent[tuple](Δx, Δx)
    return Ω, Tangent[tuple](float(_real_part(Δx)), 0.0)


@register_rrule(math.modf)
def modf_rrule(x):
    if not _is_real(x):
        return None
    project_x = ProjectTo(x)

    def modf_pullback(ȳ):
        Δfrac, _ = _outputs(ȳ, 2, "math.modf")
        return NO, project_x(Δfrac)
    return math.modf(x), modf_pullback


# ----- math.frexp(x) -> (m, e) with x = m·2**e -------------------------------
# m = x·2**-e moves with x (partial 2**-e); the int e has no tangent.

@register_frule(math.frexp)
def frexp_frule(tangents, x):
    if not _is_real(x):
        return None
    m, e = Ω = math.frexp(x)
    Δx = unthunk(tangents[1])
    if isinstance(Δx, AbstractZero):
        return Ω, Tangent[tuple](Δx, NO)
    return Ω, Tangent[tuple](math.ldexp(float(_real_part(Δx)), -e), NO)


@register_rrule(math.frexp)
def frexp_rrule(x):
    if not _is_real(x):
        return None
    m, e = Ω = math.frexp(x)
    project_x = ProjectTo(x)

    def frexp_pullback(ȳ):
        Δm, _ = _outputs(ȳ, 2, "math.frexp")
        if isinstance(Δm, AbstractZero):
            return NO, Δm
        return NO, project_x(math.ldexp(1.0, -e) * _real_part(Δm))
    return Ω, frexp_pullback


# =============================================================================
# cmath: the functions that are not holomorphic
# =============================================================================
# ℂ is treated as ℝ²: for a real function of z = x + iy the frule gives
# ∂Ω/∂x·Δx + ∂Ω/∂y·Δy = Re(conj(∇)·Δz) and the pullback ∇·ΔΩ, with the
# gradient ∇ = ∂Ω/∂x + i·∂Ω/∂y.

def _c(z):
    return complex(z)


def _realdot(a, b):
    """Re(conj(a)·b): the real inner product of two complex numbers as ℝ²."""
    a, b = complex(a), complex(b)
    return a.real * b.real + a.imag * b.imag


# ----- cmath.phase(z) = atan2(Im z, Re z) --------------------------------------
# ∇ = (-y + ix)/|z|²; 0 at z = 0 (ChainRules' angle).  A real argument's
# cotangent is real: the phase of a real number (0 or π) does not move along
# the real axis.

def _phase_grad(z):
    z = _c(z)
    n = abs(z) ** 2
    return complex(-z.imag, z.real) / (n if n != 0 else 1.0)


@register_frule(cmath.phase)
def phase_frule(tangents, z):
    if not _is_number(z):
        return None
    Ω = cmath.phase(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Δz
    return Ω, _realdot(_phase_grad(z), Δz)


@register_rrule(cmath.phase)
def phase_rrule(z):
    if not _is_number(z):
        return None
    project_z = ProjectTo(z)
    g = _phase_grad(z)

    def phase_pullback(ȳ):
        ȳ = _scalar(ȳ, "cmath.phase")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, project_z(g * _real_part(ȳ))
    return cmath.phase(z), phase_pullback


# ----- abs(z) for complex z (real numbers: a row of the C table) -------------
# ∇ = z/|z|; 0 at z = 0 (ChainRules' abs'(0) = 0).  Shared by the builtin
# abs and operator.abs.

def _abs_grad(z, Ω):
    return z / (Ω if Ω != 0 else 1)


def complex_abs_frule(tangents, z):
    if not isinstance(z, _COMPLEX):
        return None
    Ω = abs(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Δz
    return Ω, ProjectTo(Ω)(_realdot(_abs_grad(_c(z), float(Ω)), Δz))


def complex_abs_rrule(z):
    if not isinstance(z, _COMPLEX):
        return None
    Ω = abs(z)
    project_z = ProjectTo(z)
    g = _abs_grad(_c(z), float(Ω))

    def abs_pullback(ȳ):
        ȳ = _scalar(ȳ, "abs")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, project_z(g * _real_part(ȳ))
    return Ω, abs_pullback


for _f in (builtins.abs, operator.abs):
    register_frule(_f, _COMPLEX)(complex_abs_frule)
    register_rrule(_f, _COMPLEX)(complex_abs_rrule)


# ----- complex.conjugate(z) ----------------------------------------------------
# Linear over ℝ: the frule conjugates the tangent, the pullback the cotangent.

@register_frule(complex.conjugate)
def conjugate_frule(tangents, z):
    if not isinstance(z, complex):
        return None
    Δz = unthunk(tangents[1])
    return z.conjugate(), (Δz if isinstance(Δz, AbstractZero) else complex(Δz).conjugate())


@register_rrule(complex.conjugate)
def conjugate_rrule(z):
    if not isinstance(z, complex):
        return None

    def conjugate_pullback(ȳ):
        ȳ = _scalar(ȳ, "complex.conjugate")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, complex(ȳ).conjugate()
    return z.conjugate(), conjugate_pullback


# ----- cmath.polar(z) -> (|z|, phase(z)) --------------------------------------

@register_frule(cmath.polar)
def polar_frule(tangents, z):
    if not _is_number(z):
        return None
    r, φ = Ω = cmath.polar(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Tangent[tuple](Δz, Δz)
    return Ω, Tangent[tuple](_realdot(_abs_grad(_c(z), r), Δz), _realdot(_phase_grad(z), Δz))


@register_rrule(cmath.polar)
def polar_rrule(z):
    if not _is_number(z):
        return None
    r, φ = Ω = cmath.polar(z)
    project_z = ProjectTo(z)
    g_r, g_φ = _abs_grad(_c(z), r), _phase_grad(z)

    def polar_pullback(ȳ):
        Δr, Δφ = _outputs(ȳ, 2, "cmath.polar")
        z̄ = g_r * _real_part(Δr) + g_φ * _real_part(Δφ)
        return NO, project_z(z̄)            # zeros pass through the projector
    return Ω, polar_pullback


# ----- cmath.rect(r, φ) = r·e^{iφ} ---------------------------------------------
# Real arguments, complex output: ∂Ω/∂r = e^{iφ}, ∂Ω/∂φ = iΩ; the pullback
# gives Re(conj(∂)·ΔΩ) to each (real) argument.

def _rect_ok(r, φ):
    return _is_real(r) and _is_real(φ)


@register_frule(cmath.rect)
def rect_frule(tangents, r, φ):
    if not _rect_ok(r, φ):
        return None
    Ω = cmath.rect(r, φ)
    return Ω, _dot([cmath.rect(1.0, φ), 1j * Ω], [_real_part(unthunk(t)) for t in tangents[1:]])


@register_rrule(cmath.rect)
def rect_rrule(r, φ):
    if not _rect_ok(r, φ):
        return None
    Ω = cmath.rect(r, φ)
    d_r, d_φ = cmath.rect(1.0, φ), 1j * Ω
    project_r, project_φ = ProjectTo(r), ProjectTo(φ)

    def rect_pullback(ȳ):
        ȳ = _scalar(ȳ, "cmath.rect")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        return NO, project_r(_realdot(d_r, ȳ)), project_φ(_realdot(d_φ, ȳ))
    return Ω, rect_pullback


# =============================================================================
# builtins
# =============================================================================

# ----- max / min over several numbers or an iterable --------------------------
# max(x, y) of two numbers is a row of the C table (ChainRules' scalar rule:
# a tie sends the derivative to y for max, to x for min).  Here, n-ary and
# over a sequence: the derivative goes to the element Python returns, the
# first maximal (minimal) one (ChainRules' maximum/findmax); `key=` selects,
# `default=` is returned (with no tangent from the arguments) for an empty
# sequence.

_MISSING = object()


def _select(args, op, key, default):
    """(index of the element max/min returns, the elements, is_sequence), or
    None when the rule does not apply (not numbers, not a sequence)."""
    if len(args) == 1:
        xs = args[0]
        if not _is_sequence(xs):
            return None
        seq = True
        xs = list(xs)
    elif len(args) >= 2:
        if default is not _MISSING:
            return None               # TypeError from the primal
        xs, seq = list(args), False
    else:
        return None
    if not _numbers(xs, real=True):
        return None
    if not xs:
        return -1, xs, seq
    best, best_k = 0, (xs[0] if key is None else key(xs[0]))
    for i in range(1, len(xs)):
        k = xs[i] if key is None else key(xs[i])
        if op(k, best_k):             # strict: the first extreme element wins, as in Python
            best, best_k = i, k
    return best, xs, seq


def _extreme_rules(f, op, name):
    def extreme_frule(tangents, *args, key=None, default=_MISSING):
        sel = _select(args, op, key, default)
        if sel is None:
            return None
        i, xs, seq = sel
        kw = {} if key is None else {"key": key}
        if default is not _MISSING:
            kw["default"] = default
        Ω = f(*args, **kw)
        if i < 0:
            return Ω, ZERO                # the default: it does not depend on the arguments
        ts = _elements(tangents[1], len(xs)) if seq else tangents[1:]
        Δ = unthunk(ts[i])
        return Ω, (Δ if isinstance(Δ, AbstractZero) else ProjectTo(Ω)(Δ))

    def extreme_rrule(*args, key=None, default=_MISSING):
        sel = _select(args, op, key, default)
        if sel is None:
            return None
        i, xs, seq = sel
        kw = {} if key is None else {"key": key}
        if default is not _MISSING:
            kw["default"] = default
        Ω = f(*args, **kw)
        projectors = [ProjectTo(x) for x in xs]

        def extreme_pullback(ȳ):
            ȳ = _scalar(ȳ, name)
            if i < 0 or isinstance(ȳ, AbstractZero):
                z = ZERO if i < 0 else ȳ
                return (NO, z) if seq else (NO,) + (z,) * len(xs)
            cts = [p(ȳ) if j == i else p(0.0) for j, p in enumerate(projectors)]
            if seq:
                return NO, _project_seq(args[0], cts)
            return (NO,) + tuple(cts)
        extreme_pullback.__name__ = extreme_pullback.__qualname__ = f"{name}_pullback"
        return Ω, extreme_pullback

    extreme_frule.__name__ = extreme_frule.__qualname__ = f"{name}_frule"
    extreme_rrule.__name__ = extreme_rrule.__qualname__ = f"{name}_rrule"
    register_frule(f)(extreme_frule)
    register_rrule(f)(extreme_rrule)
    return extreme_frule, extreme_rrule


max_frule, max_rrule = _extreme_rules(builtins.max, operator.gt, "max")
min_frule, min_rrule = _extreme_rules(builtins.min, operator.lt, "min")


# ----- sum(iterable, start=0): every element's partial is 1 ------------------
# `start` given positionally gets a tangent, given as a keyword none.

def _sum_args(xs, rest, start):
    """(start, its position) or None when the rule does not apply."""
    if rest and start is not _MISSING or len(rest) > 1:
        return None                   # TypeError from the primal
    s = rest[0] if rest else (0 if start is _MISSING else start)
    if not (_is_sequence(xs) and _numbers(list(xs)) and _is_number(s)):
        return None
    return s


@register_frule(builtins.sum)
def sum_frule(tangents, xs, *rest, start=_MISSING):
    s = _sum_args(xs, rest, start)
    if s is None:
        return None
    Ω = builtins.sum(xs, s)
    acc = _dot([1.0] * len(xs), _elements(tangents[1], len(xs)))
    if rest:
        acc = acc + unthunk(tangents[2])
    return Ω, (acc if isinstance(acc, AbstractZero) else ProjectTo(Ω)(acc))


@register_rrule(builtins.sum)
def sum_rrule(xs, *rest, start=_MISSING):
    s = _sum_args(xs, rest, start)
    if s is None:
        return None
    Ω = builtins.sum(xs, s)
    project_start = ProjectTo(s)

    def sum_pullback(ȳ):
        ȳ = _scalar(ȳ, "sum")
        if isinstance(ȳ, AbstractZero):
            return (NO, ȳ) + (ȳ,) * len(rest)
        x̄s = _project_seq(xs, [ȳ] * len(xs))
        return (NO, x̄s, project_start(ȳ)) if rest else (NO, x̄s)
    return Ω, sum_pullback


# ----- divmod(x, y) -> (x // y, x % y) -------------------------------------------
# The quotient is piecewise constant (zeros); the remainder follows
# ChainRules' mod: (1, -floor(x/y)), NaN at integer quotients.

def _mod_partials(x, y):
    u = float(x) / float(y)
    if math.isfinite(u) and u == math.floor(u):
        return math.nan, math.nan
    return 1.0, -math.floor(u)


@register_frule(builtins.divmod)
def divmod_frule(tangents, x, y):
    if not (_is_real(x) and _is_real(y)):
        return None
    q, r = Ω = divmod(x, y)           # y = 0: the primal's ZeroDivisionError
    Δx, Δy = unthunk(tangents[1]), unthunk(tangents[2])
    Δr = _dot(_mod_partials(x, y), (Δx, Δy))
    if isinstance(Δr, AbstractZero):
        return Ω, Tangent[tuple](Δr, Δr)
    return Ω, Tangent[tuple](ProjectTo(q)(0.0), ProjectTo(r)(Δr))


@register_rrule(builtins.divmod)
def divmod_rrule(x, y):
    if not (_is_real(x) and _is_real(y)):
        return None
    Ω = divmod(x, y)
    dx, dy = _mod_partials(x, y)
    project_x, project_y = ProjectTo(x), ProjectTo(y)

    def divmod_pullback(ȳ):
        _, Δr = _outputs(ȳ, 2, "divmod")
        Δr = _real_part(Δr)
        if isinstance(Δr, AbstractZero):
            return NO, Δr, Δr
        return NO, project_x(dx * Δr), project_y(dy * Δr)
    return Ω, divmod_pullback


# ----- round(x[, ndigits]) -------------------------------------------------------
# Piecewise constant: a numeric zero for x (ChainRules: round, floor, ceil
# give zero(x)); ndigits is an integer with no tangent.

def _round_ok(x, rest):
    return _is_real(x) and len(rest) <= 1 and (not rest or rest[0] is None or isinstance(rest[0], int))


@register_frule(builtins.round)
def round_frule(tangents, x, *rest):
    if not _round_ok(x, rest):
        return None
    Ω = round(x, *rest)
    Δx = unthunk(tangents[1])
    return Ω, (Δx if isinstance(Δx, AbstractZero) else ProjectTo(Ω)(0.0))


@register_rrule(builtins.round)
def round_rrule(x, *rest):
    if not _round_ok(x, rest):
        return None
    project_x = ProjectTo(x)

    def round_pullback(ȳ):
        ȳ = _scalar(ȳ, "round")
        x̄ = ȳ if isinstance(ȳ, AbstractZero) else project_x(0.0)
        return (NO, x̄) + (NO,) * len(rest)
    return round(x, *rest), round_pullback


# ----- float(x), complex(x), complex(x, y) --------------------------------------
# Conversions of numbers: the identity on the value (float of a NumPy scalar
# keeps the cotangent in the argument's precision); strings are
# non-differentiable (nondiff.py).

@register_frule(float, _REAL)
def float_frule(tangents, x):
    if not _is_real(x):
        return None
    Δx = unthunk(tangents[1])
    return float(x), ProjectTo(0.0)(Δx)      # zeros pass through the projector


@register_rrule(float, _REAL)
def float_rrule(x):
    if not _is_real(x):
        return None
    project_x = ProjectTo(x)

    def float_pullback(ȳ):
        ȳ = _scalar(ȳ, "float")
        return NO, project_x(ȳ)             # zeros pass through the projector
    return float(x), float_pullback


@register_frule(complex, (int, float, complex, np.number))
def complex_frule(tangents, x):
    if not _is_number(x):
        return None
    Δx = unthunk(tangents[1])
    return complex(x), (Δx if isinstance(Δx, AbstractZero) else complex(Δx))


@register_rrule(complex, (int, float, complex, np.number))
def complex_rrule(x):
    if not _is_number(x):
        return None
    project_x = ProjectTo(x)

    def complex_pullback(ȳ):
        ȳ = _scalar(ȳ, "complex")
        return NO, project_x(ȳ)             # zeros pass through the projector
    return complex(x), complex_pullback


@register_frule(complex, _REAL, _REAL)
def complex2_frule(tangents, x, y):
    """complex(x, y) = x + iy for real x, y."""
    if not (_is_real(x) and _is_real(y)):
        return None
    Δ = _dot([1.0, 1j], [_real_part(unthunk(t)) for t in tangents[1:]])
    return complex(x, y), (Δ if isinstance(Δ, AbstractZero) else complex(Δ))


@register_rrule(complex, _REAL, _REAL)
def complex2_rrule(x, y):
    if not (_is_real(x) and _is_real(y)):
        return None
    project_x, project_y = ProjectTo(x), ProjectTo(y)

    def complex_pullback(ȳ):
        ȳ = _scalar(ȳ, "complex")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        ȳ = complex(ȳ)
        return NO, project_x(ȳ.real), project_y(ȳ.imag)
    return complex(x, y), complex_pullback
