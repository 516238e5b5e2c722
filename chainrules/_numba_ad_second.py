"""The second-order code generator of chainrules._numba_ad (chainrules.numba.hessian)."""

from __future__ import annotations

import ast
from typing import Any

from chainrules._numba_ad import If, Loop, Lowering, Op, Return
from chainrules._numba_ad_gen import _PAD, Forward, _indent, _primal, _s, _tail

# ----- second order: forward over forward ---------------------------------------

class Second(Forward):
    """Two tangents d1_v, d2_v and their cross term dd_v (hyper-dual numbers):
    dd of the output is the second derivative in the directions d1, d2.  The
    rows' second derivatives come from forward mode over their own kernels
    (hd_NAME: the kernels of chainrules/_numba_kernels.py transformed)."""

    def __init__(self, low: Lowering, code: list[Any], active_args: list[str]) -> None:
        super().__init__(low, code, active_args)
        self.rows: set[str] = set()

    def dn(self, atom: Any, which: str) -> str:
        return f"{which}_{_tail(atom.id)}" if self.is_active(atom) else "0.0"

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
                    raise self.low.error(ast.Pass(lineno=s.line - self.low.first_line + 1),
                                         "a Hessian of a function returning a tuple", TypeError)
                out.append(ret.format(dd=self.dn(s.value, "dd")))
        return out

    def op(self, op: Op) -> list[str]:
        T = op.target
        args = [_s(a) for a in op.args]
        if T not in self.active:
            return [f"{T} = {_primal(op, args)}"]
        t = _tail(T)
        k = op.kind
        d1 = [self.dn(a, "d1") for a in op.args]
        d2 = [self.dn(a, "d2") for a in op.args]
        dd = [self.dn(a, "dd") for a in op.args]
        A = args[0] if args else ""
        if k in ("copy", "neg", "real", "imag", "conj", "index", "complex", "nondiff") or (
                k == "bin" and op.extra in "+-"):
            out = [f"{T} = {_primal(op, args)}"]
            for w, ds in (("d1", d1), ("d2", d2), ("dd", dd)):
                if k == "copy":
                    e = ds[0]
                elif k == "neg":
                    e = f"-{ds[0]}"
                elif k in ("real", "imag"):
                    e = f"({ds[0]}).{k}"
                elif k == "conj":
                    e = f"cj({ds[0]})"
                elif k == "index":
                    e = f"{w}_{_tail(op.args[0].id)}[{_s(op.extra)}]"
                elif k == "complex":
                    e = f"complex({ds[0]}, {ds[1]})"
                elif k == "nondiff":
                    e = "0.0"
                else:
                    e = f"{ds[0]} {op.extra} {ds[1]}"
                out.append(f"{w}_{t} = {e}")
            return out
        if k == "bin" and op.extra == "*":
            B = args[1]
            return [f"{T} = {A} * {B}",
                    f"d1_{t} = {d1[0]} * {B} + {A} * {d1[1]}",
                    f"d2_{t} = {d2[0]} * {B} + {A} * {d2[1]}",
                    f"dd_{t} = {dd[0]} * {B} + {d1[0]} * {d2[1]} + {d2[0]} * {d1[1]} + {A} * {dd[1]}"]
        if k == "bin":                                        # division
            B = args[1]
            return [f"{T} = {A} / {B}",
                    f"d1_{t} = ({d1[0]} - {T} * {d1[1]}) / {B}",
                    f"d2_{t} = ({d2[0]} - {T} * {d2[1]}) / {B}",
                    f"dd_{t} = ({dd[0]} - d1_{t} * {d2[1]} - d2_{t} * {d1[1]} - {T} * {dd[1]}) / {B}"]
        if k == "powi":
            n = op.extra
            fx = "0.0" if n == 0 else f"{n} * {A} ** {n - 1}"
            fxx = "0.0" if n in (0, 1) else f"{n * (n - 1)} * {A} ** {n - 2}"
            return self._chain1(T, t, f"{A} ** {n}", fx, fxx, d1[0], d2[0], dd[0])
        if k == "abs":
            return [f"{T} = abs({A})", f"fx_{t} = abs_jvp({A}, {T}, 1.0)",
                    f"d1_{t} = fx_{t} * {d1[0]}", f"d2_{t} = fx_{t} * {d2[0]}",
                    f"dd_{t} = fx_{t} * {dd[0]}"]
        if k == "row":
            self.rows.add(op.extra)
            if len(args) == 1:
                return [f"{T}, fx_{t}, fxx_{t} = hd_{op.extra}({A})",
                        f"d1_{t} = fx_{t} * {d1[0]}", f"d2_{t} = fx_{t} * {d2[0]}",
                        f"dd_{t} = fxx_{t} * {d1[0]} * {d2[0]} + fx_{t} * {dd[0]}"]
            B = args[1]
            return [f"{T}, fx_{t}, fy_{t}, fxx_{t}, fxy_{t}, fyy_{t} = hd_{op.extra}({A}, {B})",
                    f"d1_{t} = fx_{t} * {d1[0]} + fy_{t} * {d1[1]}",
                    f"d2_{t} = fx_{t} * {d2[0]} + fy_{t} * {d2[1]}",
                    f"dd_{t} = fxx_{t} * {d1[0]} * {d2[0]} + fxy_{t} * ({d1[0]} * {d2[1]} + "
                    f"{d2[0]} * {d1[1]}) + fyy_{t} * {d1[1]} * {d2[1]} + fx_{t} * {dd[0]} + fy_{t} * {dd[1]}"]
        raise self.low.error(ast.Pass(lineno=op.line - self.low.first_line + 1),
                             f"a second derivative through {'a call' if k == 'call' else 'a scalar_rule'} "
                             "(hessian differentiates the scalar table's rows only)", TypeError)

    def _chain1(self, T: str, t: str, primal: str, fx: str, fxx: str, d1: str, d2: str,
                dd: str) -> list[str]:
        return [f"{T} = {primal}", f"fx_{t} = {fx}", f"fxx_{t} = {fxx}",
                f"d1_{t} = fx_{t} * {d1}", f"d2_{t} = fx_{t} * {d2}",
                f"dd_{t} = fxx_{t} * {d1} * {d2} + fx_{t} * {dd}"]


