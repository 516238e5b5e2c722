"""The forward-mode code generator of chainrules._numba_ad (tangents next to
values), and what the generators share; reverse mode is in
_numba_ad_reverse.py, second order in _numba_ad_second.py.  They write
Python source that numba compiles; chainrules/_numba_ad.py has the lowered
code they read."""

from __future__ import annotations

import ast
from typing import Any

from chainrules._numba_ad import If, Loop, Lowering, Op, Return, activity, walk

_PAD = "    "


def _s(atom: Any) -> str:
    return ast.unparse(atom)


def _indent(lines: list[str], n: int = 1) -> list[str]:
    return [_PAD * n + line for line in lines]


def _tail(name: str) -> str:
    return name[2:]


class _Gen:
    def where(self, op: Op, lines: list[str]) -> list[str]:
        """lines, the first one commented with f's line (numba's errors show it)."""
        if not lines:
            return lines
        return [f"{lines[0]}  # {self.low.filename}:{op.line}"] + lines[1:]

    def __init__(self, low: Lowering, code: list[Any], active_args: list[str]) -> None:
        self.low, self.code = low, code
        self.active_args = ["v_" + a for a in active_args]
        self.active = activity(code, set(self.active_args))
        self.containers = {op.args[0].id for op in walk(code) if isinstance(op, Op) and op.kind == "index"}
        assigned = {op.target for op in walk(code) if isinstance(op, Op)}
        assigned |= {loop.var for loop in walk(code) if isinstance(loop, Loop) and loop.var}
        # arguments never assigned keep their value: the adjoints read them directly
        self.stable = {"v_" + a for a in low.args} - assigned

    def is_active(self, atom: Any) -> bool:
        return isinstance(atom, ast.Name) and atom.id in self.active

    def params(self) -> str:
        return ", ".join("v_" + a for a in self.low.args)


# ----- forward mode -------------------------------------------------------------

class Forward(_Gen):
    """jvp: every active v gets d_v."""

    def d(self, atom: Any) -> str | None:
        return "d_" + _tail(atom.id) if self.is_active(atom) else None

    def block(self, code: list[Any], ret: str) -> list[str]:
        out: list[str] = []
        for s in code:
            if isinstance(s, Op):
                out += self.where(s, self.op(s))
            elif isinstance(s, If):
                out += [f"if {_s(s.test)}:"] + _indent(self.block(s.body, ret) or ["pass"])
                if s.orelse:
                    out += ["else:"] + _indent(self.block(s.orelse, ret))
            elif isinstance(s, Loop):
                head = (f"for {s.var} in range({', '.join(map(_s, s.bounds or []))}):" if s.var
                        else f"while {_s(s.test)}:")
                out += [head] + _indent(self.block(s.body, ret) or ["pass"])
            elif isinstance(s, Return):
                if isinstance(s.value, list):
                    v = "(" + "".join(_s(a) + ", " for a in s.value) + ")"
                    d = "(" + "".join((self.d(a) or "0.0") + ", " for a in s.value) + ")"
                else:
                    v, d = _s(s.value), self.d(s.value) or "0.0"
                out.append(ret.format(v=v, d=d))
        return out

    def op(self, op: Op) -> list[str]:
        T = op.target
        args = [_s(a) for a in op.args]
        ds = [self.d(a) for a in op.args]
        A = args[0] if args else None
        dA = ds[0] if ds else None
        k = op.kind
        if T not in self.active:
            return [f"{T} = {_primal(op, args)}"]
        dT = "d_" + _tail(T)
        if k == "row":
            n = len(args)
            ps = [f"p{i}_{_tail(T)}" for i in range(n)]
            terms = [f"{p} * {d}" for p, d in zip(ps, ds) if d]
            return [f"{T}, {', '.join(ps)} = rowfd_{op.extra}({', '.join(args)})",
                    f"{dT} = {' + '.join(terms) or '0.0'}"]
        if k == "bin":
            B, dB = args[1], ds[1]
            o = op.extra
            if o == "+":
                e = " + ".join(x for x in (dA, dB) if x)
            elif o == "-":
                e = f"{dA} - {dB}" if dA and dB else (dA or f"-{dB}")
            elif o == "*":
                e = " + ".join(x for x in ((f"{dA} * {B}" if dA else None),
                                           (f"{A} * {dB}" if dB else None)) if x)
            else:
                e = (f"({dA} - {T} * {dB}) / {B}" if dA and dB
                     else (f"{dA} / {B}" if dA else f"-({T} * {dB}) / {B}"))
            return [f"{T} = {A} {o} {B}", f"{dT} = {e}"]
        line = f"{T} = {_primal(op, args)}"
        if k == "copy":
            return [line, f"{dT} = {dA or '0.0'}"]
        if k == "nondiff":
            return [line, f"{dT} = 0.0"]
        if k == "neg":
            return [line, f"{dT} = -{dA}"]
        if k == "powi":
            n = op.extra
            e = f"0.0 * {dA}" if n == 0 else (f"{dA}" if n == 1 else f"{n} * {A} ** {n - 1} * {dA}")
            return [line, f"{dT} = {e}"]
        if k == "index":
            return [line, f"{dT} = {'d_' + _tail(op.args[0].id)}[{_s(op.extra)}]"]
        if k in ("real", "imag"):
            return [line, f"{dT} = ({dA}).{k}"]
        if k == "conj":
            return [line, f"{dT} = cj({dA})"]
        if k == "abs":
            return [line, f"{dT} = abs_jvp({A}, {T}, {dA})"]
        if k == "complex":
            return [line, f"{dT} = complex({dA or '0.0'}, {ds[1] or '0.0'})"]
        if k == "call":
            tup = "".join(a + ", " for a in args)
            dtup = "".join((d or "0.0") + ", " for d in ds)
            return [f"{T}, {dT} = {op.extra}(({tup}), ({dtup}))"]
        if k == "user":
            n = len(args)
            f, _, omega = self.low.users[op.extra]
            p = f"p_{_tail(T)}"
            call = f"{op.extra}_p({', '.join(args + ([T] if omega else []))})"
            parts = [p] if n == 1 else [f"{p}[{i}]" for i in range(n)]
            terms = [f"{q} * {d}" for q, d in zip(parts, ds) if d]
            return [line, f"{p} = {call}", f"{dT} = {' + '.join(terms) or '0.0'}"]
        raise AssertionError(k)  # pragma: no cover


