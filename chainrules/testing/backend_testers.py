"""test_frule / test_rrule with `backend=`: the same checks on another array
library's arrays.

The arguments are given as NumPy values; every NumPy array among them (and
the tangents and seeds) goes through `to_backend`, and `f` is replaced by the
function of the same name in the namespace (NumPy's names with an array-API
spelling, such as `arcsin` → `asin`, are looked up under both).  The rule's
results must be arrays of that library with the primal's dtype and shape (a
Dask array stays lazy: the rule and its pullback must compute nothing, which
is watched with a Dask callback); their values, through `to_numpy`, are
compared with `f` on the NumPy arrays and with finite differences of it.
"""

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from chainrules import AbstractZero, NotImplementedTangent, NoTangent, StructuralTangent, Thunk, ZeroTangent
from chainrules import frule, rrule, unthunk
from chainrules.testing.backends import _convert_in, describe, library_of_value, resolve_backend, to_numpy
from chainrules.testing.check_result import _all_zero, _short, check_tangent_type, is_held_fixed_cotangent, test_approx
from chainrules.testing.finite_difference_calls import DEFAULT_FDM, fd_jvp, fd_vjp, materialize
from chainrules.testing.rand_tangent import rand_tangent, reseed_for
from chainrules.testing.second_order import Order2, check_frule_order2, check_rrule_order2
from chainrules.testing.testers import (
    _DIFF,
    _INT,
    _NODIFF,
    _describe_call,
    _fd_primals,
    _fname,
    _primal_call,
    _Report,
    _safe_copy,
    _specs,
    _tolerances,
    _with_note,
)

__all__ = ["frule_on_backend", "rrule_on_backend"]

# NumPy's name -> the array API standard's, for finding f's counterpart.
_ARRAY_API_NAMES = {
    "absolute": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "power": "pow", "conjugate": "conj",
    "concatenate": "concat", "transpose": "permute_dims", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
}


def _backend_function(b: Any, f: Any, backend_f: Any, who: str) -> Any:
    if backend_f is not None:
        if not callable(backend_f):
            raise TypeError(f"{who}: backend_f must be callable, got {type(backend_f).__name__}")
        return backend_f, _fname(backend_f)
    name = getattr(f, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"{who}: {_fname(f)} has no __name__ to look up in {b.name}; pass backend_f=")
    for n in (name, _ARRAY_API_NAMES.get(name)):
        if n is not None and callable(getattr(b.xp, n, None)):
            return getattr(b.xp, n), f"{b.name}.{n}"
    raise TypeError(f"{who}: the namespace {b.name} has no function {name!r} (the counterpart of "
                    f"{_fname(f)}); pass backend_f=")


class _ComputeWatch:
    """Records every Dask computation started inside `during(what)`."""

    def __init__(self, b: Any) -> None:
        self.lazy = b.lazy
        self.seen: list[Any] = []

    @contextlib.contextmanager
    def during(self, what: str) -> Iterator[Any]:
        if not self.lazy:
            yield
            return
        from dask.callbacks import Callback  # noqa: PLC0415 - only for Dask backends
        seen = self.seen

        class _Seen(Callback):
            def _start(self, dsk: Any) -> None:
                seen.append(what)

        with _Seen():  # type: ignore[no-untyped-call]  # dask has no stubs: Callback is Any
            yield

    def report(self, report: Any) -> None:
        if self.seen:
            where = ", ".join(dict.fromkeys(self.seen))
            report.fail(f"a Dask array was computed inside {where}: a rule must keep Dask arrays lazy "
                        "(no compute(), np.asarray, float() or bool() of a Dask value inside the rule)")


def _is_array_primal(p: Any) -> bool:
    return isinstance(p, np.ndarray) or (isinstance(p, np.generic) and p.dtype.kind in "fciu")


def check_backend_value(b: Any, primal: Any, value: Any, what: str) -> None:
    """Assert that `value`, from a rule run on `b`'s arrays, is a value of that
    library where `primal` (the NumPy counterpart) is an array: an array of
    `b`, with the primal's shape and (float/complex) dtype; zeros pass."""
    value = unthunk(value)
    if isinstance(value, (AbstractZero, NotImplementedTangent, NoTangent)):
        return
    if isinstance(primal, (tuple, list)):
        parts = value.backing if isinstance(value, StructuralTangent) else value
        if isinstance(parts, (tuple, list)) and len(parts) == len(primal):
            for i, (p, v) in enumerate(zip(primal, parts)):
                check_backend_value(b, p, v, f"{what}[{i}]")
        return
    if not _is_array_primal(primal):
        return
    if not b.is_array(value):
        lib = library_of_value(value)
        extra = ""
        if b.lazy and lib == "numpy":
            extra = " (a Dask input must give a lazy Dask result, not a computed NumPy array)"
        elif lib == "numpy":
            extra = " (nothing may be converted to NumPy behind the user's back)"
        raise AssertionError(f"{what}: expected a {b.library} array, as the arguments are (output type = "
                             f"input type), got {describe(value)}{extra}")
    check_tangent_type(np.asarray(primal), to_numpy(value), what)