def second_source(low: Lowering, code: list[Any], argnum: int, name: str) -> tuple[str, set[str]]:
    """`name(*args)`: the Hessian of f with respect to args[argnum] (a number,
    or an (n, n) array for an array or tuple of n), and the rows it uses."""
    a = low.args[argnum]
    g = Second(low, code, [a])
    inner = g.block(code, "return {dd}")
    ps = g.params()
    lines = [f"def {name}_dd({ps}, d1_{a}, d2_{a}, dd_{a}):"] + _indent(inner)
    if "v_" + a in g.containers:
        lines += [f"def {name}({ps}):",
                  _PAD + f"n = len(v_{a})",
                  _PAD + "out = np.empty((n, n))",
                  _PAD + "zero = np.zeros(n)",
                  _PAD + "for i in range(n):",
                  _PAD * 2 + "for j in range(i, n):",
                  _PAD * 3 + "e1 = np.zeros(n)",
                  _PAD * 3 + "e2 = np.zeros(n)",
                  _PAD * 3 + "e1[i] = 1.0",
                  _PAD * 3 + "e2[j] = 1.0",
                  _PAD * 3 + f"h = {name}_dd({ps}, e1, e2, zero)",
                  _PAD * 3 + "out[i, j] = h",
                  _PAD * 3 + "out[j, i] = h",
                  _PAD + "return out"]
    else:
        lines += [f"def {name}({ps}):", _PAD + f"return {name}_dd({ps}, 1.0, 1.0, 0.0)"]
    return "\n".join(lines) + "\n", g.rows