def _primal(op: Op, args: list[str]) -> str:
    k = op.kind
    if k == "row":
        return f"rowf_{op.extra}({', '.join(args)})"
    if k == "bin":
        return f"{args[0]} {op.extra} {args[1]}"
    if k == "copy":
        return args[0]
    if k == "nondiff":
        return _s(op.extra)
    if k == "neg":
        return f"-{args[0]}"
    if k == "powi":
        return f"{args[0]} ** {op.extra}"
    if k == "index":
        return f"{args[0]}[{_s(op.extra)}]"
    if k in ("real", "imag"):
        return f"({args[0]}).{k}"
    if k == "conj":
        return f"cj({args[0]})"
    if k == "abs":
        return f"abs({args[0]})"
    if k == "complex":
        return f"complex({args[0]}, {args[1]})"
    if k == "user":
        return f"{op.extra}({', '.join(args)})"
    if k == "call":
        return f"{op.extra}_f({', '.join(args)})"
    raise AssertionError(k)  # pragma: no cover


def forward_source(low: Lowering, code: list[Any], argnum: int | None, name: str) -> str:
    """`name(primals, tangents) -> (Ω, ΔΩ)` (argnum None), or
    `name(*args) -> dΩ/d args[argnum]`."""
    if argnum is None:
        g = Forward(low, code, list(low.args))
        ps = g.params()
        tangents = ", ".join("d_" + a for a in low.args)
        head = [f"def {name}(primals, tangents):",
                _PAD + f"{ps}{',' if len(low.args) == 1 else ''} = primals",
                _PAD + f"{tangents}{',' if len(low.args) == 1 else ''} = tangents"]
        return "\n".join(head + _indent(g.block(code, "return {v}, {d}"))) + "\n"
    a = low.args[argnum]
    g = Forward(low, code, [a])
    head = [f"def {name}({g.params()}):", _PAD + f"d_{a} = one_like(v_{a})"]
    return "\n".join(head + _indent(g.block(code, "return {d}"))) + "\n"
