"""The reverse-mode code generator of chainrules._numba_ad (chainrules.numba.grad,
value_and_grad)."""

from __future__ import annotations

import ast
from typing import Any

from chainrules._numba_ad import If, Loop, Lowering, Op, Return, _always_returns, walk
from chainrules._numba_ad_gen import _Gen, _indent, _primal, _s, _tail

# ----- reverse mode -------------------------------------------------------------
#
# The adjoint of a block runs right after a forward run of that block that
# kept its partials and branch flags in locals (the `fwd` sweep).  A loop's
# forward run keeps, per iteration, only the loop-carried variables its body
# needs (a list per variable), and runs its body as plain primal code; its
# adjoint then takes the iterations backwards, each time restoring the
# carried variables, running the body's `fwd` sweep again and then the body's
# adjoint (one iteration recomputed: Griewank's checkpointing, one checkpoint
# per iteration).  A `return` runs the adjoint of everything that ran before it.

def _names(node: Any) -> set[str]:
    if node is None:
        return set()
    if isinstance(node, list):
        return set().union(*(_names(n) for n in node)) if node else set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _uses(op: Op) -> set[str]:
    out = {a.id for a in op.args if isinstance(a, ast.Name)}
    if op.kind in ("index", "nondiff"):
        out |= _names(op.extra)
    return out


def _exposed(code: list[Any], defined: set[str], out: set[str]) -> set[str]:
    """Names used in code before they are surely assigned (added to `out`);
    returns the names surely assigned after it."""
    defined = set(defined)
    for s in code:
        if isinstance(s, Op):
            out |= _uses(s) - defined
            defined.add(s.target)
        elif isinstance(s, If):
            out |= _names(s.test) - defined
            a = _exposed(s.body, defined, out)
            b = _exposed(s.orelse, defined, out)
            defined = a & b
        elif isinstance(s, Loop):
            out |= (_names(s.bounds) | _names(s.test)) - defined
            inner = set(defined) | ({s.var} if s.var else set())
            _exposed(s.body, inner, out)
        elif isinstance(s, Return):
            out |= _names(s.value) - defined
    return defined


def _has_return(code: list[Any]) -> bool:
    return any(isinstance(s, Return) for s in walk(code))


