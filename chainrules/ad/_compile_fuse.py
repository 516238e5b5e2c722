"""The lowering pass of chainrules.ad.compile: a recorded reverse-mode program
of array operations rewritten into one straight-line Python function of
NumPy calls, close to what one writes by hand -- the forward values, then the
cotangents, each a NumPy expression fixed at the recording (the rule each
step's pullback came from, the axes an unbroadcast sums, whether a projection
is needed), with no dispatch, no thunks, no adjoint bookkeeping at replay.

Each expression is the one the step's rule computes (`_core/array_rules.pxi`
and `rulesets/numpy`): the same NumPy calls on the same operands, so the same
bits as `ad.gradient`:

- a unary ufunc (`_UnaryPullback`): ``x̄ = f'(x, Ω) * ȳ`` by the rule's own
  derivative (``1 - Ω * Ω`` for tanh), conjugated for complex x;
- add, subtract, multiply, divide of two arrays (`_BinaryPullback`): ``ȳ``,
  ``-ȳ``, ``y * ȳ``, ..., an unbroadcast as ``np.add.reduce`` over the axes
  fixed at the recording (the bias of ``X @ W + b``: ``ȳ`` summed over axis 0);
- matmul of two matrices: ``ȳ @ b.mT`` and ``a.mT @ ȳ`` (``.conj()`` for
  complex);
- ``x ** p`` for a constant p: ``p * (Ω / x) * ȳ`` as the power rule computes
  it (its own function where x has zeros);
- np.sum / np.mean of a float array: the replay's C reduction and its
  broadcast cotangent;
- tanh's pullback and the power's as one C loop on float64 arrays
  (`_core/ad_replay.pxi`: the same operations in the same order);
- any other rule on NumPy scalars (``mse + lam * np.sum(W * W)``): its rrule
  called, its pullback's cotangents added as the engine adds them;
- guards and operations on constants as the generic replay does them.

A program with any other step is left to the generic replay (`_Replay`,
`_core/ad_replay.pxi`).  The lowered function checks, before anything, that
the rule tables of its operations are those of the recording (a rule
registered later: the generic replay, which dispatches), and the shapes of the
arrays it holds by reference; it returns the miss sentinel where the replay
would miss (the caller then runs the generic replay).  At the recording the
lowered function is run once next to the generic replay and kept only if both
give the same bits.
"""

from typing import Any, Callable, Sequence

import numpy as np

from chainrules._core import (
    AbstractZero,
    _compile_miss,
    _compile_project,
    _compile_pullback_info,
    _compile_reduce_pullback,
    _compile_reduce_value,
    _compile_reduction,
    _compile_rule_table,
    _fuse_power_pullback,
    _fuse_tanh_pullback,
    _Traced,
    rrule,
    unthunk,
)
from chainrules.ad._compile_record import GUARD, PLAIN
from chainrules.ad.config import REVERSE
from chainrules.ad.forward import ZERO
from chainrules.rulesets.numpy.ufuncs import UNARY_DERIVS
from chainrules.rulesets.numpy.ufuncs_binary import _power_dx, _times

__all__ = ["lower"]

_MISS = _compile_miss()
_TANH_DERIV = UNARY_DERIVS[np.tanh]        # tanh's f'(x, Ω) = 1 - Ω * Ω, which _k_tanh computes
_B_ADD, _B_SUB, _B_MUL, _B_DIV = 0, 1, 2, 3
_D_OF_X, _D_OMEGA = 1, 2


_Named = tuple[str, Any]                            # a line's name and its value at the recording
_Pullback = Callable[[str, Any], dict[int, _Named]]  # a pullback's lowering


class _NoFusion(Exception):
    """The program has a step the lowering does not take."""


def _layout(v: Any) -> tuple[Any, ...]:
    return (type(v), v.dtype, v.shape) if type(v) is np.ndarray else (type(v),)


def _same(a: Any, b: Any) -> bool:
    """The same value to the bit (types, dtypes, shapes; NaNs equal)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if type(a) is np.ndarray:
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, AbstractZero):
        return True
    try:
        return bool(a == b) or bool(a != a and b != b)
    except (TypeError, ValueError):
        return False


def _guard_same(r: Any, e: Any) -> bool:
    """A guard's value now is the recorded one (as the generic replay checks it)."""
    if type(r) is not type(e):
        return False
    if type(r) is np.ndarray:
        return r.dtype == e.dtype and r.shape == e.shape and bool(np.array_equal(r, e))
    try:
        return bool(r == e) or (r != r and e != e)
    except Exception:
        return False


