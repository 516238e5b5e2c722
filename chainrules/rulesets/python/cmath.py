"""Hand-written rules of `cmath` and of complex numbers: the functions that
are not holomorphic (phase, abs and conjugate of a complex number) or return
several outputs (polar), and rect.
"""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

import builtins
import cmath
import operator
from typing import Any

import numpy as np

from chainrules._core import (
    AbstractZero,
    ProjectTo,
    Tangent,
    register_frule,
    register_rrule,
    unthunk,
    untraced,
)
from chainrules._protocols import Pullback
from chainrules.rulesets.python._common import (
    NO,
    _COMPLEX,
    _is_real,
    _is_number,
    _outputs,
    _scalar,
    _dot,
    _real_part,
)


# =============================================================================
# cmath: the functions that are not holomorphic
# =============================================================================
# ℂ is treated as ℝ²: for a real function of z = x + iy the frule gives
# ∂Ω/∂x·Δx + ∂Ω/∂y·Δy = Re(conj(∇)·Δz) and the pullback ∇·ΔΩ, with the
# gradient ∇ = ∂Ω/∂x + i·∂Ω/∂y.

def _c(z: Any) -> Any:
    return complex(z)


def _realdot(a: Any, b: Any) -> Any:
    """Re(conj(a)·b): the real inner product of two complex numbers as ℝ²."""
    a, b = complex(a), complex(b)
    return a.real * b.real + a.imag * b.imag


# ----- cmath.phase(z) = atan2(Im z, Re z) --------------------------------------
# ∇ = (-y + ix)/|z|²; 0 at z = 0 (ChainRules' angle).  A real argument's
# cotangent is real: the phase of a real number (0 or π) does not move along
# the real axis.

def _phase_grad(z: Any) -> Any:
    z = _c(z)
    n = abs(z) ** 2
    return complex(-z.imag, z.real) / (n if n != 0 else 1.0)


@register_frule(cmath.phase)
def phase_frule(tangents: Any, z: Any) -> tuple[Any, Any] | None:
    if not _is_number(z):
        return None
    Ω = cmath.phase(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Δz
    return Ω, _realdot(_phase_grad(z), Δz)


@register_rrule(cmath.phase)
def phase_rrule(z: Any) -> tuple[Any, Pullback] | None:
    if not _is_number(z):
        return None
    project_z = ProjectTo(z)
    g = _phase_grad(z)

    def phase_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "cmath.phase")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, project_z(g * _real_part(ȳ))
    return cmath.phase(z), phase_pullback


# ----- abs(z) for complex z (real numbers: a row of the C table) -------------
# ∇ = z/|z|; 0 at z = 0 (ChainRules' abs'(0) = 0).  Shared by the builtin
# abs and operator.abs.

def _abs_grad(z: Any, Ω: Any) -> Any:
    return z / (Ω if Ω != 0 else 1)


def complex_abs_frule(tangents: Any, z: Any) -> tuple[Any, Any] | None:
    if not isinstance(z, _COMPLEX):
        return None
    Ω = abs(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Δz
    return Ω, ProjectTo(Ω)(_realdot(_abs_grad(_c(z), float(Ω)), Δz))  # type: ignore[arg-type]  # abs of a complex: a float


def complex_abs_rrule(z: Any) -> tuple[Any, Pullback] | None:
    if not isinstance(z, _COMPLEX):
        return None
    Ω = abs(z)
    project_z = ProjectTo(z)
    g = _abs_grad(_c(z), float(Ω))  # type: ignore[arg-type]

    def abs_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "abs")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, project_z(g * _real_part(ȳ))
    return Ω, abs_pullback


for _f in (builtins.abs, operator.abs):
    register_frule(_f, _COMPLEX)(complex_abs_frule)
    register_rrule(_f, _COMPLEX)(complex_abs_rrule)


