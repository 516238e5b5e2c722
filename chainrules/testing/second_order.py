"""The order=2 checks of the testers: a rule is itself differentiable.

For an rrule: with a seed ȳ and a direction v (drawn from a generator seeded
by the function's name), the derivative along v of x ↦ pullback_x(ȳ),
computed by `chainrules.ad.jvp` running the rule and its pullback on tracked
values, must equal central finite differences of the same map; that
derivative must be the primal's: paired with a random w it equals the mixed
second derivative ∂²/∂v∂w ⟨ȳ, f(x)⟩ of f itself, by second-order finite
differences (this catches a pullback right at x0 only, e.g. cos(x0) frozen as
a constant, which the first two checks cannot see); and the pullback must be
linear in ȳ.  For an frule, likewise x ↦ ΔΩ(x, ẋ) against f's mixed second
derivative along v and ẋ, and ΔΩ must be linear in ẋ.  Only the arguments
with a tangent (`differentiable` mode) move; the others are held fixed.
When chainrules.ad cannot
differentiate the rule (its body converts a tracked value, calls a function
without a rule, or the rule refuses tracked arguments), the check fails
saying so: that is the finding, not something to skip.
"""

import zlib
from typing import Any

import numpy as np

from chainrules import AbstractZero, NoTangent, StructuralTangent, unthunk
from chainrules.testing.check_result import _short, test_approx
from chainrules.testing.finite_difference_calls import promote
from chainrules.testing.rand_tangent import rand_tangent
from chainrules.finite_differences import central_fdm, to_vec
from chainrules.finite_differences import jvp as fd_jvp

__all__ = ["Order2", "check_rrule_order2", "check_frule_order2"]

# Second derivatives of the primal by finite differences: 7 points keep them to
# about 1e-11 relative in double precision on smooth functions; 5 points (about
# 1e-9) give the estimate of their error.
FDM2 = central_fdm(7, 2, max_range=1e-2)
FDM2_ROUGH = central_fdm(5, 2, max_range=1e-2)

_HINT = ("order=2 runs the rule on values tracked by chainrules.ad (forward mode) and differentiates "
         "its result: a rule body that converts its inputs (np.asarray, float(), .item()), refuses "
         "tracked arguments, or calls a function chainrules.ad has no rule for is not differentiable")


class Order2:
    """What the order=2 checks need from a tester call: the function's name,
    the rule called on (possibly tracked) arguments, conversions for a
    backend (identity for NumPy) and the tolerances."""

    def __init__(self, name: str, fdm: Any, rtol: Any, atol: Any, to_arg: Any = None, to_out: Any = None, zeros_like: Any = None) -> None:
        self.name = name
        self.fdm = fdm
        self.rtol = rtol
        self.atol = atol
        self.to_arg = to_arg or (lambda x: x)      # a NumPy value -> the rule's argument
        self.to_out = to_out or (lambda x: x)      # a rule's result -> NumPy
        self.zeros_like = zeros_like or _zeros_like
        self.rng = np.random.default_rng(zlib.crc32(f"order2:{name}".encode()))

    def tol(self) -> Any:
        return dict(rtol=self.rtol, atol=self.atol)


