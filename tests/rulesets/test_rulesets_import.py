"""Importing chainrules registers every rule set; the scipy.special rules are
registered when scipy.special is imported (before or after chainrules), so a
program that never uses SciPy does not pay for importing it."""

import subprocess
import sys

import pytest


def _run(code):
    # -P: the installed chainrules, not the sources of the current folder
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split()


def test_importing_chainrules_does_not_import_scipy():
    assert _run("import sys, chainrules, numpy as np; chainrules.rrule(np.sin, np.ones(2));"
                "print('scipy' in sys.modules, 'scipy.special' in sys.modules)") == ["False", "False"]


@pytest.mark.parametrize("code", [
    "import chainrules as cr; import scipy.special as sp",              # after chainrules
    "import scipy.special as sp; import chainrules as cr",              # before it
    "import chainrules as cr; from scipy.special import gammaln; import scipy.special as sp",
    "import chainrules as cr; import scipy; sp = scipy.special",        # SciPy's lazy submodules
], ids=["after", "before", "from-import", "lazy-attribute"])
def test_scipy_special_rules_are_registered_however_it_is_imported(code):
    out = _run(code + "\nimport sys\n"
               "print(cr.rrule(sp.gammaln, 2.5) is not None, cr.frule((cr.NoTangent(), 1.0), sp.expit, 0.0)[1],"
               " 'scipy.special' in sys.modules['chainrules.rulesets']._pending)")
    assert out == ["True", "0.25", "False"]


def test_the_wrapped_loader_is_the_real_one_otherwise():
    out = _run("import chainrules, scipy.special as sp, importlib\n"
               "print(sp.__spec__.loader.is_package('scipy.special'), sp.__spec__.origin.endswith('__init__.py'))\n"
               "importlib.reload(sp); print(chainrules.rrule(sp.erf, 0.5) is not None)")
    assert out == ["True", "True", "True"]


def test_a_failing_registration_on_import_is_a_warning_naming_the_library():
    # the import hook's registrars never break the user's import of the library
    from chainrules import rulesets

    def failing(name, module):
        raise ValueError("boom")
    for what in ("array-API", "scipy.special"):
        with pytest.warns(RuntimeWarning, match=f"registering the {what} rules for somelib failed: ValueError"):
            rulesets._guarded(what, "somelib", failing)(object())
