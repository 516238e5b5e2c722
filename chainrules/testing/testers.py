"""The testers: test_frule, test_rrule, test_scalar.

Each runs the rule, runs the primal, and checks with finite differences as the
oracle: the primal Ω; the frule's ΔΩ against the FD jvp; the pullback's
cotangents against the FD vjp (Jᵀȳ); the result arity (`(Ω, ΔΩ)`;
`1 + nargs` cotangents); ∂self; `NoTangent()` for arguments marked
non-differentiable; the type, dtype and shape of every tangent against its
primal; a thunked seed giving the same answer; a `ZeroTangent()` seed giving
zeros; `add_inplace` against plain `+` for every tangent (the check of
`InplaceableThunk`s).  All failures of one call are reported together in one
AssertionError that names the function, the argument, the rule's value, the
finite-difference value and the difference.

A primal that returns a one-shot iterator (`map`, `itertools.accumulate`, a
generator) is compared and differentiated as the list of its elements, which
is what its rule returns (`finite_difference_calls.materialize`).
"""

import copy
import inspect
import types
from typing import Any, Callable, Mapping

import numpy as np

from chainrules import (
    AbstractZero,
    NoTangent,
    RuleConfig,
    Thunk,
    ZeroTangent,
    frule,
    rrule,
    unthunk,
)
from chainrules.testing.check_result import (
    _all_zero,
    _short,
    check_add_inplace,
    check_tangent_type,
    default_tolerance,
    is_held_fixed_cotangent,
    test_approx,
)
from chainrules.finite_differences import FiniteDifferenceMethod
from chainrules.testing.finite_difference_calls import DEFAULT_FDM, fd_jvp, fd_vjp, materialize
from chainrules.testing.primal_and_tangent import PrimalAndTangent
from chainrules.testing.rand_tangent import rand_tangent, reseed_for
from chainrules.testing.second_order import Order2, check_frule_order2, check_rrule_order2

__all__ = ["test_frule", "test_rrule", "test_scalar"]

# How an argument takes part in a test.
_DIFF = "differentiable"
_NODIFF = "non-differentiable"   # marked (or without tangent space): NoTangent() is due
_INT = "int"                     # a Python int given bare: an index (NoTangent()) or a real number


def _fname(f: Any) -> str:
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:
        return f"{type(f).__name__} object"
    mod = getattr(f, "__module__", None)
    if mod is None and isinstance(f, np.ufunc):
        mod = "numpy"                   # NumPy < 2.1: ufuncs have no __module__
    if isinstance(mod, str) and mod not in ("builtins", "__main__") and not mod.startswith("test"):
        return f"{mod.lstrip('_')}.{name}"
    return str(name)


