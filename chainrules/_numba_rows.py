"""The rows of chainrules' C scalar table as numba functions: the
implementation of chainrules.numba (see its docstring), apart so that the
derivative transform (chainrules._numba_ad) can use them without an import cycle."""


from __future__ import annotations

from typing import Any

try:
    from llvmlite import binding as _llvm_binding
    from llvmlite import ir as _ir
    from numba.core import cgutils as _cgutils
    from numba.core import types as _types
    from numba.core.errors import TypingError as _TypingError
    from numba.extending import intrinsic as _intrinsic
    from numba.extending import overload as _overload
except ImportError as _e:  # pragma: no cover - the test extra installs numba
    raise ImportError("chainrules.numba needs numba (`pip install numba`); chainrules' scalar "
                      f"kernels are also available to Cython (chainrules.get_include()): {_e}") from None

from chainrules import _numba_kernels as _kernels
from chainrules._core import _native_table

# numba's helpers are not annotated
_UniTuple: Any = _types.UniTuple
_float64: Any = _types.float64
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


def _llvm_type(n: int, which: int) -> _ir.FunctionType:
    """The LLVM type of a complex row's f (which=0), f′ (1) or fused (f, f′) (2)
    of n arguments; each passes as two doubles and a result returns as {double,
    double}, as the C ABI does."""
    args = [_D] * (2 * n)
    if which == 0 or (which == 1 and n == 1):
        return _ir.FunctionType(_C, args)
    outs = [_C.as_pointer()] * n
    return _ir.FunctionType(_ir.VoidType() if which == 1 else _C, args + outs)


def _check(name: str, args: tuple[Any, ...], cplx: bool) -> None:
    """A clear typing error for an argument the row does not take."""
    accepted = _types.Number if cplx else (_types.Float, _types.Integer, _types.Boolean)
    for i, a in enumerate(args):
        if not isinstance(a, accepted):
            raise _TypingError(f"chainrules.numba.{name}: argument {i + 1} must be a "
                               f"{'number' if cplx else 'real number'}, got {a}")


def _make(name: str, kind: str, which: int, addr: int) -> Any:
    """The public function of a complex row: a call to its C function, by a
    symbol registered with LLVM (so that cache=True finds it again)."""
    symbol = f"chainrules_{name}{('', '_d', '_fd')[which]}"
    _llvm_binding.add_symbol(symbol, addr)
    n = int(kind[1])
    num = _types.complex128
    outs = 1 if which == 0 else (n if which == 1 else n + 1)     # the values given
    ret = num if outs == 1 else _UniTuple(num, outs)
    fnty = _llvm_type(n, which)

    def typer(typingctx: Any, *args: Any) -> Any:
        _check(symbol[11:], args, True)
        sig = ret(*([num] * n))

        def codegen(context: Any, builder: Any, signature: Any, llargs: Any) -> Any:
            fn = _get_or_insert_function(builder.module, fnty, symbol)
            cargs = []
            for v in llargs:
                cargs += [builder.extract_value(v, 0), builder.extract_value(v, 1)]
            slots = []
            if which == 2 or (which == 1 and n == 2):
                slots = [_alloca_once(builder, _C) for _ in range(n)]
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


def _real(name: str, n: int) -> Any:
    """The public function `name` of a real row: numba compiles the generated
    Python kernel (chainrules._numba_kernels) into the caller, so LLVM inlines it;
    an integer or boolean argument is converted to float64 first, as C does."""
    impl = getattr(_kernels, name)
    stub: Any
    typer: Any

    if n == 1:
        def stub1(x: float) -> Any:
            return impl(float(x))

        def impl1(x: Any) -> Any:     # numba wants the typer's very parameters
            return impl(_float64(x))

        def typer1(x: Any) -> Any:
            _check(name, (x,), False)
            return impl1
        stub, typer = stub1, typer1
    else:
        def stub2(x: float, y: float) -> Any:
            return impl(float(x), float(y))

        def impl2(x: Any, y: Any) -> Any:
            return impl(_float64(x), _float64(y))

        def typer2(x: Any, y: Any) -> Any:
            _check(name, (x, y), False)
            return impl2
        stub, typer = stub2, typer2
    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = "chainrules.numba"
    _overload(stub, prefer_literal=False)(typer)
    return stub


for _name, (_kind, *_addrs) in _TABLE.items():
    for _which, _addr in enumerate(_addrs):
        _fn_name = _name + ("", "_d", "_fd")[_which]
        if _kind[0] == "r":
            _fn = _real(_fn_name, int(_kind[1]))
        else:
            _fn = _make(_name, _kind, _which, _addr)
        globals()[_fn_name] = _fn
        __all__.append(_fn_name)
del _name, _kind, _addrs, _which, _addr, _fn, _fn_name

