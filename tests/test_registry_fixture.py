"""The `registry` fixture (conftest.registry_restored) keeps the rules of a
library first imported inside it: the import hook registers them once, so a
test importing array-api-strict under the fixture used to leave every later
test without rules for it (tests/testing/test_backend_testers.py run before
tests/ad/test_array_api.py: 52 NoRuleErrors)."""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import math
import sys
sys.path.insert(0, {tests!r})
import chainrules as cr
from chainrules import _core, ad
from conftest import registry_restored
assert "array_api_strict" not in sys.modules
with registry_restored():
    import array_api_strict as xps
    cr.register_rrule(xps.sin)(lambda x: (xps.sin(x), lambda y: (cr.NoTangent(), 0 * y)))
rr = _core._rules_of(xps.sin)[1]
assert len(rr) == 1 and rr[0] is not None, rr
x = xps.asarray([0.3, -0.7])
g = ad.gradient(lambda x: (xp := x.__array_namespace__()).sum(xp.sin(x)), x)
assert xps.all(xps.abs(g - xps.cos(x)) < 1e-12), g      # the library's rules, not the block's
assert "scipy.special" not in sys.modules
with registry_restored():
    import scipy.special as sp                             # its rules come from a module re-run
assert abs(ad.derivative(sp.erf, 0.0) - 2 / math.sqrt(math.pi)) < 1e-15
print("ok")
"""


@pytest.mark.interop
def test_library_first_imported_under_the_fixture_keeps_its_rules():
    pytest.importorskip("array_api_strict")
    tests = os.path.dirname(__file__)
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(tests=tests)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