def _fits(v: Any, layout: tuple[Any, ...]) -> bool:
    return type(v) is layout[0] and (len(layout) == 1 or (v.dtype == layout[1] and v.shape == layout[2]))


# matmul's pullbacks (the common call of two ndarrays, and every other)
_MATMUL_PULLBACKS = ("_matmul_rrule_arrays.<locals>.matmul_pullback", "matmul_rrule.<locals>.matmul_pullback")


def _pullback_kind(pb: Any) -> tuple[Any, ...] | None:
    """The rule a recorded pullback comes from, for the steps lowered here."""
    info = _compile_pullback_info(pb)
    if info is not None:
        return info
    code = getattr(pb, "__code__", None)
    if code is None:
        return None
    qual = code.co_qualname
    if qual in _MATMUL_PULLBACKS and \
            pb.__module__ == "chainrules.rulesets.numpy.linalg.products":
        return ("matmul",)
    if pb.__module__ != "chainrules.rulesets.numpy.ufuncs_binary":
        return None
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in pb.__closure__)))
    uf = getattr(np, cells.get("name", ""), None)
    if type(uf) is not np.ufunc:
        return None
    if code.co_freevars == ("dx", "dy", "name", "px", "py", "x", "y", "Ω"):         # _binary's pullback
        return ("pybinary", uf, cells["dx"], cells["dy"], cells["x"], cells["y"])
    if code.co_freevars == ("name", "px", "py", "same_x", "same_y", "sign", "x", "y", "Ω"):   # _addsub's
        return ("pyaddsub", uf, cells["sign"], cells["x"], cells["y"])
    return None


class _Gen:
    """The lowered function's source, and each line run as it is written on
    the recording's values (so every later line knows the types, dtypes and
    shapes it meets)."""

    def __init__(self, rec: Any, nin: int) -> None:
        self.ns = {"MISS": _MISS, "_add_reduce": np.add.reduce, "_project": _compile_project,
                   "_conj": np.conj, "_count_nonzero": np.count_nonzero, "_guard_same": _guard_same,
                   "_fits": _fits, "_reduce": _compile_reduce_value, "_reduce_pb": _compile_reduce_pullback,
                   "seed": 1.0, "ZERO": ZERO, "_times": _times,
                   "_rrule": rrule, "REVERSE": REVERSE, "_unthunk": unthunk,
                   "_k_tanh": _fuse_tanh_pullback, "_k_power": _fuse_power_pullback}
        self.names: dict[int, str] = {}
        self.env = {f"v{i}": rec.primals[i] for i in range(nin)}
        self.nin = nin
        self.checks: list[str] = []
        self.lines: list[str] = []
        self.n = 0

    def const(self, obj: Any, held: bool = True) -> str:
        """A name for obj; an array the program holds by reference (held) has
        its shape and dtype checked on each call."""
        key = id(obj)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"c{len(self.names)}"
            self.ns[name] = obj
            if type(obj) is np.ndarray and held:
                self.checks.append(f"{name}.shape != {obj.shape!r} or {name}.dtype != {name}_dtype")
                self.ns[f"{name}_dtype"] = obj.dtype
        return name

    def run(self, name: str, expr: str) -> Any:
        """`name = expr`, evaluated now on the recording's values."""
        self.lines.append(f"{name} = {expr}")
        value = self.env[name] = eval(expr, self.ns, self.env)
        return value

    def temp(self, expr: str) -> _Named:
        self.n += 1
        name = f"t{self.n}"
        return name, self.run(name, expr)


def lower(rec: Any, nin: int, out: int, grad_refs: Sequence[int], generic: Any) -> Callable[..., Any] | None:
    """The program of the recording `rec` as a lowered function
    `fused(inputs, tangents=None) -> (Ω, cotangents) or the miss sentinel`,
    or None when a step is not one lowered here or the lowered function does
    not give the generic replay's bits at the recording's values."""
    if rec.mode != "reverse" or out < nin:
        return None
    try:
        fused = _lower(rec, nin, out, grad_refs)
    except (_NoFusion, ValueError, TypeError, AttributeError, FloatingPointError):
        return None
    inputs = tuple(rec.primals[:nin])
    want = generic.run(inputs, None)
    got = fused(inputs)
    if want is _MISS or got is _MISS:
        return None
    want = (want[0], tuple(unthunk(g) for g in want[1]))
    return fused if _same(got, want) else None