def _zeros_like(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return np.zeros_like(x)
    if isinstance(x, np.generic):
        return type(x)(0)
    if isinstance(x, complex):
        return 0j
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return 0.0
    xp = getattr(x, "__array_namespace__", None)
    if xp is not None:
        return xp().zeros_like(x)
    return x * 0


def _dense(d: Any, like: Any, zeros_like: Any) -> Any:
    """A tangent with its hard zeros replaced by concrete zeros shaped like `like`
    (a NumPy or backend primal), so that both AD and finite differences see a value."""
    d = unthunk(d)
    if isinstance(d, (AbstractZero, NoTangent)):
        if isinstance(like, tuple):
            return tuple(_dense(d, v, zeros_like) for v in like)
        return zeros_like(like)
    if isinstance(d, StructuralTangent) and isinstance(like, tuple) and isinstance(d.backing, tuple):
        return tuple(_dense(v, w, zeros_like) for v, w in zip(d.backing, like))
    return d


def _parts(t: Any, n: int) -> Any:
    t = unthunk(t)
    if isinstance(t, StructuralTangent) and isinstance(t.backing, tuple):
        return tuple(t.backing)
    if isinstance(t, (tuple, list)):
        return tuple(t)
    if isinstance(t, AbstractZero):
        return (t,) * n
    raise AssertionError(f"expected {n} tangents, got {_short(t)}")


def _differentiate(o2: Any, report: Any, who: str, g: Any, primals: Any, directions: Any) -> Any:
    """(AD jvp, FD jvp) of g at primals along directions; the AD jvp is None
    after reporting why chainrules.ad could not differentiate the rule."""
    from chainrules import ad  # noqa: PLC0415 - the testers work without the AD loaded

    args = tuple(o2.to_arg(p) for p in primals)
    dirs = tuple(o2.to_arg(v) for v in directions)
    d_ad = None
    try:
        d_ad = o2.to_out(ad.jvp(g, args, dirs)[1])
    except _NoRuleForTracked as e:
        report.fail(f"order 2: the {who} of {o2.name} is not differentiable: {e}")
    except Exception as e:  # noqa: BLE001 - every failure of the AD is the finding
        report.fail(f"order 2: the {who} of {o2.name} is not differentiable by chainrules.ad: "
                    f"{type(e).__name__}: {e} ({_HINT})")

    def g_numpy(*xs: Any) -> Any:
        return o2.to_out(g(*(o2.to_arg(x) for x in xs)))

    pairs = [(promote(p), v) for p, v in zip(primals, directions)]
    try:
        d_fd = fd_jvp(o2.fdm, g_numpy, *pairs)
    except Exception as e:
        if hasattr(e, "add_note"):
            e.add_note(f"order 2: while computing finite differences of the {who} of {o2.name}")
        raise
    return d_ad, d_fd


def _mixed_second_derivative(phi: Any, primals: Any, d1: Any, d2: Any) -> Any:
    """(∂²/∂s∂t phi(x + s·d1 + t·d2) at 0, an estimate of its error), by polarization of
    second derivatives along lines: (S(d1 + d2) − S(d1 − d2)) / 4 with S(d) = d²/dt² phi(x + t·d).

    The error is the distance to a lower-order estimate: second differences lose
    more digits than first ones, and far more on a function that is linear along
    a line (the adaptive step then shrinks), so their accuracy is measured, not assumed."""
    def estimate(m: Any) -> Any:
        def along(d: Any) -> Any:
            return m(lambda t: phi([_combine(t, di, p) for p, di in zip(primals, d)]), 0.0)

        plus = [_combine(1.0, a, b) for a, b in zip(d1, d2)]
        minus = [_combine(-1.0, b, a) for a, b in zip(d1, d2)]
        return (np.asarray(along(plus)) - np.asarray(along(minus))) / 4

    best, rough = estimate(FDM2), estimate(FDM2_ROUGH)
    err = float(np.max(np.abs(best - rough), initial=0.0))
    return (best[()] if best.ndim == 0 else best), err


def _real_dot(a: Any, b: Any) -> Any:
    """The real inner product ⟨a, b⟩ (complex numbers as R²) of two values of one layout."""
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, (AbstractZero, NoTangent)) or isinstance(b, (AbstractZero, NoTangent)):
        return 0.0
    return float(np.dot(to_vec(a)[0], to_vec(b)[0]))


def _scale(values: Any) -> Any:
    return max([1.0] + [float(np.max(np.abs(to_vec(v)[0]), initial=0.0)) for v in values])


class _NoRuleForTracked(TypeError):
    pass


