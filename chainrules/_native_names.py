"""Which native kernel (chainrules.numba's NAME, the C kernels' names) a row
of the scalar table is: the one mapping, used by chainrules.numba's
derivative transform and the native tests (no numba needed here)."""

from __future__ import annotations

# the native name of a row, where it is not the function's own name
ALIASES = {
    "abs": "fabs", "absolute": "fabs", "conjugate": "pos", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
    "arctan2": "atan2", "deg2rad": "radians", "rad2deg": "degrees", "divide": "truediv",
    "float_power": "pow", "floor_divide": "floordiv", "maximum": "max", "minimum": "min",
    "multiply": "mul", "negative": "neg", "positive": "pos", "subtract": "sub", "power": "pow",
    "numpy.remainder": "mod",            # NumPy's remainder is Python's %, math's is IEEE's
}


def native_name(row_name: str, arity: int) -> str:
    """The name in chainrules.numba.ROWS of a row of the table (real)."""
    short = row_name.rsplit(".", 1)[-1]
    if short.startswith("i") and row_name.startswith("operator.") and short[1:] in (
            "add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
        short = short[1:]
    name = ALIASES.get(row_name, ALIASES.get(short, short))
    if (short, arity) == ("log", 2):
        return "log_base"
    if (short, arity) == ("hypot", 1):
        return "fabs"
    return name
