"""Comparing tangents: test_approx, the dtype-aware default tolerances, the
check that a tangent has the type of its primal, and the add_inplace check.

`test_approx` compares tangents of every kind: numbers, arrays, thunks (by
their value), the zeros (a zero matches any all-zero value), `Tangent`s,
tuples, lists, dicts and dataclasses (field by field; a `Tangent[P]` matches a
primal-shaped value).  Failures raise AssertionError naming the path inside
the structure, both values and their difference.
"""

import copy
import dataclasses
from typing import Any, cast

import numpy as np

from chainrules import (
    AbstractThunk,
    AbstractZero,
    InplaceableThunk,
    NotImplementedTangent,
    NoTangent,
    StructuralTangent,
    ZeroTangent,
    add_inplace,
    unthunk,
)

__all__ = ["test_approx", "default_tolerance"]

# Default rtol = atol by the precision of the least precise float involved:
# finite differences and the rule both carry that precision's round-off.
_TOLERANCE_BY_BITS = {64: 1e-9, 32: 1e-4, 16: 1e-2}


def default_tolerance(*values: Any) -> float:
    """default_tolerance(*values) -> float

    The default rtol and atol of the testers for these values (primals and
    tangents, searched through structures): 1e-9 when every float is double
    precision, 1e-4 when a float32 or complex64 is involved, 1e-2 for float16."""
    bits = 64
    stack = list(values)
    seen = 0
    while stack and seen < 100_000:
        seen += 1
        v = stack.pop()
        if isinstance(v, AbstractThunk):
            continue
        if isinstance(v, (np.ndarray, np.generic)):
            dt: np.dtype[Any] = v.dtype
            if dt.kind in "fc":
                bits = min(bits, np.finfo(dt).bits)
            elif dt.kind == "O":
                stack.extend(np.asarray(v).ravel().tolist())
        elif isinstance(v, StructuralTangent):
            stack.extend(v)
        elif isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
    return _TOLERANCE_BY_BITS.get(bits, 1e-9 if bits > 64 else 1e-2)


def _short(x: Any, limit: Any = 200) -> Any:
    if isinstance(x, np.ndarray):
        with np.printoptions(precision=10, threshold=20, edgeitems=3):
            r = f"array({np.array2string(x, separator=', ')}, dtype={x.dtype}, shape={x.shape})"
    else:
        r = repr(x)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def _fields(x: Any) -> Any:
    """(kind, {key: value}) of a structured tangent or primal-shaped value, or None."""
    if isinstance(x, StructuralTangent):
        b = x.backing
        return dict(enumerate(b)) if isinstance(b, tuple) else dict(b)
    if isinstance(x, (tuple, list)):
        return dict(enumerate(x))
    if isinstance(x, dict):
        return dict(x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: getattr(x, f.name) for f in dataclasses.fields(x)}
    return None


def _primal_type(x: Any) -> Any:
    return x.primal_type if isinstance(x, StructuralTangent) else type(x)


def _field_names(x: Any) -> Any:
    """The field names of a namedtuple (or of its Tangent), for readable paths."""
    P = _primal_type(x)
    if isinstance(P, type) and issubclass(P, tuple) and hasattr(P, "_fields"):
        return P._fields
    return None


def _is_object_array(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "O"


def _is_mapping(x: Any) -> bool:
    P = _primal_type(x)
    return isinstance(P, type) and issubclass(P, dict)


def _is_numeric(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, float, complex, np.number)):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind in "fciu"


def _all_zero(x: Any) -> bool:
    x = unthunk(x)
    if isinstance(x, (AbstractZero, NotImplementedTangent)):
        return True
    if _is_object_array(x):
        return all(_all_zero(v) for v in x.ravel())
    f = _fields(x)
    if f is not None:
        return all(_all_zero(v) for v in f.values())
    if _is_numeric(x):
        return not np.any(np.asarray(x))
    return False