def _check_values(report: Any, b: Any, primal: Any, value: Any, expected: Any, what: str, rtol: Any, atol: Any) -> None:
    try:
        check_backend_value(b, primal, value, what)
    except AssertionError as e:
        report.fail(str(e))
        return
    report.check(test_approx, to_numpy(value), expected,
                 f"{what}: the value on {b.name} (got) differs from the expected value", rtol=rtol, atol=atol)


def _zeros_like(b: Any) -> Any:
    def zeros_like(x: Any) -> Any:
        if b.is_array(x) and b.library != "numpy":
            return b.xp.zeros_like(x)
        if isinstance(x, np.ndarray):
            return np.zeros_like(x)
        return 0j if isinstance(x, complex) else 0.0
    return zeros_like


def _setup(who: str, config: Any, f: Any, inputs: Any, backend: Any, backend_f: Any, fkwargs: Any, fdm: Any) -> Any:
    b = resolve_backend(backend, f"{who}: backend")
    bf, bname = _backend_function(b, f, backend_f, who)
    reseed_for(f)
    specs = _specs(f, inputs)
    xs = [s.primal for s in specs[1:]]
    head = (config,) if config is not None else ()
    header = f"{who} on {b.name}: {bname} at {_describe_call(f, inputs)}"
    return b, bf, bname, specs, xs, head, header, dict(fkwargs or {}), DEFAULT_FDM if fdm is None else fdm


def rrule_on_backend(config: Any, f: Any, inputs: Any, *, rtol: Any, atol: Any, fkwargs: Any, fdm: Any, order: Any, backend: Any, backend_f: Any,
                     output_tangent: Any, check_thunked_output_tangent: Any) -> None:
    """test_rrule(..., backend=...): see test_rrule."""
    b, bf, bname, specs, xs, head, header, fkwargs, fdm = _setup(
        "test_rrule", config, f, inputs, backend, backend_f, fkwargs, fdm)
    n = len(xs)
    report = _Report(header)
    watch = _ComputeWatch(b)
    omega = materialize(f(*_safe_copy(xs), **_safe_copy(fkwargs)))
    ybar = rand_tangent(omega) if output_tangent is None else output_tangent
    rtol, atol = _tolerances(rtol, atol, xs, [s.accumulator for s in specs], omega, ybar)
    xs_b = [_convert_in(x, b) for x in xs]
    ybar_b = _convert_in(ybar, b)

    def run(seed: Any, what: str) -> Any:
        with watch.during("the rrule"):
            res = rrule(*head, bf, *xs_b, **_safe_copy(fkwargs))
        if res is None:
            raise AssertionError(f"{header}: there is no rrule: cr.rrule returned None for argument types "
                                 f"({', '.join(describe(x) for x in xs_b)}); register one for {bname}")
        if not isinstance(res, tuple) or len(res) != 2 or not callable(res[1]):
            raise AssertionError(f"{header}: the rrule must return the pair (Ω, pullback), got {_short(res)}")
        try:
            with watch.during("the pullback"):
                out = res[1](seed)
                cts = tuple(unthunk(c) for c in out) if isinstance(out, tuple) else out
        except Exception as e:
            raise _with_note(e, f"{header}: while calling the pullback with {what}") from None
        if not isinstance(cts, tuple) or len(cts) != n + 1:
            raise AssertionError(f"{header}: the pullback must return a tuple of {n + 1} cotangents (∂self, "
                                 f"then one per argument), got {_short(cts)} (with {what})")
        return res[0], cts

    omega_b, cts = run(ybar_b, "the seed ȳ")
    _check_values(report, b, omega, omega_b, omega, "the primal Ω returned by the rrule (vs f on NumPy "
                  "arrays)", rtol, atol)
    active = []
    for s in specs:
        d = cts[s.index]
        if s.mode == _DIFF or (s.mode == _INT and not isinstance(d, NoTangent)):
            active.append(s.index)
        elif s.mode == _NODIFF and not is_held_fixed_cotangent(d):
            report.fail(f"{s.label} is non-differentiable: the pullback must return NoTangent() for it, "
                        f"got {describe(d)}")
    fd = fd_vjp(fdm, f, fkwargs, ybar, _fd_primals(specs, active), active) if active else {}
    for s in specs:
        if s.index in fd:
            _check_values(report, b, s.fd_primal if s.mode == _INT else s.primal, cts[s.index], fd[s.index],
                          f"cotangent of {s.label} (vs finite differences Jᵀȳ)", rtol, atol)

    if check_thunked_output_tangent and not isinstance(ybar, AbstractZero):
        _, cts2 = run(Thunk(lambda: ybar_b), "the thunked seed Thunk(lambda: ȳ)")
        for s in specs:
            if s.index in fd:
                report.check(test_approx, to_numpy(cts2[s.index]), to_numpy(cts[s.index]),
                             f"cotangent of {s.label}: the thunked seed (got) gives another answer than the "
                             "plain seed (expected)", rtol=rtol, atol=atol)
    try:
        _, cts3 = run(ZeroTangent(), "the seed ZeroTangent()")
    except Exception as e:  # noqa: BLE001
        report.fail(f"the pullback failed on the seed ZeroTangent(): {type(e).__name__}: {e}")
    else:
        for s in specs:
            if not _all_zero(to_numpy(cts3[s.index])):
                report.fail(f"cotangent of {s.label}: the seed ZeroTangent() must give a zero, got "
                            f"{_short(to_numpy(cts3[s.index]))}")
    watch.report(report)
    if order == 2:
        o2 = Order2(bname, fdm, rtol, atol, to_arg=lambda v: _convert_in(v, b), to_out=to_numpy,
                    zeros_like=_zeros_like(b))
        check_rrule_order2(o2, report, lambda a: rrule(*head, bf, *a, **_safe_copy(fkwargs)),
                           _primal_call(f, fkwargs), specs, xs_b, ybar_b, omega, _DIFF)
    report.raise_if_failed()