def check_rrule_order2(o2: Any, report: Any, call_rrule: Any, call_primal: Any, specs: Any, xs: Any, ybar: Any, omega: Any, diff_mode: Any) -> None:
    """The order=2 checks of test_rrule.  `call_rrule(xs)` runs the rule (None
    when there is none), `call_primal(xs)` the NumPy function; `specs` are the
    tester's arguments (index 0 is f); `xs`/`ybar` the rule's arguments and
    seed (a backend's arrays for `backend=`); `omega` and the specs' primals
    are NumPy values."""
    active = [s for s in specs[1:] if s.mode == diff_mode]
    if not active:
        return

    def cotangents(args: Any, seed: Any) -> Any:
        res = call_rrule(args)
        if res is None:
            raise _NoRuleForTracked(
                f"cr.rrule returned None for the tracked arguments ({', '.join(type(a).__name__ for a in args)}): "
                f"the rule is restricted to types chainrules.ad's tracked values are not ({_HINT})")
        cts = res[1](seed)
        return tuple(_dense(cts[s.index], xs[s.index - 1], o2.zeros_like) for s in active)

    # The pullback is linear in ȳ (over the reals: a is real).
    if not isinstance(unthunk(ybar), AbstractZero):
        a = round(float(o2.rng.uniform(0.5, 2.0)), 2)
        ybar2 = o2.to_arg(rand_tangent(omega, o2.rng))
        try:
            c1 = cotangents(list(xs), ybar)
            c2 = cotangents(list(xs), ybar2)
            c12 = cotangents(list(xs), _combine(a, unthunk(ybar), ybar2))
        except Exception as e:  # noqa: BLE001
            report.fail(f"order 2: the pullback of {o2.name} raised {type(e).__name__}: {e} on the seeds "
                        f"of the linearity check (ȳ, ȳ2, {a}·ȳ + ȳ2)")
        else:
            for s, u, v, w in zip(active, c1, c2, c12):
                report.check(test_approx, o2.to_out(w), o2.to_out(_combine(a, u, v)),
                             f"order 2: cotangent of {s.label}: the pullback is not linear in ȳ: "
                             f"pullback({a}·ȳ1 + ȳ2) (got) differs from {a}·pullback(ȳ1) + pullback(ȳ2) "
                             "(expected)", **o2.tol())

    # x ↦ pullback_x(ȳ) is differentiable, and chainrules.ad agrees with finite differences.
    primals = [s.fd_primal for s in active]
    directions = [rand_tangent(p, o2.rng) for p in primals]

    def pullback_at(*vals: Any) -> Any:
        args = list(xs)
        for s, v in zip(active, vals):
            args[s.index - 1] = v
        return cotangents(args, ybar)

    d_ad, d_fd = _differentiate(o2, report, "rrule (x ↦ pullback_x(ȳ))", pullback_at, primals, directions)
    n = len(active)
    d_fd = _parts(d_fd, n)
    if d_ad is not None:
        for s, got, want in zip(active, _parts(d_ad, n), d_fd):
            report.check(test_approx, got, want,
                         f"order 2: cotangent of {s.label}: the derivative of x ↦ pullback_x(ȳ) along a random "
                         "direction, by chainrules.ad through the rule (got), differs from finite differences "
                         "of the same map (expected)", **o2.tol())

    # ... and it is the primal's second derivative: ⟨w, D_v pullback_x(ȳ)⟩ = ∂²⟨ȳ, f(x)⟩/∂v∂w.
    primals = [promote(p) for p in primals]
    ybar_np = promote(o2.to_out(unthunk(ybar)))
    ws = [rand_tangent(p, o2.rng) for p in primals]

    def phi(vals: Any) -> Any:
        args = [promote(s.primal) for s in specs[1:]]
        for s, v in zip(active, vals):
            args[s.index - 1] = v
        return _real_dot(ybar_np, call_primal(args))

    got = sum(_real_dot(w, d) for w, d in zip(ws, d_fd))
    want, fd_err = _mixed_second_derivative(phi, primals, directions, ws)
    # the round-off of second differences scales with the values differenced, ⟨ȳ, Ω⟩
    scale = max(_scale(ws + list(d_fd)), abs(phi(primals)))
    report.check(test_approx, got, want,
                 f"order 2: the derivative of x ↦ pullback_x(ȳ) along v, paired with w, (got) differs from "
                 f"the mixed second derivative ∂²⟨ȳ, {o2.name}(x)⟩/∂v∂w by finite differences of the primal "
                 "(expected), v and w random: the pullback is right at this x but not as a function of x",
                 rtol=o2.rtol, atol=o2.atol * scale + 4 * fd_err)


