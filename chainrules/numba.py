"""chainrules' C scalar table in numba's nopython code (needs numba).

Every row of the table (the real ones and, where the table has them, the
complex ones) as three functions that ``@numba.njit`` code calls: ``NAME``
(the primal f), ``NAME_d`` (f′; for two arguments the tuple of partials) and
``NAME_fd`` (the fused (f, f′)), the very C kernels chainrules' rules use::

    import numba
    import chainrules.numba as crn

    @numba.njit
    def tanh_and_derivative(x, y, dy):
        for i in range(x.size):
            y[i], dy[i] = crn.tanh_fd(x[i])

========  ==============================  =======================================
kind      one argument (``sin``, …)       two arguments (``atan2``, ``pow``, …)
========  ==============================  =======================================
NAME      f(x)                            f(x, y)
NAME_d    f′(x)                           (∂f/∂x, ∂f/∂y)
NAME_fd   (f(x), f′(x))                   (f(x, y), ∂f/∂x, ∂f/∂y)
========  ==============================  =======================================

Complex rows are named ``cNAME`` (``csin``, ``cpow``, …) and take and give
complex128.  ``ROWS`` maps each name to its kind (``"r1"``, ``"r2"``, ``"c1"``,
``"c2"``), ``addresses()`` gives the C functions' addresses (for ctypes or cffi;
the C signatures are those of chainrules/include/chainrules/scalar.pxd).  The
functions are compiled into chainrules' core and reached by symbol names that
this module registers with LLVM at import (so ``cache=True`` works: a cached
function resolves them again in a new process), and called like libm's own:
they are not inlined into the loop.
"""

from __future__ import annotations

from typing import Any

try:
    from llvmlite import binding as _llvm_binding
    from llvmlite import ir as _ir
    from numba.core import cgutils as _cgutils
    from numba.core import types as _types
    from numba.core.errors import TypingError as _TypingError
    from numba.extending import intrinsic as _intrinsic
except ImportError as _e:  # pragma: no cover - the test extra installs numba
    raise ImportError("chainrules.numba needs numba (`pip install numba`); chainrules' scalar "
                      f"kernels are also available to Cython (chainrules.get_include()): {_e}") from None

from chainrules._core import _native_table

# numba's helpers are not annotated
_UniTuple: Any = _types.UniTuple
_get_or_insert_function: Any = _cgutils.get_or_insert_function
_alloca_once: Any = _cgutils.alloca_once

__all__ = ["ROWS", "addresses"]

_TABLE: dict[str, tuple[str, int, int, int]] = _native_table()

#: Every row of the table: its name and kind ("r1", "r2": real, one or two
#: arguments; "c1", "c2": complex).
ROWS: dict[str, str] = {name: entry[0] for name, entry in _TABLE.items()}


def addresses() -> dict[str, tuple[int, int, int]]:
    """{name: (address of f, of f′, of the fused (f, f′))} of every row; the C
    signatures are those of scalar.pxd and cscalar.pxd (chainrules.get_include()),
    except the fused function of a real row of one argument: ``struct {double f,
    d;} NAME_fd(double x)``, both returned in registers."""
    return {name: entry[1:] for name, entry in _TABLE.items()}


_D = _ir.DoubleType()
_C = _ir.LiteralStructType([_D, _D])      # C99 double complex (and numba's complex128)


def _llvm_type(kind: str, which: int) -> _ir.FunctionType:
    """The LLVM type of a row's f (which=0), f′ (1) or fused (f, f′) (2); complex
    arguments pass as two doubles each and return as {double, double}, as the C ABI does."""
    n = int(kind[1])
    cplx = kind[0] == "c"
    args = [_D] * (2 * n if cplx else n)
    ret = _C if cplx else _D
    ptr = (_C if cplx else _D).as_pointer()
    if which == 0:
        return _ir.FunctionType(ret, args)
    if which == 1 and n == 1:
        return _ir.FunctionType(ret, args)
    if which == 2 and kind == "r1":
        return _ir.FunctionType(_C, args)     # struct {double f, d}: both in registers
    outs = [ptr] * n
    return _ir.FunctionType(_ir.VoidType() if which == 1 else ret, args + outs)


def _make(name: str, kind: str, which: int, addr: int) -> Any:
    symbol = f"chainrules_{name}{('', '_d', '_fd')[which]}"
    _llvm_binding.add_symbol(symbol, addr)
    n = int(kind[1])
    cplx = kind[0] == "c"
    num = _types.complex128 if cplx else _types.float64
    outs = 1 if which == 0 else (n if which == 1 else n + 1)     # the values given
    ret = num if outs == 1 else _UniTuple(num, outs)
    fnty = _llvm_type(kind, which)

    def typer(typingctx: Any, *args: Any) -> Any:
        accepted = _types.Number if cplx else (_types.Float, _types.Integer, _types.Boolean)
        for i, a in enumerate(args):
            if not isinstance(a, accepted):
                raise _TypingError(f"chainrules.numba.{symbol[11:]}: argument {i + 1} must be a "
                                   f"{'number' if cplx else 'real number'}, got {a}")
        sig = ret(*([num] * n))

        def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
            fn = _get_or_insert_function(builder.module, fnty, symbol)
            cargs = []
            for v in llargs:
                if cplx:
                    cargs += [builder.extract_value(v, 0), builder.extract_value(v, 1)]
                else:
                    cargs.append(v)
            slots = []
            if which == 2 and kind == "r1":
                res = builder.call(fn, cargs)
                return context.make_tuple(builder, ret, [builder.extract_value(res, 0),
                                                         builder.extract_value(res, 1)])
            if which == 2 or (which == 1 and n == 2):
                slots = [_alloca_once(builder, _C if cplx else _D) for _ in range(n)]
            res = builder.call(fn, cargs + slots)
            vals = ([] if which == 1 and n == 2 else [res]) + [builder.load(s) for s in slots]
            if outs == 1:
                return vals[0]
            return context.make_tuple(builder, ret, vals)
        return sig, codegen

    typer.__name__ = symbol[11:]
    return _intrinsic(prefer_literal=False)(_with_arity(typer, n))


def _with_arity(typer: Any, n: int) -> Any:
    # numba reads the typer's signature for the arity of the intrinsic
    if n == 1:
        def typer1(typingctx: Any, x: Any) -> Any:
            return typer(typingctx, x)
        typer1.__name__ = typer.__name__
        return typer1

    def typer2(typingctx: Any, x: Any, y: Any) -> Any:
        return typer(typingctx, x, y)
    typer2.__name__ = typer.__name__
    return typer2


for _name, (_kind, *_addrs) in _TABLE.items():
    for _which, _addr in enumerate(_addrs):
        _fn = _make(_name, _kind, _which, _addr)
        _fn_name = _name + ("", "_d", "_fd")[_which]
        globals()[_fn_name] = _fn
        __all__.append(_fn_name)
del _name, _kind, _addrs, _which, _addr, _fn, _fn_name