def _lower(rec: Any, nin: int, out: int, grad_refs: Sequence[int]) -> Callable[..., Any]:
    gen = _Gen(rec, nin)
    tables = []
    backward = []          # (step's out ref, its traced args, the lowering of its pullback)
    for kind, f, args, kwargs, ref, value, row in rec.steps:
        names = [f"v{a.ref}" if type(a) is _Traced else gen.const(a) for a in args]
        kw = "".join(f", {k}={gen.const(v)}" for k, v in (kwargs or {}).items())
        if kind == GUARD:
            gen.lines.append(f"if not _guard_same({gen.const(f)}({', '.join(names)}{kw}), {gen.const(value)}): "
                             f"return MISS")
            continue
        if kind == PLAIN:
            gen.run(f"v{ref}", f"{gen.const(f)}({', '.join(names)}{kw})")
            gen.lines.append(f"if not _fits(v{ref}, {gen.const(_layout(value))}): return MISS")
            continue
        if row is not None or kwargs or any(type(a) is _Traced and a.ref == out for a in args):
            raise _NoFusion
        tab = _compile_rule_table(f)
        if tab is None or tab.instances:
            raise _NoFusion
        tables.append(tab)
        prims = [gen.env[n] if type(a) is _Traced else a for a, n in zip(args, names)]
        step = _lower_step(gen, f, rec.pullbacks.get(ref), args, names, prims, ref)
        if _layout(gen.env[f"v{ref}"]) != _layout(value):
            raise _NoFusion
        backward.append((ref, args, step))
    # the cotangents, swept backwards as the engine's adjoints
    cot = {out: ("seed", 1.0)}
    for ref, args, step in reversed(backward):
        if ref not in cot:
            continue                    # a zero cotangent: the engine skips the step
        parts = step(*cot[ref])
        for i, a in enumerate(args):
            if _live(a):
                name, value = parts[i]
                want = rec.primals[a.ref]
                # arrays and NumPy scalars, added as the engine adds them (not its
                # float slots: Python floats there start from 0.0)
                if _layout(value) != _layout(want) or not isinstance(
                        value, (np.ndarray, np.floating, np.complexfloating)):
                    raise _NoFusion
                if a.ref in cot:
                    name, value = gen.temp(f"{cot[a.ref][0]} + {name}")
                cot[a.ref] = (name, value)
    for tab in {id(t): t for t in tables}.values():
        gen.checks.append(f"{gen.const(tab)}.rrules is not {gen.const(tab.rrules)}")
    grads = ", ".join(cot[r][0] if r in cot else "ZERO" for r in grad_refs)
    unpack = "".join(f"v{i}, " for i in range(nin))
    src = ["def fused(inputs, tangents=None):"]
    if gen.checks:
        src.append(f"    if {' or '.join(gen.checks)}: return MISS")
    src.append("    try:")
    src.append(f"        {unpack}= inputs")
    src += [f"        {line}" for line in gen.lines]
    src.append("    except Exception:")
    src.append("        return MISS")
    src.append(f"    return v{out}, ({grads},)")
    code = "\n".join(src)
    exec(compile(code, "<chainrules.ad.compile lowered program>", "exec"), gen.ns)
    fused: Callable[..., Any] = gen.ns["fused"]
    setattr(fused, "source", code)
    return fused