def check_frule_order2(o2: Any, report: Any, call_frule: Any, call_primal: Any, specs: Any, xs: Any, tangents: Any, omega: Any, diff_mode: Any) -> None:
    """The order=2 checks of test_frule.  `call_frule(tangents, xs)` runs the
    rule (None when there is none), `call_primal(xs)` the NumPy function;
    `tangents` start with Δself."""
    active = [s for s in specs[1:] if s.mode == diff_mode]
    if not active:
        return
    omega_like = o2.to_arg(omega)

    def pushforward(args: Any, dxs: Any) -> Any:
        res = call_frule(dxs, args)
        if res is None:
            raise _NoRuleForTracked(
                f"cr.frule returned None for the tracked arguments ({', '.join(type(a).__name__ for a in args)}): "
                f"the rule is restricted to types chainrules.ad's tracked values are not ({_HINT})")
        return _dense(res[1], omega_like, o2.zeros_like)

    # ΔΩ is linear in the tangents.
    a = round(float(o2.rng.uniform(0.5, 2.0)), 2)
    t2 = list(tangents)
    mixed = list(tangents)
    for s in active:
        extra = o2.to_arg(rand_tangent(s.primal, o2.rng))
        t2[s.index] = extra
        mixed[s.index] = _combine(a, unthunk(tangents[s.index]), extra)
    try:
        d1 = pushforward(list(xs), tuple(tangents))
        d2 = pushforward(list(xs), tuple(t2))
        d12 = pushforward(list(xs), tuple(mixed))
    except Exception as e:  # noqa: BLE001
        report.fail(f"order 2: the frule of {o2.name} raised {type(e).__name__}: {e} on the tangents of the "
                    f"linearity check (ẋ, ẋ2, {a}·ẋ + ẋ2)")
    else:
        expected = _combine(a, d1, d2)
        report.check(test_approx, o2.to_out(d12), o2.to_out(expected),
                     f"order 2: ΔΩ of the frule is not linear in the tangents: ΔΩ(x, {a}·ẋ1 + ẋ2) (got) "
                     f"differs from {a}·ΔΩ(x, ẋ1) + ΔΩ(x, ẋ2) (expected)", **o2.tol())

    primals = [s.fd_primal for s in active]
    directions = [rand_tangent(p, o2.rng) for p in primals]

    def pushforward_at(*vals: Any) -> Any:
        args = list(xs)
        for s, v in zip(active, vals):
            args[s.index - 1] = v
        return pushforward(args, tuple(tangents))

    d_ad, d_fd = _differentiate(o2, report, "frule (x ↦ ΔΩ(x, ẋ))", pushforward_at, primals, directions)
    if d_ad is not None:
        report.check(test_approx, d_ad, d_fd,
                     "order 2: the derivative of x ↦ ΔΩ(x, ẋ) along a random direction, by chainrules.ad "
                     "through the rule (got), differs from finite differences of the same map (expected)",
                     **o2.tol())

    # ... and it is the primal's second derivative along v and ẋ.
    primals = [promote(p) for p in primals]
    dxs = [promote(s.tangent) for s in active]
    out_vec, back = to_vec(promote(omega))

    def f_vec(vals: Any) -> Any:
        args = [promote(s.primal) for s in specs[1:]]
        for s, v in zip(active, vals):
            args[s.index - 1] = v
        return to_vec(call_primal(args))[0]

    want, fd_err = _mixed_second_derivative(f_vec, primals, directions, dxs)
    want = back(want)
    scale = max(_scale([want]), float(np.max(np.abs(out_vec), initial=0.0)))
    for where, got_part, want_part in _differentiable_parts(promote(omega), d_fd, want):
        report.check(test_approx, got_part, want_part,
                     f"order 2: the derivative of x ↦ ΔΩ(x, ẋ){where} along v (got) differs from the mixed "
                     f"second derivative ∂²{o2.name}(x)/∂v∂ẋ by finite differences of the primal (expected), "
                     "v random: the pushforward is right at this x but not as a function of x",
                     rtol=o2.rtol, atol=o2.atol * scale + 4 * fd_err)


def _differentiable_parts(omega: Any, got: Any, want: Any) -> Any:
    """(label, got, want) for the parts of Ω with a tangent space (a tuple's
    integer parts, such as frexp's exponent, have none; nor has the int of
    math.ceil, whose finite differences would rebuild the primal itself)."""
    def has_tangent(o: Any) -> bool:
        # a generator of its own: the kit's random draws stay where they were
        return not isinstance(rand_tangent(o, np.random.default_rng(0)), NoTangent)
    if isinstance(omega, tuple):
        n = len(omega)
        return [(f"[{i}]", g, w) for i, (o, g, w) in enumerate(zip(omega, _parts(got, n), _parts(want, n)))
                if has_tangent(o)]
    return [("", got, want)] if has_tangent(omega) else []


def _combine(a: Any, d1: Any, d2: Any) -> Any:
    """a·d1 + d2, element-wise for tuples and lists (the tangents of sequences)
    and for the Tangent of a tuple argument (cho_solve's (c, lower))."""
    if isinstance(d1, (tuple, list)):
        return type(d1)(_combine(a, u, v) for u, v in zip(d1, d2))
    if isinstance(d1, StructuralTangent) and isinstance(d2, StructuralTangent):
        return type(d1)(*[_combine(a, u, v) for u, v in zip(d1, d2)])
    if isinstance(d1, AbstractZero):
        return d2
    return a * d1 + d2

