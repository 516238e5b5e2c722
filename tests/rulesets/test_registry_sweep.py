"""The registry sweep (issue 22): every function with a registered frule or
rrule has a sample case here, or an entry of EXCLUDED saying why not and
where it is tested; a new rule without either fails
`test_every_registered_function_has_a_sample_case`.  Each case runs
test_frule and test_rrule at order 1 and 2 in float64, in complex128 where
the function takes complex, at order 1 in float32, and on array-api-strict
(the kit's `backend=`) for the rules registered there.  One test per
dtype/backend loops over the cases and reports every failure in one message.

The sample cases are those the per-family tests already have (their CASES
and SPECS), plus the element-wise table's rows (every function of one row
shares its derivative: one generated case per function) and the special
functions' cases of scipy/test_special.py, and the SWEEP_CASES of any family
test (a new family lists its Cases there: no edit of this file)."""

import cmath
import math
import operator
import sys

import numpy as np
import pytest

from chainrules import _core
from chainrules.rulesets.elementwise import TABLE, row_for_numpy_name
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

from ._order2 import F32, Case
from .array_api import test_order2 as array_api_order2
from .numpy import test_linalg_order2, test_reductions_order2, test_shapes_order2, test_ufuncs_order2
from .python import test_builtins, test_cmath, test_math
from .scipy import test_special
from .test_order2_coverage import _from_a_test, _key, _name, _rule_modules

sp = pytest.importorskip("scipy.special")
xs = pytest.importorskip("array_api_strict")
# a registry-wide sweep: run once in CI (README command 2), not in the floor jobs
pytestmark = pytest.mark.sweep
NT = _core.NoTangent()

# ----- the functions left out, each with its reason ----------------------------------------

# whole libraries: the same rule bodies, tested there against the NumPy numbers
EXCLUDED_LIBRARIES = {
    lib: "the element-wise table's, the array-API, the scipy.special and the scipy.stats rule bodies on this "
         "library: tests/rulesets/test_elementwise_interop*.py, tests/rulesets/array_api/test_linalg_ext.py, "
         "tests/rulesets/scipy/test_special_on_libs.py, tests/rulesets/scipy/test_stats_libs.py, "
         "tests/rulesets/scipy/test_stats_torch.py"
    for lib in ("torch", "jax", "jaxlib", "dask", "array_api_compat", "cupy")
}
_HIGHER = "its arguments are functions (rrule_via_ad): tests/rulesets/test_higher_order.py"
EXCLUDED = {
    map: _HIGHER, sum: _HIGHER, sorted: _HIGHER, max: _HIGHER, min: _HIGHER,
    __import__("functools").reduce: _HIGHER, __import__("itertools").accumulate: _HIGHER,
    np.apply_along_axis: _HIGHER, np.apply_over_axes: _HIGHER, np.piecewise: _HIGHER,
    sys.modules["chainrules.ad.checkpointing"]._checkpoint_call:
        "chainrules.ad.checkpoint's call, whose argument is a function: tests/ad/test_checkpointing.py",
    __import__("importlib").import_module("chainrules.ad.autograd.misc.fixed_points")._fixed_point:
        "chainrules.ad.autograd.misc's fixed_point, whose argument is a function (config rules): "
        "tests/ad/test_autograd_misc.py",
}
# NumPy 2 deprecates row_stack (every call warns): vstack's rules, registered on it too
if hasattr(np, "row_stack"):
    EXCLUDED[np.row_stack] = ("vstack's rules (the same bodies, computing with vstack): "
                              "tests/rulesets/numpy/test_indexing.py, with its warning silenced")
# rules with a config only (they call back into the AD: frule_via_ad / rrule_via_ad), which a
# sample case without a RuleConfig cannot reach; tested with TestConfig and chainrules.ad there
_VIA_AD = "a rule that calls back into the AD (config only): tests/rulesets/scipy/test_{}.py"
for _mod, _fname, _file in (("scipy.integrate", "quad", "integrate"), ("scipy.integrate", "odeint", "integrate_ode"),
                            ("scipy.integrate", "solve_ivp", "integrate_ode"),
                            ("scipy.signal", "filtfilt", "signal"),
                            *(("scipy.optimize", _f, "optimize") for _f in (
                                "root", "root_scalar", "brentq", "bisect", "ridder", "brenth", "toms748",
                                "newton", "fixed_point", "minimize", "minimize_scalar", "least_squares"))):
    EXCLUDED[getattr(pytest.importorskip(_mod), _fname)] = _VIA_AD.format(_file)