def _lower_step(gen: _Gen, f: Any, pb: Any, args: Sequence[Any], names: list[str], prims: list[Any],
                ref: int) -> _Pullback:
    """Emit the step's forward line; return its pullback's lowering:
    (ȳ's name, ȳ) -> {argument position: (name, value) of its cotangent}."""
    kind = _pullback_kind(pb)
    if kind is None:
        if len(args) == 1 and _compile_reduction(f, prims[0]):
            return _reduction(gen, _compile_reduction(f, prims[0]), names[0], ref)
        return _generic(gen, f, args, names, ref)
    out = f"v{ref}"
    if kind[0] == "unary":
        _, uf, deriv, mode, conj = kind
        x = names[0]
        gen.run(out, f"{gen.const(uf)}({x})")
        d = out if mode == _D_OMEGA else f"{gen.const(deriv)}({x})" if mode == _D_OF_X else \
            f"{gen.const(deriv)}({x}, {out})"

        def unary(ȳ: str, ȳv: Any) -> dict[int, _Named]:
            _needs_array(ȳv, gen.env[out])
            if deriv is _TANH_DERIV and mode == 0 and not conj:       # one C loop on float64
                return {0: _fit(gen, f"_k_tanh({gen.const(deriv)}, {x}, {out}, {ȳ})", x, prims[0])}
            return {0: _fit(gen, f"({'_conj(' + d + ')' if conj else d}) * {ȳ}", x, prims[0])}
        return unary
    if kind[0] == "binary":
        _, bf, op, cplx = kind
        x, y = names
        gen.run(out, f"{gen.const(bf)}({x}, {y})")

        def conj(e: str) -> str:
            return f"_conj({e})" if cplx else e

        def binary(ȳ: str, ȳv: Any) -> dict[int, _Named]:
            _needs_array(ȳv, gen.env[out])
            if op == _B_ADD:
                parts = (ȳ, ȳ)
            elif op == _B_SUB:
                parts = (ȳ, f"(-{ȳ})")
            elif op == _B_MUL:
                parts = (f"{conj(y)} * {ȳ}", f"{conj(x)} * {ȳ}")
            else:
                parts = (f"{ȳ} / {conj(y)}", f"(-({conj(f'({out} / {y})')} * {ȳ}))")
            return {i: _fit(gen, parts[i], names[i], prims[i]) for i in (0, 1) if _live(args[i])}
        return binary
    if kind[0] == "matmul":
        a, b = names
        if any(type(p) is not np.ndarray or p.ndim != 2 for p in prims):
            raise _NoFusion
        gen.run(out, f"{a} @ {b}")

        def H(name: str, p: Any) -> str:
            return f"{name}.mT.conj()" if p.dtype.kind == "c" else f"{name}.mT"

        def matmul(ȳ: str, ȳv: Any) -> dict[int, _Named]:
            _needs_array(ȳv, gen.env[out])
            res = {}
            if _live(args[0]):
                res[0] = _fit(gen, f"{ȳ} @ {H(b, prims[1])}", a, prims[0])
            if _live(args[1]):
                res[1] = _fit(gen, f"{H(a, prims[0])} @ {ȳ}", b, prims[1])
            return res
        return matmul
    # the Python rules of the binary ufuncs (an array and a number, say)
    uf = kind[1]
    if type(prims[0]) is not np.ndarray and type(prims[1]) is not np.ndarray:
        raise _NoFusion
    gen.run(out, f"{gen.const(uf)}({names[0]}, {names[1]})")
    Ω = gen.env[out]
    if type(Ω) is not np.ndarray:
        raise _NoFusion
    if kind[0] == "pyaddsub":
        sign = kind[2]

        def addsub(ȳ: str, ȳv: Any) -> dict[int, _Named]:
            _needs_array(ȳv, Ω)
            parts = (ȳ, ȳ if sign > 0 else f"(-{ȳ})")
            return {i: _fit(gen, parts[i], names[i], prims[i]) for i in (0, 1) if _live(args[i])}
        return addsub
    _, _, dx, dy, xc, yc = kind
    # the partials' arguments: the values now, the rule's own form of a constant
    xs = [names[i] if type(args[i]) is _Traced else gen.const((xc, yc)[i]) for i in (0, 1)]
    cplx = Ω.dtype.kind == "c"
    partial: list[str | None] = []
    for i, d in enumerate((dx, dy)):
        if d is None:
            partial.append(None)
        elif d is _power_dx and type(args[1]) is not _Traced and type(prims[0]) is np.ndarray:
            x, p = xs
            if not cplx and (type(yc) is float or (type(yc) is int and abs(yc) < 2 ** 53)):
                partial.append(f"_k_power({gen.const(d)}, {float(yc)!r}, {p}, {x}, {out}, ")   # one C loop
                continue
            partial.append(f"({p} * ({out} / {x}) if _count_nonzero({x}) == {prims[0].size} "
                           f"else {gen.const(d)}({x}, {p}, {out}))")
        else:
            partial.append(f"{gen.const(d)}({xs[0]}, {xs[1]}, {out})")

    def pybinary(ȳ: str, ȳv: Any) -> dict[int, _Named]:
        _needs_array(ȳv, Ω)
        res = {}
        for i in (0, 1):
            if _live(args[i]):
                d = partial[i]
                if d is None:
                    raise _NoFusion
                expr = f"{d}{ȳ})" if d.startswith("_k_power(") else \
                    f"_times({'_conj(' + d + ')' if cplx else d}, {ȳ})"
                res[i] = _fit(gen, expr, names[i], prims[i])
        return res
    return pybinary


