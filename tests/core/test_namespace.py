"""chainrules._xp.namespace: the compiled lookup (a METH_FASTCALL builtin whose
C loop answers ndarrays, NumPy float64s and Python numbers) and its hand-off
to the general Python lookup for everything else."""

import numpy as np
import pytest

from chainrules import _xp, ad
from chainrules._core import Dual, _namespace
from chainrules._xp import NamespaceError, namespace


def test_namespace_is_the_compiled_builtin():
    assert namespace is _namespace
    assert type(namespace).__name__ == "builtin_function_or_method"
    assert "general lookup" in namespace.__doc__


@pytest.mark.parametrize("args", [
    (), (np.ones(3),), (np.ones(3), 2.0), (1, 2.0, 3j), (np.float64(1.5),), (np.ones(2), np.ones(2), 0.5),
])
def test_numpy_and_numbers_are_numpy(args):
    assert namespace(*args) is np


def test_agrees_with_the_general_lookup():
    class Sub(np.ndarray):
        pass
    cases = [(np.ones(2).view(Sub),), (np.float32(1.0),), ([1.0, 2.0],), ([np.ones(2)], 1.0), (True,),
             (None, np.ones(2)), (np.complex64(1j),)]
    for args in cases:
        assert namespace(*args) is _xp._general_namespace(*args), args


def test_tracked_numpy_values_are_numpy_other_tracked_values_are_not():
    assert namespace(Dual(np.ones(2), np.ones(2), 1)) is np
    assert namespace(Dual(2.0, 1.0, 1), np.ones(2)) is np
    xps = pytest.importorskip("array_api_strict")
    t = Dual(xps.ones(2), xps.ones(2), 1)
    assert namespace(t) is t.__array_namespace__()
    assert namespace(2.0, xps.ones(2), 1) is xps     # past the C loop at the second argument


def test_two_libraries_and_keywords_are_type_errors():
    xps = pytest.importorskip("array_api_strict")
    torch = pytest.importorskip("torch")
    with pytest.raises(NamespaceError, match="two libraries.*array_api_strict"):
        namespace(np.ones(2), xps.ones(2), torch.ones(2))
    with pytest.raises(TypeError, match="keyword"):
        namespace(x=np.ones(2))