# SciPy's interpolant objects: building one returns an object (no finite differences of it)
# and calling one differentiates in the object's data field: tested composed, build then call,
# against finite differences of the composite
_si = pytest.importorskip("scipy.interpolate")
for _f in (_si.CubicSpline, _si.make_interp_spline, _si.make_lsq_spline, _si.make_smoothing_spline, _si.interp1d,
           _si.RegularGridInterpolator):
    EXCLUDED[_f] = "builds an interpolant object: scipy/test_interpolate_objects.py (build then call)"
for _f in (_si.splev, _si.splint):
    EXCLUDED[_f] = ("takes FITPACK's (t, c, k) tuple, differentiable in c but not in the knots t: "
                    "scipy/test_interpolate.py::test_splev_splint")
# array-api-strict's getitem and astype: their rules are the array-API bodies, run through
# the kit with backend='array_api_strict' in their family tests
EXCLUDED[sys.modules["array_api_strict._array_object"].Array.__getitem__] = "the array-API getitem body on array-api-strict: array_api/test_order2.py"
EXCLUDED[xs.astype] = "the array-API astype body on array-api-strict: test_sweep_leftovers.py (rrule and frule on strict arrays)"
# Not swept yet: the function's __name__ -> the test file (under tests/rulesets/) that covers
# it.  Empty: the last ones have their cases in test_sweep_leftovers.py.
TODO_BY_NAME: dict[str, str] = {}
# array-api-strict's linalg functions: array_api/test_linalg_ext.py runs the kit with backend= on them
STRICT_LINALG = "array_api/test_linalg_ext.py (backend='array_api_strict', order 1 and 2)"


def _library(f):
    # a method descriptor (torch._C.TensorBase.__add__) has no __module__: its class has
    owner = getattr(f, "__objclass__", None) or type(getattr(f, "__self__", None))
    mod = getattr(f, "__module__", None) or getattr(owner, "__module__", "") or ""
    if mod == "chainrules.rulesets.elementwise.interop":
        return "torch"      # the stand-in for torch.ldexp (elementwise.STAND_INS)
    if mod == "chainrules.rulesets.scipy.special_libs":
        return "torch"      # the stand-ins for torch.special.polygamma/multigammaln (int orders)
    if mod == "chainrules.rulesets.scipy.stats.torch_distributions":
        return "torch"      # the scipy.stats formulas on torch that torch.distributions' methods run through
    return mod.split(".")[0].lstrip("_")


def _all_rules_nondifferentiable(f):
    frules, rrules = _core._rules_of(f)
    kinds = {r.kind for r in frules + rrules}
    return bool(kinds) and kinds <= {1, 2} and _core._scalar_row(f) is None


def registered():
    """(to sweep, excluded with reason): every function frule/rrule answers for."""
    todo, excluded = [], {}
    for f in _core._registered_functions():
        frules, rrules = _core._rules_of(f)
        if not (frules or rrules or _core._scalar_row(f) is not None) or _from_a_test(f):
            continue
        if _all_rules_nondifferentiable(f):
            excluded[_key(f)] = "non-differentiable or opt-out declaration: tests/rulesets/python/test_nondiff.py"
        elif _library(f) in EXCLUDED_LIBRARIES:
            excluded[_key(f)] = EXCLUDED_LIBRARIES[_library(f)]
        elif any(_key(f) == _key(g) for g in EXCLUDED if g is not None):
            excluded[_key(f)] = next(r for g, r in EXCLUDED.items() if g is not None and _key(f) == _key(g))
        else:
            todo.append(f)
    return todo, excluded


# ----- the sample cases -----------------------------------------------------------------------