def _type_of(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return f"ndarray[{x.dtype}, shape={x.shape}]"
    return type(x).__name__


def _safe_copy(x: Any) -> Any:
    try:
        return copy.deepcopy(x)
    except Exception:  # noqa: BLE001 - uncopyable values are passed as they are
        return x


class _Arg:
    """One argument of the call under test (index 0 is f itself)."""

    def __init__(self, index: Any, value: Any, is_self: Any = False, name: str | None = None) -> None:
        self.index = index
        self.is_self = is_self
        self.name = name
        explicit = isinstance(value, PrimalAndTangent)
        if explicit:
            self.primal, self.tangent = value.primal, value.tangent
        else:
            self.primal, self.tangent = value, rand_tangent(value)
        p = self.primal
        bare_int = isinstance(p, int) and not isinstance(p, bool)
        if isinstance(self.tangent, NoTangent):
            self.mode = _INT if (bare_int and not explicit) else _NODIFF
        else:
            self.mode = _DIFF
        # A Python int differentiated as a real number: finite differences move it as a float;
        # one marked non-differentiable (an index, a count) is passed as it is.
        self.fd_primal = float(p) if (bare_int and self.mode != _NODIFF) else p
        # The accumulator of the add_inplace check; a bare int's, in case the rule treats it as real.
        self.accumulator = rand_tangent(float(p)) if self.mode == _INT else self.tangent

    @property
    def label(self) -> str:
        if self.is_self:
            return f"∂self (the function object, {_type_of(self.primal)})"
        named = f"{self.name}: " if self.name else ""
        return f"argument {self.index} ({named}{_type_of(self.primal)})"

    def frule_tangent(self) -> Any:
        return self.tangent if self.mode == _DIFF else NoTangent()


class _Report:
    """Collects the failures of one tester call; raises them together."""

    def __init__(self, header: str) -> None:
        self.header = header
        self.failures: list[str] = []

    def check(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except AssertionError as e:
            self.failures.append(str(e))

    def fail(self, text: Any) -> None:
        self.failures.append(text)

    def raise_if_failed(self) -> None:
        if self.failures:
            body = "\n".join("- " + f.replace("\n", "\n  ") for f in self.failures)
            raise AssertionError(f"{self.header}: {len(self.failures)} problem(s)\n{body}")


def _param_names(f: Any, n: int) -> Any:
    """The names of f's first n positional parameters, where Python can tell."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return [None] * n
    names: list[str | None] = []
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            names.extend(f"{p.name}[{i}]" for i in range(n - len(names)))
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
    return (names + [None] * n)[:n]


def _specs(f: Any, inputs: Any) -> Any:
    names = _param_names(f, len(inputs))
    return [_Arg(0, f, is_self=True)] + [_Arg(i + 1, a, name=names[i]) for i, a in enumerate(inputs)]


def _fd_primals(specs: Any, active: Any) -> Any:
    """The primals finite differences see: an int that is differentiated moves as a float."""
    return [s.fd_primal if s.index in active else s.primal for s in specs]


def _check_not_mutated(report: Any, specs: Any, given: Any, who: str) -> None:
    """The rule must not change its arguments (the tester passed it copies)."""
    for s, g in zip(specs[1:], given):
        if g is s.primal:
            continue  # not copyable: cannot tell
        try:
            test_approx(g, s.primal, rtol=0.0, atol=0.0)
        except AssertionError as e:
            detail = str(e).strip().replace("\n", "; ")
            report.fail(f"the {who} mutated {s.label}: {detail}")


def _split_config(who: str, args: Any) -> Any:
    if not args:
        raise TypeError(f"{who}([config,] f, *args): expected the function")
    if isinstance(args[0], RuleConfig):
        if len(args) < 2:
            raise TypeError(f"{who}(config, f, *args): expected the function after the config")
        return args[0], args[1], args[2:]
    return None, args[0], args[1:]


def _describe_call(f: Any, args: Any) -> str:
    shown = []
    for a in args:
        if isinstance(a, PrimalAndTangent):
            shown.append(f"{_short(a.primal, 60)} ⊢ {_short(a.tangent, 60)}")
        else:
            shown.append(_short(a, 60))
    return f"{_fname(f)}({', '.join(shown)})"


def _tolerances(rtol: Any, atol: Any, *values: Any) -> Any:
    if rtol is None or atol is None:
        tol = default_tolerance(*values)
        rtol = tol if rtol is None else rtol
        atol = tol if atol is None else atol
    return rtol, atol


def _primal_call(f: Any, fkwargs: Any) -> Any:
    """f called on a list of arguments (the oracle of the order=2 checks)."""
    def call(args: Any) -> Any:
        return materialize(f(*args, **_safe_copy(fkwargs)))
    return call


def _check_order(who: str, order: Any) -> None:
    if isinstance(order, bool) or order not in (1, 2):
        raise ValueError(f"{who}: order must be 1 or 2, got {order!r}")


def _with_note(e: Any, note: Any) -> Any:
    if hasattr(e, "add_note"):
        e.add_note(note)
    return e


# ----- test_frule --------------------------------------------------------

def test_frule(*args: Any, rtol: float | None = None, atol: float | None = None,
               fkwargs: Mapping[str, Any] | None = None, fdm: FiniteDifferenceMethod | None = None,
               output_tangent: Any = None, order: int = 1, backend: str | types.ModuleType | None = None,
               backend_f: Callable[..., Any] | None = None) -> None:
    """test_frule([config,] f, *args, rtol=None, atol=None, fkwargs=None, fdm=None, output_tangent=None,
    order=1, backend=None, backend_f=None)

    Test the frule of `f` at `args` against finite differences.  An argument
    is a primal (its tangent drawn by `rand_tangent`) or
    `PrimalAndTangent(x, ẋ)`; `PrimalAndTangent(x, NoTangent())` holds x fixed.
    A leading `RuleConfig` (e.g. `TestConfig()`) is passed to `frule`.
    `fkwargs` are keyword arguments of f (no tangents).  `output_tangent`:
    the accumulator of the add_inplace check (default: random).  Tolerances
    default by precision (`default_tolerance`).  Raises AssertionError.

    Checks: the frule exists and returns `(Ω, ΔΩ)`; Ω equals f(*args); ΔΩ
    equals the FD jvp and has the type, dtype and shape of a tangent of Ω;
    zero input tangents give a zero ΔΩ; `add_inplace` agrees with `+`.

    `order=2` also checks that the frule is differentiable: the derivative
    of x ↦ ΔΩ(x, ẋ) along a random direction v, by `chainrules.ad` running
    the rule on tracked values, equals finite differences of that map and
    the mixed second derivative ∂²f/∂v∂ẋ of the primal (second-order finite
    differences, with their own error estimate added to atol); ΔΩ is linear
    in ẋ.  A rule chainrules.ad cannot differentiate fails.

    `backend=` (a namespace such as `array_api_strict`, `torch`,
    `jax.numpy`, `dask.array`, `array_api_compat.numpy`, or its name) runs
    the check on that library instead: every NumPy array argument and
    tangent goes through `to_backend`, `f` is replaced by
    `getattr(backend, f.__name__)` (or `backend_f`), Ω and ΔΩ must be arrays
    of that library (Dask: lazy, nothing computed by the rule) of the
    primal's dtype and shape, and their values are compared with f on the
    NumPy arrays and with finite differences.  JAX needs 64-bit mode.

    Example::

        test_frule(math.sin, 1.0)
        test_frule(np.sum, PrimalAndTangent(np.ones(3), np.arange(3.0)), fkwargs={"axis": 0})
        test_frule(np.sin, np.ones(3), order=2)
        test_frule(np.sin, np.ones(3), backend="array_api_strict")
    """
    config, f, inputs = _split_config("test_frule", args)
    _check_order("test_frule", order)
    if backend is not None:
        from chainrules.testing.backend_testers import frule_on_backend  # noqa: PLC0415
        return frule_on_backend(config, f, inputs, rtol=rtol, atol=atol, fkwargs=fkwargs, fdm=fdm,
                                order=order, backend=backend, backend_f=backend_f)
    if backend_f is not None:
        raise TypeError("test_frule: backend_f= needs backend=")
    reseed_for(f)
    fkwargs = dict(fkwargs or {})
    fdm = DEFAULT_FDM if fdm is None else fdm
    specs = _specs(f, inputs)
    xs = [s.primal for s in specs[1:]]
    header = f"test_frule: {_describe_call(f, inputs)}"
    report = _Report(header)
    head = (config,) if config is not None else ()
    tangents = tuple(s.frule_tangent() for s in specs)

    given = _safe_copy(xs)
    res = frule(*head, _safe_copy(tangents), f, *given, **_safe_copy(fkwargs))
    if res is None:
        raise AssertionError(f"{header}: there is no frule: cr.frule returned None for argument types "
                             f"({', '.join(_type_of(x) for x in xs)}); register one with "
                             f"@cr.register_frule or cr.scalar_rule")
    if not isinstance(res, tuple) or len(res) != 2:
        raise AssertionError(f"{header}: the frule must return the pair (Ω, ΔΩ), got {_short(res)}")
    omega_ad, domega_ad = res
    omega = materialize(f(*_safe_copy(xs), **_safe_copy(fkwargs)))
    rtol, atol = _tolerances(rtol, atol, xs, tangents, omega)
    report.check(test_approx, omega_ad, omega, "the primal Ω returned by the frule differs from f(*args)",
                 rtol=rtol, atol=atol)
    report.check(check_tangent_type, omega, omega_ad, "the primal Ω returned by the frule (vs f(*args))")
    _check_not_mutated(report, specs, given, "frule")
    report.check(check_tangent_type, omega, domega_ad, "ΔΩ of the frule")

    active = [s.index for s in specs if s.mode == _DIFF]
    try:
        fd = fd_jvp(fdm, f, fkwargs, _fd_primals(specs, active), [s.tangent for s in specs], active)
    except Exception as e:
        raise _with_note(e, f"{header}: while computing the finite-difference jvp") from None
    report.check(test_approx, domega_ad, fd,
                 "ΔΩ of the frule (got) differs from the finite-difference jvp (expected)",
                 rtol=rtol, atol=atol)

    # Zero tangents in, zero out (and no crash).
    zeros = tuple(ZeroTangent() if s.mode == _DIFF else NoTangent() for s in specs)
    try:
        zres = frule(*head, zeros, f, *_safe_copy(xs), **_safe_copy(fkwargs))
    except Exception as e:  # noqa: BLE001
        report.fail(f"the frule raised {type(e).__name__}: {e} when every tangent is ZeroTangent()")
    else:
        if not isinstance(zres, tuple) or len(zres) != 2:
            report.fail(f"with ZeroTangent() tangents the frule returned {_short(zres)}, not (Ω, ΔΩ)")
        else:
            try:
                zero = _all_zero(zres[1])
            except Exception as e:  # noqa: BLE001
                report.fail(f"with ZeroTangent() tangents ΔΩ raised {type(e).__name__}: {e} when unthunked")
            else:
                if not zero:
                    report.fail(f"with ZeroTangent() tangents ΔΩ must be zero, got {_short(unthunk(zres[1]))}")

    acc = rand_tangent(omega) if output_tangent is None else output_tangent
    report.check(check_add_inplace, acc, domega_ad, "ΔΩ of the frule", rtol, atol)
    if order == 2:
        check_frule_order2(Order2(_fname(f), fdm, rtol, atol), report,
                           lambda dxs, a: frule(*head, dxs, f, *a, **_safe_copy(fkwargs)),
                           _primal_call(f, fkwargs), specs, _safe_copy(xs), tangents, omega, _DIFF)
    report.raise_if_failed()


# ----- test_rrule --------------------------------------------------------

def test_rrule(*args: Any, rtol: float | None = None, atol: float | None = None,
               fkwargs: Mapping[str, Any] | None = None, output_tangent: Any = None,
               check_thunked_output_tangent: bool = True, fdm: FiniteDifferenceMethod | None = None,
               order: int = 1, backend: str | types.ModuleType | None = None,
               backend_f: Callable[..., Any] | None = None) -> None:
    """test_rrule([config,] f, *args, rtol=None, atol=None, fkwargs=None, output_tangent=None,
    check_thunked_output_tangent=True, fdm=None, order=1, backend=None, backend_f=None)

    Test the rrule of `f` at `args` against finite differences.  Arguments as
    in `test_frule`; an argument's tangent is the accumulator of its
    add_inplace check, and `PrimalAndTangent(x, NoTangent())` requires the
    pullback to return `NoTangent()` for x.  A bare Python int may be an index
    (the pullback returns `NoTangent()`) or a real number (its cotangent is
    checked).  `output_tangent`: the seed ȳ (default: `rand_tangent(Ω)`).

    Checks: the rrule exists and returns `(Ω, pullback)`; Ω equals f(*args);
    the pullback returns 1 + nargs cotangents; ∂self is `NoTangent()` for a
    function without fields; each cotangent equals the FD vjp Jᵀȳ and has the
    type, dtype and shape of a tangent of its argument; `NoTangent()` (not
    `ZeroTangent()`) where due; `Thunk(lambda: ȳ)` as seed gives the same
    answer; a `ZeroTangent()` seed gives zeros; `add_inplace` agrees with `+`.

    `order=2` also checks that the rule is differentiable: with ȳ and a
    direction v drawn from a fixed seed, the derivative along v of
    x ↦ pullback_x(ȳ), computed by `chainrules.ad.jvp` running `rrule` and
    its pullback on tracked values, equals central finite differences of
    the same map; paired with a random w it equals the mixed second
    derivative ∂²⟨ȳ, f(x)⟩/∂v∂w of the primal (so a pullback right at x0
    only fails); and the pullback is linear in ȳ (pullback(a·ȳ1 + ȳ2) =
    a·pullback(ȳ1) + pullback(ȳ2)).  Tolerances as at first order (plus
    the estimated error of the second differences).  Only the arguments
    with a tangent move; ∂self and ints are held fixed.  A rule
    chainrules.ad cannot differentiate (NoRuleError, a tracked value
    converted by np.asarray/float(), a rule refusing tracked arguments)
    fails, naming the function.

    `backend=` (a namespace: `array_api_strict`, `torch`, `jax.numpy`,
    `dask.array`, `array_api_compat.numpy`…, or its name as a string) runs
    the check on that library: NumPy array arguments and seeds are
    converted with `to_backend`, `f` is replaced by
    `getattr(backend, f.__name__)` or `backend_f`; Ω and the cotangents
    must be arrays of that library (Dask: still lazy, and the rule and its
    pullback compute nothing) with the primal's dtype and shape, and their
    values (`to_numpy`) are compared with f on the NumPy arrays and with
    finite differences.  The add_inplace check is left to the NumPy run.
    JAX needs 64-bit mode (a ValueError says how to turn it on).

    Example::

        test_rrule(operator.mul, 2.0, np.ones(3))
        test_rrule(TestConfig(), map_rule_user, np.ones(2))
        test_rrule(np.sin, np.ones(3), order=2)
        test_rrule(np.sin, np.ones(3), backend=array_api_strict)
    """
    config, f, inputs = _split_config("test_rrule", args)
    _check_order("test_rrule", order)
    if backend is not None:
        from chainrules.testing.backend_testers import rrule_on_backend  # noqa: PLC0415
        return rrule_on_backend(config, f, inputs, rtol=rtol, atol=atol, fkwargs=fkwargs, fdm=fdm,
                                order=order, backend=backend, backend_f=backend_f,
                                output_tangent=output_tangent,
                                check_thunked_output_tangent=check_thunked_output_tangent)
    if backend_f is not None:
        raise TypeError("test_rrule: backend_f= needs backend=")
    reseed_for(f)
    fkwargs = dict(fkwargs or {})
    fdm = DEFAULT_FDM if fdm is None else fdm
    specs = _specs(f, inputs)
    xs = [s.primal for s in specs[1:]]
    n = len(xs)
    header = f"test_rrule: {_describe_call(f, inputs)}"
    report = _Report(header)
    head = (config,) if config is not None else ()

    def run_rrule(given: Any = None) -> Any:
        return rrule(*head, f, *(_safe_copy(xs) if given is None else given), **_safe_copy(fkwargs))

    given = _safe_copy(xs)
    res = run_rrule(given)
    if res is None:
        raise AssertionError(f"{header}: there is no rrule: cr.rrule returned None for argument types "
                             f"({', '.join(_type_of(x) for x in xs)}); register one with "
                             f"@cr.register_rrule or cr.scalar_rule")
    if not isinstance(res, tuple) or len(res) != 2 or not callable(res[1]):
        raise AssertionError(f"{header}: the rrule must return the pair (Ω, pullback), got {_short(res)}")
    omega_ad, pullback = res
    omega = materialize(f(*_safe_copy(xs), **_safe_copy(fkwargs)))
    ybar = rand_tangent(omega) if output_tangent is None else output_tangent
    rtol, atol = _tolerances(rtol, atol, xs, [s.accumulator for s in specs], omega, ybar)
    report.check(test_approx, omega_ad, omega, "the primal Ω returned by the rrule differs from f(*args)",
                 rtol=rtol, atol=atol)
    report.check(check_tangent_type, omega, omega_ad, "the primal Ω returned by the rrule (vs f(*args))")

    def call_pullback(pb: Any, seed: Any, what: str) -> Any:
        try:
            out = pb(seed)
        except Exception as e:
            raise _with_note(e, f"{header}: while calling the pullback with {what}") from None
        if not isinstance(out, tuple):
            raise AssertionError(f"{header}: the pullback must return a tuple (∂self, ∂x1, …, ∂x{n}), "
                                 f"got {_short(out)} (with {what})")
        if len(out) != n + 1:
            raise AssertionError(f"{header}: the pullback returned {len(out)} cotangents with {what}; "
                                 f"expected {n + 1}: ∂self first, then one per argument ({n})")
        return out

    cts = call_pullback(pullback, ybar, f"the seed ȳ = {_short(ybar, 80)}")
    _check_not_mutated(report, specs, given, "rrule or its pullback")

    # Which cotangents are checked against finite differences.
    active = []
    for s in specs:
        d = unthunk(cts[s.index])
        if s.mode == _DIFF or (s.mode == _INT and not isinstance(d, NoTangent)):
            active.append(s.index)
        elif s.mode == _NODIFF and not (isinstance(d, NoTangent) if s.is_self else is_held_fixed_cotangent(d)):
            if s.is_self:
                report.fail(f"∂self must be NoTangent() for {_fname(f)}, which has no fields to "
                            f"differentiate; got {_short(d)}")
            elif isinstance(d, ZeroTangent):
                report.fail(f"{s.label} is non-differentiable: the pullback must return NoTangent() "
                            f"for it, not ZeroTangent()")
            else:
                report.fail(f"{s.label} is non-differentiable: the pullback must return NoTangent() "
                            f"for it, got {_short(d)}")
    try:
        fd = fd_vjp(fdm, f, fkwargs, ybar, _fd_primals(specs, active), active) if active else {}
    except Exception as e:
        raise _with_note(e, f"{header}: while computing the finite-difference vjp (an int argument "
                            "given a cotangent is moved as a float; mark indices with "
                            "PrimalAndTangent(i, NoTangent()))") from None
    for s in specs:
        if s.index not in fd:
            continue
        ct = cts[s.index]
        what = f"cotangent of {s.label}"
        report.check(check_tangent_type, s.fd_primal if s.mode == _INT else s.primal, ct, what)
        report.check(test_approx, ct, fd[s.index],
                     f"{what}: the pullback's value (got) differs from finite differences Jᵀȳ (expected)",
                     rtol=rtol, atol=atol)
        report.check(check_add_inplace, s.accumulator, ct, what, rtol, atol)

    if check_thunked_output_tangent and not isinstance(ybar, AbstractZero):
        res2 = run_rrule()
        cts2 = call_pullback(res2[1], Thunk(lambda: ybar), "the thunked seed Thunk(lambda: ȳ)")
        for s in specs:
            if s.mode == _NODIFF and not is_held_fixed_cotangent(unthunk(cts2[s.index])):
                report.fail(f"{s.label}: with the thunked seed the pullback gave {_short(cts2[s.index])}, "
                            "not NoTangent()")
                continue
            report.check(test_approx, cts2[s.index], cts[s.index],
                         f"cotangent of {s.label}: the thunked seed Thunk(lambda: ȳ) (got) gives another "
                         f"answer than the plain seed ȳ (expected)", rtol=rtol, atol=atol)

    # An AD may seed a pullback with a hard zero: it must give zeros, not crash.
    res3 = run_rrule()
    zero_hint = ("(an AD may pass ZeroTangent() as ȳ: return ZeroTangent()/NoTangent() for every input "
                 "when `isinstance(ȳ, cr.AbstractZero)`)")
    try:
        cts3 = call_pullback(res3[1], ZeroTangent(), "the seed ZeroTangent()")
    except AssertionError as e:
        report.fail(str(e))
    except Exception as e:  # noqa: BLE001
        report.fail(f"the pullback raised {type(e).__name__}: {e} on the seed ZeroTangent() {zero_hint}")
    else:
        for s in specs:
            try:
                zero = _all_zero(cts3[s.index])
            except Exception as e:  # noqa: BLE001
                report.fail(f"cotangent of {s.label}: with the seed ZeroTangent() the cotangent raised "
                            f"{type(e).__name__}: {e} when unthunked {zero_hint}")
                continue
            if not zero:
                report.fail(f"cotangent of {s.label}: the seed ZeroTangent() must give a zero, got "
                            f"{_short(unthunk(cts3[s.index]))}")
    if order == 2:
        check_rrule_order2(Order2(_fname(f), fdm, rtol, atol), report, run_rrule, _primal_call(f, fkwargs),
                           specs, _safe_copy(xs), ybar, omega, _DIFF)
    report.raise_if_failed()


# ----- test_scalar -------------------------------------------------------

def _one_like(x: Any) -> Any:
    if isinstance(x, np.generic):
        return type(x)(1)
    if isinstance(x, complex):
        return type(x)(1)
    return 1.0


def test_scalar(f: Callable[..., Any], z: complex | np.number[Any], *, rtol: float | None = None,
                atol: float | None = None, fkwargs: Mapping[str, Any] | None = None,
                fdm: FiniteDifferenceMethod | None = None) -> None:
    """test_scalar(f, z, *, rtol=None, atol=None, fkwargs=None, fdm=None)

    Test the frule and rrule of a scalar function at the number z (a Python
    int counts as a real number): the frule with tangent 1 (and 1j for
    complex z, also checking that 1.0 and 1+0j agree), the rrule with seed 1
    (and 1j when Ω is complex, also checking 1.0 against 1+0j).  For real z
    the cotangent must be real.

    Example::

        test_scalar(math.sin, 0.5)
        test_scalar(cmath.exp, 0.5 + 0.2j)
    """
    if isinstance(z, (bool, np.bool_)) or not isinstance(z, (int, float, complex, np.floating,
                                                             np.complexfloating)):
        raise TypeError(f"test_scalar({_fname(f)}, z): z must be a real or complex number, "
                        f"got {type(z).__name__}")
    kw: dict[str, Any] = dict(rtol=rtol, atol=atol, fkwargs=fkwargs, fdm=fdm)
    fk = dict(fkwargs or {})
    is_complex = isinstance(z, (complex, np.complexfloating))
    dx = _one_like(z)
    test_frule(f, PrimalAndTangent(z, dx), **kw)
    omega = f(z, **fk)
    r_tol, a_tol = _tolerances(rtol, atol, z, omega)
    header = f"test_scalar: {_fname(f)}({_short(z, 60)})"
    if is_complex:
        test_frule(f, PrimalAndTangent(z, dx * 1j), **kw)
        real_res = frule((NoTangent(), 1.0), f, z, **fk)
        cplx_res = frule((NoTangent(), dx), f, z, **fk)
        assert real_res is not None and cplx_res is not None     # test_frule found the rule
        real_t, cplx_t = real_res[1], cplx_res[1]
        test_approx(real_t, cplx_t, f"{header}: the frule gives another ΔΩ for the tangent 1.0 than "
                                    f"for 1+0j", rtol=r_tol, atol=a_tol)
    omega_complex = isinstance(omega, (complex, np.complexfloating))
    du = _one_like(omega) if isinstance(omega, (float, complex, np.inexact)) else 1.0
    test_rrule(f, PrimalAndTangent(z, dx), output_tangent=du, **kw)
    if omega_complex:
        test_rrule(f, PrimalAndTangent(z, dx), output_tangent=du * 1j, **kw)
        res = rrule(f, z, **fk)
        assert res is not None      # test_rrule found the rule
        _, real_c = res[1](1.0)
        res = rrule(f, z, **fk)
        assert res is not None
        _, cplx_c = res[1](du)
        test_approx(real_c, cplx_c, f"{header}: the pullback gives another cotangent for the seed 1.0 "
                                    f"than for 1+0j", rtol=r_tol, atol=a_tol)


for _t in (test_frule, test_rrule, test_scalar):
    setattr(_t, "__test__", False)  # pytest: helpers, not tests, when imported into a test module
del _t