def _reduction(gen: _Gen, lower: int, x: str, ref: int) -> _Pullback:
    gen.run(f"v{ref}", f"_reduce({lower}, {x})")

    def reduction(ȳ: str, ȳv: Any) -> dict[int, _Named]:
        if ȳ == "seed" and int(x[1:]) >= gen.nin:
            # the output's: a read-only broadcast of 1/n in x's dtype, the same on every
            # call, made once (not for an input, whose gradient the caller gets)
            value = _compile_reduce_pullback(lower, gen.env[x], ȳv)
            if value is None:
                raise _NoFusion
            name = gen.const(value, held=False)
            gen.env[name] = value
            return {0: (name, value)}
        name, value = gen.temp(f"_reduce_pb({lower}, {x}, {ȳ})")
        if value is None:
            raise _NoFusion
        return {0: (name, value)}
    return reduction


def _generic(gen: _Gen, f: Any, args: Sequence[Any], names: list[str], ref: int) -> _Pullback:
    """Any other rule on NumPy scalars (the sum of two reductions, say): its
    rrule called, its pullback's cotangents taken as the engine takes them."""
    out = f"v{ref}"
    gen.run(f"r{ref}", f"_rrule(REVERSE, {gen.const(f)}, {', '.join(names)})")
    gen.run(out, f"r{ref}[0]")
    gen.run(f"pb{ref}", f"r{ref}[1]")
    Ω = gen.env[out]
    if not isinstance(Ω, (np.floating, np.complexfloating)):
        raise _NoFusion                 # arrays go through the lowerings above
    gen.lines.append(f"if not _fits({out}, {gen.const(_layout(Ω))}): return MISS")

    def generic(ȳ: str, ȳv: Any) -> dict[int, _Named]:
        name, parts = gen.temp(f"pb{ref}({ȳ})")
        if type(parts) is not tuple or len(parts) != len(args) + 1:
            raise _NoFusion
        return {i: gen.temp(f"_unthunk({name}[{i + 1}])") for i, a in enumerate(args) if _live(a)}
    return generic


def _live(a: Any) -> bool:
    return type(a) is _Traced and a.active


def _needs_array(ȳ: Any, Ω: Any) -> None:
    """The pullbacks lowered here take a cotangent of the output's layout."""
    if type(ȳ) is not np.ndarray or ȳ.shape != Ω.shape:
        raise _NoFusion


def _fit(gen: _Gen, expr: str, x: str, xv: Any) -> _Named:
    """The cotangent `expr` of the argument x made x's, as the rules do it:
    summed over the axes broadcasting added (fixed now), projected to x's
    dtype only where it is not x's already."""
    if expr in gen.env:
        name, value = expr, gen.env[expr]       # a name already: no copy of the reference
    else:
        name, value = gen.temp(expr)
    if type(value) is not np.ndarray:
        raise _NoFusion
    if type(xv) is not np.ndarray:
        raise _NoFusion
    if value.shape != xv.shape:
        shape, dshape = xv.shape, value.shape
        extra = len(dshape) - len(shape)
        if extra < 0:
            raise _NoFusion
        if extra:
            name, value = gen.temp(f"_add_reduce({name}, axis={tuple(range(extra))!r})")
            dshape = dshape[extra:]
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and dshape[i] != 1)
        if axes:
            name, value = gen.temp(f"_add_reduce({name}, axis={axes!r}, keepdims=True)")
    if _layout(value) != _layout(xv):
        name, value = gen.temp(f"_project({x}, {name})")
    return name, value
