"""chainrules.numba without numba: the ImportError says what to install."""

import subprocess
import sys


def test_without_numba_the_import_error_names_numba():
    code = ("import sys\nsys.modules['numba'] = None\ntry:\n    import chainrules.numba\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("chainrules.numba needs numba (`pip install numba`)"), out