class Sample:
    """One call of f: `make(dtype, rng)` gives its arguments for a dtype (None: the
    function does not take that dtype), `fkwargs`, tolerances; `strict` the
    array-api-strict function to run the NumPy sample through (backend=)."""

    def __init__(self, id, f, make, fkwargs=None, tol=None, strict=None):
        self.id, self.f, self.make, self.fkwargs, self.tol, self.strict = id, f, make, fkwargs, tol or {}, strict

    def run(self, dtype, order, backend=None):
        args = self.make(dtype, np.random.default_rng(22))
        if args is None:
            return False
        tol = dict(F32) if dtype == np.float32 else self.tol
        kw = dict(fkwargs=self.fkwargs, order=order, **tol)
        if backend is not None:
            kw.update(backend=backend, backend_f=self.strict)
        test_frule(self.f, *args, **kw)
        test_rrule(self.f, *args, **kw)
        return True


def _is_complex(a):
    a = a.primal if isinstance(a, PrimalAndTangent) else a
    if isinstance(a, (list, tuple)):
        return any(_is_complex(v) for v in a)
    return np.iscomplexobj(a) and not isinstance(a, str)


def _cast32(a):
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        return a.astype(np.float32)
    if type(a) is float:
        return np.float32(a)            # ufunc.outer makes a Python float a float64 array
    if isinstance(a, list) and all(isinstance(v, np.ndarray) for v in a):
        return [_cast32(v) for v in a]
    return a


def from_case(case):
    """A per-family test's Case: its own (float64 or complex) arguments, float32 by a cast."""
    complex_ = any(_is_complex(a) for a in case.args)
    if any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in case.args):
        return None                                 # the family's own float32 case

    def make(dtype, rng):
        if dtype == np.complex128:
            return case.args if complex_ else None
        if complex_:
            return None
        return tuple(_cast32(a) for a in case.args) if dtype == np.float32 else case.args
    return Sample(case.id, case.f, make, case.fkwargs, case.tol)


def _single_precision(a):
    return isinstance(a, (np.float32, np.complex64, np.float16))


def from_scalar_cases(f, argsets):
    """A Python scalar function's cases of its family test (tests/rulesets/python/):
    double precision only (its single-precision cases are the family's own)."""
    out = []
    for i, args in enumerate(argsets):
        args = args if isinstance(args, tuple) else (args,)
        if any(_single_precision(a) for a in args):
            continue
        base = from_case(Case(f"{_name(f)}-{i}", f, *args))
        out.append(Sample(base.id, f, lambda dtype, rng, make=base.make: None if dtype == np.float32
                          else make(dtype, rng)))
    return out


SCALAR_FAMILY_CASES = [
    (math.dist, test_math.DIST_ARGS), (math.fsum, test_math.FSUM_ARGS), (math.prod, test_math.PROD_ARGS),
    (math.modf, test_math.MODF_ARGS), (math.frexp, test_math.FREXP_ARGS),
    (cmath.polar, test_cmath.POLAR_ARGS), (cmath.phase, test_cmath.PHASE_ARGS), (cmath.rect, test_cmath.RECT_ARGS),
    (divmod, test_builtins.DIVMOD_ARGS), (float, test_builtins.FLOAT_ARGS), (complex, test_builtins.COMPLEX_ARGS)]

_SCALAR_MODULES = {math, cmath, operator}
# array-api-strict's functions that refuse real arrays (the standard: "complex floating-point")
_STRICT_COMPLEX_ONLY = {"imag"}


def _domain(name, arity, i):
    if name in ("acosh", "arccosh"):
        return 1.2, 1.8
    return (0.2, 0.8) if i == 0 else (1.2, 1.8)


