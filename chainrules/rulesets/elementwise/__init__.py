"""The element-wise functions: one table of derivatives and the rules built
from it, for every array library.

- `table.py`: THE table (`TABLE`), one row per function, each partial
  written once as a formula; a new element-wise function is one row there;
- `rules.py`: the generic rules built from a row (any array namespace,
  broadcasting, projection);
- `scalar.py`: the rows' rules on Python and NumPy scalars whose plain values
  are real (math, cmath, operator, builtins), differentiable again;
- `interop.py`: their registration for each array library's functions and
  operators, when that library is imported.

The table's names are re-exported here (`chainrules.rulesets.elementwise.TABLE`,
`row_for_numpy_name`, …).
"""

from chainrules.rulesets.elementwise.table import (
    NEG_ONE,
    NUMPY_ONLY,
    ONE,
    STAND_INS,
    STANDARD,
    TABLE,
    Formula,
    Row,
    row_for_numpy_name,
)

__all__ = ["Row", "TABLE", "NUMPY_ONLY", "ONE", "NEG_ONE", "STANDARD", "STAND_INS", "Formula",
           "row_for_numpy_name"]