# ----- complex.conjugate(z) ----------------------------------------------------
# Linear over ℝ: the frule conjugates the tangent, the pullback the cotangent.  A
# complex number tracked by an enclosing differentiation (the rule differentiated)
# is a complex number too: its conjugate and its (co)tangent's are the tracked ones.

def _conj(t: Any) -> Any:
    return complex(t).conjugate() if isinstance(t, (int, float, complex, np.number)) else t.conjugate()


@register_frule(complex.conjugate)
def conjugate_frule(tangents: Any, z: Any) -> tuple[Any, Any] | None:
    if not isinstance(untraced(z), complex):
        return None
    Δz = unthunk(tangents[1])
    return z.conjugate(), (Δz if isinstance(Δz, AbstractZero) else _conj(Δz))


@register_rrule(complex.conjugate)
def conjugate_rrule(z: Any) -> tuple[Any, Pullback] | None:
    if not isinstance(untraced(z), complex):
        return None

    def conjugate_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "complex.conjugate")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ
        return NO, _conj(ȳ)
    return z.conjugate(), conjugate_pullback


# ----- cmath.polar(z) -> (|z|, phase(z)) --------------------------------------

@register_frule(cmath.polar)
def polar_frule(tangents: Any, z: Any) -> tuple[Any, Any] | None:
    if not _is_number(z):
        return None
    r, φ = Ω = cmath.polar(z)
    Δz = unthunk(tangents[1])
    if isinstance(Δz, AbstractZero):
        return Ω, Tangent[tuple](Δz, Δz)  # type: ignore[type-arg]
    return Ω, Tangent[tuple](_realdot(_abs_grad(_c(z), r), Δz), _realdot(_phase_grad(z), Δz))  # type: ignore[type-arg]


@register_rrule(cmath.polar)
def polar_rrule(z: Any) -> tuple[Any, Pullback] | None:
    if not _is_number(z):
        return None
    r, φ = Ω = cmath.polar(z)
    project_z = ProjectTo(z)
    g_r, g_φ = _abs_grad(_c(z), r), _phase_grad(z)

    def polar_pullback(ȳ: Any) -> tuple[Any, ...]:
        Δr, Δφ = _outputs(ȳ, 2, "cmath.polar")
        z̄ = g_r * _real_part(Δr) + g_φ * _real_part(Δφ)
        return NO, project_z(z̄)            # zeros pass through the projector
    return Ω, polar_pullback


# ----- cmath.rect(r, φ) = r·e^{iφ} ---------------------------------------------
# Real arguments, complex output: ∂Ω/∂r = e^{iφ}, ∂Ω/∂φ = iΩ; the pullback
# gives Re(conj(∂)·ΔΩ) to each (real) argument.

def _rect_ok(r: Any, φ: Any) -> Any:
    return _is_real(r) and _is_real(φ)


@register_frule(cmath.rect)
def rect_frule(tangents: Any, r: Any, φ: Any) -> tuple[Any, Any] | None:
    if not _rect_ok(r, φ):
        return None
    Ω = cmath.rect(r, φ)
    return Ω, _dot([cmath.rect(1.0, φ), 1j * Ω], [_real_part(unthunk(t)) for t in tangents[1:]])


@register_rrule(cmath.rect)
def rect_rrule(r: Any, φ: Any) -> tuple[Any, Pullback] | None:
    if not _rect_ok(r, φ):
        return None
    Ω = cmath.rect(r, φ)
    d_r, d_φ = cmath.rect(1.0, φ), 1j * Ω
    project_r, project_φ = ProjectTo(r), ProjectTo(φ)

    def rect_pullback(ȳ: Any) -> tuple[Any, ...]:
        ȳ = _scalar(ȳ, "cmath.rect")
        if isinstance(ȳ, AbstractZero):
            return NO, ȳ, ȳ
        return NO, project_r(_realdot(d_r, ȳ)), project_φ(_realdot(d_φ, ȳ))
    return Ω, rect_pullback