def frule_on_backend(config: Any, f: Any, inputs: Any, *, rtol: Any, atol: Any, fkwargs: Any, fdm: Any, order: Any, backend: Any, backend_f: Any) -> None:
    """test_frule(..., backend=...): see test_frule."""
    b, bf, bname, specs, xs, head, header, fkwargs, fdm = _setup(
        "test_frule", config, f, inputs, backend, backend_f, fkwargs, fdm)
    report = _Report(header)
    watch = _ComputeWatch(b)
    tangents = tuple(s.frule_tangent() for s in specs)
    omega = materialize(f(*_safe_copy(xs), **_safe_copy(fkwargs)))
    rtol, atol = _tolerances(rtol, atol, xs, tangents, omega)
    xs_b = [_convert_in(x, b) for x in xs]
    tangents_b = tuple(_convert_in(t, b) for t in tangents)

    def run(dxs: Any, what: str) -> Any:
        try:
            with watch.during("the frule"):
                res = frule(*head, dxs, bf, *xs_b, **_safe_copy(fkwargs))
                if isinstance(res, tuple) and len(res) == 2:
                    res = (res[0], unthunk(res[1]))
        except Exception as e:
            raise _with_note(e, f"{header}: while calling the frule with {what}") from None
        if res is None:
            raise AssertionError(f"{header}: there is no frule: cr.frule returned None for argument types "
                                 f"({', '.join(describe(x) for x in xs_b)}); register one for {bname}")
        if not isinstance(res, tuple) or len(res) != 2:
            raise AssertionError(f"{header}: the frule must return the pair (Ω, ΔΩ), got {_short(res)}")
        return res

    omega_b, domega_b = run(tangents_b, "random tangents")
    _check_values(report, b, omega, omega_b, omega, "the primal Ω returned by the frule (vs f on NumPy "
                  "arrays)", rtol, atol)
    active = [s.index for s in specs if s.mode == _DIFF]
    try:
        fd = fd_jvp(fdm, f, fkwargs, _fd_primals(specs, active), [s.tangent for s in specs], active)
    except Exception as e:
        raise _with_note(e, f"{header}: while computing the finite-difference jvp") from None
    _check_values(report, b, omega, domega_b, fd, "ΔΩ of the frule (vs the finite-difference jvp)", rtol, atol)

    zeros = tuple(ZeroTangent() if s.mode == _DIFF else NoTangent() for s in specs)
    try:
        _, dz = run(zeros, "ZeroTangent() tangents")
    except Exception as e:  # noqa: BLE001
        report.fail(f"the frule failed when every tangent is ZeroTangent(): {type(e).__name__}: {e}")
    else:
        if not _all_zero(to_numpy(dz)):
            report.fail(f"with ZeroTangent() tangents ΔΩ must be zero, got {_short(to_numpy(dz))}")
    watch.report(report)
    if order == 2:
        o2 = Order2(bname, fdm, rtol, atol, to_arg=lambda v: _convert_in(v, b), to_out=to_numpy,
                    zeros_like=_zeros_like(b))
        check_frule_order2(o2, report, lambda dxs, a: frule(*head, dxs, bf, *a, **_safe_copy(fkwargs)),
                           _primal_call(f, fkwargs), specs, xs_b, tangents_b, omega, _DIFF)
    report.raise_if_failed()
