"""Source transformation of numba-compilable Python functions into their
derivatives (chainrules.numba.grad, value_and_grad, derivative, jvp,
hessian; issue 25).

f's source (inspect.getsource, ast) is lowered to three-address code: each
operation of the scalar table (an operator, a math/cmath/NumPy function, a
user's scalar_rule) becomes one statement `t = op(a, b)` of names and
constants, and the control flow (if/else, for over range, while, return
anywhere) stays as it is.  From that code two generators write Python that
numba compiles:

- forward mode carries a tangent `d_v` next to every active variable `v`;
  each operation calls the row's fused kernel (value and partials at once,
  chainrules.numba's `NAME_fd`) and combines the partials with the tangents;
- reverse mode writes a forward sweep that keeps what the adjoints need (the
  partials, the branch taken, the number of iterations) in locals, or in a
  numba list per statement when the statement is inside a loop, and then the
  adjoint statements in reverse order: `for` and `while` loops run their
  adjoint body as many times backwards, a `return` runs the adjoint of all
  that was executed before it.  One forward pass and one backward pass
  whatever the number of arguments.

Only active variables (those that depend on the differentiated arguments)
get tangents and adjoints: integer counters and data arrays cost nothing.
What cannot be differentiated raises at transform time, naming the line:
`NotDifferentiableError` (a TypeError: a call without a row) or
`UnsupportedSyntaxError` (a SyntaxError: a construct the transform does not
know).
"""

from __future__ import annotations

import ast
import builtins
import cmath
import inspect
import math
import operator
import textwrap
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules import _core
from chainrules import _numba_ad_helpers as _h
from chainrules._native_names import native_name


class NotDifferentiableError(TypeError):
    """A call in the differentiated function has no derivative in the scalar table."""


class UnsupportedSyntaxError(SyntaxError):
    """A construct that chainrules.numba does not differentiate."""


# ----- which row a Python function is ------------------------------------------

# functions that are not rows but have a meaning here
_SPECIAL: dict[Any, str] = {
    abs: "abs", operator.abs: "abs", np.abs: "abs",
    np.conj: "conj", np.conjugate: "conj", np.real: "real", np.imag: "imag",
    complex: "complex", float: "copy",
}
_NONDIFF = {len, int, bool, round, math.isnan, math.isinf, math.isfinite, np.isnan, np.isinf,
            np.isfinite, cmath.isnan, cmath.isinf, cmath.isfinite, np.sign, math.floor,
            math.ceil, math.trunc}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_ROW_BINOPS = {ast.Pow: operator.pow, ast.Mod: operator.mod, ast.FloorDiv: operator.floordiv}


def _libm_rows() -> dict[int, str]:
    """{id(function of chainrules._numba_libm): its row} (the kernels' own calls)."""
    from chainrules import _numba_libm as m
    names = {"tgamma": "gamma"}
    out = {}
    for k, v in vars(m).items():
        row = names.get(k, k)
        if not k.startswith("_") and callable(v) and row in _h.ROW_FUNCTIONS:
            out[id(v)] = row
    for k in ("isnan", "isfinite", "signbit"):
        out[id(getattr(m, k))] = ""
    return out


_LIBM = _libm_rows()


def _python_function(fn: Any) -> Any:
    """The Python function behind fn (a plain function or a numba dispatcher)
    when its source can be transformed, else None."""
    py = getattr(fn, "py_func", fn)
    if inspect.isfunction(py) and py.__name__ != "<lambda>":
        return py
    return None


def _user_rule(fn: Any) -> Any:
    """The _ScalarSpec of a user's scalar_rule on fn (its f, partials,
    wants_omega), or None."""
    try:
        frules, _ = _core._rules_of(fn)
    except TypeError:
        return None
    for rule in frules:
        spec = getattr(getattr(rule, "fn", None), "spec", None)
        if spec is not None and hasattr(spec, "partials"):
            return spec
    return None


# ----- the lowered code ----------------------------------------------------------

@dataclass
class Op:
    """`target = kind(args)`; args are ast.Name or ast.Constant, `extra` the
    kind's data (the operator, the row, the primal expression, the index)."""
    target: str
    kind: str
    args: list[Any]
    extra: Any = None
    line: int = 0


@dataclass
class If:
    test: ast.expr
    body: list[Any]
    orelse: list[Any]