def from_row(f, row, scalar, strict=None):
    """A function of the element-wise table: arguments in the row's smooth domain;
    Python numbers for the scalar modules' functions, arrays otherwise."""
    # math's functions and fabs are real only; complex's methods (complex.conjugate) and
    # array-api-strict's imag take complex only
    takes_complex = (row.holomorphic or row.complex_rule is not None) and _library(f) != "math" and \
        getattr(f, "__name__", "") != "fabs"
    complex_only = getattr(f, "__objclass__", None) is complex or \
        (strict is not None and getattr(strict, "__name__", "") in _STRICT_COMPLEX_ONLY)

    def make(dtype, rng):
        if dtype == np.complex128 and not takes_complex:
            return None
        if complex_only and dtype != np.complex128:
            return None
        if scalar and dtype == np.float32:
            return None
        args = []
        for i in range(row.arity):
            lo, hi = _domain(row.name, row.arity, i)
            if row.name == "ldexp" and i == 1:
                args.append(PrimalAndTangent(np.array([1, -2, 3]) if not scalar else 2, NT))
                continue
            shape = () if scalar else (3,)
            x = rng.uniform(lo, hi, shape)
            if dtype == np.complex128:
                x = x + 1j * rng.uniform(lo, hi, shape)
            args.append(complex(x) if scalar and dtype == np.complex128 else float(x) if scalar
                        else np.asarray(x, dtype=dtype))
        return tuple(args)
    return Sample(f"{_name(f)}", f, make, strict=strict)


def _reflected(f):
    name = getattr(f, "__name__", "")
    return name.startswith("__r") and name not in ("__rshift__", "__round__", "__repr__")


def _row_of(f):
    name = getattr(f, "__name__", "")
    name = name.strip("_").removeprefix("r") if name.startswith("__r") else name.strip("_")
    name = {"neg": "negative", "pos": "positive", "truediv": "divide", "mul": "multiply", "sub": "subtract",
            "mod": "remainder", "floordiv": "floor_divide", "fabs": "abs", "iadd": "add", "isub": "subtract",
            "imul": "multiply", "itruediv": "divide", "ipow": "pow", "imod": "remainder",
            "ifloordiv": "floor_divide"}.get(name, name)
    return TABLE.get(name) or row_for_numpy_name(name)


def samples():
    """{key: [Sample]} for every function with a sample case."""
    out = {}

    def add(s):
        if s is not None:
            out.setdefault(_key(s.f), []).append(s)
    for mod in (test_reductions_order2, test_shapes_order2, test_ufuncs_order2, test_linalg_order2):
        for c in mod.CASES:
            add(from_case(c))
    for id, f, args, kw in [(c[0], c[1], c[2], c[3]) for c in test_special.ORDER2]:
        add(from_case(Case(id, f, *args, fkwargs=kw or None)))
    for f, (lo, hi), _ in test_special.UNARY:
        add(from_case(Case(f.__name__, f, np.linspace(lo, hi, 5)[1:4])))
    for f in (sp.xlogy, sp.xlog1py):
        add(from_case(Case(f.__name__, f, np.array([0.3, 1.2]), np.array([0.7, 2.1]))))
    for f, argsets in SCALAR_FAMILY_CASES:
        for s in from_scalar_cases(f, argsets):
            add(s)
    for c in sweep_cases():
        add(from_case(c))
    for c in array_api_order2._strict_cases():
        base = from_case(c)
        if base is not None:
            add(Sample(c.id, c.f, base.make, c.fkwargs, c.tol, strict=c.backend_f))
        out.setdefault(_key(c.backend_f), [])       # the strict function: swept through its NumPy twin
    todo, _ = registered()
    for f in todo:
        if _key(f) in out:
            continue
        owner = getattr(f, "__self__", None)
        if isinstance(owner, np.ufunc) and f.__name__ == "outer":
            row = row_for_numpy_name(owner.__name__)
            if row is not None:
                add(from_row(f, row, False))
            continue
        row = _row_of(f)
        if row is None:
            continue
        scalar = _library(f) in ("math", "cmath", "operator", "builtins") and not isinstance(f, np.ufunc)
        if _library(f) == "array_api_strict":
            twin = getattr(np, row.numpy[0], None) if row.numpy else None
            if _reflected(f):
                twin = getattr(np.ndarray, f.__name__)      # __rsub__(x, y) is y - x
            if twin is not None:
                add(from_row(twin, row, False, strict=f))
                out.setdefault(_key(f), [])
            continue
        add(from_row(f, row, scalar))
    return out


