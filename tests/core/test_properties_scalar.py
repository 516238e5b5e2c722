"""Property tests of every row of the C scalar table (hypothesis): odd but
valid scalar arguments never give a silent wrong answer (issue 11 item 18;
the array rules have theirs in tests/rulesets/test_properties_rules.py).

Each row (math, cmath, operator, abs/pow/max/min, NumPy ufuncs on scalars)
is called with every argument of one kind: a Python float, int or complex, a
float or complex subclass, np.float64, np.float32, np.float16, np.complex64,
np.int64, a bool, a 0-d array.  The property: either the primal raises and
so does the rule (an exception of the primal's class), or the rule declines
(None: the caller runs the primal), or
- Ω is the primal's value, of the primal's type;
- each cotangent (the frule: ΔΩ) is a number, real for a real argument, no
  tangent at all (NoTangent or a zero) for a bool or a NumPy integer;
- where the function is smooth at the point, ΔΩ = Jẋ and ⟨x̄, ẋ⟩ = ⟨ȳ, Jẋ⟩
  with Jẋ from central finite differences in double precision, to a
  tolerance set by the argument's precision."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chainrules import AbstractZero, NoTangent, _core, frule, rrule, unthunk


class Float(float):
    pass


class Complex(complex):
    pass


def _zero_d(v):
    return np.array(v)


KINDS = {
    "float": float, "int": int, "complex": complex, "float-subclass": Float, "complex-subclass": Complex,
    "float64": np.float64, "float32": np.float32, "float16": np.float16, "complex64": np.complex64,
    "int64": np.int64, "bool": bool, "0d": _zero_d,
}
INTEGRAL = {"int", "int64", "bool"}
COMPLEX = {"complex", "complex-subclass", "complex64"}
NO_TANGENT = {"int64", "bool"}          # NumPy integers and bools have no tangent space
TOL = {"float16": 2e-2, "float32": 2e-3, "complex64": 2e-3}
TOL64 = 1e-6

ROWS = sorted(_core._scalar_rows().items(),
              key=lambda item: (getattr(item[0], "__module__", None) or "numpy", item[0].__name__))
# real points away from the edges of each function's domain
UNIT = {math.asin, math.acos, math.atanh, np.arcsin, np.arccos, np.arctanh}
ACOSH = {math.acosh, np.arccosh}
EXPONENT = {math.ldexp, np.ldexp}


def _name(f):
    return f"{getattr(f, '__module__', None) or 'numpy'}.{f.__name__}"


def _arity(row):
    return int(repr(row).rsplit("(", 1)[1].strip(",)>").split(",")[0])


def _real_range(f):
    if f in UNIT:
        return -0.9, 0.9
    if f in ACOSH:
        return 1.2, 3.0
    return 0.25, 2.5


@st.composite
def calls(draw, f, arity, kind):
    """The arguments of one call of f, every one of this kind, distinct and
    well apart (max, min, copysign have a kink where two are equal)."""
    lo, hi = _real_range(f)
    if kind in INTEGRAL:
        ints = [0, 1] if kind == "bool" else list(range(math.ceil(lo), math.floor(hi) + 1))
        values = draw(st.lists(st.sampled_from(ints), min_size=arity, max_size=arity, unique=True))
    else:
        values = draw(st.lists(st.floats(lo, hi), min_size=arity, max_size=arity))
        assume(all(abs(a - b) > 0.05 for a, b in itertools.combinations(values, 2)))
        if kind in COMPLEX:
            values = [complex(v, draw(st.floats(0.25, 1.0))) for v in values]
    args = [KINDS[kind](v) for v in values]
    if f in EXPONENT:                  # ldexp(x, n): n is an int, whatever x is
        args[1] = draw(st.integers(-3, 3))
    return args


def _double(x):
    """x in double precision, for the finite differences."""
    x = np.asarray(x).item() if isinstance(x, (np.ndarray, np.generic)) else x
    return complex(x) if isinstance(x, complex) else float(x)


def _jvp(f, xs, ẋs, h):
    """Jẋ by the 4th-order central difference with step h, in double precision."""
    def at(t):
        return complex(f(*[x + t * d if d else x for x, d in zip(xs, ẋs)]))    # ldexp's n stays an int
    return (8 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12 * h)


def _number(t):
    t = unthunk(t)
    return 0j if isinstance(t, AbstractZero) else complex(np.asarray(t).item())


def _inner(a, b):
    return (np.conj(a) * b).real


def _check_tangent(t, x, what):
    t = unthunk(t)
    kind = type(x)
    if isinstance(x, (bool, np.bool_, np.integer)):
        assert isinstance(t, (AbstractZero, NoTangent)) or t == 0, f"{what}: {t!r} for the {kind.__name__} {x!r}"
        return
    if isinstance(t, AbstractZero):
        return
    assert isinstance(t, (int, float, complex, np.number)) or (isinstance(t, np.ndarray) and t.ndim == 0), \
        f"{what}: {t!r} is not a number"
    if not np.iscomplexobj(x):
        assert not np.iscomplexobj(t), f"{what}: a complex tangent {t!r} for the real {x!r}"
    if isinstance(x, (np.floating, np.complexfloating)) and isinstance(t, np.generic):
        assert np.asarray(t).dtype.itemsize in (x.dtype.itemsize, 2 * x.dtype.itemsize), \
            f"{what}: {np.asarray(t).dtype} for a {x.dtype} argument"


def _raises_alike(f, args, err):
    for which, call in (("rrule", lambda: rrule(f, *args)),
                        ("frule", lambda: frule((NoTangent(),) + tuple(1.0 for _ in args), f, *args))):
        try:
            res = call()
        except type(err):
            continue
        except Exception as e:        # noqa: BLE001 - reported as a failure
            raise AssertionError(f"{_name(f)}{tuple(args)!r}: the primal raises {type(err).__name__}: {err}; "
                                 f"the {which} raises {type(e).__name__}: {e}") from e
        assert res is None, f"{_name(f)}{tuple(args)!r}: the primal raises {err!r}; the {which} returns {res!r}"


def check_row(f, args, rng):
    where = f"{_name(f)}{tuple(args)!r}"
    with np.errstate(all="ignore"):
        try:
            want = f(*args)
        except Exception as e:        # noqa: BLE001 - the rule must raise the same
            _raises_alike(f, args, e)
            return
        res = rrule(f, *args)
        if res is None:
            assert frule((NoTangent(),) + tuple(1.0 for _ in args), f, *args) is None, \
                f"{where}: an frule but no rrule"
            return
        Ω, pullback = res
        assert type(Ω) is type(want), f"{where}: Ω is a {type(Ω).__name__}, the primal's a {type(want).__name__}"
        assert Ω == want or (Ω != Ω and want != want), f"{where}: Ω = {Ω!r}, the primal's {want!r}"

        complex_out = np.iscomplexobj(want)
        ȳ = complex(*rng.uniform(-1, 1, 2)) if complex_out else float(rng.uniform(-1, 1))
        ẋ = [NoTangent() if type(x) in (bool, np.int64) or (f in EXPONENT and i == 1) else
             complex(*rng.uniform(-1, 1, 2)) if np.iscomplexobj(x) else float(rng.uniform(-1, 1))
             for i, x in enumerate(args)]
        x̄ = pullback(ȳ)
        assert isinstance(x̄, tuple) and len(x̄) == 1 + len(args), f"{where}: the pullback returned {x̄!r}"
        for i, x in enumerate(args):
            _check_tangent(x̄[1 + i], x, f"{where}: the cotangent of argument {i + 1}")
        Ω2, ΔΩ = frule((NoTangent(), *ẋ), f, *args)
        assert type(Ω2) is type(want) and (Ω2 == want or Ω2 != Ω2), f"{where}: the frule's Ω = {Ω2!r}"
        _check_tangent(ΔΩ, want, f"{where}: the frule's ΔΩ")

        if isinstance(want, (np.integer, np.bool_)):     # a NumPy integer has no tangent
            assert isinstance(unthunk(ΔΩ), (AbstractZero, NoTangent)), f"{where}: ΔΩ {ΔΩ!r} for {want!r}"
            return
        xs = [x if isinstance(d, NoTangent) else _double(x) for x, d in zip(args, ẋ)]
        ẋ = [0.0 if isinstance(d, NoTangent) else d for d in ẋ]
        if not np.isfinite(complex(want)) or not any(ẋ):
            return
        fd, fd2 = _jvp(f, xs, ẋ, 1e-4), _jvp(f, xs, ẋ, 2e-4)
    if abs(fd - fd2) > 1e-7 * max(1.0, abs(fd)):
        return                        # not smooth here (floor, fmod, mod…): no derivative to compare
    tol = max(TOL.get(type(x).__name__, TOL64) for x in args)
    scale = max(1.0, abs(fd))
    assert abs(_number(ΔΩ) - fd) <= tol * scale, f"{where}: the frule's ΔΩ {ΔΩ!r}, finite differences {fd!r}"
    lhs = sum(_inner(_number(x̄[1 + i]), ẋ[i]) for i in range(len(args)))
    rhs = _inner(ȳ, fd if complex_out else fd.real)
    assert abs(lhs - rhs) <= tol * max(scale, sum(abs(_number(t)) for t in x̄[1:])), \
        f"{where}: ⟨x̄, ẋ⟩ = {lhs!r}, ⟨ȳ, Jẋ⟩ = {rhs!r} (x̄ = {x̄!r}, ẋ = {ẋ!r}, ȳ = {ȳ!r})"


def test_every_row_is_here():
    assert len(ROWS) == len(_core._scalar_rows()) > 100
    assert {_arity(row) for _, row in ROWS} == {1, 2}


@pytest.mark.parametrize("f, row", ROWS, ids=[_name(f) for f, _ in ROWS])
@settings(max_examples=max(1, settings.default.max_examples // 25))
@given(data=st.data())
def test_row_on_odd_scalars(f, row, data):
    # every kind in each example: one case per row keeps the suite's time down
    for kind in KINDS:
        args = data.draw(calls(f, _arity(row), kind), label=kind)
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="tangent seed"))
        check_row(f, args, rng)


_OWN_SETTINGS = test_row_on_odd_scalars._hypothesis_internal_use_settings


@pytest.fixture(autouse=True)
def _settings_do_not_pile_up():
    """As in tests/rulesets/test_properties_rules.py: hypothesis' pytest plugin
    wraps a parametrized test's settings in a new child on each call, and the
    chain of parents overflows the stack; each case starts from its own."""
    yield
    test_row_on_odd_scalars._hypothesis_internal_use_settings = _OWN_SETTINGS