class Reverse(_Gen):

    def __init__(self, low: Lowering, code: list[Any], active_args: list[str]) -> None:
        super().__init__(low, code, active_args)
        self.uid: dict[int, int] = {}
        for s in walk(code):
            self.uid[id(s)] = len(self.uid)
        self.lists: list[str] = []
        self.loops: dict[int, tuple[list[str], list[str]]] = {}
        for s in walk(code):
            if isinstance(s, Loop):
                self.loops[id(s)] = self._loop_state(s)

    def b(self, atom: Any) -> str:
        return "b_" + _tail(atom.id)

    def keep(self, s: Any, j: int, expr: str) -> tuple[str, str]:
        """(forward line keeping expr, the name the adjoint reads)."""
        name = f"s{self.uid[id(s)]}_{j}"
        return f"{name} = {expr}", name

    def plain_atom(self, atom: Any) -> bool:
        """A constant or an argument never assigned: the adjoint reads it as it is."""
        return isinstance(atom, ast.Constant) or atom.id in self.stable

    # what a loop keeps ------------------------------------------------------------

    def _needed(self, body: list[Any]) -> set[str]:
        """The names that the fwd sweep and the adjoint of body read (the
        values of the kept partials, the tests, the bounds, the indices)."""
        need: set[str] = set()
        ops = [s for s in walk(body) if isinstance(s, Op)]
        for s in walk(body):
            if isinstance(s, If):
                need |= _names(s.test)
            elif isinstance(s, Loop):
                need |= _names(s.bounds) | _names(s.test)
            elif isinstance(s, Op) and s.target in self.active:
                if s.kind not in ("copy", "neg", "real", "imag", "conj", "complex", "nondiff") and not (
                        s.kind == "bin" and s.extra in "+-"):
                    need |= _uses(s)
                elif s.kind == "index":
                    need |= _uses(s)
        changed = True
        while changed:
            changed = False
            for op in ops:
                if op.target in need and not _uses(op) <= need:
                    need |= _uses(op)
                    changed = True
        return need

    def _loop_state(self, loop: Loop) -> tuple[list[str], list[str]]:
        """(the carried variables kept per iteration, the free variables kept at
        the loop's entry) of the loop."""
        need = self._needed(loop.body)
        assigned = {s.target for s in walk(loop.body) if isinstance(s, Op)}
        assigned |= {s.var for s in walk(loop.body) if isinstance(s, Loop) and s.var}
        exposed: set[str] = set()
        _exposed(loop.body, {loop.var} if loop.var else set(), exposed)
        carried = sorted(need & assigned & exposed)
        free = sorted((need & exposed) - assigned - self.stable - {loop.var}
                      - {n for n in need if not n.startswith("v_")})
        free = [n for n in free if n in self.locals_]
        return carried, free

    @property
    def locals_(self) -> set[str]:
        names = {"v_" + a for a in self.low.args}
        names |= {s.target for s in walk(self.code) if isinstance(s, Op)}
        names |= {s.var for s in walk(self.code) if isinstance(s, Loop) and s.var}
        return names

    def op(self, op: Op) -> tuple[list[str], list[str]]:
        """(forward lines, adjoint lines) of an op."""
        T = op.target
        args = [_s(a) for a in op.args]
        if T not in self.active:
            return [f"{T} = {_primal(op, args)}"], []
        act = [self.is_active(a) for a in op.args]
        fwd: list[str] = []

        def keep(j: int, expr: str, atom: Any = None) -> str:
            if atom is not None and self.plain_atom(atom):
                return expr
            line, name = self.keep(op, j, expr)
            fwd.append(line)
            return name

        acc: list[tuple[int, str]] = []          # (argument, its cotangent contribution)
        k = op.kind
        if k == "row":
            ps = [f"p{i}_{_tail(T)}" for i in range(len(args))]
            fwd.append(f"{T}, {', '.join(ps)} = rowfd_{op.extra}({', '.join(args)})")
            for i, p in enumerate(ps):
                if act[i]:
                    acc.append((i, f"g * cj({keep(i, p)})"))
        elif k == "bin":
            o = op.extra
            fwd.append(f"{T} = {args[0]} {o} {args[1]}")
            if o == "+":
                acc = [(i, "g") for i in (0, 1) if act[i]]
            elif o == "-":
                acc = [(i, ("g", "-g")[i]) for i in (0, 1) if act[i]]
            elif o == "*":
                for i in (0, 1):
                    if act[i]:
                        acc.append((i, f"g * cj({keep(1 - i, args[1 - i], op.args[1 - i])})"))
            else:
                sb = keep(1, args[1], op.args[1])
                if act[0]:
                    acc.append((0, f"g / cj({sb})"))
                if act[1]:
                    acc.append((1, f"-g * cj({keep(2, T)} / {sb})"))
        else:
            fwd.append(f"{T} = {_primal(op, args)}")
            A = args[0] if args else ""
            if k == "copy" and act[0]:
                acc = [(0, "g")]
            elif k == "neg" and act[0]:
                acc = [(0, "-g")]
            elif k == "powi" and act[0] and op.extra != 0:
                n = op.extra
                acc = [(0, "g" if n == 1 else f"g * cj({n} * {keep(0, A, op.args[0])} ** {n - 1})")]
            elif k == "real":
                acc = [(0, "(g).real")]
            elif k == "imag":
                acc = [(0, "1j * (g).real")]
            elif k == "conj":
                acc = [(0, "cj(g)")]
            elif k == "abs":
                acc = [(0, f"abs_vjp({keep(0, A, op.args[0])}, {keep(1, T)}, g)")]
            elif k == "complex":
                acc = [(i, f"(g).{('real', 'imag')[i]}") for i in (0, 1) if act[i]]
            elif k == "index":
                idx = _s(op.extra)
                where = idx if isinstance(op.extra, ast.Constant) else keep(0, idx)
                X = op.args[0].id
                bT = self.b(ast.Name(id=T))
                return fwd, [f"g = {bT}", f"{bT} = 0.0", f"b_{_tail(X)}[{where}] += pje({X}, g)"]
            elif k == "user":
                n = len(args)
                _, _, omega = self.low.users[op.extra]
                p = f"p_{_tail(T)}"
                fwd.append(f"{p} = {op.extra}_p({', '.join(args + ([T] if omega else []))})")
                sp = keep(0, p)
                for i in range(n):
                    if act[i]:
                        acc.append((i, f"g * cj({sp if n == 1 else f'{sp}[{i}]'})"))
            elif k == "call":
                # a real scalar function: its gradient at the arguments is the row of partials
                p = f"p_{_tail(T)}"
                fwd[-1] = f"{T}, {p} = {op.extra}_vg({', '.join(args)})"
                sp = keep(0, p)
                acc = [(i, f"g * {sp}[{i}]") for i in range(len(args)) if act[i]]
        bT = self.b(ast.Name(id=T))
        bwd = [f"g = {bT}", f"{bT} = 0.0"]
        for i, e in acc:
            bwd.append(f"{self.b(op.args[i])} += pj({args[i]}, {e})")
        return fwd, bwd

    # the sweeps ---------------------------------------------------------------------

    def fwd(self, code: list[Any], frames: list[Any] | None, ret: str | None) -> list[str]:
        """The forward sweep of a block whose adjoint runs next (frames None:
        a recomputation, whose returns are never reached)."""
        out: list[str] = []
        for j, s in enumerate(code):
            here = None if frames is None else frames + [("block", code, j)]
            if isinstance(s, Op):
                out += self.where(s, self.op(s)[0])
            elif isinstance(s, If):
                body = self.fwd(s.body, here, ret)
                orelse = self.fwd(s.orelse, here, ret)
                if not (_always_returns(s.body) or _always_returns(s.orelse)) and (
                        self.adjoint(s.body) or self.adjoint(s.orelse)):
                    body = body + [self.keep(s, 0, "True")[0]]
                    orelse = orelse + [self.keep(s, 0, "False")[0]]
                out += [f"if {_s(s.test)}:"] + _indent(body or ["pass"])
                if orelse:
                    out += ["else:"] + _indent(orelse)
            elif isinstance(s, Loop):
                out += self.loop_fwd(s, here, ret)
            elif isinstance(s, Return):
                if here is not None:
                    out += self.returning(s, here) + [ret or ""]
                break
        return out

    def plain(self, code: list[Any], frames: list[Any] | None, ret: str | None) -> list[str]:
        """Primal code, but for the loops with a return inside (kept per
        iteration, for the adjoint of the return) and the returns."""
        out: list[str] = []
        for j, s in enumerate(code):
            here = None if frames is None else frames + [("block", code, j)]
            if isinstance(s, Op):
                out.append(f"{s.target} = {_primal(s, [_s(a) for a in s.args])}")
            elif isinstance(s, If):
                out += [f"if {_s(s.test)}:"] + _indent(self.plain(s.body, here, ret) or ["pass"])
                orelse = self.plain(s.orelse, here, ret)
                if orelse:
                    out += ["else:"] + _indent(orelse)
            elif isinstance(s, Loop):
                if here is not None and _has_return(s.body):
                    out += self.loop_fwd(s, here, ret)
                else:
                    head = (f"for {s.var} in range({', '.join(map(_s, s.bounds or []))}):" if s.var
                            else f"while {_s(s.test)}:")
                    out += [head] + _indent(self.plain(s.body, None, None) or ["pass"])
            elif isinstance(s, Return):
                if here is not None:
                    out += self.returning(s, here) + [ret or ""]
                break
        return out

    def _lists(self, loop: Loop) -> list[str]:
        carried, _ = self.loops[id(loop)]
        names = [f"L{self.uid[id(loop)]}_{_tail(v)}" for v in carried]
        for n in names:
            if n not in self.lists:
                self.lists.append(n)
        return names

    def loop_fwd(self, s: Loop, frames: list[Any] | None, ret: str | None) -> list[str]:
        u = self.uid[id(s)]
        carried, free = self.loops[id(s)]
        counted = bool(self.adjoint(s.body))
        out = [f"f{u}_{_tail(v)} = {v}" for v in free] if counted else []
        if s.var:
            bounds = list(map(_s, s.bounds or []))
            out += [f"r{u}_{i} = {b}" for i, b in enumerate(bounds)]
            head = f"for {s.var} in range({', '.join(f'r{u}_{i}' for i in range(len(bounds)))}):"
        else:
            head = f"while {_s(s.test)}:"
        body: list[str] = []
        if counted:
            out.append(f"c{u} = 0")
            body += [f"{lst}.append({v})" for lst, v in zip(self._lists(s), carried)]
        inner = None if frames is None else frames + [("loop", s, f"c{u}")]
        body += self.plain(s.body, inner, ret)
        if counted:
            body.append(f"c{u} += 1")
        return out + [head] + _indent(body or ["pass"])

    def _restore(self, s: Loop) -> list[str]:
        carried, _ = self.loops[id(s)]
        return [f"{v} = {lst}.pop()" for lst, v in reversed(list(zip(self._lists(s), carried)))]

    def loop_adjoint(self, s: Loop, count: str) -> list[str]:
        """The adjoint of `count` completed iterations of the loop s, last first."""
        body = self.adjoint(s.body)
        if not body:
            return []
        u = self.uid[id(s)]
        _, free = self.loops[id(s)]
        out = [f"{v} = f{u}_{_tail(v)}" for v in free]
        it = [f"for k{u} in range({count} - 1, -1, -1):"]
        step: list[str] = self._restore(s)
        if s.var:
            n = len(s.bounds or [])
            start = f"r{u}_0" if n > 1 else "0"
            stride = f"r{u}_2" if n > 2 else "1"
            step.append(f"{s.var} = {start} + k{u} * {stride}")
        return out + it + _indent(step + self.fwd(s.body, None, None) + body)

    def adjoint(self, code: list[Any]) -> list[str]:
        out: list[str] = []
        for s in reversed(code):
            if isinstance(s, Op):
                out += self.op(s)[1]
            elif isinstance(s, If):
                # a branch that always returns never reaches what follows the if:
                # the adjoint that runs after the if knows the other branch ran
                ret_body, ret_else = _always_returns(s.body), _always_returns(s.orelse)
                if ret_body and ret_else:
                    continue
                body = [] if ret_body else self.adjoint(s.body)
                orelse = [] if ret_else else self.adjoint(s.orelse)
                if ret_body or ret_else:
                    out += body + orelse
                elif body or orelse:
                    out += [f"if s{self.uid[id(s)]}_0:"] + _indent(body or ["pass"])
                    out += ["else:"] + _indent(orelse or ["pass"])
            elif isinstance(s, Loop):
                out += self.loop_adjoint(s, f"c{self.uid[id(s)]}")
        return out

    def returning(self, s: Return, frames: list[Any]) -> list[str]:
        """ret = the value, then the adjoint of everything that ran before: per
        region (the frames between two loops), innermost first, a region inside
        a loop is recomputed from the iteration's kept state first."""
        if isinstance(s.value, list):
            raise self.low.error(ast.Pass(lineno=s.line - self.low.first_line + 1), "a gradient of a "
                                 "function returning a tuple (grad needs a real scalar; use jvp)",
                                 TypeError)
        out = [f"ret = {_s(s.value)}"]
        seed = [f"{self.b(s.value)} += 1.0"] if self.is_active(s.value) else []
        regions: list[list[Any]] = [[]]
        loops: list[Any] = []
        for fr in frames:
            if fr[0] == "loop":
                loops.append(fr)
                regions.append([])
            else:
                regions[-1].append(fr)
        for r in range(len(regions) - 1, -1, -1):
            blocks = regions[r]
            if r > 0:                                    # inside loops[r - 1]: recompute
                out += self._restore(loops[r - 1][1])
                for _, code, j in blocks:
                    out += self.fwd(code[:j], None, None)
            out += seed
            seed = []
            for _, code, j in reversed(blocks):
                out += self.adjoint(code[:j])
            if r > 0:
                out += self.loop_adjoint(loops[r - 1][1], loops[r - 1][2])
        return out


def reverse_source(low: Lowering, code: list[Any], argnums: tuple[int, ...], scalar: bool,
                   with_value: bool, name: str) -> str:
    """`name(*args) -> gradient` (or `(value, gradient)`) with respect to argnums."""
    names = [low.args[i] for i in argnums]
    g = Reverse(low, code, names)
    grads = []
    for a in names:
        grads.append(f"as_like(v_{a}, b_{a})" if "v_" + a in g.containers else f"b_{a}")
    grad = grads[0] if scalar else "(" + ", ".join(grads) + ("," if len(grads) == 1 else "") + ")"
    ret = f"return ret, {grad}" if with_value else f"return {grad}"
    body = g.fwd(code, [], ret)
    init = []
    for v in sorted(g.active):
        if v in g.containers:
            init.append(f"b_{_tail(v)} = zeros_adjoint({v})")
        else:
            init.append(f"b_{_tail(v)} = 0.0")
    init += [f"{lst} = []" for lst in g.lists]
    return "\n".join([f"def {name}({g.params()}):"] + _indent(init + body)) + "\n"
