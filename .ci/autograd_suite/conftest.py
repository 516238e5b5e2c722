"""autograd's own test suite, run through chainrules.ad (issue 24): this file
replaces the suite's conftest.py.  Before the tests import `autograd`, its
front door is pointed at chainrules': `autograd.grad` & co. are
`chainrules.ad.autograd`'s, `autograd.numpy` is `chainrules.ad.numpy`,
`autograd.scipy.*` are the `chainrules.ad.scipy.*` modules.  autograd's
`test_util.check_grads` stays autograd's own (it calls `autograd.core.make_vjp`
/ `make_jvp`, pointed here at chainrules.ad's), so the gradients are checked
against finite differences by autograd's code, not by ours.  What autograd
itself is (its boxes, `autograd.numpy.numpy_vjps`, its vspaces) is not
replaced: tests of those internals are not applicable (.ci/autograd_suite/
not_applicable.txt says which and why)."""

import importlib
import pkgutil
import sys

import numpy
import pytest

import autograd
import autograd.core
import chainrules.ad.autograd as cag
import chainrules.ad.numpy as cnp
import chainrules.ad.scipy as cscipy

for _name in cag.__all__:
    setattr(autograd, _name, getattr(cag, _name))
# autograd's tuple/list/dict containers: plain Python containers here
autograd.tuple, autograd.list, autograd.dict = tuple, list, dict
autograd.core.make_vjp = lambda fun, x: cag.make_vjp(fun)(x)
autograd.core.make_jvp = lambda fun, x: cag.make_jvp(fun)(x)

sys.modules["autograd.numpy"] = cnp
autograd.numpy = cnp
for _sub in ("random", "linalg", "fft"):
    sys.modules[f"autograd.numpy.{_sub}"] = getattr(cnp, _sub)
# two private helpers of autograd.numpy.linalg that test_pinv builds its matrices with
# (not part of autograd's API, so not of chainrules.ad.numpy.linalg): the harness supplies them
cnp.linalg.T = lambda x: cnp.swapaxes(x, -1, -2)
cnp.linalg._dot = lambda a, b: cnp.matmul(a, b)
sys.modules["autograd.scipy"] = cscipy
autograd.scipy = cscipy
for _info in pkgutil.walk_packages(cscipy.__path__, "chainrules.ad.scipy."):
    _module = importlib.import_module(_info.name)
    sys.modules["autograd.scipy." + _info.name[len("chainrules.ad.scipy."):]] = _module
# autograd.test_util imports autograd.numpy: re-import it through the redirection
sys.modules.pop("autograd.test_util", None)
importlib.import_module("autograd.test_util")


@pytest.fixture(autouse=True)
def random_seed():
    numpy.random.seed(42)


def _listed(name):
    import pathlib
    ids = {}
    for line in (pathlib.Path(__file__).parent / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            test, reason = line.split(None, 1)
            ids[test] = reason
    return ids


def pytest_collection_modifyitems(config, items):
    """Deselect the tests of not_applicable.txt, by their exact ids (pytest's
    --deselect matches prefixes: test_real would take test_real_ic along), and
    mark those of known_failing.txt as strict xfails (each must still fail:
    when one passes, the run fails until its line is removed)."""
    not_applicable, failing = _listed("not_applicable.txt"), _listed("known_failing.txt")
    ids = {item.nodeid for item in items}
    missing = (set(not_applicable) | set(failing)) - ids
    if missing:
        raise pytest.UsageError(f"the lists name tests the suite does not have: {sorted(missing)}")
    gone = [item for item in items if item.nodeid in not_applicable]
    items[:] = [item for item in items if item.nodeid not in not_applicable]
    config.hook.pytest_deselected(items=gone)
    for item in items:
        if item.nodeid in failing:
            item.add_marker(pytest.mark.xfail(reason=failing[item.nodeid], strict=True))