class _Comparison:
    def __init__(self, rtol: Any, atol: Any) -> None:
        self.rtol = rtol
        self.atol = atol
        self.failures: list[str] = []

    def fail(self, path: Any, text: Any) -> None:
        self.failures.append(f"{path}: {text}" if path else text)

    def compare(self, actual: Any, expected: Any, path: Any) -> None:
        actual = unthunk(actual)
        expected = unthunk(expected)
        if isinstance(actual, NotImplementedTangent) or isinstance(expected, NotImplementedTangent):
            return  # "not implemented" is not a wrong value
        a_zero = isinstance(actual, AbstractZero)
        e_zero = isinstance(expected, AbstractZero)
        if a_zero or e_zero:
            other = expected if a_zero else actual
            if a_zero and e_zero:
                return
            if self._is_zero_within_tol(other):
                return
            self.fail(path, f"got {_short(actual)}, expected {_short(expected)}: "
                            "one is a zero tangent, the other is not zero")
            return
        if _is_object_array(actual) or _is_object_array(expected):
            a, e = np.asarray(actual, dtype=object), np.asarray(expected, dtype=object)
            if a.shape != e.shape:
                self.fail(path, f"shape {a.shape} differs from the expected shape {e.shape}")
                return
            for i in np.ndindex(a.shape):
                self.compare(a[i], e[i], f"{path}[{', '.join(map(str, i))}]")
            return
        fa, fe = _fields(actual), _fields(expected)
        if fa is not None or fe is not None:
            if fa is None or fe is None:
                self.fail(path, f"got {_short(actual)}, expected {_short(expected)}: "
                                "one is a structure, the other is not")
                return
            if isinstance(actual, StructuralTangent) and isinstance(expected, StructuralTangent) and \
                    actual.primal_type is not expected.primal_type:
                self.fail(path, f"got a {type(actual).__name__}, expected a {type(expected).__name__}")
                return
            seq_a = isinstance(actual, (tuple, list)) or (isinstance(actual, StructuralTangent)
                                                          and isinstance(actual.backing, tuple))
            seq_e = isinstance(expected, (tuple, list)) or (isinstance(expected, StructuralTangent)
                                                            and isinstance(expected.backing, tuple))
            if seq_a and seq_e and len(fa) != len(fe):
                self.fail(path, f"got {len(fa)} elements, expected {len(fe)}: "
                                f"{_short(actual)} vs {_short(expected)}")
                return
            names = _field_names(actual) or _field_names(expected)
            mapping = _is_mapping(actual) or _is_mapping(expected)
            for k in list(fa) + [k for k in fe if k not in fa]:
                if names is not None and isinstance(k, int) and k < len(names):
                    sub = f"{path}.{names[k]}"
                elif mapping or not isinstance(k, str):
                    sub = f"{path}[{k!r}]"
                else:
                    sub = f"{path}.{k}"
                self.compare(fa.get(k, ZeroTangent()), fe.get(k, ZeroTangent()), sub)
            return
        if _is_numeric(actual) and _is_numeric(expected):
            self._compare_numbers(actual, expected, path)
            return
        try:
            same = actual == expected
            same = bool(np.all(same)) if not isinstance(same, bool) else same
        except Exception:  # noqa: BLE001 - incomparable values are simply unequal
            same = False
        if not same:
            self.fail(path, f"got {_short(actual)}, expected {_short(expected)}")

    def _is_zero_within_tol(self, x: Any) -> bool:
        x = unthunk(x)
        if isinstance(x, (AbstractZero, NotImplementedTangent)):
            return True
        if _is_object_array(x):
            return all(self._is_zero_within_tol(v) for v in x.ravel())
        f = _fields(x)
        if f is not None:
            return all(self._is_zero_within_tol(v) for v in f.values())
        if _is_numeric(x):
            a = np.asarray(x)
            return a.size == 0 or bool(np.all(np.abs(a) <= self.atol))
        return False

    def _compare_numbers(self, actual: Any, expected: Any, path: Any) -> None:
        a, e = np.asarray(actual), np.asarray(expected)
        if a.shape != e.shape:
            self.fail(path, f"shape {a.shape} differs from the expected shape {e.shape}: "
                            f"got {_short(actual)}, expected {_short(expected)}")
            return
        if a.size == 0:
            return
        ac = a.astype(np.complex128) if a.dtype.kind == "c" or e.dtype.kind == "c" else a.astype(np.float64)
        ec = e.astype(ac.dtype)
        ok = np.isclose(ac, ec, rtol=self.rtol, atol=self.atol, equal_nan=True)
        if np.all(ok):
            return
        diff = np.abs(ac - ec)
        diff_masked = np.where(ok, 0.0, np.where(np.isnan(diff), np.inf, diff))
        worst = np.unravel_index(int(np.argmax(diff_masked)), diff.shape) if diff.ndim else ()
        where = f" (worst at index {tuple(int(i) for i in worst)}, {int(np.sum(~ok))} of {ok.size} "\
                f"entries off)" if a.ndim else ""
        d = diff[worst]
        scale = abs(ec[worst])
        rel = f", relative {d / scale:.3g}" if scale > 0 else ""
        self.fail(path, f"got {_short(actual)}, expected {_short(expected)}; "
                        f"difference {d:.3g}{rel}{where}; rtol={self.rtol:g}, atol={self.atol:g}")


