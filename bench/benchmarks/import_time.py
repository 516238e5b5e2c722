"""Import time (issue 22: the rule set may grow, `import chainrules` may not
grow by more than 10%).  Each variant is the median, over fresh interpreters,
of `python -X importtime -c "import M"`'s cumulative time for M, in ms:

- `chainrules`: chainrules' own import, its cumulative time minus NumPy's
  inside it (what chainrules adds to a program that imports NumPy);
- `numpy`: NumPy's import alone, in its own interpreter (the yardstick the
  target divides by, so that a slower machine moves both).
"""

import re
import statistics
import subprocess
import sys


def _cumulative_ms(module, *inside):
    """{name: cumulative ms} of `import module` in a fresh interpreter, for module and inside."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                         capture_output=True, text=True, check=True).stderr
    found = {}
    for line in out.splitlines():
        m = re.match(r"import time:\s+\d+\s+\|\s+(\d+)\s+\|(\s*)(\S+)", line)
        if m and m.group(3) in (module, *inside) and m.group(3) not in found:
            found[m.group(3)] = int(m.group(1)) / 1000.0
    return found


class ImportTime:
    """`import chainrules` against `import numpy`, in fresh interpreters."""
    n = 5               # interpreters per variant (smoke: 2)
    baseline = "numpy"
    unit = "ms"

    def setup(self):
        _cumulative_ms("chainrules")          # a first import builds what an editable install builds

    def track_chainrules(self):
        own = []
        for _ in range(self.n):
            t = _cumulative_ms("chainrules", "numpy")
            own.append(t["chainrules"] - t.get("numpy", 0.0))
        return statistics.median(own)

    def track_numpy(self):
        return statistics.median(_cumulative_ms("numpy")["numpy"] for _ in range(self.n))