@dataclass
class Loop:
    """`for var in range(*bounds)` (var set) or `while test` (var None)."""
    var: str | None
    bounds: list[ast.expr] | None
    test: ast.expr | None
    body: list[Any]


@dataclass
class Return:
    value: Any
    line: int = 0


@dataclass
class Lowering:
    f: Any
    filename: str
    first_line: int
    namespace: dict[str, Any]
    args: list[str]
    local: set[str] = field(default_factory=set)
    ntemp: int = 0
    users: dict[str, tuple[Any, Any, bool]] = field(default_factory=dict)
    calls: dict[str, tuple[Any, int]] = field(default_factory=dict)

    def error(self, node: Any, what: str, cls: type[Exception] = UnsupportedSyntaxError) -> Exception:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        name = getattr(self.f, "__qualname__", "f")
        msg = f"chainrules.numba cannot differentiate {name} (line {line}): {what}"
        if cls is UnsupportedSyntaxError:
            return UnsupportedSyntaxError(msg, (self.filename, line, getattr(node, "col_offset", 0) + 1,
                                                None))
        return cls(msg)

    def temp(self) -> str:
        self.ntemp += 1
        return f"t{self.ntemp}"

    # -- expressions: emit Ops into `out`, return an atom ----------------------

    def primal(self, node: ast.expr) -> ast.expr:
        """A non-differentiated expression, its local names renamed."""
        out: ast.expr = _Rename(self.local).visit(ast.parse(ast.unparse(node), mode="eval").body)
        return out

    def resolve(self, node: ast.expr) -> Any:
        """The object a global name or attribute chain names at transform time."""
        if isinstance(node, ast.Name) and node.id not in self.local:
            if node.id in self.namespace:
                return self.namespace[node.id]
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            raise self.error(node, f"unknown name {node.id!r}", NotDifferentiableError)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is not _LOCAL and hasattr(base, node.attr):
                return getattr(base, node.attr)
        return _LOCAL

    def expr(self, node: ast.expr, out: list[Any]) -> Any:
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, complex, bool)):
                raise self.error(node, f"constant {node.value!r} is not a number")
            return node
        if isinstance(node, ast.Name):
            if node.id in self.local:
                return ast.Name(id="v_" + node.id)
            return self._emit(out, "nondiff", [], node, self.primal(node))
        if isinstance(node, ast.BinOp):
            a, b = self.expr(node.left, out), self.expr(node.right, out)
            op = type(node.op)
            if op in _BINOPS:
                return self._emit(out, "bin", [a, b], node, _BINOPS[op])
            if op is ast.Pow and isinstance(b, ast.Constant) and type(b.value) is int:
                return self._emit(out, "powi", [a], node, b.value)
            if op in _ROW_BINOPS:
                return self._row(_ROW_BINOPS[op], [a, b], node, out)
            raise self.error(node, f"the operator {type(node.op).__name__}", NotDifferentiableError)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return self._emit(out, "neg", [self.expr(node.operand, out)], node)
            if isinstance(node.op, ast.UAdd):
                return self._emit(out, "copy", [self.expr(node.operand, out)], node)
            return self._emit(out, "nondiff", [], node, self.primal(node))
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return self._emit(out, "nondiff", [], node, self.primal(node))
        if isinstance(node, ast.IfExp):
            t = self.temp()
            self.local.add(t)
            body: list[Any] = []
            orelse: list[Any] = []
            self._assign(t, self.expr(node.body, body), body, node)
            self._assign(t, self.expr(node.orelse, orelse), orelse, node)
            out.append(If(self.primal(node.test), body, orelse))
            return ast.Name(id="v_" + t)
        if isinstance(node, ast.Subscript):
            if not (isinstance(node.value, ast.Name) and node.value.id in self.local):
                raise self.error(node, "indexing something other than a local array or tuple")
            if isinstance(node.slice, ast.Slice):
                raise self.error(node, "slicing (index element-wise)")
            return self._emit(out, "index", [ast.Name(id="v_" + node.value.id)], node,
                              self.primal(node.slice))
        if isinstance(node, ast.Attribute):
            if node.attr in ("real", "imag") and self.resolve(node.value) is _LOCAL:
                return self._emit(out, node.attr, [self.expr(node.value, out)], node)
            if node.attr in ("size", "shape", "ndim", "dtype") or self.resolve(node) is not _LOCAL:
                return self._emit(out, "nondiff", [], node, self.primal(node))
            raise self.error(node, f"the attribute .{node.attr}")
        if isinstance(node, ast.Call):
            return self.call(node, out)
        raise self.error(node, f"the expression {type(node).__name__} ({ast.unparse(node)})")

    def call(self, node: ast.Call, out: list[Any]) -> Any:
        if node.keywords:
            raise self.error(node, "keyword arguments in a call")
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("conjugate",) and not node.args \
                and self.resolve(func.value) is _LOCAL:
            return self._emit(out, "conj", [self.expr(func.value, out)], node)
        fn = self.resolve(func)
        if fn is _LOCAL:
            raise self.error(node, f"the call {ast.unparse(node)}", NotDifferentiableError)
        if any(fn is g for g in _NONDIFF) or _LIBM.get(id(fn)) == "":
            return self._emit(out, "nondiff", [], node, self.primal(node))
        if _LIBM.get(id(fn)):
            args = [self.expr(a, out) for a in node.args]
            return self._emit(out, "row", args, node, _LIBM[id(fn)])
        special = next((k for g, k in _SPECIAL.items() if g is fn), None)
        if special:
            args = [self.expr(a, out) for a in node.args]
            want = 2 if special == "complex" else 1
            if len(args) != want:
                raise self.error(node, f"{ast.unparse(func)} with {len(args)} arguments")
            return self._emit(out, special, args, node)
        args = [self.expr(a, out) for a in node.args]
        return self._row(fn, args, node, out)

    def _row(self, fn: Any, args: list[Any], node: Any, out: list[Any]) -> Any:
        n = len(args)
        row = _core._scalar_rows().get(fn) if _hashable(fn) else None
        if row is not None and n in row.arities:
            name = native_name(row.name, n)
            if name in _h.ROW_FUNCTIONS:
                return self._emit(out, "row", args, node, name)
        spec = _user_rule(fn) if _hashable(fn) else None
        if spec is not None:
            return self._emit(out, "user", args, node, self._user(fn, spec, node))
        py = _python_function(fn)
        if py is not None and row is None:
            key = f"j{len(self.calls)}"
            self.calls[key] = (py, getattr(node, "lineno", 1))
            return self._emit(out, "call", args, node, key)
        what = getattr(fn, "__qualname__", repr(fn))
        where = f"{getattr(fn, '__module__', None) or ''}.{what}".lstrip(".")
        raise self.error(node, f"{where} of {n} argument{'s' * (n != 1)} has no derivative "
                         "in chainrules' scalar table (no row, no scalar_rule)", NotDifferentiableError)

    def _user(self, fn: Any, spec: Any, node: Any) -> str:
        """The namespace names of a user's scalar_rule: f and partials, jitted."""
        import numba
        key = f"u{len(self.users)}"
        try:
            self.users[key] = (numba.njit(fn), numba.njit(spec.partials), bool(spec.wants_omega))
        except Exception as e:  # pragma: no cover - numba's own error
            raise self.error(node, f"scalar_rule of {spec.name}: {e}", NotDifferentiableError) from e
        return key

    def _emit(self, out: list[Any], kind: str, args: list[Any], node: Any, extra: Any = None) -> Any:
        t = self.temp()
        self.local.add(t)
        out.append(Op("v_" + t, kind, args, extra, self.first_line + getattr(node, "lineno", 1) - 1))
        return ast.Name(id="v_" + t)

    def _assign(self, name: str, atom: Any, out: list[Any], node: Any) -> None:
        out.append(Op("v_" + name, "copy", [atom], None, self.first_line + node.lineno - 1))

    # -- statements ----------------------------------------------------------

    def block(self, stmts: list[ast.stmt]) -> list[Any]:
        out: list[Any] = []
        for s in stmts:
            self.stmt(s, out)
        return out

    def stmt(self, s: ast.stmt, out: list[Any]) -> None:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            return                                                  # a docstring
        if isinstance(s, ast.Pass):
            return
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if len(targets) != 1 or s.value is None:
                raise self.error(s, "chained assignment")
            self.assign(targets[0], s.value, out, s)
            return
        if isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                raise self.error(s, "augmented assignment to something other than a name "
                                 "(writing into arrays is not differentiated)")
            self.assign(s.target, ast.BinOp(ast.Name(id=s.target.id), s.op, s.value,
                                            lineno=s.lineno, col_offset=s.col_offset), out, s)
            return
        if isinstance(s, ast.If):
            test = self.primal(s.test)
            out.append(If(test, self.block(s.body), self.block(s.orelse)))
            return
        if isinstance(s, ast.For):
            it = s.iter
            if not (isinstance(s.target, ast.Name) and isinstance(it, ast.Call)
                    and self.resolve(it.func) is range and 1 <= len(it.args) <= 3 and not s.orelse):
                raise self.error(s, "a for loop other than `for i in range(...)` without else")
            bounds = [self.primal(a) for a in it.args]
            assert isinstance(s.target, ast.Name)
            out.append(Loop("v_" + s.target.id, bounds, None, self.block(s.body)))
            return
        if isinstance(s, ast.While):
            if s.orelse:
                raise self.error(s, "while ... else")
            out.append(Loop(None, None, self.primal(s.test), self.block(s.body)))
            return
        if isinstance(s, ast.Return):
            if s.value is None:
                raise self.error(s, "return without a value")
            if isinstance(s.value, ast.Tuple):
                value: Any = [self.expr(e, out) for e in s.value.elts]
            else:
                value = self.expr(s.value, out)
            out.append(Return(value, self.first_line + s.lineno - 1))
            return
        raise self.error(s, f"the statement {type(s).__name__}"
                         + (" (use a flag or return)" if isinstance(s, (ast.Break, ast.Continue)) else ""))

    def assign(self, target: ast.expr, value: ast.expr, out: list[Any], s: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            atom = self.expr(value, out)
            self._assign(target.id, atom, out, s)
            return
        if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            names = [e.id for e in target.elts if isinstance(e, ast.Name)]
            if isinstance(value, ast.Tuple):
                if len(value.elts) != len(names):
                    raise self.error(s, "unpacking of a different number of values")
                atoms = [self.expr(v, out) for v in value.elts]
            else:
                whole = self.expr(value, out)
                atoms = [self._emit(out, "index", [whole], s, ast.Constant(i))
                         for i in range(len(names))]
            for name, atom in zip(names, atoms):
                self._assign(name, atom, out, s)
            return
        raise self.error(s, f"assignment to {ast.unparse(target)} (writing into arrays "
                         "is not differentiated)")


class _Local:
    pass


_LOCAL = _Local()


def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


class _Rename(ast.NodeTransformer):
    def __init__(self, local: set[str]) -> None:
        self.local = local

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.local:
            return ast.Name(id="v_" + node.id, ctx=node.ctx)
        return node


def lower(f: Any) -> tuple[Lowering, list[Any]]:
    """f's lowered code, with the lowering (names, namespace)."""
    fn = inspect.unwrap(getattr(f, "py_func", f))
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        filename = inspect.getsourcefile(fn) or "<unknown>"
        first = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError) as e:
        raise TypeError(f"chainrules.numba needs the source of {fn!r} (a plain Python "
                        f"function defined in a file): {e}") from None
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise TypeError(f"chainrules.numba differentiates functions defined with def, not {fn!r}")
    ns = dict(fn.__globals__)
    if fn.__closure__:
        ns.update({k: c.cell_contents for k, c in zip(fn.__code__.co_freevars, fn.__closure__)})
    a = fdef.args
    args = [x.arg for x in a.args]
    low = Lowering(fn, filename, first, ns, args)
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
        raise low.error(fdef, "variadic, keyword-only or default arguments")
    low.local = set(args)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            low.local.add(node.id)
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)) and node is not fdef:
            raise low.error(node, "a nested function or class")
    code = low.block(fdef.body)
    if not _always_returns(code):
        raise low.error(fdef, "a path through the function ends without a return")
    return low, code


def _always_returns(code: list[Any]) -> bool:
    if not code:
        return False
    last = code[-1]
    if isinstance(last, Return):
        return True
    if isinstance(last, If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def walk(code: list[Any]) -> Any:
    for s in code:
        yield s
        if isinstance(s, If):
            yield from walk(s.body)
            yield from walk(s.orelse)
        elif isinstance(s, Loop):
            yield from walk(s.body)


def activity(code: list[Any], active_args: set[str]) -> set[str]:
    """The names that depend on the active arguments (a fixpoint over every
    assignment, whatever the control flow)."""
    active = set(active_args)
    ops = [s for s in walk(code) if isinstance(s, Op)]
    changed = True
    while changed:
        changed = False
        for op in ops:
            if op.target not in active and op.kind != "nondiff" and any(
                    isinstance(a, ast.Name) and a.id in active for a in op.args):
                active.add(op.target)
                changed = True
    return active