def test_approx(actual: Any, expected: Any, msg: str = "", rtol: float | None = None,
                atol: float | None = None) -> None:
    """test_approx(actual, expected, msg="", rtol=None, atol=None)

    Assert that two tangents are approximately equal: numbers and arrays
    element-wise (|a − e| ≤ atol + rtol·|e|, same shape), thunks by their
    value, a zero tangent against any all-zero value, structures (`Tangent`,
    tuple, list, dict, dataclass) field by field with absent fields as zero.
    Default tolerances follow the precision involved (`default_tolerance`).
    Raises AssertionError naming the path, both values and the difference.

    Example::

        test_approx(Tangent[tuple](1.0, ZeroTangent()), (1.0 + 1e-12, 0.0))
    """
    tol = default_tolerance(actual, expected) if rtol is None or atol is None else None
    rtol = tol if rtol is None else rtol
    atol = tol if atol is None else atol
    c = _Comparison(rtol, atol)
    c.compare(actual, expected, "")
    if c.failures:
        head = f"{msg}\n" if msg else ""
        raise AssertionError(head + "\n".join("  " + f for f in c.failures))


test_approx.__test__ = False  # type: ignore[attr-defined]  # pytest: a helper, not a test


# ----- the type of a tangent -------------------------------------------------

def _real_scalar(x: Any) -> bool:
    return isinstance(x, (float, np.floating)) or (isinstance(x, int) and not isinstance(x, bool))