def sweep_cases():
    """The Cases of every family test under tests/rulesets/ that lists them in a module
    constant SWEEP_CASES (a new rule family joins the sweep there, in its own file)."""
    import importlib
    import pathlib
    import re

    here = pathlib.Path(__file__).parent
    defines = re.compile(r"^SWEEP_CASES\s*=", re.MULTILINE)    # a definition, not a mention
    out = []
    for path in sorted(here.rglob("test_*.py")):
        if path.name == "test_registry_sweep.py" or not defines.search(path.read_text(encoding="utf-8")):
            continue
        name = ".".join(path.relative_to(here).with_suffix("").parts)
        out.extend(importlib.import_module(f"{__package__}.{name}").SWEEP_CASES)
    return out


# ----- the tests ------------------------------------------------------------------------------

def _listed(f):
    owner = getattr(f, "__self__", None)
    if getattr(f, "__name__", None) in TODO_BY_NAME or getattr(owner, "__name__", None) in TODO_BY_NAME:
        return True
    return _library(f) == "array_api_strict" and "_linalg" in (getattr(f, "__module__", "") or "")


def test_every_registered_function_has_a_sample_case():
    todo, excluded = registered()
    assert len(todo) + len(excluded) > 400, len(todo)      # the registry was read
    have = samples()
    missing = sorted({_name(f) for f in todo if _key(f) not in have and not _listed(f)})
    assert not missing, f"{len(missing)} registered functions without a sample case or an EXCLUDED entry: {missing}"


# Known failures: a sample id -> the precise cause (strict: a fix makes the test fail until it goes)
XFAIL: dict[str, str] = {}
# The hand-written rules of Python's scalar functions refuse chainrules.ad's tracked values
_DECLINE_TRACKED = ("rule: the hand-written rules of Python's scalar functions (rulesets/python/math.py, "
                    "cmath.py, builtins.py) decline values tracked by chainrules.ad (their number checks "
                    "_is_real/_numbers/isinstance), so they are not differentiable at order 2")
XFAIL.update({f"{s.id} [{np.dtype(dt).name}, order 2]": _DECLINE_TRACKED
              for f, argsets in SCALAR_FAMILY_CASES for s in from_scalar_cases(f, argsets)
              for dt in (np.float64, np.complex128) if s.make(dt, None) is not None})

# math.gamma and math.lgamma are rows of the C scalar table without a formula in the
# element-wise table (their derivatives need digamma, which `math` lacks): the rows decline
# chainrules.ad's tracked values, so their frule is not differentiated again
XFAIL.update({f"math.{n} [float64, order 2]": "rule: math.gamma/lgamma's C-table rows decline tracked values "
              "(their derivative, digamma, has no function of math): order 2 through scipy.special.gamma/gammaln"
              for n in ("gamma", "lgamma")})


def _sweep(dtype, order, backend=None):
    failures, ran = [], 0
    suffix = f", {backend}]" if backend else "]"
    tag = f"[{np.dtype(dtype).name}, order {order}{suffix}"
    passed_xfail = {k for k in XFAIL if k.endswith(tag)}
    for key, ss in samples().items():
        for s in ss:
            if (backend is None) != (s.strict is None):
                continue
            try:
                ran += s.run(dtype, order, backend)
            except Exception as e:  # noqa: BLE001 - every failure is collected and reported
                where = f"{s.id} [{np.dtype(dtype).name}, order {order}{', ' + backend if backend else ''}]"
                if where not in XFAIL:
                    failures.append(f"{where}: {type(e).__name__}: {str(e)[:400]}")
                passed_xfail.discard(where)
    assert ran > 20, ran
    # strict: a known failure that passes now must leave XFAIL
    assert not passed_xfail, f"XFAIL entries that pass now (remove them): {sorted(passed_xfail)}"
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)


@pytest.mark.parametrize("dtype,order", [(np.float64, 1), (np.float64, 2), (np.complex128, 1),
                                         (np.complex128, 2), (np.float32, 1)],
                         ids=["float64-1", "float64-2", "complex128-1", "complex128-2", "float32-1"])
def test_sweep(dtype, order):
    _sweep(dtype, order)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=["float64", "complex128"])
def test_sweep_array_api_strict(dtype):
    _sweep(dtype, 1, backend="array_api_strict")