def check_tangent_type(primal: Any, dx: Any, what: str) -> None:
    """Assert that dx can be a tangent of `primal`: a real number for a real
    number, a number of the primal's own dtype for a NumPy scalar, an array
    of the same shape and dtype for an array (a complex array's tangent is
    complex), a Tangent of the primal's type for a structure.
    Zeros and thunks (by their value) always pass."""
    d = unthunk(dx)
    if isinstance(d, (AbstractZero, NotImplementedTangent)):
        return
    if isinstance(primal, (bool, np.bool_)):
        return
    if isinstance(primal, np.ndarray):
        if primal.dtype.kind not in "fc":
            return
        if not isinstance(d, np.ndarray):
            raise AssertionError(f"{what}: the tangent of a {primal.dtype} array of shape {primal.shape} "
                                 f"must be an array of that shape and dtype, got {_short(d)}")
        if d.shape != primal.shape:
            raise AssertionError(f"{what}: shape {d.shape} differs from the primal's shape {primal.shape} "
                                 f"(use ProjectTo(x) or unbroadcast in the rule)")
        if d.dtype != primal.dtype:       # tangents have the primal's dtype, always (issue 11)
            raise AssertionError(f"{what}: dtype {d.dtype} differs from the primal's dtype {primal.dtype} "
                                 f"(project with ProjectTo(x))")
        return
    if _real_scalar(primal) or isinstance(primal, (complex, np.complexfloating)):
        if isinstance(d, np.ndarray):
            raise AssertionError(f"{what}: the tangent of the scalar {_short(primal)} must be a number, "
                                 f"got an array of shape {d.shape}")
        if not isinstance(d, (int, float, complex, np.number)) or isinstance(d, (bool, np.bool_)):
            raise AssertionError(f"{what}: the tangent of the number {_short(primal)} must be a number, "
                                 f"got {_short(d)}")
        if _real_scalar(primal) and isinstance(d, (complex, np.complexfloating)):
            raise AssertionError(f"{what}: the tangent of the real number {_short(primal)} must be real, "
                                 f"got the complex {d!r} (project with ProjectTo(x))")
        if isinstance(primal, np.generic):
            # a NumPy float or complex here (finfo's stubs take inexact dtypes only)
            pbits = np.finfo(cast(Any, primal.dtype)).bits
            dbits = np.finfo(cast(Any, d.dtype)).bits if isinstance(d, np.inexact) else 64
            if dbits != pbits or (isinstance(d, np.generic) and d.dtype != primal.dtype):
                raise AssertionError(f"{what}: the tangent of a {type(primal).__name__} must keep its "
                                     f"precision, got a {type(d).__name__} (project with ProjectTo(x))")
        return
    if isinstance(d, StructuralTangent) and isinstance(primal, (tuple, dict)) or (
            isinstance(d, StructuralTangent) and dataclasses.is_dataclass(primal)):
        if not isinstance(primal, d.primal_type):
            raise AssertionError(f"{what}: a {type(d).__name__} is not a tangent of a {type(primal).__name__}")
        pf, df = _fields(primal), _fields(d)
        for k, v in df.items():
            if k in pf:
                check_tangent_type(pf[k], v, f"{what}[{k!r}]")


# ----- add_inplace against plain + -----------------------------------------

def _plain_add(acc: Any, dx: Any) -> Any:
    return acc + unthunk(dx)


def check_add_inplace(acc: Any, dx: Any, what: str, rtol: Any, atol: Any) -> None:
    """Assert that `add_inplace(copy of acc, dx)` equals `acc + unthunk(dx)`:
    the only check of an InplaceableThunk's add_fn."""
    if isinstance(acc, AbstractZero) or isinstance(unthunk(dx), NotImplementedTangent):
        return
    if isinstance(acc, list) and isinstance(unthunk(dx), list):
        # `+` concatenates lists: a list tangent is checked element by element.
        for i, (a, d) in enumerate(zip(acc, unthunk(dx))):
            check_add_inplace(a, d, f"{what}[{i}]", rtol, atol)
        return
    expected = _plain_add(copy.deepcopy(acc), dx)
    actual = add_inplace(copy.deepcopy(acc), dx)
    kind = "InplaceableThunk's add_fn" if isinstance(dx, InplaceableThunk) else "add_inplace"
    test_approx(actual, expected, f"{what}: add_inplace(accumulator, ∂) differs from accumulator + ∂ "
                                  f"(check the {kind})", rtol=rtol, atol=atol)
    if isinstance(dx, InplaceableThunk) and isinstance(acc, np.ndarray):
        check_tangent_type(acc, actual, f"{what}: the result of the InplaceableThunk's add_fn")


def is_no_tangent(dx: Any) -> bool:
    return isinstance(dx, NoTangent)


def is_held_fixed_cotangent(dx: Any) -> bool:
    """Is dx an acceptable cotangent for an argument held fixed
    (`PrimalAndTangent(x, NoTangent())`)?  NoTangent(), or a
    NotImplementedTangent: a rule that does not differentiate in that argument
    says so whether or not the caller asked (never a silent zero), as
    ChainRulesTestUtils lets `@not_implemented` pass there."""
    return isinstance(dx, (NoTangent, NotImplementedTangent))
